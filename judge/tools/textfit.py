"""Text fit from LibreOffice's SVG export: where each text frame's lines actually landed.

The export keeps, per shape, its outline path and each rendered text line (one ``TextPosition``
tspan per line, with its baseline and font size), in 1/100 mm. From it we get, per candidate
text frame: how many lines LibreOffice wrapped the text into against how many paragraphs the
text has (and how many lines the reference label takes), whether the text runs beyond its shape
(overflow), and whether two frames' text overlap. Frames are tied to object-tree shapes by their
text. Without an SVG export the tool says so (measurements then come from the render's OCR).
"""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import asdict, dataclass
from typing import Any

from lxml import etree

from judge.tools.base import Tool, ToolContext, ToolOutput, memo
from judge.tools.graphread import normalise_label
from judge.tools.thresholds import (
    OVERFLOW_TOLERANCE_FRAC,
    OVERFLOW_TOLERANCE_X_FRAC,
    TEXT_OVERLAP_MIN_FRAC,
)

SVG_NS = "{http://www.w3.org/2000/svg}"
ASCENT, DESCENT = 0.8, 0.25
"""Glyph extent above / below the baseline as fractions of the font size (sans fonts)."""
AVG_CHAR_WIDTH = 0.5
"""Average advance of a sans glyph as a fraction of the font size, when no font file is found."""
MEASURE_SIZE = 100
"""Pixel size at which glyph advances are measured (then scaled to the text's size)."""


@dataclass
class TextFrame:
    """One shape's rendered text, in 1/100 mm of the slide (the SVG's units)."""

    shape_box: tuple[float, float, float, float]
    text: str
    lines: int
    text_box: tuple[float, float, float, float]
    overflow: bool
    clipped: bool = False
    """Its text runs off the slide (LibreOffice draws it, the slide cuts it)."""
    shape_id: int | None = None
    paragraphs: int = 1
    needed: int = 1
    """Lines the text needs: its paragraphs, or the reference label's lines if more."""
    overlaps: bool = False
    broken: bool = False
    """Its text breaks improperly: its rendered lines no longer read as a deck text (a word split
    across lines, a character per line). Wrapping at spaces onto more lines than the reference
    label takes is no break (a Stage 3 ``unexpected_wrap`` only)."""


@functools.lru_cache(maxsize=64)
def _font_file(family: str, bold: bool) -> str | None:
    """The font file fontconfig gives for ``family`` (what LibreOffice falls back to as well)."""
    pattern = family + (":bold" if bold else "")
    try:
        out = subprocess.run(
            ["fc-match", "-f", "%{file}", pattern], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    path = out.stdout.strip()
    return path if path.endswith((".ttf", ".otf", ".ttc")) else None


@functools.lru_cache(maxsize=64)
def _font(family: str, bold: bool) -> Any:
    from PIL import ImageFont

    path = _font_file(family, bold)
    if path is None:
        return None
    try:
        return ImageFont.truetype(path, MEASURE_SIZE)
    except OSError:
        return None


def text_width(text: str, family: str, bold: bool, size: float) -> float:
    """Advance width of ``text`` set in ``family`` at ``size`` (same unit as ``size``)."""
    font = _font(family, bold)
    if font is None:
        return AVG_CHAR_WIDTH * size * len(text)
    return float(font.getlength(text)) * size / MEASURE_SIZE


def _path_box(d: str) -> tuple[float, float, float, float] | None:
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    if len(nums) < 4:
        return None
    xs, ys = nums[0::2], nums[1::2]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def parse_svg(svg: bytes) -> list[TextFrame]:
    """Every shape with text in LibreOffice's SVG export, in document (z) order."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, huge_tree=True, load_dtd=False
    )
    root = etree.fromstring(svg, parser)
    vb = [float(v) for v in (root.get("viewBox") or "0 0 0 0").split()]
    slide_w, slide_h = (vb[2], vb[3]) if len(vb) == 4 else (0.0, 0.0)
    frames: list[TextFrame] = []
    for g in root.iter(f"{SVG_NS}g"):
        cls = g.get("class", "")
        if not cls.startswith("com.sun.star.drawing.") or cls.endswith("GroupShape"):
            continue
        box = None
        for p in g.iter(f"{SVG_NS}path"):
            box = _path_box(p.get("d", ""))
            if box:
                break
        if box is None:
            for r in g.iter(f"{SVG_NS}rect"):
                if r.get("class") == "BoundingBox":
                    box = tuple(float(r.get(k, "0")) for k in ("x", "y", "width", "height"))  # type: ignore[assignment]
        lines = []
        for tp in g.iter(f"{SVG_NS}tspan"):
            if tp.get("class") != "TextPosition":
                continue
            txt = "".join(tp.itertext())
            if not txt.strip():
                continue
            size, family, bold = 0.0, "", False
            anc = tp.getparent()
            while anc is not None and not (size and family):
                fs = anc.get("font-size")
                if fs and not size:
                    size = float(re.sub(r"[^\d.]", "", fs) or 0)
                if anc.get("font-family") and not family:
                    family = anc.get("font-family", "").split(",")[0].strip().strip("'\"")
                    bold = int(re.sub(r"\D", "", anc.get("font-weight", "400")) or 400) >= 600
                anc = anc.getparent()
            width = text_width(txt, family or "sans-serif", bold, size)
            lines.append((float(tp.get("x", "0")), float(tp.get("y", "0")), size, txt, width))
        if not lines or box is None:
            continue
        x0 = min(ln[0] for ln in lines)
        x1 = max(ln[0] + ln[4] for ln in lines)
        y0 = min(ln[1] - ASCENT * ln[2] for ln in lines)
        y1 = max(ln[1] + DESCENT * ln[2] for ln in lines)
        tb = (x0, y0, x1 - x0, y1 - y0)
        bx, by, bw, bh = box
        tol_y, tol_x = OVERFLOW_TOLERANCE_FRAC * bh, OVERFLOW_TOLERANCE_X_FRAC * bw
        over = y0 < by - tol_y or y1 > by + bh + tol_y or x0 < bx - tol_x or x1 > bx + bw + tol_x
        frames.append(
            TextFrame(
                shape_box=box,
                text=" ".join(ln[3] for ln in lines),
                lines=len(lines),
                text_box=tb,
                overflow=bool(over),
                clipped=bool(slide_w > 0 and (x0 < 0 or y0 < 0 or x1 > slide_w or y1 > slide_h)),
            )
        )
    for i, a in enumerate(frames):
        for b in frames[i + 1 :]:
            if _overlap_frac(a.text_box, b.text_box) > TEXT_OVERLAP_MIN_FRAC:
                a.overlaps = b.overlaps = True
    return frames


def _overlap_frac(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    small = min(a[2] * a[3], b[2] * b[3])
    return ix * iy / small if small > 0 else 0.0


def _reference_lines(ctx: ToolContext) -> list[str]:
    """The reference's OCR lines, compacted (empty when it cannot be read)."""
    try:
        from judge.tools.evidence import compact
        from judge.tools.nodetext import text_cached

        return [
            c for c in (compact(ln.text) for ln in text_cached(ctx, "reference")) if len(c) >= 2
        ]
    except Exception:  # the reference cannot be read: paragraphs alone say what is needed
        return []


def _lines_in_reference(text: str, ref_lines: list[str]) -> int:
    """How many reference text lines this frame's text spans: a label the reference itself
    sets on several lines may wrap the same way (that is no improper break)."""
    from judge.tools.evidence import compact

    me = compact(text)
    return sum(1 for ln in ref_lines if ln in me) if me else 0


def text_frames(ctx: ToolContext) -> dict[str, Any]:
    """Text-fit measurements of the candidate, once per case."""

    def compute() -> dict[str, Any]:
        if ctx.render_svg is None:
            return {"available": False, "frames": [], "reason": "no SVG export configured"}
        try:
            frames = parse_svg(ctx.render_svg())
        except Exception as exc:  # a deck LibreOffice cannot export is measured without it
            return {"available": False, "frames": [], "reason": f"SVG export failed: {exc}"}
        ref_lines: dict[str, int] = {}
        try:
            from judge.tools.graphs import raster_graph

            for node in raster_graph(ctx, "reference").nodes:
                if node.label:
                    ref_lines[normalise_label(node.label)] = node.lines
        except Exception:  # the reference cannot be read: paragraphs alone say what is needed
            ref_lines = {}
        tree = ctx.object_tree
        if tree is not None:
            by_text: dict[str, list[Any]] = {}
            for o in tree.objects:
                if o.text.strip():
                    by_text.setdefault(normalise_label(o.text), []).append(o)
            for f in frames:
                hits = by_text.get(normalise_label(f.text))
                if hits:
                    o = hits.pop(0)
                    f.shape_id = o.id
                    f.paragraphs = len([p for p in o.text.split("\n") if p.strip()]) or 1
        ref_ocr = _reference_lines(ctx)
        for f in frames:
            f.needed = max(
                f.paragraphs,
                ref_lines.get(normalise_label(f.text), 0),
                _lines_in_reference(f.text, ref_ocr),
            )
            # tied to a deck text, the lines read as it word for word; untied, a text wrapped
            # past its lines may be a word split apart
            f.broken = f.shape_id is None and f.lines > f.needed
        n = len(frames)
        bad = [f for f in frames if f.overflow or f.overlaps or f.clipped or f.broken]
        return {
            "available": True,
            "frames": [asdict(f) for f in frames],
            "text_frames": n,
            "overflowing": sum(f.overflow for f in frames),
            "overlapping": sum(f.overlaps for f in frames),
            "clipped": sum(f.clipped for f in frames),
            "wrapped": sum(f.lines > f.needed for f in frames),
            "broken": sum(f.broken for f in frames),
            "defective_fraction": round(len(bad) / n, 4) if n else 0.0,
        }

    return memo(ctx, "text_fit", compute)


def text_fit(ctx: ToolContext) -> ToolOutput:
    """How the candidate's text actually rendered (LibreOffice's own layout, not the object
    tree's intent): per text frame, its text, the number of lines it was wrapped into against its
    paragraphs, its rendered text box and shape box (1/100 mm of the slide), whether it overflows
    its shape, whether it overlaps another frame's text and whether its lines break a word; plus
    counts and the fraction of frames with any of these defects (a wrap at spaces is none).
    """
    return ToolOutput(text_frames(ctx))


TOOLS = [Tool.from_function(text_fit)]
