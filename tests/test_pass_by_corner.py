"""A line passing a node's corner on its way between two others does not end there (issue
10, session 48: matplotlib seed 9797, measured first in session 47)."""

from __future__ import annotations

from pathlib import Path

from tests.test_overlapping_heads import _read_seeded


def test_line_passing_a_corner_beside_its_label_joins_the_far_node(tmp_path: Path) -> None:
    """Seed 9797, figure 0: "Annotate" -> "Indexer" passes "Segment"'s corner where its edge
    label "batch" touches it. The line touched three nodes, and the corner, thickened by the
    label's letters, read as a head: the reference read "Annotate" -> "Segment" and every pass
    deck "confirmed" a rewired edge. A headed touch with no end of the line's skeleton by it and
    the line's pixels round it on both sides is a pass-by: dropped, the nodes either side
    joined."""
    _truth, _nodes, edges = _read_seeded(tmp_path, 0, seed=9797)
    assert ("Annotate", "Indexer", "high") in edges, edges
    assert not any({"Annotate", "Segment"} == {a, b} for a, b, _ in edges), edges


def test_two_lines_meeting_at_a_node_are_no_pass_by(tmp_path: Path) -> None:
    """Seed 3838, figure 10: "Cache" -> "Augment" arrives where "Augment" -> "Assembler"
    leaves; their skeleton runs on through the meeting point, with no end there, but both
    lines lie on one side of it: "Augment" stays touched, both edges read."""
    _truth, _nodes, edges = _read_seeded(tmp_path, 10, seed=3838)
    assert ("Cache", "Augment", "high") in edges, edges
    assert ("Augment", "Assembler", "high") in edges, edges
