"""A head longer than the shaft behind it leaves that line's tail a tail (issue 10, session 46:
matplotlib seed 7575, figure 12, measured first in session 45)."""

from __future__ import annotations

from pathlib import Path

from tests.test_overlapping_heads import _read_seeded


def test_big_heads_on_short_lines_read_one_way(tmp_path: Path) -> None:
    """Seed 7575, figure 12 (matplotlib): nodes in a row 60-70 px apart, joined by lines whose
    heads (about 50 px) are longer than their shafts. Each edge read both ways at ``medium``,
    so the deck with one reversed let it through."""
    _truth, _nodes, edges = _read_seeded(tmp_path, 12, seed=7575)
    for src, dst in (
        ("Planner", "Validate"),
        ("Tracker", "Validate"),
        ("Validate", "Scheduler"),
        ("Dataset", "Reviewer"),
    ):
        assert (src, dst, "high") in edges, edges
        assert not any(e[:2] == (dst, src) for e in edges), edges


def test_big_heads_into_ellipses_read_one_way(tmp_path: Path) -> None:
    """Seed 3838, figure 5 (matplotlib): a column of ellipses joined by short lines with big
    heads; each of the five edges down the column read both ways."""
    _truth, _nodes, edges = _read_seeded(tmp_path, 5, seed=3838)
    for src, dst in (
        ("Upsample", "Detector"),
        ("Detector", "Reviewer"),
        ("Reviewer", "Segment"),
        ("Segment", "Retriever"),
        ("Retriever", "Simulator"),
    ):
        assert (src, dst, "high") in edges, edges
        assert not any(e[:2] == (dst, src) for e in edges), edges
