"""The one adapter from PPTX/OOXML to our object tree: the only module that sees EMU or XML.

Everything leaves here in slide-frame fractions (0-1 of the slide width/height), points or
degrees. Packages are opened through :mod:`judge.artifact.package` (bounded, DTD-free) and
resolved once through :mod:`judge.artifact.parts` (the real slide part, its layout, master and
theme, by relationships); styles and colours come from :mod:`judge.artifact.style`; the images a
slide draws are collected by :mod:`judge.artifact.pictures`.

Besides the tree, the walk decides which objects are *drawn*: visible ink (a fill, an outline
or text in a colour that differs from what is under it) with a drawn extent of at least
:data:`MIN_DRAWN_EXTENT` of the slide's shorter side, on the slide, not hidden.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree
from pptx.enum.shapes import MSO_AUTO_SHAPE_TYPE
from pptx.shapes.autoshape import autoshape_types

from judge.artifact.package import SafePackage, open_package, parse_xml
from judge.artifact.parts import DeckParts, resolve_parts
from judge.artifact.pictures import PictureBlob, Placement, collect
from judge.artifact.style import (
    MC,
    A,
    P,
    Paint,
    Theme,
    background_rgb,
    read_theme,
    shape_style,
    text_style,
    to_int,
)
from judge.errors import PackageError, PackageStructureError
from judge.schema import Box, ObjectTree, ObjectType, SlideObject

EMU_PER_PT = 12700
"""English Metric Units per point."""
DEFAULT_SLIDE_EMU = (9144000, 6858000)
"""Slide size when ``p:sldSz`` is missing: PowerPoint's 10 x 7.5 in default."""
ANGLE_UNITS_PER_DEGREE = 60000
"""OOXML angles are in 60,000ths of a degree."""
MAX_SHAPES = 5000
"""Most shapes walked on one slide (a fuzzed slide can nest absurdly; diagrams have < 500).
A longer walk stops and the deck fails ``fully_screened``."""
MAX_GROUP_DEPTH = 32
"""Deepest group nesting followed (deeper fails ``fully_screened``)."""
MIN_DRAWN_EXTENT = 0.01
"""Smallest drawn extent (the longer side of the drawn box) of a counted component, as a
fraction of the slide's shorter side."""
MAX_REQUESTED_FONTS = 64
"""Most font families recorded for render provenance (deduplicated, rendered parts only)."""
KNOWN_MC_REQUIRES = frozenset(
    {"p14", "p15", "p159", "a14", "a15", "a16", "v", "o", "x12ac", "w14", "wps", "wpg", "c14"}
)
"""``mc:Choice Requires`` prefixes LibreOffice's importer understands (it draws that branch);
for any other the ``mc:Fallback`` is drawn."""

TABLE_URI = "http://schemas.openxmlformats.org/drawingml/2006/table"
CHART_URI = "http://schemas.openxmlformats.org/drawingml/2006/chart"
SHAPE_TAGS = {P + "sp", P + "grpSp", P + "graphicFrame", P + "cxnSp", P + "pic", P + "contentPart"}
LINE_PRESETS = frozenset({"line", "lineInv"})
"""Preset geometries of a ``p:sp`` that draw a straight line."""
PLACEHOLDER_TYPE_ALIASES = {"ctrTitle": "title", "subTitle": "body", "obj": "body"}


# --------------------------------------------------------------------------------------------
# Public records beyond the schema


@dataclass
class LoadedSlide:
    """What Stage 0 needs from one read of the package."""

    tree: ObjectTree
    slide_count: int
    slide_part: str | None
    parts: DeckParts | None = None
    placements: list[Placement] = field(default_factory=list)
    drawn: list[bool] = field(default_factory=list)
    """Per object of ``tree.objects``: does it draw visible ink on the slide."""
    truncated: list[str] = field(default_factory=list)
    """Why the walk stopped early (fails ``fully_screened``); empty when complete."""
    pictures: list[PictureBlob] = field(default_factory=list)
    """Every image drawn with the slide (:func:`judge.artifact.pictures.collect`)."""
    picture_problems: list[str] = field(default_factory=list)
    """Images that cannot be screened (fail ``fully_screened``), described."""

    @property
    def related_parts(self) -> list[str]:
        """Slide, layout and master parts of the rendered slide."""
        if self.parts is None:
            return []
        return [p for p in (self.slide_part, self.parts.layout, self.parts.master) if p]


# --------------------------------------------------------------------------------------------
# Geometry


def _cnvpr(shape: etree._Element) -> etree._Element | None:
    for nv in shape:
        if isinstance(nv.tag, str) and nv.tag.endswith("Pr") and nv.tag.startswith(P + "nv"):
            return nv.find(f"{P}cNvPr")
    return None


def _xfrm(shape: etree._Element) -> etree._Element | None:
    tag = shape.tag
    if tag == P + "grpSp":
        return shape.find(f"{P}grpSpPr/{A}xfrm")
    if tag == P + "graphicFrame":
        return shape.find(f"{P}xfrm")
    return shape.find(f"{P}spPr/{A}xfrm")


@dataclass(frozen=True)
class _Affine:
    """Maps a child's EMU coordinates to slide EMU: x' = a x + b y + tx, y' = c x + d y + ty."""

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    tx: float = 0.0
    ty: float = 0.0

    def then(self, inner: _Affine) -> _Affine:
        """Apply ``inner`` first, then self."""
        return _Affine(
            self.a * inner.a + self.b * inner.c,
            self.a * inner.b + self.b * inner.d,
            self.c * inner.a + self.d * inner.c,
            self.c * inner.b + self.d * inner.d,
            self.a * inner.tx + self.b * inner.ty + self.tx,
            self.c * inner.tx + self.d * inner.ty + self.ty,
        )

    def point(self, x: float, y: float) -> tuple[float, float]:
        return self.a * x + self.b * y + self.tx, self.c * x + self.d * y + self.ty

    @property
    def scale_x(self) -> float:
        return math.hypot(self.a, self.c)

    @property
    def scale_y(self) -> float:
        return math.hypot(self.b, self.d)


Frame = tuple[float, float, float, float]


def _frame(xfrm: etree._Element | None) -> Frame | None:
    if xfrm is None:
        return None
    off = xfrm.find(f"{A}off")
    ext = xfrm.find(f"{A}ext")
    if off is None or ext is None:
        return None
    return (
        float(to_int(off.get("x"), 0)),
        float(to_int(off.get("y"), 0)),
        float(to_int(ext.get("cx"), 0)),
        float(to_int(ext.get("cy"), 0)),
    )


def _group_affine(grp: etree._Element) -> _Affine:
    """Child coordinates -> the group's parent coordinates: scale the child extent onto the
    group's extent, then flip and rotate about the group's centre (clockwise, y down)."""
    xfrm = _xfrm(grp)
    outer = _frame(xfrm)
    if xfrm is None or outer is None:
        return _Affine()
    ox, oy, ex, ey = outer
    ch_off = xfrm.find(f"{A}chOff")
    ch_ext = xfrm.find(f"{A}chExt")
    cx = float(to_int(ch_off.get("x"), 0)) if ch_off is not None else ox
    cy = float(to_int(ch_off.get("y"), 0)) if ch_off is not None else oy
    cw = float(to_int(ch_ext.get("cx"), 0)) if ch_ext is not None else ex
    chh = float(to_int(ch_ext.get("cy"), 0)) if ch_ext is not None else ey
    sx = ex / cw if cw else 1.0
    sy = ey / chh if chh else 1.0
    placed = _Affine(a=sx, d=sy, tx=ox - cx * sx, ty=oy - cy * sy)
    gx, gy = ox + ex / 2.0, oy + ey / 2.0
    fx = -1.0 if xfrm.get("flipH") in ("1", "true") else 1.0
    fy = -1.0 if xfrm.get("flipV") in ("1", "true") else 1.0
    theta = math.radians(to_int(xfrm.get("rot"), 0) / ANGLE_UNITS_PER_DEGREE)
    cos, sin = math.cos(theta), math.sin(theta)
    a, b, c, d = cos * fx, -sin * fy, sin * fx, cos * fy
    about = _Affine(a, b, c, d, gx - (a * gx + b * gy), gy - (c * gx + d * gy))
    return about.then(placed)


# --------------------------------------------------------------------------------------------
# Text and classification


def _paragraph_text(p_el: etree._Element) -> str:
    out: list[str] = []
    for child in p_el:
        if child.tag in (A + "r", A + "fld"):
            t = child.find(f"{A}t")
            if t is not None and t.text:
                out.append(t.text)
        elif child.tag == A + "br":
            out.append("\n")
    return "".join(out)


def _body_text(body: etree._Element | None) -> str:
    if body is None:
        return ""
    return "\n".join(_paragraph_text(p) for p in body.findall(f"{A}p"))


def choice_drawn(alt: etree._Element) -> etree._Element | None:
    """The branch of an ``mc:AlternateContent`` LibreOffice draws: the first ``mc:Choice``
    whose ``Requires`` prefixes it understands, else the ``mc:Fallback``."""
    for branch in alt:
        if branch.tag == MC + "Choice":
            needs = (branch.get("Requires") or "").split()
            if needs and all(n in KNOWN_MC_REQUIRES for n in needs):
                return branch
    return alt.find(f"{MC}Fallback")


def _iter_shapes(container: etree._Element) -> Iterator[etree._Element]:
    """Shape children in document order; ``mc:AlternateContent`` yields the drawn branch."""
    for child in container:
        if child.tag in SHAPE_TAGS:
            yield child
        elif child.tag == MC + "AlternateContent":
            branch = choice_drawn(child)
            if branch is not None:
                yield from _iter_shapes(branch)


def _classify(shape: etree._Element) -> ObjectType:
    tag = shape.tag
    if tag == P + "grpSp":
        return "group"
    if tag == P + "cxnSp":
        return "connector"
    if tag == P + "pic":
        return "picture"
    if tag == P + "graphicFrame":
        gd = shape.find(f"{A}graphic/{A}graphicData")
        uri = gd.get("uri", "") if gd is not None else ""
        return {TABLE_URI: "table", CHART_URI: "chart"}.get(uri, "other")  # type: ignore[return-value]
    if tag == P + "sp":
        if shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph") is not None:
            return "placeholder"
        sppr = shape.find(f"{P}spPr")
        if sppr is not None and sppr.find(f"{A}custGeom") is not None:
            return "freeform"
        prst = sppr.find(f"{A}prstGeom") if sppr is not None else None
        if prst is not None and prst.get("prst") in LINE_PRESETS:
            return "line"
        cnv = shape.find(f"{P}nvSpPr/{P}cNvSpPr")
        if cnv is not None and cnv.get("txBox") in ("1", "true"):
            return "text_box"
        return "autoshape"
    return "other"


def _path_ends(cust: etree._Element) -> list[tuple[float, float]] | None:
    """First and last points of a custom geometry's first path as fractions of the path's
    own size; None for a closed path, an empty one or one without a size."""
    path = cust.find(f"{A}pathLst/{A}path")
    if path is None or path.find(f"{A}close") is not None:
        return None
    w, h = to_int(path.get("w"), 0), to_int(path.get("h"), 0)
    pts = [
        (to_int(pt.get("x"), 0), to_int(pt.get("y"), 0))
        for step in path
        if step.tag in (A + "moveTo", A + "lnTo", A + "cubicBezTo", A + "quadBezTo")
        for pt in step.findall(f"{A}pt")[-1:]
    ]
    if w <= 0 or h <= 0 or len(pts) < 2:
        return None
    (x0, y0), (x1, y1) = pts[0], pts[-1]
    return [(x0 / w, y0 / h), (x1 / w, y1 / h)]


@functools.lru_cache(maxsize=512)
def _default_adjustments(prst: str) -> tuple[tuple[str, int], ...]:
    """python-pptx's default (name, raw value) adjustments of a preset; empty when unknown.

    python-pptx is imported with this module, never here: its package imports itself in a
    cycle, and two case threads importing it at once deadlocked on the import lock (every case
    of a run then failed ``opens``)."""
    try:
        return tuple(autoshape_types[MSO_AUTO_SHAPE_TYPE.from_xml(prst)]["avLst"])
    except (KeyError, ValueError):
        return ()


def _adjustments(prst_geom: etree._Element | None) -> list[float]:
    """Normalised adjustment values as python-pptx gives them: its defaults for the preset,
    overridden by ``a:gd`` guides of the same name (raw value / 100000)."""
    if prst_geom is None:
        return []
    actual: dict[str, int] = {}
    for gd in prst_geom.findall(f"{A}avLst/{A}gd"):
        fmla = (gd.get("fmla") or "").split()
        if len(fmla) == 2 and fmla[0] == "val":
            actual[gd.get("name", "")] = to_int(fmla[1], 0)
    defaults = _default_adjustments(prst_geom.get("prst", ""))
    if not defaults:
        return [v / 100000.0 for v in actual.values()]
    return [actual.get(name, value) / 100000.0 for name, value in defaults]


# --------------------------------------------------------------------------------------------
# The walk


@dataclass
class _WalkContext:
    part: str
    slide_w: float
    slide_h: float
    theme: Theme
    background: str | None
    """RRGGBB of the slide background, None when not one colour."""
    placeholder_frames: dict[tuple[str, str], Frame]
    role: str = "slide"
    objects: list[SlideObject] = field(default_factory=list)
    drawn: list[bool] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)


def _differs(paint: Paint | None, under: str | None) -> bool:
    """Ink of colour ``paint`` is visible over ``under`` (None: unknown, assumed different)."""
    if paint is None or not paint.visible:
        return False
    return paint.rgb is None or under is None or paint.rgb != under


def _drawn(
    obj: SlideObject,
    style_fill: Paint | None,
    fill_kind: str,
    ctx: _WalkContext,
    line: Paint | None,
    text_paint: Paint | None,
    hidden: bool,
) -> bool:
    """Visible ink, large enough, on the slide (see the module docstring)."""
    if hidden:
        return False
    b = obj.bbox
    short = min(ctx.slide_w, ctx.slide_h)
    extent = max(b.w * ctx.slide_w, b.h * ctx.slide_h)
    if extent < MIN_DRAWN_EXTENT * short:
        return False
    if b.x2 < 0 or b.y2 < 0 or b.x > 1 or b.y > 1:
        return False
    bg = ctx.background
    if fill_kind in ("gradient", "pattern", "picture"):
        fill_ink = True
    else:
        fill_ink = fill_kind == "solid" and _differs(style_fill, bg)
    line_ink = (
        line is not None and (obj.line_width_pt is None or obj.line_width_pt > 0)
    ) and _differs(line, bg)
    under = style_fill.rgb if fill_kind == "solid" and style_fill is not None else bg
    default_text = Paint(ctx.theme.scheme("tx1") or "000000")
    text_ink = bool(obj.text.strip()) and _differs(text_paint or default_text, under)
    return fill_ink or line_ink or text_ink


def _walk(
    container: etree._Element,
    ctx: _WalkContext,
    affine: _Affine,
    parent_id: int | None,
    depth: int,
    rotation: float,
) -> None:
    for shape in _iter_shapes(container):
        if len(ctx.objects) >= MAX_SHAPES:
            if not ctx.truncated:
                ctx.truncated.append(f"{ctx.part}: more than {MAX_SHAPES} shapes (walk stopped)")
            return
        _visit(shape, ctx, affine, parent_id, depth, rotation)


def _placeholder_key(shape: etree._Element) -> tuple[str, str] | None:
    ph = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
    if ph is None:
        return None
    kind = ph.get("type", "obj")
    return PLACEHOLDER_TYPE_ALIASES.get(kind, kind), ph.get("idx", "0")


def _visit(
    shape: etree._Element,
    ctx: _WalkContext,
    affine: _Affine,
    parent_id: int | None,
    depth: int,
    rotation: float,
) -> None:
    cnv = _cnvpr(shape)
    sid = to_int(cnv.get("id"), 0) if cnv is not None else 0
    name = (cnv.get("name", "") if cnv is not None else "") or ""
    hidden = cnv is not None and cnv.get("hidden") in ("1", "true")
    otype = _classify(shape)
    xfrm = _xfrm(shape)
    frame = _frame(xfrm)
    if frame is None and otype == "placeholder" and parent_id is None:
        key = _placeholder_key(shape)
        if key is not None:
            frame = ctx.placeholder_frames.get(("idx", key[1])) or ctx.placeholder_frames.get(
                ("type", key[0])
            )
    x, y, w, h = frame or (0.0, 0.0, 0.0, 0.0)
    mx, my = affine.point(x + w / 2.0, y + h / 2.0)
    w0, h0 = abs(affine.scale_x * w), abs(affine.scale_y * h)
    x0, y0 = mx - w0 / 2.0, my - h0 / 2.0
    own_rot = to_int(xfrm.get("rot"), 0) / ANGLE_UNITS_PER_DEGREE if xfrm is not None else 0.0
    bbox = Box(x=x0 / ctx.slide_w, y=y0 / ctx.slide_h, w=w0 / ctx.slide_w, h=h0 / ctx.slide_h)
    fields: dict[str, Any] = {
        "id": sid,
        "z": len(ctx.objects),
        "type": otype,
        "name": name,
        "bbox": bbox,
        "rotation": (rotation + own_rot) % 360.0,
        "flip_h": xfrm is not None and xfrm.get("flipH") in ("1", "true"),
        "flip_v": xfrm is not None and xfrm.get("flipV") in ("1", "true"),
        "parent_id": parent_id,
    }
    fill_paint: Paint | None = None
    fill_kind = "none"
    line_paint: Paint | None = None
    if shape.tag in (P + "sp", P + "cxnSp"):
        sppr = shape.find(f"{P}spPr")
        prst = sppr.find(f"{A}prstGeom") if sppr is not None else None
        cust = sppr.find(f"{A}custGeom") if sppr is not None else None
        if cust is not None:
            fields["geometry"] = "custom"
            ends = _path_ends(cust)
            if ends is not None:
                fields["path_ends"] = [
                    (
                        bbox.x + (1.0 - fx if fields["flip_h"] else fx) * bbox.w,
                        bbox.y + (1.0 - fy if fields["flip_v"] else fy) * bbox.h,
                    )
                    for fx, fy in ends
                ]
        elif prst is not None:
            fields["geometry"] = prst.get("prst")
            fields["adjustments"] = _adjustments(prst)
        st = shape_style(shape, ctx.theme)
        fill_kind, fill_paint, line_paint = st.fill_kind, st.fill, st.line
        fields.update(
            fill_rgb=st.fill.rgb if st.fill is not None else None,
            line_rgb=st.line.rgb if st.line is not None else None,
            line_width_pt=st.line_width_pt,
            dash=st.dash,
            head_end=st.head_end,
            tail_end=st.tail_end,
            shadow=st.shadow,
        )
    if shape.tag == P + "cxnSp":
        cnvcxn = shape.find(f"{P}nvCxnSpPr/{P}cNvCxnSpPr")
        if cnvcxn is not None:
            stc, enc = cnvcxn.find(f"{A}stCxn"), cnvcxn.find(f"{A}endCxn")
            fields["begin_id"] = to_int(stc.get("id"), 0) if stc is not None else None
            fields["end_id"] = to_int(enc.get("id"), 0) if enc is not None else None
    bodies = _text_bodies(shape, otype, fields)
    text_paint: Paint | None = None
    if bodies:
        ts = text_style(shape, bodies, ctx.theme)
        text_paint = ts.colour
        fields.update(
            font_sizes_pt=list(ts.font_sizes_pt),
            font_names=list(ts.font_names),
            bold=ts.bold,
            italic=ts.italic,
            text_rgb=ts.colour.rgb if ts.colour is not None else None,
        )
    obj = SlideObject(**fields)
    ctx.objects.append(obj)
    ctx.drawn.append(_drawn(obj, fill_paint, fill_kind, ctx, line_paint, text_paint, hidden))
    _place_blips(shape, ctx, sid, f'"{name}" (id {sid})', bbox)
    if shape.tag == P + "grpSp":
        if depth >= MAX_GROUP_DEPTH:
            ctx.truncated.append(
                f"{ctx.part}: groups nested deeper than {MAX_GROUP_DEPTH} (walk stopped)"
            )
            return
        inner = affine.then(_group_affine(shape))
        _walk(shape, ctx, inner, sid, depth + 1, (rotation + own_rot) % 360.0)


def _text_bodies(shape: etree._Element, otype: str, fields: dict[str, Any]) -> list[etree._Element]:
    if shape.tag == P + "sp":
        body = shape.find(f"{P}txBody")
        if body is None:
            return []
        fields["has_text_frame"] = True
        fields["text"] = _body_text(body)
        bpr = body.find(f"{A}bodyPr")
        if bpr is not None:
            wrap = bpr.get("wrap")
            fields["word_wrap"] = {"square": True, "none": False}.get(wrap) if wrap else None
            for tag, value in (("noAutofit", "none"), ("normAutofit", "normal")):
                if bpr.find(f"{A}{tag}") is not None:
                    fields["autofit"] = value
            if bpr.find(f"{A}spAutoFit") is not None:
                fields["autofit"] = "shape"
        return [body]
    if otype == "table":
        cells = shape.findall(f"{A}graphic/{A}graphicData/{A}tbl/{A}tr/{A}tc")
        bodies = [b for b in (c.find(f"{A}txBody") for c in cells) if b is not None]
        fields["text"] = "\n".join(t for t in (_body_text(b) for b in bodies) if t)
        return bodies
    return []


def _place_blips(shape: etree._Element, ctx: _WalkContext, sid: int, label: str, bbox: Box) -> None:
    """Record where this shape draws images: a picture's blip or a picture fill (a group: only
    its own fill; members place their own)."""
    if shape.tag == P + "grpSp":
        blips = shape.findall(f"{P}grpSpPr/{A}blipFill/{A}blip")
    else:
        blips = list(shape.iter(f"{A}blip"))
    owner = label if ctx.role == "slide" else f"{ctx.role} shape {label}"
    for blip in blips:
        for attr in (f"{{{_R}}}embed", f"{{{_R}}}link"):
            rid = blip.get(attr)
            if rid:
                ctx.placements.append(
                    Placement(
                        part=ctx.part,
                        rid=rid,
                        owner=owner,
                        object_id=sid,
                        bbox=bbox,
                        is_picture_shape=shape.tag == P + "pic" and ctx.role == "slide",
                        on_slide=ctx.role == "slide",
                        in_ole=any(a.tag == P + "oleObj" for a in blip.iterancestors()),
                    )
                )


_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


# --------------------------------------------------------------------------------------------
# Loading


def _ensure_package(path_or_pkg: Path | str | SafePackage) -> SafePackage:
    if isinstance(path_or_pkg, SafePackage):
        return path_or_pkg
    return open_package(path_or_pkg)


def _slide_size(parts: DeckParts) -> tuple[float, float]:
    sz = parts.xml(parts.presentation).find(f"{P}sldSz")
    width = float(to_int(sz.get("cx"), 0)) if sz is not None else 0.0
    height = float(to_int(sz.get("cy"), 0)) if sz is not None else 0.0
    if width <= 0 or height <= 0:
        return float(DEFAULT_SLIDE_EMU[0]), float(DEFAULT_SLIDE_EMU[1])
    return width, height


def _placeholder_frames(parts: DeckParts) -> dict[tuple[str, str], Frame]:
    """Frames a slide placeholder inherits: the layout's by ``idx``, else the layout's or
    master's by type (the master's first, so the layout's win)."""
    out: dict[tuple[str, str], Frame] = {}
    for part, by_idx in ((parts.master, False), (parts.layout, True)):
        if not part:
            continue
        tree = parts.xml(part).find(f"{P}cSld/{P}spTree")
        if tree is None:
            continue
        for sp in tree.iter(f"{P}sp"):
            key = _placeholder_key(sp)
            frame = _frame(_xfrm(sp))
            if key is None or frame is None:
                continue
            out[("type", key[0])] = frame
            if by_idx:
                out[("idx", key[1])] = frame
    return out


def _theme(parts: DeckParts) -> Theme:
    master_root = parts.xml(parts.master) if parts.master else None
    theme_root = parts.xml(parts.theme) if parts.theme else None
    return read_theme(theme_root, master_root)


def load_slide(path_or_pkg: Path | str | SafePackage) -> LoadedSlide:
    """Read the first slide of a vetted package: its object tree, which objects are drawn, and
    where its shapes (and its layout's and master's) draw images.

    Raises PackageError (and subclasses) when the package cannot be read safely or its parts
    do not resolve.
    """
    pkg = _ensure_package(path_or_pkg)
    try:
        return _load(pkg)
    except PackageError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise PackageStructureError(
            f"{pkg.path}: slide content does not load ({type(exc).__name__}: {exc})"
        ) from None


def _load(pkg: SafePackage) -> LoadedSlide:
    parts = resolve_parts(pkg)
    width, height = _slide_size(parts)
    tree = ObjectTree(slide_width_pt=width / EMU_PER_PT, slide_height_pt=height / EMU_PER_PT)
    slide = parts.slide
    if slide is None:
        return LoadedSlide(tree=tree, slide_count=0, slide_part=None, parts=parts)
    theme = _theme(parts)
    roots = [parts.xml(p) if p else None for p in (slide, parts.layout, parts.master)]
    ctx = _WalkContext(
        part=slide,
        slide_w=width,
        slide_h=height,
        theme=theme,
        background=background_rgb(roots, theme),
        placeholder_frames=_placeholder_frames(parts),
    )
    tree.background_rgb = ctx.background
    sp_tree = parts.xml(slide).find(f"{P}cSld/{P}spTree")
    if sp_tree is not None:
        _walk(sp_tree, ctx, _Affine(), None, 0, 0.0)
    placements = list(ctx.placements)
    truncated = list(ctx.truncated)
    for part, role in ((parts.layout, "layout"), (parts.master, "master")):
        if not part:
            continue
        sub = _WalkContext(part, width, height, theme, None, {}, role=role)
        root = parts.xml(part).find(f"{P}cSld/{P}spTree")
        if root is not None:
            _walk(root, sub, _Affine(), None, 0, 0.0)
        placements.extend(sub.placements)
        truncated.extend(sub.truncated)
    if parts.truncated:
        truncated.append(f"more than {len(parts.rendered)} parts drawn with the slide")
    loaded = LoadedSlide(
        tree=tree.model_copy(update={"objects": ctx.objects}),
        slide_count=len(parts.slides),
        slide_part=slide,
        parts=parts,
        placements=placements,
        drawn=ctx.drawn,
        truncated=truncated,
    )
    found = collect(parts, placements, slide)
    loaded.pictures, loaded.picture_problems = found.pictures, found.problems
    return loaded


def read_object_tree(path_or_pkg: Path | str | SafePackage) -> ObjectTree:
    """The object tree of the deck's first slide (slide-frame fractions, points, degrees).

    ``z`` is the index in the flattened depth-first shape list (a group, then its members),
    the order LibreOffice's SVG export follows. Raises PackageError and subclasses.
    """
    return load_slide(path_or_pkg).tree


def fonts_of(parts: DeckParts) -> list[str]:
    """Font families the rendered slide asks for: the theme's major/minor latin fonts, then
    every ``latin``/``ea``/``cs`` typeface of the slide, its layout and master (``+mj-lt``
    resolved), deduplicated in order of first appearance, at most :data:`MAX_REQUESTED_FONTS`."""
    theme = _theme(parts)
    seen: dict[str, None] = {}

    def add(name: str) -> None:
        name = theme.font(name.strip())
        if name and not name.startswith("+"):
            seen.setdefault(name, None)

    add(theme.major_latin)
    add(theme.minor_latin)
    for part in (parts.slide, parts.layout, parts.master):
        if not part or len(seen) >= MAX_REQUESTED_FONTS:
            continue
        for el in parts.xml(part).iter(f"{A}latin", f"{A}ea", f"{A}cs"):
            add(el.get("typeface", "") or "")
            if len(seen) >= MAX_REQUESTED_FONTS:
                break
    return list(seen)[:MAX_REQUESTED_FONTS]


def requested_fonts(path_or_pkg: Path | str | SafePackage) -> list[str]:
    """:func:`fonts_of` a deck (opened and resolved here). Raises PackageError and
    subclasses."""
    return fonts_of(resolve_parts(_ensure_package(path_or_pkg)))


__all__ = [
    "LoadedSlide",
    "PictureBlob",
    "Placement",
    "choice_drawn",
    "fonts_of",
    "load_slide",
    "parse_xml",
    "read_object_tree",
    "requested_fonts",
]
