"""Lines read as straight runs of ink (issue 10): where every end of a line component that
touches three or more nodes pairs off with another by a straight run, the component is read as
those lines, and each end's head is measured on its own ink, off the other runs."""

from __future__ import annotations

from tests.test_mpl_reading import _read_graph, _seeded_reference


def test_thick_lines_crossing_are_read_as_straight_runs_with_their_heads() -> None:
    """Seed 5151, figure 9 (11 px lines, 1306 px): "Embedding" -> "Scheduler" crosses two lines
    into "Planner" and one into "Filter" by their nodes. The skeleton split those crossings
    into junctions a stroke may turn at, and paired "Embedding" and "Scheduler" each with
    "Planner"; the crossings by "Router" and "Mask" read as heads at both tails. Every end
    lies on a straight run of ink to another: read as those runs, heads measured off the other
    runs, each edge reads one way, with its head."""
    img, _labels = _seeded_reference(9, seed=5151)
    _nodes, edges, _lines = _read_graph(img)
    for src, dst in [("Embedding", "Scheduler"), ("Router", "Scheduler"), ("Mask", "Optimizer")]:
        assert (src, dst, "high") in edges, edges
        assert not {e for e in edges if e[:2] == (dst, src)}, edges


def test_thin_heads_meeting_back_to_back_are_no_straight_run() -> None:
    """Seed 1313, figure 8 (2 px lines): "Residual"'s line forks into two open heads, one up
    into "Cache" and one down into "Loss", drawn back to back. Their ink is a straight run from
    "Cache" to "Loss", and read as runs the fork joined "Cache" to "Loss" and lost the head at
    "Cache" (its wrong-endpoint deck passed). Thin lines' crossings skeletonise into one
    junction anyway: only lines at least ``DRAWN_HEADS_MIN_WIDTH_PX`` wide are read as runs."""
    img, _labels = _seeded_reference(8, seed=1313)
    _nodes, edges, _lines = _read_graph(img)
    assert ("Residual", "Cache", "medium") in edges, edges
    assert ("Residual", "Loss", "medium") in edges, edges
    assert not {e for e in edges if set(e[:2]) == {"Cache", "Loss"}}, edges
