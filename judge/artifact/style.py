"""Style and colour resolution of DrawingML shapes (the theme, fills, lines, text runs).

Colours are resolved through the shape's own ``p:style`` references and the theme (scheme
colours, the master's colour map, ``lumMod``/``lumOff``/``tint``/``shade``), so a python-pptx
autoshape with no explicit fill reports the accent colour it is drawn with. Values inherited
from a layout or master placeholder are not resolved (they stay None). Colours are ``RRGGBB``
strings; widths are points. Everything returns typed records, never loose dicts.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass, field

from lxml import etree

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
MIN_VISIBLE_ALPHA = 0.05
"""Opacity (0-1) below which a fill, line or text colour draws no visible ink."""
COLOUR_TAGS = frozenset({"srgbClr", "schemeClr", "sysClr", "prstClr", "scrgbClr", "hslClr"})


@dataclass
class Theme:
    """The theme of a master: scheme colours, fonts, line widths, effect shadows, colour map."""

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

    def scheme(self, name: str) -> str | None:
        name = self.clr_map.get(name, name)
        return self.colours.get(name)


@dataclass(frozen=True)
class Paint:
    """One resolved colour: ``rgb`` None when it cannot be resolved, ``alpha`` 0-1."""

    rgb: str | None
    alpha: float = 1.0

    @property
    def visible(self) -> bool:
        return self.alpha >= MIN_VISIBLE_ALPHA


@dataclass(frozen=True)
class ShapeStyle:
    """Fill, outline and effects of a ``p:sp``/``p:cxnSp`` after style references."""

    fill_kind: str = "none"
    """``none``, ``solid``, ``gradient``, ``pattern``, ``picture``, ``group``."""
    fill: Paint | None = None
    """The solid fill colour (None unless ``fill_kind == "solid"``)."""
    line: Paint | None = None
    """The outline colour; None when there is no outline."""
    line_width_pt: float | None = None
    dash: str | None = None
    head_end: str | None = None
    tail_end: str | None = None
    shadow: bool = False


@dataclass(frozen=True)
class TextStyle:
    """Run properties of a shape's text (first explicit value wins)."""

    font_sizes_pt: tuple[float, ...] = ()
    font_names: tuple[str, ...] = ()
    bold: bool | None = None
    italic: bool | None = None
    colour: Paint | None = None
    """First explicit run colour, else the style's font reference; None when inherited."""


# --------------------------------------------------------------------------------------------
# Small readers


def to_int(value: str | None, default: int) -> int:
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


def _apply_mods(rgb: str, colour_el: etree._Element) -> Paint:
    """Apply ``lumMod``/``lumOff``/``tint``/``shade``/``alpha`` children (1/1000 % units)."""
    r, g, b = (int(rgb[i : i + 2], 16) / 255.0 for i in (0, 2, 4))
    alpha = 1.0
    for mod in colour_el:
        if not isinstance(mod.tag, str):
            continue
        name = etree.QName(mod).localname
        val = to_int(mod.get("val"), 100000) / 100000.0
        if name in ("lumMod", "lumOff"):
            h, lum, s = colorsys.rgb_to_hls(r, g, b)
            lum = lum * val if name == "lumMod" else lum + val
            r, g, b = colorsys.hls_to_rgb(h, min(max(lum, 0.0), 1.0), s)
        elif name == "shade":
            r, g, b = r * val, g * val, b * val
        elif name == "tint":
            r, g, b = (c + (1.0 - c) * (1.0 - val) for c in (r, g, b))
        elif name == "alpha":
            alpha = min(max(val, 0.0), 1.0)
        elif name == "alphaMod":
            alpha = min(max(alpha * val, 0.0), 1.0)
    out = "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02X}" for c in (r, g, b))
    return Paint(out, alpha)


def _alpha_only(colour_el: etree._Element) -> float:
    alpha = 1.0
    for mod in colour_el:
        if isinstance(mod.tag, str) and etree.QName(mod).localname == "alpha":
            alpha = min(max(to_int(mod.get("val"), 100000) / 100000.0, 0.0), 1.0)
    return alpha


def paint(holder: etree._Element | None, theme: Theme) -> Paint | None:
    """The colour held by ``a:solidFill`` / ``a:fillRef`` / ``a:lnRef`` / ``a:fontRef``; None
    when ``holder`` holds no colour element."""
    if holder is None:
        return None
    for el in holder:
        if not isinstance(el.tag, str) or not el.tag.startswith(A):
            continue
        local = el.tag[len(A) :]
        if local not in COLOUR_TAGS:
            continue
        rgb: str | None = None
        if local == "srgbClr":
            rgb = _rgb(el.get("val"))
        elif local == "schemeClr":
            rgb = theme.scheme(el.get("val", ""))
        elif local == "sysClr":
            rgb = _rgb(el.get("lastClr"))
        elif local == "prstClr":
            rgb = PRESET_COLOURS.get(el.get("val", ""))
        elif local == "scrgbClr":
            parts = [to_int(el.get(k), 0) / 100000.0 for k in ("r", "g", "b")]
            rgb = "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02X}" for c in parts)
        return _apply_mods(rgb, el) if rgb else Paint(None, _alpha_only(el))
    return None


def colour(holder: etree._Element | None, theme: Theme) -> str | None:
    """The RRGGBB of :func:`paint`, or None."""
    p = paint(holder, theme)
    return p.rgb if p is not None else None


def _plain_colour(slot: etree._Element) -> str | None:
    """The RRGGBB of a theme colour slot (``a:srgbClr`` or ``a:sysClr/@lastClr``)."""
    for child in slot:
        if child.tag == A + "srgbClr":
            return _rgb(child.get("val"))
        if child.tag == A + "sysClr":
            return _rgb(child.get("lastClr"))
    return None


def read_theme(theme_root: etree._Element | None, master_root: etree._Element | None) -> Theme:
    """The theme part's colours/fonts/formats with the master's colour map applied."""
    theme = Theme()
    if theme_root is not None:
        scheme = theme_root.find(f"{A}themeElements/{A}clrScheme")
        if scheme is not None:
            for slot in scheme:
                if not isinstance(slot.tag, str):
                    continue
                rgb = _plain_colour(slot)
                if rgb:
                    theme.colours[etree.QName(slot).localname] = rgb
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
                theme.line_widths_emu.append(to_int(ln.get("w"), 0))
            for eff in fmt.findall(f"{A}effectStyleLst/{A}effectStyle"):
                theme.effect_shadow.append(eff.find(f".//{A}outerShdw") is not None)
    if master_root is not None:
        cmap = master_root.find(f"{P}clrMap")
        if cmap is not None:
            theme.clr_map.update({k: v for k, v in cmap.attrib.items() if isinstance(k, str)})
    return theme


# --------------------------------------------------------------------------------------------
# Shapes

_FILL_KINDS = {
    A + "noFill": "none",
    A + "solidFill": "solid",
    A + "gradFill": "gradient",
    A + "pattFill": "pattern",
    A + "blipFill": "picture",
    A + "grpFill": "group",
}


def _fill(
    sppr: etree._Element | None, style: etree._Element | None, theme: Theme
) -> tuple[str, Paint | None]:
    if sppr is not None:
        for child in sppr:
            kind = _FILL_KINDS.get(child.tag) if isinstance(child.tag, str) else None
            if kind is not None:
                return kind, (paint(child, theme) if kind == "solid" else None)
    if style is not None:
        ref = style.find(f"{A}fillRef")
        if ref is not None and to_int(ref.get("idx"), 0) > 0:
            return "solid", paint(ref, theme)
    return "none", None


def shape_style(shape: etree._Element, theme: Theme) -> ShapeStyle:
    """Fill, outline and shadow of a ``p:sp`` or ``p:cxnSp``."""
    sppr = shape.find(f"{P}spPr")
    style = shape.find(f"{P}style")
    fill_kind, fill = _fill(sppr, style, theme)
    ln = sppr.find(f"{A}ln") if sppr is not None else None
    ln_ref = style.find(f"{A}lnRef") if style is not None else None
    ln_idx = to_int(ln_ref.get("idx"), 0) if ln_ref is not None else 0
    has_nofill = ln is not None and ln.find(f"{A}noFill") is not None
    line: Paint | None = None
    if ln is not None and ln.find(f"{A}solidFill") is not None:
        line = paint(ln.find(f"{A}solidFill"), theme)
    elif ln is not None and (ln.find(f"{A}gradFill") is not None or ln.find(f"{A}pattFill")):
        line = Paint(None)
    elif not has_nofill and ln_idx > 0:
        line = paint(ln_ref, theme)
    width_emu: int | None = None
    if ln is not None and ln.get("w") is not None:
        width_emu = to_int(ln.get("w"), 0)
    elif 0 < ln_idx <= len(theme.line_widths_emu):
        width_emu = theme.line_widths_emu[ln_idx - 1]
    dash = head = tail = None
    if ln is not None:
        pd = ln.find(f"{A}prstDash")
        if pd is not None and pd.get("val") not in (None, "solid"):
            dash = pd.get("val")
        elif ln.find(f"{A}custDash") is not None:
            dash = "custom"
        head_el, tail_el = ln.find(f"{A}headEnd"), ln.find(f"{A}tailEnd")
        if head_el is not None and head_el.get("type") not in (None, "none"):
            head = head_el.get("type")
        if tail_el is not None and tail_el.get("type") not in (None, "none"):
            tail = tail_el.get("type")
    eff = sppr.find(f"{A}effectLst") if sppr is not None else None
    shadow = False
    if eff is not None:
        shadow = eff.find(f"{A}outerShdw") is not None
    elif style is not None:
        ref = style.find(f"{A}effectRef")
        idx = to_int(ref.get("idx"), 0) if ref is not None else 0
        shadow = 0 < idx <= len(theme.effect_shadow) and theme.effect_shadow[idx - 1]
    return ShapeStyle(
        fill_kind=fill_kind,
        fill=fill,
        line=None if has_nofill else line,
        line_width_pt=None if has_nofill or width_emu is None else round(width_emu / EMU_PER_PT, 3),
        dash=dash,
        head_end=head,
        tail_end=tail,
        shadow=shadow,
    )


def text_style(shape: etree._Element, bodies: list[etree._Element], theme: Theme) -> TextStyle:
    """Sizes, families, weight, slant and colour of the runs of ``bodies``."""
    sizes: list[float] = []
    names: list[str] = []
    bold = italic = None
    text_paint: Paint | None = None
    for body in bodies:
        for rpr in body.iter(f"{A}rPr"):
            sz = rpr.get("sz")
            if sz is not None:
                pt = to_int(sz, 0) / 100.0
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
            if text_paint is None:
                text_paint = paint(rpr.find(f"{A}solidFill"), theme)
                if text_paint is None and rpr.find(f"{A}noFill") is not None:
                    text_paint = Paint(None, 0.0)
    if text_paint is None:
        style = shape.find(f"{P}style")
        if style is not None:
            text_paint = paint(style.find(f"{A}fontRef"), theme)
    return TextStyle(tuple(sizes), tuple(names), bold, italic, text_paint)


def background_rgb(roots: list[etree._Element | None], theme: Theme) -> str | None:
    """The solid background colour drawn behind the slide: the first ``p:bg`` of the slide,
    layout, master (in that order); white when none says; None when it is not one colour."""
    for root in roots:
        if root is None:
            continue
        bg = root.find(f"{P}cSld/{P}bg")
        if bg is None:
            continue
        pr = bg.find(f"{P}bgPr")
        if pr is not None:
            solid = pr.find(f"{A}solidFill")
            return colour(solid, theme) if solid is not None else None
        ref = bg.find(f"{P}bgRef")
        if ref is not None:
            idx = to_int(ref.get("idx"), 0)
            # 1001+ picks the theme's background fill list; a plain colour there is rare
            return colour(ref, theme) if 0 < idx < 1000 else None
        return None
    return "FFFFFF"


__all__ = [
    "Paint",
    "ShapeStyle",
    "TextStyle",
    "Theme",
    "background_rgb",
    "colour",
    "paint",
    "read_theme",
    "shape_style",
    "text_style",
]
