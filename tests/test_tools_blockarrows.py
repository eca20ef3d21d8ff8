"""Block arrows (``rightArrow`` and its kin) are edges, not nodes: a deck that draws its
connections as wide block-arrow autoshapes, rendered by LibreOffice and judged against a
reference drawn with plain arrows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu, Pt

from judge.render.pool import RenderPool
from tests.judge_helpers import rendered_case
from tests.test_tools_icons import PX, _box, _slide

NODES = {"Ingest": (80, 360), "Transform": (620, 360), "Serve": (1160, 360), "Audit": (620, 40)}
BOX_W, BOX_H = 360, 140


def _e(v: float) -> Emu:
    return Emu(int(v * PX))


def _boxes(slide: Any) -> None:
    for text, (x, y) in NODES.items():
        _box(slide, x, y, BOX_W, BOX_H, text)


EDGES = (("Ingest", "Transform"), ("Transform", "Serve"), ("Transform", "Audit"))


def _ends(a: str, b: str) -> tuple[tuple[float, float], tuple[float, float]]:
    (ax, ay), (bx, by) = NODES[a], NODES[b]
    if ay == by:  # side by side: right edge to left edge
        return (ax + BOX_W, ay + BOX_H / 2), (bx, by + BOX_H / 2)
    return (ax + BOX_W / 2, ay), (bx + BOX_W / 2, by + BOX_H)  # below to above


def _reference(path: Path) -> None:
    prs, slide = _slide()
    _boxes(slide)
    for a, b in EDGES:
        (x0, y0), (x1, y1) = _ends(a, b)
        c = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, _e(x0), _e(y0), _e(x1), _e(y1))
        c.line.width = Pt(2.5)
        c.line.color.rgb = RGBColor(0x40, 0x40, 0x40)
        ln = c.line._get_or_add_ln()
        ln.append(ln.makeelement("{http://schemas.openxmlformats.org/drawingml/2006/main}tailEnd",
                                 {"type": "triangle"}))  # fmt: skip
    prs.save(str(path))


def _block_deck(path: Path, reversed_edge: tuple[str, str] | None = None) -> None:
    """The edges as block arrows: a ``rightArrow`` laid along each, rotated to point at its
    target (``reversed_edge`` points the other way)."""
    import math

    prs, slide = _slide()
    _boxes(slide)
    for a, b in EDGES:
        (x0, y0), (x1, y1) = _ends(a, b)
        if (a, b) == reversed_edge:
            (x0, y0), (x1, y1) = (x1, y1), (x0, y0)
        length, thick = math.hypot(x1 - x0, y1 - y0) - 16, 44
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        s = slide.shapes.add_shape(MSO_SHAPE.RIGHT_ARROW, _e(cx - length / 2), _e(cy - thick / 2),
                                   _e(length), _e(thick))  # fmt: skip
        s.rotation = math.degrees(math.atan2(y1 - y0, x1 - x0))
        s.fill.solid()
        s.fill.fore_color.rgb = RGBColor(0x70, 0x70, 0x70)
        s.line.fill.background()
    prs.save(str(path))


def _judge(render_pool: RenderPool, tmp_path: Path, name: str, ref_png: Path, pptx: Path) -> Any:
    from judge.tools.semantic import semantic_comparison

    ctx = rendered_case(render_pool, tmp_path, name, ref_png, pptx)
    return ctx, semantic_comparison(ctx)


@pytest.mark.slow
def test_block_arrows_are_edges_of_the_deck(render_pool: RenderPool, tmp_path: Path) -> None:
    """Before, each block arrow was an unlabelled node of the deck and the deck had no edges,
    so a block arrow pointing the wrong way was let through. Now the tree reads each one as an
    edge from the shape at its tail to the shape at its tip (flips and rotation applied): the
    faithful deck has no confirmed difference, the reversed one a confirmed reversal. The
    render's raster reading reads each block arrow's direction too (before: undirected)."""
    from judge.tools.graphs import raster_graph, tree_graph

    ref_png = tmp_path / "reference.png"
    _reference(tmp_path / "reference.pptx")
    render_pool.render(tmp_path / "reference.pptx", ref_png)
    got: dict[str, list[dict[str, Any]]] = {}
    for name, rev in (("faithful", None), ("reversed", ("Transform", "Serve"))):
        pptx = tmp_path / f"{name}.pptx"
        _block_deck(pptx, rev)
        ctx, sc = _judge(render_pool, tmp_path, name, ref_png, pptx)
        tree = tree_graph(ctx)
        assert tree is not None
        label = {n.id: n.label for n in tree.nodes}
        assert sorted(label.values()) == sorted(NODES), "a block arrow was read as a node"
        edges = {(label[e.src], label[e.dst]) for e in tree.edges if e.direction == "high"}
        want = {rev[::-1] if (a, b) == rev else (a, b) for a, b in EDGES} if rev else set(EDGES)
        assert edges == want, (name, sorted(edges))
        # the render's raster reading sees each block arrow's head too (a wedge twice as wide
        # as its shaft, no thicker than it)
        ren = raster_graph(ctx, "candidate")
        rl = {n.id: n.label for n in ren.nodes}
        directed = {(rl[e.src], rl[e.dst]) for e in ren.edges if e.direction in ("high", "medium")}
        assert {e for e in want if "Ingest" not in e} <= directed, (name, sorted(directed))
        assert not {(b, a) for a, b in want} & directed, (name, sorted(directed))
        got[name] = [d for d in sc["discrepancies"] if d["confirmed"]]
    assert not got["faithful"], got["faithful"]
    assert [(d["kind"], d["target"]) for d in got["reversed"]] == [
        ("reversed_edge", 'edge "Transform" -> "Serve"')
    ], got["reversed"]
