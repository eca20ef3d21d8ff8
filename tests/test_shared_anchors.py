"""A head and another line's tail at one anchor of a node: the line leaving there starts at that
node (issue 10, session 43: matplotlib seed 4646, drawn fresh and measured before this change;
seed 3838's figure 4 has the same structure)."""

from __future__ import annotations

from pathlib import Path

from tests.test_overlapping_heads import _read_seeded


def test_a_line_leaving_beside_a_head_starts_at_its_node(tmp_path: Path) -> None:
    """Seed 4646, figure 4 (matplotlib): "Mapper" -> "Align" ends with its head on the left
    anchor of "Align", and the back arc "Align" -> "Critic" leaves from that same anchor. The
    node was touched once, by a head, and the arc's edge was lost; the decks reversing
    "Pooling" -> "Critic" or moving "Evaluate" -> "Mapper"'s head passed. The head's own
    line runs on along its axis; the other leaves at an angle, to a head of its own.
    ("Align" -> "Pooling", leaving "Align" on the right: ``tests/test_touch_places.py``.)"""
    truth, nodes, edges = _read_seeded(tmp_path, 4, seed=4646)
    assert nodes == truth, nodes
    for src, dst in (("Align", "Critic"), ("Pooling", "Critic"), ("Mapper", "Align")):
        assert any(e[:2] == (src, dst) and e[2] in ("high", "medium") for e in edges), edges
    assert not any(e[:2] == ("Critic", "Align") for e in edges), edges


def test_a_back_arc_leaving_beside_a_head_is_read(tmp_path: Path) -> None:
    """Seed 3838, figure 4 (matplotlib): the long arc "Output" -> "Feature Map" leaves the
    anchor of "Output" where "Mask" -> "Output" ends with its head, and lands on "Feature Map"
    beside the head of "Mask" -> "Feature Map". The arc's edge was lost (both its ends read
    as heads). Two heads landing on one anchor stay heads of both lines."""
    truth, nodes, edges = _read_seeded(tmp_path, 4, seed=3838)
    assert nodes == truth, nodes
    for src, dst in (
        ("Output", "Feature Map"),
        ("Mask", "Feature Map"),
        ("Mask", "Output"),
    ):
        assert any(e[:2] == (src, dst) and e[2] in ("high", "medium") for e in edges), edges
    assert not any(e[:2] == ("Output", "Mask") for e in edges), edges
