"""A render that only pairs a tangle's strokes into the reference's edge does not show it
(issue 10, session 50: matplotlib seed 4343, measured first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.render.pool import RenderPool
from tests.test_mpl_reading import _benchmark_decks


@pytest.mark.slow
def test_a_moved_head_crossing_lines_is_confirmed_rewired(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """Seed 4343, figure 3: "Loss" -> "Preprocess" moved its head to "Residual", across two
    other lines. The reference reads the old edge as one plain arrow; the render reader pairs
    the strokes of the three crossing lines and reads "Loss" -> "Preprocess" among them, and
    that reading alone let the deck pass although the object tree joins no line between the
    two and leads one from "Loss" to "Residual". The faithful decks get no rewired edge."""
    from judge.tools.semantic import semantic_comparison
    from tests.judge_helpers import rendered_case

    def rewired(png: Path, deck: Path) -> list[str]:
        ctx = rendered_case(render_pool, tmp_path, deck.stem, png, deck)
        found = semantic_comparison(ctx)["discrepancies"]
        return [
            f"{d['target']}: {d['evidence']}"
            for d in found
            if d["confirmed"] and d["kind"] == "rewired_edge"
        ]

    png, (deck, *faithful) = _benchmark_decks(
        3, tmp_path, ["wrong_endpoint", "faithful_shapes", "faithful_overlay"], seed=4343
    )
    got = rewired(png, deck)
    assert len(got) == 1 and '"Loss" -> "Preprocess"' in got[0], got
    assert 'leads it to "Residual"' in got[0], got
    for other in faithful:
        assert rewired(png, other) == [], other.name
