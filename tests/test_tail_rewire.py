"""A wrong endpoint whose tail moved is a rewired edge too (issue 10, session 49: matplotlib
seed 3232, measured first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.render.pool import RenderPool
from tests.test_mpl_reading import _benchmark_decks


@pytest.mark.slow
def test_a_line_whose_tail_moved_is_confirmed_rewired(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """Seed 3232, figure 13: "Router" -> "Filter"'s tail moved to "Sequencer". The render and
    the object tree both lose "Router" -> "Filter" and gain "Sequencer" -> "Filter"; only a
    line leaving the same source for another node paired a missing edge with an extra one,
    and a missing or extra line alone is never proof, so the deck passed. A line into the
    same target from another node, drawn with its head, pairs with it now. The faithful deck
    gets no rewired edge."""
    from judge.tools.semantic import semantic_comparison
    from tests.judge_helpers import rendered_case

    def rewired(png: Path, deck: Path) -> list[str]:
        ctx = rendered_case(render_pool, tmp_path, deck.stem, png, deck)
        found = semantic_comparison(ctx)["discrepancies"]
        return [d["evidence"] for d in found if d["confirmed"] and d["kind"] == "rewired_edge"]

    png, (deck, faithful) = _benchmark_decks(
        13, tmp_path, ["wrong_endpoint", "faithful_shapes"], seed=3232
    )
    got = rewired(png, deck)
    assert len(got) == 1 and 'starts it at "Sequencer"' in got[0], got
    assert rewired(png, faithful) == []
