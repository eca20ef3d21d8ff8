"""The one adapter from PPTX/OOXML to our object tree: the only module that sees EMU or XML.

Everything leaves here in slide-frame fractions (0-1 of the slide width/height), points or
degrees. Packages are opened through :mod:`judge.artifact.package` first (bounded, DTD-free);
python-pptx then reads the already-vetted bytes (its parser does not resolve entities).

Colours are resolved through the shape's own ``p:style`` references and the theme (scheme
colours, the master's colour map, ``lumMod``/``lumOff``/``tint``/``shade``), so a python-pptx
autoshape with no explicit fill reports the accent colour it is drawn with. Values inherited
from a layout or master placeholder are not resolved (they stay None).
"""

from __future__ import annotations

import colorsys
import functools
import io
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from judge.artifact.package import SafePackage, open_package, parse_xml
from judge.errors import PackageError, PackageStructureError
from judge.schema import Box, ObjectTree, ObjectType, SlideObject

NS = {
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
}
P = f"{{{NS['p']}}}"
A = f"{{{NS['a']}}}"
R = f"{{{NS['r']}}}"
MC = f"{{{NS['mc']}}}"

EMU_PER_PT = 12700
"""English Metric Units per point."""
DEFAULT_SLIDE_EMU = (9144000, 6858000)
"""Slide size when ``p:sldSz`` is missing: PowerPoint's 10 x 7.5 in default."""
ANGLE_UNITS_PER_DEGREE = 60000
"""OOXML angles are in 60,000ths of a degree."""
MAX_SHAPES = 5000
"""Most shapes walked on one slide (a fuzzed slide can nest absurdly; diagrams have < 500)."""
MAX_GROUP_DEPTH = 32
"""Deepest group nesting followed."""

TABLE_URI = "http://schemas.openxmlformats.org/drawingml/2006/table"
CHART_URI = "http://schemas.openxmlformats.org/drawingml/2006/chart"
SHAPE_TAGS = {P + "sp", P + "grpSp", P + "graphicFrame", P + "cxnSp", P + "pic", P + "contentPart"}
LINE_PRESETS = frozenset({"line", "lineInv"})
"""Preset geometries of a ``p:sp`` that draw a straight line."""
PRESET_COLOURS = {
    "black": "000000",
    "white": "FFFFFF",
    "red": "FF0000",
    "green": "008000",
    "blue": "0000FF",
    "yellow": "FFFF00",
    "gray": "808080",
    "grey": "808080",
    "orange": "FFA500",
}
"""The few ``a:prstClr`` names worth resolving; others stay None."""
CLR_MAP_DEFAULT = {"bg1": "lt1", "tx1": "dk1", "bg2": "lt2", "tx2": "dk2"}


# --------------------------------------------------------------------------------------------
# Public records beyond the schema


@dataclass(frozen=True)
class PictureBlob:
    """A raster (or vector) image drawn on the slide, for the reference-copy screen."""

    owner: str
    """Who draws it: ``"Picture 3" (id 4)``, ``slide background``, ``layout shape ...``."""
    object_id: int | None
    bbox: Box
    """Slide frame (0-1 fractions): where it is drawn (background: the whole slide)."""
    member: str
    """The package member holding the image bytes."""
    blob: bytes
    is_picture_shape: bool
    """True for a ``p:pic`` on the slide itself (counted in the audit's picture area)."""
    on_slide: bool = True
    """False for images drawn by the slide's layout or master (template artwork)."""


@dataclass
class LoadedSlide:
    """What Stage 0 needs from one read of the package."""

    tree: ObjectTree
    slide_count: int
    slide_part: str | None
    pictures: list[PictureBlob] = field(default_factory=list)
    related_parts: list[str] = field(default_factory=list)
    """Slide, layout and master parts of the rendered slide."""


# --------------------------------------------------------------------------------------------
# Theme


@dataclass
class _Theme:
    colours: dict[str, str] = field(default_factory=dict)
    major_latin: str = ""
    minor_latin: str = ""
    major_ea: str = ""
    minor_ea: str = ""
    major_cs: str = ""
    minor_cs: str = ""
    line_widths_emu: list[int] = field(default_factory=list)
    effect_shadow: list[bool] = field(default_factory=list)
    clr_map: dict[str, str] = field(default_factory=lambda: dict(CLR_MAP_DEFAULT))

    def font(self, typeface: str) -> str:
        """Resolve ``+mj-lt``/``+mn-lt`` (and -ea/-cs) to the theme's families."""
        table = {
            "+mj-lt": self.major_latin,
            "+mn-lt": self.minor_latin,
            "+mj-ea": self.major_ea,
            "+mn-ea": self.minor_ea,
            "+mj-cs": self.major_cs,
            "+mn-cs": self.minor_cs,
        }
        return table.get(typeface, typeface)


def _read_theme(theme_root: etree._Element | None, master_root: etree._Element | None) -> _Theme:
    theme = _Theme()
    if theme_root is not None:
        scheme = theme_root.find(f"{A}themeElements/{A}clrScheme")
        if scheme is not None:
            for slot in scheme:
                if not isinstance(slot.tag, str):
                    continue
                name = etree.QName(slot).localname
                rgb = _plain_colour(slot)
                if rgb:
                    theme.colours[name] = rgb
        fonts = theme_root.find(f"{A}themeElements/{A}fontScheme")
        if fonts is not None:
            for which in ("major", "minor"):
                for script in ("latin", "ea", "cs"):
                    el = fonts.find(f"{A}{which}Font/{A}{script}")
                    if el is not None:
                        setattr(theme, f"{which}_{script}", el.get("typeface", "") or "")
        fmt = theme_root.find(f"{A}themeElements/{A}fmtScheme")
        if fmt is not None:
            for ln in fmt.findall(f"{A}lnStyleLst/{A}ln"):
                theme.line_widths_emu.append(_int(ln.get("w"), 0))
            for eff in fmt.findall(f"{A}effectStyleLst/{A}effectStyle"):
                theme.effect_shadow.append(eff.find(f".//{A}outerShdw") is not None)
    if master_root is not None:
        cmap = master_root.find(f"{P}clrMap")
        if cmap is not None:
            theme.clr_map.update({k: v for k, v in cmap.attrib.items() if isinstance(k, str)})
    return theme


def _plain_colour(slot: etree._Element) -> str | None:
    """The RRGGBB of a theme colour slot (``a:srgbClr`` or ``a:sysClr/@lastClr``)."""
    for child in slot:
        if child.tag == A + "srgbClr":
            return _rgb(child.get("val"))
        if child.tag == A + "sysClr":
            return _rgb(child.get("lastClr"))
    return None


# --------------------------------------------------------------------------------------------
# Small readers


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _rgb(value: str | None) -> str | None:
    if value and len(value) == 6:
        try:
            int(value, 16)
        except ValueError:
            return None
        return value.upper()
    return None


def _apply_mods(rgb: str, colour_el: etree._Element) -> str:
    """Apply ``lumMod``/``lumOff``/``tint``/``shade`` children (1/1000 of a percent units)."""
    r, g, b = (int(rgb[i : i + 2], 16) / 255.0 for i in (0, 2, 4))
    for mod in colour_el:
        if not isinstance(mod.tag, str):
            continue
        name = etree.QName(mod).localname
        val = _int(mod.get("val"), 100000) / 100000.0
        if name in ("lumMod", "lumOff"):
            h, lum, s = colorsys.rgb_to_hls(r, g, b)
            lum = lum * val if name == "lumMod" else lum + val
            r, g, b = colorsys.hls_to_rgb(h, min(max(lum, 0.0), 1.0), s)
        elif name == "shade":
            r, g, b = r * val, g * val, b * val
        elif name == "tint":
            r, g, b = (c + (1.0 - c) * (1.0 - val) for c in (r, g, b))
    return "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02X}" for c in (r, g, b))


def _colour(holder: etree._Element | None, theme: _Theme) -> str | None:
    """The RRGGBB colour held by ``a:solidFill`` / ``a:fillRef`` / ``a:lnRef`` / ``a:fontRef``."""
    if holder is None:
        return None
    for el in holder:
        tag = el.tag
        rgb: str | None = None
        if tag == A + "srgbClr":
            rgb = _rgb(el.get("val"))
        elif tag == A + "schemeClr":
            name = el.get("val", "")
            name = theme.clr_map.get(name, name)
            rgb = theme.colours.get(name)
        elif tag == A + "sysClr":
            rgb = _rgb(el.get("lastClr"))
        elif tag == A + "prstClr":
            rgb = PRESET_COLOURS.get(el.get("val", ""))
        elif tag == A + "scrgbClr":
            parts = [_int(el.get(k), 0) / 100000.0 for k in ("r", "g", "b")]
            rgb = "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02X}" for c in parts)
        else:
            continue
        return _apply_mods(rgb, el) if rgb else None
    return None


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


def _frame(xfrm: etree._Element | None) -> tuple[float, float, float, float] | None:
    if xfrm is None:
        return None
    off = xfrm.find(f"{A}off")
    ext = xfrm.find(f"{A}ext")
    if off is None or ext is None:
        return None
    return (
        float(_int(off.get("x"), 0)),
        float(_int(off.get("y"), 0)),
        float(_int(ext.get("cx"), 0)),
        float(_int(ext.get("cy"), 0)),
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
    cx = float(_int(ch_off.get("x"), 0)) if ch_off is not None else ox
    cy = float(_int(ch_off.get("y"), 0)) if ch_off is not None else oy
    cw = float(_int(ch_ext.get("cx"), 0)) if ch_ext is not None else ex
    chh = float(_int(ch_ext.get("cy"), 0)) if ch_ext is not None else ey
    sx = ex / cw if cw else 1.0
    sy = ey / chh if chh else 1.0
    placed = _Affine(a=sx, d=sy, tx=ox - cx * sx, ty=oy - cy * sy)
    gx, gy = ox + ex / 2.0, oy + ey / 2.0
    fx = -1.0 if xfrm.get("flipH") in ("1", "true") else 1.0
    fy = -1.0 if xfrm.get("flipV") in ("1", "true") else 1.0
    theta = math.radians(_int(xfrm.get("rot"), 0) / ANGLE_UNITS_PER_DEGREE)
    cos, sin = math.cos(theta), math.sin(theta)
    # about the centre: p -> g + R F (p - g)
    a, b, c, d = cos * fx, -sin * fy, sin * fx, cos * fy
    about = _Affine(a, b, c, d, gx - (a * gx + b * gy), gy - (c * gx + d * gy))
    return about.then(placed)


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


def _iter_shapes(container: etree._Element) -> Iterator[etree._Element]:
    """Shape children in document order; ``mc:AlternateContent`` yields its fallback."""
    for child in container:
        if child.tag in SHAPE_TAGS:
            yield child
        elif child.tag == MC + "AlternateContent":
            branch = child.find(f"{MC}Fallback")
            if branch is None:
                branch = child.find(f"{MC}Choice")
            if branch is not None:
                yield from _iter_shapes(branch)


# --------------------------------------------------------------------------------------------
# The walk


@dataclass
class _WalkContext:
    slide_w: float
    slide_h: float
    theme: _Theme
    placeholder_frames: dict[int, tuple[float, float, float, float]]
    objects: list[SlideObject] = field(default_factory=list)
    blips: list[tuple[etree._Element, int, str, Box, bool]] = field(default_factory=list)
    """(a:blip, object id, owner label, bbox, is p:pic)."""
    truncated: bool = False


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
        if uri == TABLE_URI:
            return "table"
        if uri == CHART_URI:
            return "chart"
        return "other"
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


@functools.lru_cache(maxsize=512)
def _default_adjustments(prst: str) -> tuple[tuple[str, int], ...]:
    """python-pptx's default (name, raw value) adjustments of a preset; empty when unknown."""
    from pptx.enum.shapes import MSO_AUTO_SHAPE_TYPE
    from pptx.shapes.autoshape import autoshape_types

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
            actual[gd.get("name", "")] = _int(fmla[1], 0)
    defaults = _default_adjustments(prst_geom.get("prst", ""))
    if not defaults:
        return [v / 100000.0 for v in actual.values()]
    return [actual.get(name, value) / 100000.0 for name, value in defaults]


def _fill_line_style(shape: etree._Element, obj: dict, theme: _Theme) -> None:
    sppr = shape.find(f"{P}spPr")
    style = shape.find(f"{P}style")
    # Fill
    fill_rgb = None
    explicit_fill = None
    if sppr is not None:
        for child in sppr:
            if child.tag in (A + "noFill", A + "solidFill", A + "gradFill", A + "pattFill"):
                explicit_fill = child
                break
            if child.tag == A + "blipFill" or child.tag == A + "grpFill":
                explicit_fill = child
                break
    if explicit_fill is not None:
        if explicit_fill.tag == A + "solidFill":
            fill_rgb = _colour(explicit_fill, theme)
    elif style is not None:
        ref = style.find(f"{A}fillRef")
        if ref is not None and _int(ref.get("idx"), 0) > 0:
            fill_rgb = _colour(ref, theme)
    obj["fill_rgb"] = fill_rgb
    # Line
    ln = sppr.find(f"{A}ln") if sppr is not None else None
    ln_ref = style.find(f"{A}lnRef") if style is not None else None
    ln_idx = _int(ln_ref.get("idx"), 0) if ln_ref is not None else 0
    line_rgb = None
    width_emu: int | None = None
    has_nofill = ln is not None and ln.find(f"{A}noFill") is not None
    if ln is not None and ln.find(f"{A}solidFill") is not None:
        line_rgb = _colour(ln.find(f"{A}solidFill"), theme)
    elif not has_nofill and ln_idx > 0:
        line_rgb = _colour(ln_ref, theme)
    if ln is not None and ln.get("w") is not None:
        width_emu = _int(ln.get("w"), 0)
    elif ln_idx > 0 and ln_idx <= len(theme.line_widths_emu):
        width_emu = theme.line_widths_emu[ln_idx - 1]
    obj["line_rgb"] = None if has_nofill else line_rgb
    obj["line_width_pt"] = (
        None if has_nofill or width_emu is None else round(width_emu / EMU_PER_PT, 3)
    )
    if ln is not None:
        dash = ln.find(f"{A}prstDash")
        if dash is not None and dash.get("val") not in (None, "solid"):
            obj["dash"] = dash.get("val")
        elif ln.find(f"{A}custDash") is not None:
            obj["dash"] = "custom"
        for key, tag in (("head_end", "headEnd"), ("tail_end", "tailEnd")):
            end = ln.find(f"{A}{tag}")
            if end is not None and end.get("type") not in (None, "none"):
                obj[key] = end.get("type")
    # Shadow: an explicit effect list decides; otherwise the style's effect reference.
    eff = sppr.find(f"{A}effectLst") if sppr is not None else None
    if eff is not None:
        obj["shadow"] = eff.find(f"{A}outerShdw") is not None
    elif style is not None:
        ref = style.find(f"{A}effectRef")
        idx = _int(ref.get("idx"), 0) if ref is not None else 0
        obj["shadow"] = 0 < idx <= len(theme.effect_shadow) and theme.effect_shadow[idx - 1]


def _text_props(shape: etree._Element, bodies: list[etree._Element], obj: dict, theme: _Theme):
    sizes: list[float] = []
    names: list[str] = []
    bold = italic = None
    text_rgb = None
    for body in bodies:
        for rpr in body.iter(f"{A}rPr"):
            sz = rpr.get("sz")
            if sz is not None:
                pt = _int(sz, 0) / 100.0
                if pt > 0 and pt not in sizes:
                    sizes.append(pt)
            latin = rpr.find(f"{A}latin")
            if latin is not None and latin.get("typeface"):
                name = theme.font(latin.get("typeface", ""))
                if name and name not in names:
                    names.append(name)
            if bold is None and rpr.get("b") is not None:
                bold = rpr.get("b") in ("1", "true")
            if italic is None and rpr.get("i") is not None:
                italic = rpr.get("i") in ("1", "true")
            if text_rgb is None:
                text_rgb = _colour(rpr.find(f"{A}solidFill"), theme)
    if text_rgb is None:
        style = shape.find(f"{P}style")
        if style is not None:
            text_rgb = _colour(style.find(f"{A}fontRef"), theme)
    obj.update(font_sizes_pt=sizes, font_names=names, bold=bold, italic=italic, text_rgb=text_rgb)


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
            ctx.truncated = True
            return
        _visit(shape, ctx, affine, parent_id, depth, rotation)


def _visit(
    shape: etree._Element,
    ctx: _WalkContext,
    affine: _Affine,
    parent_id: int | None,
    depth: int,
    rotation: float,
) -> None:
    cnv = _cnvpr(shape)
    sid = _int(cnv.get("id"), 0) if cnv is not None else 0
    name = (cnv.get("name", "") if cnv is not None else "") or ""
    otype = _classify(shape)
    xfrm = _xfrm(shape)
    frame = _frame(xfrm)
    if frame is None and otype == "placeholder" and parent_id is None:
        frame = ctx.placeholder_frames.get(sid)
    if frame is None:
        frame = (0.0, 0.0, 0.0, 0.0)
    x, y, w, h = frame
    # Group transforms move the frame's centre; the frame keeps its (scaled) size and the
    # group's rotation adds to its own.
    mx, my = affine.point(x + w / 2.0, y + h / 2.0)
    w0, h0 = abs(affine.scale_x * w), abs(affine.scale_y * h)
    x0, y0 = mx - w0 / 2.0, my - h0 / 2.0
    own_rot = _int(xfrm.get("rot"), 0) / ANGLE_UNITS_PER_DEGREE if xfrm is not None else 0.0
    bbox = Box(x=x0 / ctx.slide_w, y=y0 / ctx.slide_h, w=w0 / ctx.slide_w, h=h0 / ctx.slide_h)
    obj: dict = {
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
    label = f'"{name}" (id {sid})'
    if shape.tag in (P + "sp", P + "cxnSp"):
        sppr = shape.find(f"{P}spPr")
        prst = sppr.find(f"{A}prstGeom") if sppr is not None else None
        if sppr is not None and sppr.find(f"{A}custGeom") is not None:
            obj["geometry"] = "custom"
        elif prst is not None:
            obj["geometry"] = prst.get("prst")
            obj["adjustments"] = _adjustments(prst)
        _fill_line_style(shape, obj, ctx.theme)
    if shape.tag == P + "cxnSp":
        cnvcxn = shape.find(f"{P}nvCxnSpPr/{P}cNvCxnSpPr")
        if cnvcxn is not None:
            st = cnvcxn.find(f"{A}stCxn")
            en = cnvcxn.find(f"{A}endCxn")
            obj["begin_id"] = _int(st.get("id"), 0) if st is not None else None
            obj["end_id"] = _int(en.get("id"), 0) if en is not None else None
    bodies: list[etree._Element] = []
    if shape.tag == P + "sp":
        body = shape.find(f"{P}txBody")
        if body is not None:
            bodies = [body]
            obj["has_text_frame"] = True
            obj["text"] = _body_text(body)
            bpr = body.find(f"{A}bodyPr")
            if bpr is not None:
                wrap = bpr.get("wrap")
                obj["word_wrap"] = {"square": True, "none": False}.get(wrap) if wrap else None
                for tag, value in (("noAutofit", "none"), ("normAutofit", "normal")):
                    if bpr.find(f"{A}{tag}") is not None:
                        obj["autofit"] = value
                if bpr.find(f"{A}spAutoFit") is not None:
                    obj["autofit"] = "shape"
    elif otype == "table":
        cells = shape.findall(f"{A}graphic/{A}graphicData/{A}tbl/{A}tr/{A}tc")
        bodies = [b for b in (c.find(f"{A}txBody") for c in cells) if b is not None]
        obj["text"] = "\n".join(t for t in (_body_text(b) for b in bodies) if t)
    if bodies:
        _text_props(shape, bodies, obj, ctx.theme)
    ctx.objects.append(SlideObject(**obj))
    # Images drawn by this shape: a picture's blip, or a picture fill of any shape.
    if shape.tag != P + "grpSp":
        for blip in shape.iter(f"{A}blip"):
            ctx.blips.append((blip, sid, label, bbox, shape.tag == P + "pic"))
    else:
        fill_blip = shape.find(f"{P}grpSpPr/{A}blipFill/{A}blip")
        if fill_blip is not None:
            ctx.blips.append((fill_blip, sid, label, bbox, False))
        if depth >= MAX_GROUP_DEPTH:
            ctx.truncated = True
            return
        inner = affine.then(_group_affine(shape))
        _walk(shape, ctx, inner, sid, depth + 1, (rotation + own_rot) % 360.0)


# --------------------------------------------------------------------------------------------
# Loading


def _presentation(pkg: SafePackage):  # -> pptx.presentation.Presentation
    """python-pptx over the vetted bytes; any failure of its parser is a structure error."""
    from pptx import Presentation

    try:
        return Presentation(io.BytesIO(pkg.raw))
    except Exception as exc:  # noqa: BLE001 - third-party parser on untrusted input
        raise PackageStructureError(
            f"{pkg.path}: PowerPoint parts do not load ({type(exc).__name__}: {exc})"
        ) from None


def _ensure_package(path_or_pkg: Path | str | SafePackage) -> SafePackage:
    if isinstance(path_or_pkg, SafePackage):
        return path_or_pkg
    return open_package(path_or_pkg)


def _part_name(part) -> str:
    return str(part.partname).lstrip("/")


def _theme_for(pkg: SafePackage, master_part: str | None) -> _Theme:
    master_root = pkg.xml(master_part) if master_part else None
    theme_root = None
    if master_part:
        for rel in pkg.part_relationships(master_part):
            if rel.short_type == "theme" and not rel.external:
                target = pkg.resolve(master_part, rel.target)
                if target in pkg.members:
                    theme_root = pkg.xml(target)
                break
    return _read_theme(theme_root, master_root)


def load_slide(path_or_pkg: Path | str | SafePackage) -> LoadedSlide:
    """Read the first slide of a vetted package: its object tree and every image it draws.

    Raises PackageError (and subclasses) when the package cannot be read safely or does not
    load as a presentation.
    """
    pkg = _ensure_package(path_or_pkg)
    prs = _presentation(pkg)
    try:
        return _load(pkg, prs)
    except PackageError:
        raise
    except Exception as exc:  # noqa: BLE001 - python-pptx lazily parses untrusted parts here
        raise PackageStructureError(
            f"{pkg.path}: slide content does not load ({type(exc).__name__}: {exc})"
        ) from None


def _load(pkg: SafePackage, prs) -> LoadedSlide:
    width = float(prs.slide_width or DEFAULT_SLIDE_EMU[0])
    height = float(prs.slide_height or DEFAULT_SLIDE_EMU[1])
    if width <= 0 or height <= 0:
        width, height = (float(v) for v in DEFAULT_SLIDE_EMU)
    slides = list(prs.slides)
    tree = ObjectTree(slide_width_pt=width / EMU_PER_PT, slide_height_pt=height / EMU_PER_PT)
    if not slides:
        return LoadedSlide(tree=tree, slide_count=0, slide_part=None)
    slide = slides[0]
    slide_part = _part_name(slide.part)
    layout_part = master_part = None
    try:
        layout = slide.slide_layout
        layout_part = _part_name(layout.part)
        master_part = _part_name(layout.slide_master.part)
    except Exception:  # noqa: BLE001 - a slide without a layout still has shapes to read
        layout = None
    theme = _theme_for(pkg, master_part)
    frames: dict[int, tuple[float, float, float, float]] = {}
    for shp in slide.placeholders:
        try:
            if None not in (shp.left, shp.top, shp.width, shp.height):
                frames[shp.shape_id] = (
                    float(shp.left),
                    float(shp.top),
                    float(shp.width),
                    float(shp.height),
                )
        except Exception:  # noqa: BLE001 - inherited geometry may be missing
            continue
    ctx = _WalkContext(slide_w=width, slide_h=height, theme=theme, placeholder_frames=frames)
    # python-pptx's own elements, so preset adjustments get its defaults (same vetted bytes).
    sp_tree = slide._element.find(f"{P}cSld/{P}spTree")
    if sp_tree is not None:
        _walk(sp_tree, ctx, _Affine(), None, 0, 0.0)
    tree = tree.model_copy(update={"objects": ctx.objects})
    pictures = _collect_pictures(pkg, slide_part, ctx)
    # Images drawn by the layout and master behind the slide (backgrounds and their shapes).
    for part, role in ((layout_part, "layout"), (master_part, "master")):
        if part:
            pictures.extend(_collect_part_pictures(pkg, part, role, width, height, theme))
    related = [p for p in (slide_part, layout_part, master_part) if p]
    return LoadedSlide(
        tree=tree,
        slide_count=len(slides),
        slide_part=slide_part,
        pictures=pictures,
        related_parts=related,
    )


def _blip_target(pkg: SafePackage, part: str, blip: etree._Element) -> str | None:
    rid = blip.get(f"{R}embed")
    if not rid:
        return None
    for rel in pkg.part_relationships(part):
        if rel.id == rid and not rel.external:
            target = pkg.resolve(part, rel.target)
            return target if target in pkg.members else None
    return None


def _collect_pictures(pkg: SafePackage, slide_part: str, ctx: _WalkContext) -> list[PictureBlob]:
    out: list[PictureBlob] = []
    root = pkg.xml(slide_part)
    bg = root.find(f"{P}cSld/{P}bg")
    if bg is not None:
        for blip in bg.iter(f"{A}blip"):
            target = _blip_target(pkg, slide_part, blip)
            if target:
                full = Box(x=0, y=0, w=1, h=1)
                out.append(
                    PictureBlob("slide background", None, full, target, pkg.members[target], False)
                )
    for blip, sid, label, bbox, is_pic in ctx.blips:
        target = _blip_target(pkg, slide_part, blip)
        if target:
            out.append(PictureBlob(label, sid, bbox, target, pkg.members[target], is_pic))
    return out


def _collect_part_pictures(
    pkg: SafePackage, part: str, role: str, width: float, height: float, theme: _Theme
) -> list[PictureBlob]:
    root = pkg.xml(part)
    ctx = _WalkContext(slide_w=width, slide_h=height, theme=theme, placeholder_frames={})
    out: list[PictureBlob] = []
    bg = root.find(f"{P}cSld/{P}bg")
    if bg is not None:
        for blip in bg.iter(f"{A}blip"):
            target = _blip_target(pkg, part, blip)
            if target:
                full = Box(x=0, y=0, w=1, h=1)
                out.append(
                    PictureBlob(
                        f"{role} background", None, full, target, pkg.members[target], False
                    )
                )
    sp_tree = root.find(f"{P}cSld/{P}spTree")
    if sp_tree is not None and sp_tree.find(f".//{A}blip") is not None:
        _walk(sp_tree, ctx, _Affine(), None, 0, 0.0)
    for blip, sid, label, bbox, _ in ctx.blips:
        target = _blip_target(pkg, part, blip)
        if target:
            out.append(
                PictureBlob(
                    f"{role} shape {label}", sid, bbox, target, pkg.members[target], False, False
                )
            )
    return out


def read_object_tree(path_or_pkg: Path | str | SafePackage) -> ObjectTree:
    """The object tree of the deck's first slide (slide-frame fractions, points, degrees).

    ``z`` is the index in the flattened depth-first shape list (a group, then its members),
    the order LibreOffice's SVG export follows. Raises PackageError and subclasses.
    """
    return load_slide(path_or_pkg).tree


def requested_fonts(path_or_pkg: Path | str | SafePackage) -> list[str]:
    """Font families the deck asks for: theme major/minor latin fonts, then every run's
    ``latin``/``ea``/``cs`` typeface in the slides (``+mj-lt``/``+mn-lt`` resolved), deduplicated
    in order of first appearance. Raises PackageError and subclasses."""
    pkg = _ensure_package(path_or_pkg)
    masters = [n for n in pkg.members if n.startswith("ppt/slideMasters/") and n.endswith(".xml")]
    theme = _theme_for(pkg, sorted(masters)[0] if masters else None)
    if not masters:
        themes = sorted(n for n in pkg.members if n.startswith("ppt/theme/") and n.endswith(".xml"))
        if themes:
            theme = _read_theme(pkg.xml(themes[0]), None)
    fonts: list[str] = []

    def add(name: str) -> None:
        name = theme.font(name.strip())
        if name and not name.startswith("+") and name not in fonts:
            fonts.append(name)

    add(theme.major_latin)
    add(theme.minor_latin)
    slides = sorted(
        (n for n in pkg.members if n.startswith("ppt/slides/") and n.endswith(".xml")),
        key=_natural_key,
    )
    for part in slides:
        root = pkg.xml(part)
        for tag in ("latin", "ea", "cs"):
            for el in root.iter(f"{A}{tag}"):
                add(el.get("typeface", "") or "")
    return fonts


def _natural_key(name: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


__all__ = [
    "LoadedSlide",
    "PictureBlob",
    "load_slide",
    "parse_xml",
    "read_object_tree",
    "requested_fonts",
]
