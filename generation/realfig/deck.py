"""Candidate decks from a real figure's spec (python-pptx), in three faithful constructions.

* ``shapes``  -- each node one labelled autoshape (rectangle, rounded, ellipse, diamond, can,
  hexagon, document, or a bare text box); edges are connectors, glued to the side middles of
  box-like shapes where they end there, placed by coordinates elsewhere; elbow routes are
  elbow connectors, curves curved connectors; icons are left out.
* ``overlay`` -- each node an unlabelled shape with a separate text box over it, every other
  node grouped (shape + text); edges are open freeforms (polylines and sampled curves) with
  stealth arrowheads; icons are approximated by small native shapes in their colour.
* ``handmade`` -- what a person redrawing the figure in PowerPoint makes: on the default 16:9
  slide, the figure fitted and centred; labelled autoshapes in Arial at whole point sizes,
  each nudged a few pixels off the reference's place; edges never glued (straight connectors
  and freeforms ending a little short of their nodes, medium heads); edge labels in
  white-filled text boxes that hide the line under them; icons left out.

The slide keeps the reference's aspect ratio (13.333 in wide; ``handmade``: 16:9); one
reference pixel is ``SLIDE_W_EMU / width`` EMU (``handmade``: as many as fit). Saved bytes are
deterministic (fixed core properties and zip times).
"""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any, Literal

from lxml import etree
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_LINE_DASH_STYLE
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.enum.text import MSO_ANCHOR, MSO_AUTO_SIZE, PP_ALIGN
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt

from generation.deck import FIXED_TIME, _fixed_zip, _plain
from generation.realfig.geometry import Pt as XY
from generation.realfig.geometry import route
from generation.realfig.model import BoxT, E, Fig, N, T

Construction = Literal["shapes", "overlay", "handmade"]
CONSTRUCTIONS: tuple[Construction, ...] = ("shapes", "overlay")
"""The constructions the defect variants alternate between (``handmade`` is faithful only)."""
HAND_NUDGE_PX = 3.0
"""``handmade``: how far (reference pixels) a node is moved or resized, at most."""
HAND_SHORT_PX = 2.0
"""``handmade``: how far short of its nodes an edge ends."""
HAND_FONT = "Arial"
SLIDE_W_EMU = 12192000
SLIDE_H_16_9_EMU = 6858000
"""7.5 in: PowerPoint's default widescreen slide (``handmade`` decks)."""
EMU_PER_PT = 12700
GLUE_TOLERANCE_PX = 2.0
"""An edge end within this of a side's middle is glued to that side (connection sites 0-3)."""
SIDE_SITES = {"top": 0, "left": 1, "bottom": 2, "right": 3}
GLUABLE = ("rect", "round", "diamond")
"""Shapes whose connection sites 0-3 are the middles of the top, left, bottom and right."""
MONO = "DejaVu Sans Mono"

_SHAPES = {
    "rect": MSO_SHAPE.RECTANGLE,
    "round": MSO_SHAPE.ROUNDED_RECTANGLE,
    "ellipse": MSO_SHAPE.OVAL,
    "diamond": MSO_SHAPE.DIAMOND,
    "can": MSO_SHAPE.CAN,
    "hexagon": MSO_SHAPE.HEXAGON,
    "doc": MSO_SHAPE.FLOWCHART_DOCUMENT,
}


class _Deck:
    def __init__(self, fig: Fig, how: Construction):
        self.fig = fig
        self.how = how
        w, h = fig.size
        self.k = SLIDE_W_EMU / w
        slide_h = round(h * self.k)
        self.ox = self.oy = 0.0
        if how == "handmade":  # PowerPoint's default 16:9 slide, the figure fitted and centred
            slide_h = SLIDE_H_16_9_EMU
            self.k = min(SLIDE_W_EMU / w, slide_h / h)
            self.ox, self.oy = (SLIDE_W_EMU - w * self.k) / 2, (slide_h - h * self.k) / 2
        self.pt_per_px = self.k / EMU_PER_PT
        self.prs = Presentation()
        self.prs.slide_width = Emu(SLIDE_W_EMU)
        self.prs.slide_height = Emu(slide_h)
        self.slide = self.prs.slides.add_slide(self.prs.slide_layouts[6])
        for ph in list(self.slide.placeholders):
            ph._element.getparent().remove(ph._element)
        self.shapes = self.slide.shapes
        self.by_key: dict[str, Any] = {}
        self.nowrap: frozenset[str] = frozenset()

    def emu(self, px: float) -> Emu:
        """A length in EMU."""
        return Emu(round(px * self.k))

    def ex(self, px: float) -> Emu:
        """An x position in EMU (the figure may sit off the slide's left edge)."""
        return Emu(round(self.ox + px * self.k))

    def ey(self, px: float) -> Emu:
        """A y position in EMU."""
        return Emu(round(self.oy + px * self.k))

    # ---------------------------------------------------------------------------------------
    def text(
        self,
        tf: Any,
        text: str,
        font_px: float,
        colour: str,
        bold: bool = False,
        top: bool = False,
        family: str | None = None,
        wrap: bool = True,
    ) -> None:
        tf.text = text
        tf.word_wrap = wrap
        tf.auto_size = MSO_AUTO_SIZE.NONE
        tf.margin_left = tf.margin_right = self.emu(2)
        tf.margin_top = tf.margin_bottom = self.emu(1)
        tf.vertical_anchor = MSO_ANCHOR.TOP if top else MSO_ANCHOR.MIDDLE
        for para in tf.paragraphs:
            para.alignment = PP_ALIGN.CENTER
            for run in para.runs:
                f = run.font
                f.size = Pt(max(4.0, round(font_px * self.pt_per_px * 2) / 2))
                f.name = family or self.fig.font
                f.bold = bold
                f.color.rgb = RGBColor.from_string(colour)

    def style(
        self,
        shp: Any,
        fill: str | None,
        stroke: str | None,
        width_px: float = 1.5,
        dashed: bool = False,
    ) -> None:
        _plain(shp)
        if fill:
            shp.fill.solid()
            shp.fill.fore_color.rgb = RGBColor.from_string(fill)
        else:
            shp.fill.background()
        if stroke:
            shp.line.color.rgb = RGBColor.from_string(stroke)
            shp.line.width = self.emu(width_px)
            if dashed:
                shp.line.dash_style = MSO_LINE_DASH_STYLE.DASH
        else:
            shp.line.fill.background()

    def textbox(
        self,
        box: BoxT,
        text: str,
        font_px: float,
        colour: str,
        bold: bool = False,
        top: bool = False,
        family: str | None = None,
        host: Any = None,
    ) -> Any:
        x, y, w, h = box
        tb = (host or self.shapes).add_textbox(self.ex(x), self.ey(y), self.emu(w), self.emu(h))
        self.text(tb.text_frame, text, font_px, colour, bold, top, family)
        return tb

    # ---------------------------------------------------------------------------------------
    def panels(self) -> None:
        for p in self.fig.panels:
            x, y, w, h = p.box
            kind = MSO_SHAPE.ROUNDED_RECTANGLE if p.round else MSO_SHAPE.RECTANGLE
            shp = self.shapes.add_shape(kind, self.ex(x), self.ey(y), self.emu(w), self.emu(h))
            if p.round:
                shp.adjustments[0] = 0.08
            self.style(shp, p.fill, p.stroke, 1.5, p.dashed)
            shp.name = f"Panel {p.key}"
            self.by_key[p.key] = shp
            if p.title:
                tb = p.title_box or (x + 6, y + 4, min(w - 12, 18 * len(p.title)), 30)
                self.textbox(tb, p.title, self.fig.font_px * 1.1, "000000", bold=True)

    def node(self, n: N, index: int) -> None:
        fs = n.font_px or self.fig.font_px
        if self.how == "handmade":  # nudged by hand: a few pixels, a different way each node
            d = HAND_NUDGE_PX
            dx, dy, dw = (
                ((index * 7) % 5 - 2) / 2 * d,
                ((index * 3) % 5 - 2) / 2 * d,
                (index % 3 - 1) * d,
            )
            n = replace(n, box=(n.box[0] + dx, n.box[1] + dy, n.box[2] + dw, n.box[3]))
        x, y, w, h = n.box
        if n.shape == "plain":
            tb = self.textbox(n.box, n.label, fs, n.text, n.bold, n.top)
            tb.text_frame.word_wrap = n.key not in self.nowrap
            tb.name = f"Node {n.key}"
            self.by_key[n.key] = tb
            return
        wrap = n.key not in self.nowrap
        grouped = self.how == "overlay" and index % 2 == 1
        group = self.shapes.add_group_shape() if grouped else None
        host = group.shapes if group is not None else self.shapes
        shp = host.add_shape(_SHAPES[n.shape], self.ex(x), self.ey(y), self.emu(w), self.emu(h))
        shp.name = f"Node {n.key}"
        if n.shape == "round":
            shp.adjustments[0] = 0.12
        self.style(shp, n.fill, n.stroke, 1.5, n.dashed)
        self.by_key[n.key] = shp
        if not n.label:
            return
        if self.how == "shapes":
            self.text(shp.text_frame, n.label, fs, n.text, n.bold, n.top, wrap=wrap)
        elif self.how == "handmade":
            whole = round(fs * self.pt_per_px) / self.pt_per_px  # a whole point size
            self.text(shp.text_frame, n.label, whole, n.text, n.bold, n.top, HAND_FONT, wrap)
        else:
            inset = 0.12 * w if n.shape in ("ellipse", "diamond", "hexagon") else 0.03 * w
            box = (x + inset, y + (0.04 * h if n.top else 0.1 * h), w - 2 * inset, 0.8 * h)
            tb = self.textbox(box, n.label, fs, n.text, n.bold, n.top, host=host)
            tb.text_frame.word_wrap = wrap
            tb.name = f"Label {n.key}"

    def free_text(self, t: T) -> None:
        fs = t.font_px or self.fig.font_px
        family = MONO if t.role == "code" else None
        if t.circled:
            x, y, w, h = t.box
            ring = self.shapes.add_shape(
                MSO_SHAPE.OVAL, self.ex(x), self.ey(y), self.emu(w), self.emu(h)
            )
            self.style(ring, None, t.colour, 1.5)
            self.text(ring.text_frame, t.text, fs, t.colour)
            return
        tb = self.textbox(t.box, t.text, fs, t.colour, t.bold, family=family)
        fill = t.fill or ("FFFFFF" if self.how == "handmade" and t.role == "edge_label" else None)
        if fill:
            tb.fill.solid()
            tb.fill.fore_color.rgb = RGBColor.from_string(fill)

    # ---------------------------------------------------------------------------------------
    def edge(self, e: E) -> None:
        pts = route(self.fig, e)
        elbow = e.route in ("hv", "vh", "vhv") and not e.points
        if self.how == "shapes" and (len(pts) == 2 or elbow):
            line = self._connector(e, pts)
        elif self.how == "shapes" and e.route == "curved" and e.src != e.dst:
            line = self._connector(e, [pts[0], pts[-1]], MSO_CONNECTOR.CURVE)
        elif self.how == "overlay" and len(pts) == 2:
            line = self._connector(e, pts, glue=False)
        elif self.how == "handmade":
            pts = _shortened(pts, HAND_SHORT_PX)
            line = self._connector(e, pts, glue=False) if len(pts) == 2 else self._freeform(pts)
        else:
            line = self._freeform(pts)
        self._line_style(line, e.colour or self.fig.edge_colour, e.width_px, e.dashed)
        kind = {"shapes": "triangle", "overlay": "stealth", "handmade": "triangle"}[self.how]
        self._heads(line, e.both, kind, "med" if self.how == "handmade" else "lg")

    def _connector(self, e: E, pts: list[XY], kind: Any = None, glue: bool = True) -> Any:
        if kind is None:
            kind = MSO_CONNECTOR.STRAIGHT if len(pts) == 2 else MSO_CONNECTOR.ELBOW
        (x0, y0), (x1, y1) = pts[0], pts[-1]
        line = self.shapes.add_connector(kind, self.ex(x0), self.ey(y0), self.ex(x1), self.ey(y1))
        if glue:
            for end, key, p in (("begin", e.src, pts[0]), ("end", e.dst, pts[-1])):
                site = self._site(key, p)
                if site is not None and key is not None:
                    getattr(line, f"{end}_connect")(self.by_key[key], site)
        return line

    def _site(self, key: str | None, p: XY) -> int | None:
        if key is None:
            return None
        n = next((m for m in self.fig.nodes if m.key == key), None)
        if n is None or n.shape not in GLUABLE:
            return None
        x, y, w, h = n.box
        sides = {
            "top": (x + w / 2, y),
            "left": (x, y + h / 2),
            "bottom": (x + w / 2, y + h),
            "right": (x + w, y + h / 2),
        }
        for side, (sx, sy) in sides.items():
            if abs(sx - p[0]) <= GLUE_TOLERANCE_PX and abs(sy - p[1]) <= GLUE_TOLERANCE_PX:
                return SIDE_SITES[side]
        return None

    def _freeform(self, pts: list[XY]) -> Any:
        b = self.shapes.build_freeform(self.ex(pts[0][0]), self.ey(pts[0][1]), scale=1.0)
        b.add_line_segments([(self.ex(x), self.ey(y)) for x, y in pts[1:]], close=False)
        shp = b.convert_to_shape()
        shp.fill.background()
        return shp

    def _line_style(self, line: Any, colour: str, width_px: float, dashed: bool) -> None:
        _plain(line)
        line.line.color.rgb = RGBColor.from_string(colour)
        line.line.width = self.emu(width_px)
        if dashed:
            line.line.dash_style = MSO_LINE_DASH_STYLE.DASH

    def _heads(self, line: Any, both: bool, kind: str, size: str = "lg") -> None:
        ln = line.line._get_or_add_ln()
        for tag in ("a:headEnd", "a:tailEnd"):
            for old in ln.findall(qn(tag)):
                ln.remove(old)
        ends = ["a:headEnd", "a:tailEnd"] if both else ["a:tailEnd"]
        for tag in ends:
            el = etree.SubElement(ln, qn(tag))
            el.set("type", kind)
            el.set("w", size)
            el.set("len", size)

    def loose_lines(self) -> None:
        for ln in self.fig.lines:
            shp = self._freeform(list(ln.points))
            self._line_style(shp, ln.colour, ln.width_px, ln.dashed)
            if ln.head:
                self._heads(shp, False, "triangle")

    def icons(self) -> None:
        if self.how != "overlay":
            return
        for ic in self.fig.icons:
            x, y, w, h = ic.box
            shp = self.shapes.add_shape(
                MSO_SHAPE.OVAL,
                self.ex(x + w * 0.15),
                self.ey(y + h * 0.15),
                self.emu(w * 0.7),
                self.emu(h * 0.7),
            )
            self.style(shp, ic.colour, None)
            shp.name = "Icon"

    def save(self) -> bytes:
        core = self.prs.core_properties
        core.created = core.modified = FIXED_TIME
        core.last_modified_by = "pptjudge realfig"
        core.revision = 1
        core.title = self.fig.id
        buf = io.BytesIO()
        self.prs.save(buf)
        return _fixed_zip(buf.getvalue())


def _shortened(pts: list[XY], by: float) -> list[XY]:
    """``pts`` with its first and last segments ``by`` pixels shorter (never below half)."""
    out = list(pts)
    for end, nxt in ((0, 1), (len(pts) - 1, len(pts) - 2)):
        (x0, y0), (x1, y1) = pts[end], pts[nxt]
        seg = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
        if seg > 0:
            k = min(by, seg / 2) / seg
            out[end] = (x0 + (x1 - x0) * k, y0 + (y1 - y0) * k)
    return out


def build_deck(fig: Fig, how: Construction, nowrap: frozenset[str] = frozenset()) -> bytes:
    """PPTX bytes reconstructing ``fig`` in construction ``how``; labels of the nodes in
    ``nowrap`` do not wrap (an overflowing label)."""
    d = _Deck(fig, how)
    d.nowrap = nowrap
    d.panels()
    d.icons()
    for t in fig.texts:
        d.free_text(t)
    for i, n in enumerate(fig.nodes):
        d.node(n, i)
    for e in fig.edges:
        d.edge(e)
    d.loose_lines()
    return d.save()
