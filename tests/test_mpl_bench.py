"""The matplotlib development benchmark: references drawn by matplotlib from a hand layout."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from pptx import Presentation

from generation.gvbench.bench import VARIANTS
from generation.gvbench.spec import make_spec
from generation.mplbench import MatplotlibMissing, write_mpl_benchmark
from generation.mplbench.bench import task_id_for
from generation.mplbench.layout import (
    ARROWS,
    BOX_STYLES,
    CLEAR_PX,
    layers_of,
    layout,
    make_style,
)
from generation.realfig.geometry import route
from judge.rundir import iter_candidates
from tests.decks import read_deck_graph

pytest.importorskip("matplotlib")
SEED = 1234


def test_a_dozen_tasks_cover_every_arrow_box_style_and_direction() -> None:
    styles = []
    for i in range(12):
        spec = make_spec(task_id_for(SEED, i), i, SEED)
        fig, st = layout(spec, make_style(spec, i, SEED))
        styles.append(st)
        assert 600 <= fig.size[0] <= 2000 and fig.size[1] <= 2000, (fig.id, fig.size)
        assert fig.check() == []
        # every edge keeps clear of every box but its own two ends
        for e in fig.edges:
            pts = route(fig, e)
            for n in fig.nodes:
                if n.key in (e.src, e.dst):
                    continue
                x, y, w, h = n.box
                d = CLEAR_PX - 0.5
                inside = [
                    p for p in pts if x - d < p[0] < x + w + d and y - d < p[1] < y + h + d
                ]  # fmt: skip
                assert not inside, (fig.id, e.src, e.dst, n.key)
    assert {s.arrow for s in styles} == set(ARROWS)
    assert {s.box for s in styles} == set(BOX_STYLES)
    assert {s.route for s in styles} == {"straight", "arc", "elbow"}
    assert {s.rankdir for s in styles} == {"LR", "TB"}
    assert any(s.jpeg for s in styles) and not all(s.jpeg for s in styles)
    assert any(s.panel for s in styles) and any(s.title for s in styles)


def test_layers_follow_edges_and_ignore_back_edges() -> None:
    # 0 -> 1 -> 2 -> 0 (back), 3 feeds 2: 3 sits just before 2, not in the first layer
    layers = layers_of(4, [(0, 1), (1, 2), (2, 0), (3, 2)])
    where = {v: i for i, layer in enumerate(layers) for v in layer}
    assert where[0] < where[1] < where[2]
    assert where[3] == where[2] - 1


def _ink(img: np.ndarray, x: float, y: float, r: int = 2) -> np.ndarray:
    h, w = img.shape[:2]
    xi, yi = int(round(x)), int(round(y))
    return img[max(0, yi - r) : min(h, yi + r + 1), max(0, xi - r) : min(w, xi + r + 1)]


def test_benchmark_images_show_the_truth_and_decks_rebuild_it(tmp_path: Path) -> None:
    out = tmp_path / "mpl"
    labels = write_mpl_benchmark(out, SEED, 2)
    assert len(labels) == 2 * len(VARIANTS)
    assert {lb.variant: lb.gate for lb in labels} == {n: v.gate for n, v in VARIANTS.items()}
    assert len(list(iter_candidates(out))) == len(labels)
    manifest = json.loads((out / "bench.json").read_text())
    ids = [task_id_for(SEED, 0), task_id_for(SEED, 1)]
    assert manifest["folds"] == {ids[0]: 0, ids[1]: 1}
    for i, tid in enumerate(ids):
        spec = make_spec(tid, i, SEED)
        fig, _ = layout(spec, make_style(spec, i, SEED))
        with Image.open(out / "tasks" / tid / "reference.png") as im:
            assert im.size == fig.size
            img = np.asarray(im.convert("RGB")).astype(int)
        for n in fig.nodes:  # a node's fill (or the white page) fills the middle of its box
            x, y, w, h = n.box
            mid = img[int(y + 0.3 * h) : int(y + 0.7 * h), int(x + 0.3 * w) : int(x + 0.7 * w)]
            seen = np.median(mid.reshape(-1, 3), axis=0)
            rgb = [int(n.fill[k : k + 2], 16) for k in (0, 2, 4)] if n.fill else [255, 255, 255]
            assert np.abs(seen - np.array(rgb)).max() < 24, (tid, n.key, seen, rgb)
        for e in fig.edges:  # the line is drawn where the spec routes it
            pts = route(fig, e)
            at = (
                pts[len(pts) // 2]
                if len(pts) > 2
                else ((pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2)
            )
            darkest = _ink(img, at[0], at[1], 3).reshape(-1, 3).sum(axis=1).min()
            assert darkest < 3 * 200, (tid, e.src, e.dst, at)
        truth = {(e.src, e.dst) for e in fig.edges}
        slide_w = Presentation(str(out / "candidates/faithful_shapes" / f"{tid}.pptx")).slide_width
        for how in ("faithful_shapes", "faithful_overlay"):
            nodes, edges = read_deck_graph(out / "candidates" / how / f"{tid}.pptx")
            assert edges == truth, (tid, how)
            for n in fig.nodes:  # node centres where matplotlib drew them
                b = nodes[n.key]
                k = slide_w / fig.size[0]
                assert abs(b[0] + b[2] / 2 - (n.box[0] + n.box[2] / 2) * k) < 0.005 * slide_w
        _, rev = read_deck_graph(out / "candidates" / "reversed_edge" / f"{tid}.pptx")
        assert len(rev - truth) == 1 and len(truth - rev) == 1
        ((tail, head),) = rev - truth
        assert (head, tail) in truth


def test_missing_matplotlib_is_a_clear_typed_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def no_mpl(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_mpl)
    with pytest.raises(MatplotlibMissing, match=r"pip install -e '\.\[dev\]'"):
        write_mpl_benchmark(tmp_path / "b", SEED, 1)
