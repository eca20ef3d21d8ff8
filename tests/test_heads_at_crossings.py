"""A reversed arrow whose reference line crosses another, confirmed by reading both images at
the deck connector's own ends (issue 10)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge.render.pool import RenderPool
from tests.test_unseen_seed_readings import _confirmed

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) not installed")


def _graphviz_decks(
    index: int, seed: int, tmp_path: Path, variants: list[str]
) -> tuple[Path, list[Path]]:
    """Figure ``index`` of our Graphviz benchmark drawn with ``seed`` (its reference PNG) and
    its decks for ``variants``, built as the benchmark builds them."""
    from generation.gvbench.bench import VARIANTS, task_id_for
    from generation.gvbench.layout import draw
    from generation.gvbench.spec import make_spec
    from generation.realfig.deck import CONSTRUCTIONS, build_deck

    drawn = draw(make_spec(task_id_for(seed, index), index, seed))
    png = tmp_path / f"gv{seed}-{index}.png"
    png.write_bytes(drawn.png)
    decks = []
    for name in variants:
        built = VARIANTS[name].make(drawn.fig, CONSTRUCTIONS[index % 2])
        deck = tmp_path / f"{name}-gv{seed}-{index}.pptx"
        deck.write_bytes(build_deck(built.fig, built.construction, frozenset()))
        decks.append(deck)
    return png, decks


@needs_dot
@pytest.mark.slow
def test_a_reversed_arrow_at_a_crossing_is_read_at_its_ends(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """Graphviz seed 8181, figure 7: the spline "Router" -> "Sequencer" crosses another line,
    so the reference edge has a ``medium`` direction from paired strokes, marked crossed (a
    crossing's strokes may pair wrongly), and the reversed deck's difference stayed
    unconfirmed: the deck passed. The heads at the connector's own ends do not depend on the
    pairing: the render reads the deck's head at "Router" and none at "Sequencer", the
    reference a clear head (one line behind it, 2.6 times its line) at "Sequencer" and none at
    "Router". The faithful deck gets no confirmed difference."""
    png, (reversed_, faithful) = _graphviz_decks(
        7, 8181, tmp_path, ["reversed_edge", "faithful_shapes"]
    )
    assert ("reversed_edge", 'edge "Router" -> "Sequencer"') in _confirmed(
        render_pool, tmp_path, png, reversed_
    )
    assert _confirmed(render_pool, tmp_path, png, faithful) == []
