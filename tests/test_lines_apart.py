"""Two lines leaving one side of a node close together stay two lines (issue 10, session 41:
matplotlib seed 1717, drawn fresh and measured before this change)."""

from __future__ import annotations

from pathlib import Path

from tests.test_overlapping_heads import _read_seeded


def test_lines_leaving_a_node_side_by_side_are_not_one_fan(tmp_path: Path) -> None:
    """Seed 1717, figure 12 (matplotlib): "Align" -> "Monitor" and "Align" -> "Softmax" leave
    the bottom of "Align" 9 px apart, each 4.6 px wide. The 11 px dash closing bridged their
    tails into one component whose strokes paired every way, so neither edge kept its
    direction and the deck reversing "Align" -> "Softmax" passed. Two pieces of ink with no
    head near them and at least 1.5 line widths apart are two lines, whatever the closing
    bridges."""
    truth, nodes, edges = _read_seeded(tmp_path, 12, seed=1717)
    assert nodes == truth, nodes
    for src, dst in (("Align", "Monitor"), ("Align", "Softmax")):
        assert (src, dst, "high") in edges, edges
        assert not any(e[:2] == (dst, src) for e in edges), edges
