"""Build candidate decks (PPTX) from a :class:`~generation.diagram.Diagram` with python-pptx.

The slide is 16:9 (13.333 x 7.5 in); one reference pixel is :data:`EMU_PER_PX` EMU, so the deck
lays out exactly like the reference and LibreOffice renders it with the same fonts. Shapes carry
explicit fill, line and font properties and no theme style (``p:style`` removed), so nothing
depends on the default theme.

Edge styles (``DeckOptions.style``):

* ``connectors`` -- real connectors glued to the node shapes (``begin_connect``/``end_connect``:
  ``stCxn``/``endCxn`` set), straight or elbow; LibreOffice routes them from the glue points.
* ``freelines`` -- nothing glued: straight edges are unglued straight connectors, elbow edges are
  open freeform polylines; arrowheads on the line ends.
* ``groups`` -- every node is a group of a rectangle and a text box; connectors glued to the
  rectangles inside the groups.

Arrowheads are ``a:tailEnd`` on the line (``lg``/``lg`` triangles, like the reference).
Package-level extras make the artifact-gate variants (overlay picture, hyperlink, OLE, macro).
The saved bytes are deterministic: fixed core properties and zip timestamps.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from dataclasses import dataclass
from typing import Any, Literal

from lxml import etree
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_LINE_DASH_STYLE
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE, PROG_ID
from pptx.enum.text import MSO_ANCHOR, MSO_AUTO_SIZE, PP_ALIGN
from pptx.opc.package import Part
from pptx.opc.packuri import PackURI
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt

from generation.diagram import (
    CANVAS_H,
    CANVAS_W,
    PANEL_RADIUS_PX,
    PANEL_STROKE,
    PANEL_STROKE_PX,
    SIDE_INDEX,
    TITLE_PX,
    Diagram,
    Edge,
    Node,
)
from generation.draw import TITLE_INSET

SLIDE_W_EMU, SLIDE_H_EMU = 12192000, 6858000
"""16:9 slide, 13.333 x 7.5 inches."""
EMU_PER_PX = SLIDE_W_EMU // CANVAS_W
"""EMU per reference pixel (7620: the reference is 120 px per inch)."""
PT_PER_PX = 72 / 120
"""Points per reference pixel (the reference is 120 px per inch)."""
TEXT_INSET_PX = 4
"""Text frame insets of node labels, pixels."""
ARROW_SIZE = "lg"
"""OOXML arrowhead width and length preset: ``lg`` = 5x the line width, as the reference draws."""
FIXED_TIME = dt.datetime(2026, 1, 1, 0, 0, 0)
"""Core-properties timestamp of every generated deck (so the same seed gives the same bytes)."""
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
VBA_CONTENT_TYPE = "application/vnd.ms-office.vbaProject"
VBA_REL = "http://schemas.microsoft.com/office/2006/relationships/vbaProject"

if EMU_PER_PX * CANVAS_H != SLIDE_H_EMU:  # pragma: no cover - a layout constant changed
    raise RuntimeError("reference canvas and slide must have the same aspect ratio")

EdgeStyle = Literal["connectors", "freelines", "groups"]
STYLES: tuple[EdgeStyle, ...] = ("connectors", "freelines", "groups")


@dataclass(frozen=True)
class DeckOptions:
    style: EdgeStyle = "connectors"
    overlay_png: bytes | None = None
    """PNG placed over the whole slide (the pasted-reference cheat)."""
    hyperlink: str | None = None
    """External URL put on the first node's label."""
    ole_object: bool = False
    """Embed an OLE object (an icon-shown package) in a corner."""
    macro: bool = False
    """Add a VBA project part to the package."""
    text_only: bool = False
    """Too few components: one frame and one text box listing the labels, nothing else."""


def emu(px: float) -> Emu:
    """Reference pixels -> EMU (the only conversion in the generator)."""
    return Emu(round(px * EMU_PER_PX))


def build_deck(d: Diagram, opts: DeckOptions) -> bytes:
    """The PPTX bytes of ``d`` drawn in ``opts.style`` with ``opts``' package extras."""
    prs = Presentation()
    prs.slide_width = Emu(SLIDE_W_EMU)
    prs.slide_height = Emu(SLIDE_H_EMU)
    slide = prs.slides.add_slide(prs.slide_layouts[6])  # blank
    for ph in list(slide.placeholders):
        ph._element.getparent().remove(ph._element)
    shapes = slide.shapes

    if opts.text_only:
        _text_only(shapes, d)
    else:
        for p in d.panels:
            frame = shapes.add_shape(
                MSO_SHAPE.ROUNDED_RECTANGLE, emu(p.x), emu(p.y), emu(p.w), emu(p.h)
            )
            _plain(frame)
            frame.adjustments[0] = PANEL_RADIUS_PX / min(p.w, p.h)
            frame.fill.background()
            _line(frame, PANEL_STROKE, PANEL_STROKE_PX)
            tx, ty = TITLE_INSET
            title = shapes.add_textbox(
                emu(p.x + tx), emu(p.y + ty), emu(p.w - 2 * tx), emu(TITLE_PX * 1.6)
            )
            _text(
                title.text_frame,
                p.title,
                d.font_family,
                TITLE_PX,
                (0, 0, 0),
                bold=True,
                centred=False,
                inset_px=0,
            )
        by_id: dict[int, Any] = {}
        for n in d.nodes:
            by_id[n.id] = _node(shapes, n, d.font_family, grouped=opts.style == "groups")
        for e in d.edges:
            _edge(shapes, d, e, by_id, glued=opts.style != "freelines")
        if opts.hyperlink:
            if opts.style == "groups":  # the label is the text box beside the rectangle
                label_frame = _group_label(shapes, d.nodes[0].id)
            else:
                label_frame = by_id[d.nodes[0].id].text_frame
            label_frame.paragraphs[0].runs[0].hyperlink.address = opts.hyperlink

    if opts.ole_object:
        blob = io.BytesIO()
        with zipfile.ZipFile(blob, "w") as zf:
            zf.writestr("readme.txt", "embedded object")
        shapes.add_ole_object(
            io.BytesIO(blob.getvalue()), PROG_ID.XLSX, emu(CANVAS_W - 130), emu(CANVAS_H - 110)
        )
    if opts.overlay_png is not None:
        shapes.add_picture(io.BytesIO(opts.overlay_png), 0, 0, Emu(SLIDE_W_EMU), Emu(SLIDE_H_EMU))
    if opts.macro:
        part = Part(
            PackURI("/ppt/vbaProject.bin"),
            VBA_CONTENT_TYPE,
            prs.part.package,
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504,
        )
        prs.part.relate_to(part, VBA_REL)

    core = prs.core_properties
    core.created = FIXED_TIME
    core.modified = FIXED_TIME
    core.last_modified_by = "pptjudge generator"
    core.revision = 1
    core.title = d.task_id
    buf = io.BytesIO()
    prs.save(buf)
    return _fixed_zip(buf.getvalue())


# ----------------------------------------------------------------------------------------------


def _plain(shape: Any) -> None:
    """Drop the theme style reference so every property is the explicit one we set."""
    style = shape._element.find(qn("p:style"))
    if style is not None:
        shape._element.remove(style)


def _line(shape: Any, colour: tuple[int, int, int], width_px: float) -> None:
    shape.line.color.rgb = RGBColor(*colour)
    shape.line.width = emu(width_px)


def _text(
    tf: Any,
    text: str,
    family: str,
    font_px: float,
    colour: tuple[int, int, int],
    *,
    bold: bool = False,
    italic: bool = False,
    centred: bool = True,
    inset_px: float = TEXT_INSET_PX,
) -> None:
    tf.text = text
    tf.word_wrap = centred
    tf.auto_size = MSO_AUTO_SIZE.NONE
    tf.margin_left = tf.margin_right = tf.margin_top = tf.margin_bottom = emu(inset_px)
    tf.vertical_anchor = MSO_ANCHOR.MIDDLE if centred else MSO_ANCHOR.TOP
    for para in tf.paragraphs:
        para.alignment = PP_ALIGN.CENTER if centred else PP_ALIGN.LEFT
        for run in para.runs:
            font = run.font
            font.size = Pt(round(font_px * PT_PER_PX * 2) / 2)
            font.name = family
            font.bold = bold
            font.italic = italic
            font.color.rgb = RGBColor(*colour)


def _node(shapes: Any, n: Node, family: str, grouped: bool) -> Any:
    """Add a node; returns the shape connectors glue to (the rectangle)."""
    kind = MSO_SHAPE.ROUNDED_RECTANGLE if n.radius_px > 0 else MSO_SHAPE.RECTANGLE
    target = shapes.add_group_shape() if grouped else None
    host = target.shapes if target is not None else shapes
    box = host.add_shape(kind, emu(n.x), emu(n.y), emu(n.w), emu(n.h))
    box.name = f"Node {n.id}"
    _plain(box)
    if n.radius_px > 0:
        box.adjustments[0] = n.radius_px / min(n.w, n.h)
    box.fill.solid()
    box.fill.fore_color.rgb = RGBColor(*n.fill)
    _line(box, n.stroke, n.stroke_px)
    if target is None:
        frame = box.text_frame
    else:
        target.name = f"Node group {n.id}"
        label = host.add_textbox(emu(n.x), emu(n.y), emu(n.w), emu(n.h))
        label.name = f"Label {n.id}"
        frame = label.text_frame
    _text(frame, n.label, family, n.font_px, n.text_color, bold=n.bold, italic=n.italic)
    if not n.wrap:
        frame.word_wrap = False
    if n.text_side_inset_px is not None:
        frame.margin_left = frame.margin_right = emu(n.text_side_inset_px)
    return box


def _group_label(shapes: Any, node_id: int) -> Any:
    for shp in shapes:
        if shp.name == f"Node group {node_id}":
            for child in shp.shapes:
                if child.name == f"Label {node_id}":
                    return child.text_frame
    raise KeyError(node_id)


def _edge(shapes: Any, d: Diagram, e: Edge, by_id: dict[int, Any], glued: bool) -> None:
    pts = d.route_points(e)
    if not glued and e.end_gap_px > 0:
        pts = _shorten(pts, e.end_gap_px)
    if glued or e.route == "straight":
        kind = MSO_CONNECTOR.ELBOW if e.route == "elbow" else MSO_CONNECTOR.STRAIGHT
        (x0, y0), (x1, y1) = pts[0], pts[-1]
        line = shapes.add_connector(kind, emu(x0), emu(y0), emu(x1), emu(y1))
        if glued:
            line.begin_connect(by_id[e.src], SIDE_INDEX[e.src_side])
            line.end_connect(by_id[e.dst], SIDE_INDEX[e.dst_side])
        line.name = f"Edge {e.id}"
    else:
        builder = shapes.build_freeform(emu(pts[0][0]), emu(pts[0][1]), scale=1.0)
        builder.add_line_segments([(emu(x), emu(y)) for x, y in pts[1:]], close=False)
        line = builder.convert_to_shape()
        line.name = f"Edge {e.id}"
        line.fill.background()
    _plain(line)
    _line(line, e.color, e.width_px)
    if e.dashed:
        line.line.dash_style = MSO_LINE_DASH_STYLE.DASH
    ln = line.line._get_or_add_ln()
    for old in ln.findall(qn("a:tailEnd")):
        ln.remove(old)
    tail = etree.SubElement(ln, qn("a:tailEnd"))
    tail.set("type", e.head)
    tail.set("w", ARROW_SIZE)
    tail.set("len", ARROW_SIZE)


def _shorten(pts: list[tuple[float, float]], gap: float) -> list[tuple[float, float]]:
    """Pull both ends of a polyline ``gap`` pixels back along their segments."""
    out = list(pts)
    for end, nxt in ((0, 1), (len(out) - 1, len(out) - 2)):
        (x0, y0), (x1, y1) = out[end], out[nxt]
        length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
        t = min(gap, length / 3) / length if length else 0.0
        out[end] = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
    return out


def _text_only(shapes: Any, d: Diagram) -> None:
    """Two native components only: a frame and one text box naming the steps."""
    p = d.panels[0]
    frame = shapes.add_shape(MSO_SHAPE.RECTANGLE, emu(p.x), emu(p.y), emu(p.w), emu(p.h))
    _plain(frame)
    frame.fill.background()
    _line(frame, PANEL_STROKE, PANEL_STROKE_PX)
    names = {n.id: n.label for n in d.nodes}
    lines = [f"{names[e.src]} -> {names[e.dst]}" for e in d.edges]
    box = shapes.add_textbox(emu(p.x + 40), emu(p.y + 40), emu(p.w - 80), emu(p.h - 80))
    _text(box.text_frame, "\n".join(lines), d.font_family, 18, (0, 0, 0), centred=False)


def _fixed_zip(data: bytes) -> bytes:
    """Rewrite a zip with fixed member timestamps (python-pptx stamps the current time)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()
