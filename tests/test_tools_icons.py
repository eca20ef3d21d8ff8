"""Pictures and logos are not nodes: a box holding one graphic bigger than a glyph (a chip
photo's maker's mark) is an icon, a flat box with the same caption is a node. Read from a
python-pptx deck rendered by LibreOffice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import pytest
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_SHAPE
from pptx.enum.text import MSO_ANCHOR
from pptx.util import Emu, Pt

from judge.render.pool import RenderPool
from judge.tools.graphread import node_blobs
from judge.tools.nodes import Blob, detect_blobs
from judge.tools.ocr import ocr_image

SLIDE_W, SLIDE_H = 12192000, 6858000
PX = SLIDE_W / 1600  # EMU per pixel of a 1600-px-wide layout
CHIP = RGBColor(0x2A, 0x26, 0x25)
WHITE = RGBColor(0xFF, 0xFF, 0xFF)


def _square(slide: object, x: int, y: int, side: int, caption: str, logo: bool) -> None:
    s = slide.shapes.add_shape(  # type: ignore[attr-defined]
        MSO_SHAPE.ROUNDED_RECTANGLE, Emu(int(x * PX)), Emu(int(y * PX)),
        Emu(int(side * PX)), Emu(int(side * PX)),
    )  # fmt: skip
    s.adjustments[0] = 0.08
    s.fill.solid()
    s.fill.fore_color.rgb = CHIP
    s.line.fill.background()
    tf = s.text_frame
    tf.vertical_anchor = MSO_ANCHOR.BOTTOM
    if caption:
        tf.text = caption
        run = tf.paragraphs[0].runs[0]
        run.font.size, run.font.color.rgb = Pt(12), WHITE
    if logo:  # a red disc with a dark swoosh in the upper left, like a maker's mark
        d = side * 0.22  # under a node's least side: part of the chip, not a blob of its own
        disc = slide.shapes.add_shape(  # type: ignore[attr-defined]
            MSO_SHAPE.OVAL, Emu(int((x + side * 0.1) * PX)), Emu(int((y + side * 0.1) * PX)),
            Emu(int(d * PX)), Emu(int(d * PX)),
        )  # fmt: skip
        disc.fill.solid()
        disc.fill.fore_color.rgb = RGBColor(0xE8, 0x4B, 0x3C)
        disc.line.fill.background()
        bar = slide.shapes.add_shape(  # type: ignore[attr-defined]
            MSO_SHAPE.WAVE, Emu(int((x + side * 0.15) * PX)), Emu(int((y + side * 0.2) * PX)),
            Emu(int(d * 0.7 * PX)), Emu(int(d * 0.25 * PX)),
        )  # fmt: skip
        bar.fill.solid()
        bar.fill.fore_color.rgb = RGBColor(0x7A, 0x12, 0x0C)
        bar.line.fill.background()


def _slide() -> tuple[Any, Any]:
    """A blank 16:9 deck and its one slide."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(SLIDE_W), Emu(SLIDE_H)
    return prs, prs.slides.add_slide(prs.slide_layouts[6])


def _read(pool: RenderPool, prs: Any, deck: Path) -> tuple[float, list[Blob], list[int], set[int]]:
    """Save ``prs`` at ``deck``, render it and read it: (render pixels per layout pixel, blobs,
    node blobs, icon blobs)."""
    prs.save(str(deck))
    png = deck.with_suffix(".png")
    pool.render(deck, png)
    img = cv2.imread(str(png))
    assert img is not None, png
    blobs = detect_blobs(img)
    leaves, _kids, _glyphs, icons = node_blobs(blobs, ocr_image(img), img)
    return img.shape[1] / 1600, blobs, leaves, icons


@pytest.mark.slow
def test_a_box_holding_a_logo_is_an_icon_and_a_flat_box_is_a_node(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    prs, slide = _slide()
    _square(slide, 300, 350, 110, "Qualcomm", logo=True)
    _square(slide, 1000, 350, 110, "Qualcomm", logo=False)
    sx, blobs, leaves, icons = _read(render_pool, prs, tmp_path / "chips.pptx")

    def at(cx: float) -> int:
        hits = [i for i, b in enumerate(blobs) if b.box[0] <= cx * sx <= b.box[0] + b.box[2]]
        outer = [i for i in hits if blobs[i].depth == 0]
        assert outer, f"no blob at x={cx}: {[b.box for b in blobs]}"
        return outer[0]

    chip, plain = at(355), at(1055)
    assert chip in icons, "the box with a logo was read as a node"
    assert plain in leaves and plain not in icons, "the flat captioned box was read as an icon"


@pytest.mark.slow
def test_a_filled_cylinder_with_its_shaded_cap_is_a_node(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """LibreOffice shades a filled can's top lighter: a flat band across the whole shape. It is
    the shape's own drawing, not a picture on it (before, the cap made the cylinder "busy",
    an icon, and a database node was lost)."""
    prs, slide = _slide()
    can = slide.shapes.add_shape(
        MSO_SHAPE.CAN, Emu(int(700 * PX)), Emu(int(350 * PX)), Emu(int(180 * PX)),
        Emu(int(120 * PX)),
    )  # fmt: skip
    can.fill.solid()
    can.fill.fore_color.rgb = RGBColor(0x1F, 0x6F, 0x78)
    can.line.color.rgb = RGBColor(0x12, 0x40, 0x48)
    can.text_frame.text = "Router"
    run = can.text_frame.paragraphs[0].runs[0]
    run.font.size, run.font.color.rgb = Pt(16), WHITE
    sx, blobs, leaves, icons = _read(render_pool, prs, tmp_path / "can.pptx")
    cx, cy = 790 * sx, 410 * sx
    hits = [i for i, b in enumerate(blobs) if b.box[0] <= cx <= b.box[0] + b.box[2]
            and b.box[1] <= cy <= b.box[1] + b.box[3]]  # fmt: skip
    assert hits and hits[-1] in leaves and hits[-1] not in icons


def _box(slide: Any, x: int, y: int, w: int, h: int, text: str) -> None:
    s = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, Emu(int(x * PX)), Emu(int(y * PX)),
                               Emu(int(w * PX)), Emu(int(h * PX)))  # fmt: skip
    s.fill.solid()
    s.fill.fore_color.rgb = RGBColor(0xDD, 0xE8, 0xF5)
    s.line.color.rgb = RGBColor(0x1F, 0x3A, 0x5F)
    s.text_frame.text = text
    run = s.text_frame.paragraphs[0].runs[0]
    run.font.size, run.font.color.rgb = Pt(16), RGBColor(0, 0, 0)


def _logo(slide: Any, x: int, y: int, side: int) -> None:
    """A chip with a maker's mark (as ``_square`` draws it) and no caption: a picture with no
    text to read."""
    _square(slide, x, y, side, "", logo=True)


@pytest.mark.slow
def test_a_shape_standing_for_a_reference_logo_is_no_invented_node(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """The reference shows three nodes and a logo with no caption. A deck that approximates the
    logo with a labelled native box at its place has no confirmed extra node (icons may be
    approximated or left out); the same box where the reference shows nothing is one."""
    from judge.tools.semantic import semantic_comparison
    from tests.judge_helpers import rendered_case

    nodes = [(100, 300, "Sensor input"), (600, 300, "Feature decoder"), (1100, 300, "Planner")]

    def deck(name: str, box_at: tuple[int, int] | None) -> Path:
        prs, slide = _slide()
        for x, y, t in nodes:
            _box(slide, x, y, 360, 140, t)
        if box_at is None:
            _logo(slide, 660, 600, 220)
        else:
            _box(slide, box_at[0], box_at[1], 220, 220, "Snapdragon")
        path = tmp_path / f"{name}.pptx"
        prs.save(str(path))
        return path

    ref_png = tmp_path / "reference.png"
    render_pool.render(deck("reference", None), ref_png)
    extra: dict[str, list[dict[str, Any]]] = {}
    for name, at in (("approximated", (660, 600)), ("invented", (1300, 40))):
        ctx = rendered_case(render_pool, tmp_path, name, ref_png, deck(name, at))
        extra[name] = [d for d in semantic_comparison(ctx)["discrepancies"]
                       if d["kind"] == "extra_node" and d["confirmed"]]  # fmt: skip
    assert not extra["approximated"], extra["approximated"]
    assert extra["invented"], "the invented box was not confirmed"
