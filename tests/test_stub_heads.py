"""A head longer than the shaft behind it leaves that line's tail a tail (issue 10, session 46:
matplotlib seed 7575, figure 12, measured first in session 45).

Seed 7575, figure 12: nodes in a row 60-70 px apart, joined by lines whose heads (about
50 px) are longer than their shafts; each edge read both ways at ``medium``, so the deck with
one reversed let it through. Seed 3838, figure 5: a column of ellipses joined by short lines
with big heads; each of the five edges down the column read both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_overlapping_heads import _read_seeded

CASES = [
    (
        7575,
        12,
        [
            ("Planner", "Validate"),
            ("Tracker", "Validate"),
            ("Validate", "Scheduler"),
            ("Dataset", "Reviewer"),
        ],
    ),
    (
        3838,
        5,
        [
            ("Upsample", "Detector"),
            ("Detector", "Reviewer"),
            ("Reviewer", "Segment"),
            ("Segment", "Retriever"),
            ("Retriever", "Simulator"),
        ],
    ),
]


@pytest.mark.parametrize("seed,index,pairs", CASES, ids=["7575-fig12", "3838-fig5"])
def test_big_heads_on_short_lines_read_one_way(
    tmp_path: Path, seed: int, index: int, pairs: list[tuple[str, str]]
) -> None:
    _truth, _nodes, edges = _read_seeded(tmp_path, index, seed=seed)
    for src, dst in pairs:
        assert (src, dst, "high") in edges, edges
        assert not any(e[:2] == (dst, src) for e in edges), edges
