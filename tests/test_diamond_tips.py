"""A diamond's points cut off by the opening that trims lines off nodes come back even where
line stubs leave its body no straight taper (issue 10, session 41: matplotlib seed 2727, drawn
fresh and measured before this change)."""

from __future__ import annotations

from pathlib import Path

from tests.test_overlapping_heads import _read_seeded


def test_a_diamond_keeps_its_point_beside_fat_line_stubs(tmp_path: Path) -> None:
    """Seed 2727, figure 10 (matplotlib): the filled diamond "Embedding" has three 10 px
    arrows on its lower sides. The opening that trims them off leaves a square lump by their
    stubs, so the body's outline there is no straight taper; the diamond lost its right third,
    which was then read as a line with a head at each end joining "Embedding" and "Input",
    and the head of "Attention" -> "Embedding" on its upper side went unread. The point is
    now fitted on the cut ink itself."""
    truth, nodes, edges = _read_seeded(tmp_path, 10, seed=2727)
    assert nodes == truth, nodes
    assert ("Attention", "Embedding", "high") in edges, edges
    assert not any({e[0], e[1]} == {"Embedding", "Input"} for e in edges), edges
