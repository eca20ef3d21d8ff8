"""The raster reader on diagrams drawn by matplotlib (``bench/mpl_smoke.py``'s seeded
figures: ``FancyBboxPatch`` boxes, ``FancyArrowPatch`` arrows): no edge is read backwards, and
where lines fan out of one point and arrows meet at one head (figure 7) every edge is read
with its direction."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from bench.mpl_smoke import draw, read


@pytest.mark.slow
def test_matplotlib_fans_are_not_read_as_arrowheads(tmp_path: Path) -> None:
    """Before, the point several lines leave from read as a head (figure 7: 2 of 8 edges) and
    the ``simple`` wedge arrows of figure 4 read backwards."""
    backwards: dict[int, set[tuple[str, str]]] = {}
    for seed in range(8):
        png = tmp_path / f"m{seed}.png"
        truth, _style = draw(seed, png)
        got = read(png)
        wrong = {(b, a) for a, b in truth} & got
        if wrong:
            backwards[seed] = wrong
        if seed == 7:
            assert truth <= got, f"fan figure: missing {sorted(truth - got)}"
    assert not backwards, backwards
