"""Cases of one reference image share its reading within a process (judge.tools.base.memo):
read once, copied to each case, never changed by another case, and judged the same."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import judge.tools.nodes as nodes_mod
from judge.tools.base import SHARED_READINGS_MAX, clear_shared_readings
from judge.tools.graphs import raster_graph
from judge.tools.semantic import semantic_comparison
from tests.judge_helpers import rendered_case

ROOT = Path(__file__).resolve().parents[1]
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) not installed")


def _count_blob_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    plain = nodes_mod.detect_blobs

    def counted(img):  # type: ignore[no-untyped-def]
        calls.append(img.shape[1])
        return plain(img)

    monkeypatch.setattr(nodes_mod, "detect_blobs", counted)
    return calls


@needs_dot
def test_cases_of_one_reference_read_it_once_and_judge_as_if_alone(
    tmp_path: Path, render_pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from builtin_accuracy import build

    bench = tmp_path / "bench"
    build("graphviz", bench, 8181, 1)
    ref = bench / "tasks" / "g8181-gv00" / "reference.png"
    decks = {v: next((bench / "candidates" / v).rglob("*.pptx")) for v in
             ("faithful_shapes", "reversed_edge")}  # fmt: skip
    # each deck rendered once; every judging below starts from a fresh case context
    rendered = {v: rendered_case(render_pool, tmp_path, v, ref, deck) for v, deck in decks.items()}
    calls = _count_blob_reads(monkeypatch)

    def judged(variant: str) -> tuple[Any, dict]:
        ctx = dataclasses.replace(rendered[variant], cache={})
        return ctx, json.loads(json.dumps(semantic_comparison(ctx), sort_keys=True))

    # cold: each case reads the reference itself
    cold = {}
    for v in decks:
        clear_shared_readings()
        cold[v] = judged(v)[1]
    assert len(calls) == 4  # reference and render, twice
    assert {d["kind"] for d in cold["reversed_edge"]["discrepancies"] if d["confirmed"]}

    # warm: the second and third cases copy the first one's reading of the reference
    clear_shared_readings()
    calls.clear()
    ctx1, warm_faithful = judged("faithful_shapes")
    g1 = raster_graph(ctx1, "reference")
    g1.nodes.clear()  # one case editing its copy changes no other case's
    g1.edges.clear()
    ctx2, warm_reversed = judged("reversed_edge")
    ctx3, again = judged("faithful_shapes")
    assert len(calls) == 4  # reference once, three renders
    assert warm_faithful == cold["faithful_shapes"] == again
    assert warm_reversed == cold["reversed_edge"]
    g2, g3 = raster_graph(ctx2, "reference"), raster_graph(ctx3, "reference")
    assert g2 is not g3 and g2.nodes and g2.to_dict(1) == g3.to_dict(1)
    # readings the cases did not ask for yet are copied too, not read again
    from judge.tools.nodes import blobs_cached

    b2, b3 = blobs_cached(ctx2, "reference"), blobs_cached(ctx3, "reference")
    assert b2 is not b3 and [b.box for b in b2] == [b.box for b in b3]
    assert len(calls) == 4


def test_the_kept_readings_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More references than SHARED_READINGS_MAX: the least recently used are read again."""
    import cv2
    import numpy as np

    from tests.judge_helpers import make_context

    calls = _count_blob_reads(monkeypatch)
    base = make_context(tmp_path)
    refs = []
    for i in range(SHARED_READINGS_MAX + 1):
        img = np.full((300, 400, 3), 255, np.uint8)
        cv2.rectangle(img, (20 + i, 40), (180, 140), (200, 120, 40), -1)
        p = tmp_path / f"ref{i}.png"
        cv2.imwrite(str(p), img)
        refs.append(p)

    def blobs_of(p: Path) -> None:
        from judge.tools.nodes import blobs_cached

        ctx = type(base)(pptx=base.pptx, reference_png=p, render_png=base.render_png,
                         pair_png=base.pair_png, pair=base.pair)  # fmt: skip
        blobs_cached(ctx, "reference")

    for p in refs:
        blobs_of(p)
    assert len(calls) == len(refs)
    blobs_of(refs[-1])  # kept
    assert len(calls) == len(refs)
    blobs_of(refs[0])  # dropped when the last one came in
    assert len(calls) == len(refs) + 1
