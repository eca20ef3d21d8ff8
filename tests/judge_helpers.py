"""Helpers of the judge-engine tests: real decks (python-pptx), real images, real pairs.

Not a test module: imported by test_agent, test_graph, test_runner, test_tools_view,
test_backends, and the semantic-check tests (test_tools_icons, test_tools_blockarrows,
test_look_again).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from lxml import etree
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu, Inches, Pt

from judge.render.prepare import prepare_pair
from judge.schema import Taxonomy
from judge.tools.base import ToolContext

A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"

BOX_COLOUR_BGR = (200, 120, 40)
"""Fill of the boxes in the synthetic images (a blue, BGR)."""


def flow_deck(path: Path, labels: tuple[str, ...] = ("Encode", "Train", "Decode")) -> Path:
    """A one-slide flowchart: boxes left to right, joined by arrowed connectors."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(10), Inches(7.5)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    shapes = []
    for i, label in enumerate(labels):
        shp = slide.shapes.add_shape(
            MSO_SHAPE.ROUNDED_RECTANGLE, Inches(0.6 + 3.2 * i), Inches(3), Inches(2.2), Inches(1.2)
        )
        shp.text_frame.text = label
        shp.text_frame.paragraphs[0].runs[0].font.size = Pt(20)
        shapes.append(shp)
    for a, b in itertools.pairwise(shapes):
        con = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
        con.begin_connect(a, 3)
        con.end_connect(b, 1)
        ln = con.line._get_or_add_ln()
        tail = etree.SubElement(ln, f"{{{A_NS}}}tailEnd")
        tail.set("type", "triangle")
        con.line.width = Emu(25400)
    prs.save(str(path))
    return path


def flow_image(path: Path, n_boxes: int = 3, size: tuple[int, int] = (1000, 750)) -> Path:
    """A raster flowchart like :func:`flow_deck` draws: filled boxes and arrows, white ground."""
    w, h = size
    img = np.full((h, w, 3), 255, dtype=np.uint8)
    bw, bh = int(w * 0.22), int(h * 0.16)
    y = int(h * 0.4)
    xs = [int(w * (0.06 + 0.32 * i)) for i in range(n_boxes)]
    for x in xs:
        cv2.rectangle(img, (x, y), (x + bw, y + bh), BOX_COLOUR_BGR, -1)
    for x0, x1 in itertools.pairwise(xs):
        cv2.arrowedLine(img, (x0 + bw, y + bh // 2), (x1, y + bh // 2), (0, 0, 0), 3, tipLength=0.2)
    cv2.imwrite(str(path), img)
    return path


def make_context(tmp: Path, n_candidate_boxes: int = 3) -> ToolContext:
    """A tool context from real files: images drawn with OpenCV, a python-pptx deck, a real
    normalised pair (no LibreOffice)."""
    from judge.artifact.ooxml import read_object_tree

    ref = flow_image(tmp / "reference.png", 3, (1000, 750))
    render = flow_image(tmp / "render.png", n_candidate_boxes, (1280, 960))
    deck = flow_deck(tmp / "deck.pptx")
    pair = prepare_pair(ref, render, tmp / "pair.png")
    return ToolContext(
        pptx=deck,
        reference_png=ref,
        render_png=render,
        pair_png=tmp / "pair.png",
        pair=pair,
        object_tree=read_object_tree(deck),
    )


def rendered_case(pool: Any, tmp: Path, name: str, ref_png: Path, pptx: Path) -> Any:
    """Render ``pptx`` with ``pool`` (a ``RenderPool``) into ``tmp/name`` and return the tool
    context of the case judged against ``ref_png`` (the engine's own ``make_context``)."""
    from judge.engine.graph import make_context as engine_context
    from judge.rundir import CaseDir
    from judge.schema import Candidate

    cd = CaseDir(tmp / name)
    cd.root.mkdir()
    pool.render(pptx, cd.render_png)
    pair = prepare_pair(ref_png, cd.render_png, cd.pair_png)
    cand = Candidate(case_id=f"{name}/t", task_id="t", config_id=name, pptx=str(pptx),
                     reference=str(ref_png))  # fmt: skip
    return engine_context(cand, cd, pair, pool.export_svg)


def first_subtype(tax: Taxonomy) -> tuple[str, str, str]:
    """(dimension, category, subtype) of some real subtype of the taxonomy."""
    for dim in tax.dimensions:
        for cat in dim.categories:
            for sub in cat.subtypes:
                if sub.tier != "diagnostic":
                    return dim.name, cat.name, sub.name
    raise AssertionError("taxonomy has no scored subtype")


def detail_args(tax: Taxonomy, fraction: float = 0.2) -> dict[str, Any]:
    dim, cat, sub = first_subtype(tax)
    return {
        "findings": [
            {
                "dimension": dim,
                "category": cat,
                "subtype": sub,
                "location": 'node "Train"',
                "description": "differs from the reference",
                "affected_count": 1,
            }
        ],
        "fractions": [{"dimension": dim, "category": cat, "fraction": fraction}],
    }


def script_lines(*events: dict[str, Any]) -> str:
    """A hand-written replay script (JSONL)."""
    return "".join(json.dumps(e) + "\n" for e in events)


def passing_script(tax: Taxonomy) -> str:
    return script_lines(
        {"stage": "semantic", "kind": "tool_call", "tool_name": "object_tree", "arguments": {}},
        {"stage": "semantic", "kind": "submit", "arguments": {"passed": True}},
        {"stage": "render", "kind": "submit", "arguments": {"passed": True}},
        {"stage": "detail", "kind": "submit", "arguments": detail_args(tax)},
    )


def failing_script() -> str:
    reason = {"target": 'edge "Encode" -> "Train"', "evidence": "arrowhead reversed"}
    return script_lines(
        {"stage": "semantic", "kind": "submit", "arguments": {"passed": False, "reasons": [reason]}}
    )
