"""Draw a :class:`~generation.diagram.Diagram` as the raster reference (Pillow).

Drawn at :data:`SUPERSAMPLE` times the size and reduced with a Lanczos filter, so edges are
antialiased like a real exported figure. Strokes are centred on the geometry (as PowerPoint and
LibreOffice draw them); arrowheads are filled triangles whose tip is the edge's end point.
"""

from __future__ import annotations

import io
import itertools
import math

from PIL import Image, ImageDraw, ImageFont

from generation.diagram import (
    PANEL_RADIUS_PX,
    PANEL_STROKE,
    PANEL_STROKE_PX,
    TITLE_PX,
    Diagram,
    Edge,
    head_size,
)

SUPERSAMPLE = 3
"""Drawing scale before the antialiasing reduction."""
DASH_ON, DASH_OFF = 4.0, 3.0
"""Dash and gap lengths in line widths: OOXML's ``dash`` preset as LibreOffice draws it."""
TITLE_INSET = (16.0, 12.0)
"""Panel title position inside the panel frame (x, y), pixels."""
BACKGROUND = (255, 255, 255)


def draw_reference(d: Diagram) -> Image.Image:
    """The reference image of ``d`` (RGB, ``d.width`` x ``d.height`` pixels)."""
    s = SUPERSAMPLE
    img = Image.new("RGB", (d.width * s, d.height * s), BACKGROUND)
    draw = ImageDraw.Draw(img)
    regular, bold = d.font_files()

    for p in d.panels:
        half = PANEL_STROKE_PX / 2
        draw.rounded_rectangle(
            _scaled((p.x - half, p.y - half, p.x + p.w + half, p.y + p.h + half), s),
            radius=PANEL_RADIUS_PX * s,
            outline=PANEL_STROKE,
            width=round(PANEL_STROKE_PX * s),
        )
        font = ImageFont.truetype(bold, round(TITLE_PX * s))
        tx, ty = TITLE_INSET
        draw.text(((p.x + tx) * s, (p.y + ty) * s), p.title, font=font, fill=(0, 0, 0), anchor="la")

    for n in d.nodes:
        half = n.stroke_px / 2
        box = _scaled((n.x - half, n.y - half, n.x + n.w + half, n.y + n.h + half), s)
        width = max(1, round(n.stroke_px * s))
        if n.radius_px > 0:
            draw.rounded_rectangle(
                box, radius=(n.radius_px + half) * s, fill=n.fill, outline=n.stroke, width=width
            )
        else:
            draw.rectangle(box, fill=n.fill, outline=n.stroke, width=width)
        font = ImageFont.truetype(bold if n.bold else regular, round(n.font_px * s))
        draw.text((n.cx * s, n.cy * s), n.label, font=font, fill=n.text_color, anchor="mm")

    for e in d.edges:
        _draw_edge(draw, d.route_points(e), e, s)

    out = img.resize((d.width, d.height), Image.Resampling.LANCZOS)
    return out


def reference_png_bytes(d: Diagram) -> bytes:
    """PNG bytes of the reference (deterministic: same diagram, same bytes)."""
    buf = io.BytesIO()
    draw_reference(d).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def _scaled(box: tuple[float, float, float, float], s: int) -> tuple[int, int, int, int]:
    return (round(box[0] * s), round(box[1] * s), round(box[2] * s), round(box[3] * s))


def _draw_edge(draw: ImageDraw.ImageDraw, pts: list[tuple[float, float]], e: Edge, s: int) -> None:
    head = head_size(e)
    # Stop the shaft inside the head so its square end never pokes past the triangle's sides.
    (x0, y0), (x1, y1) = pts[-2], pts[-1]
    seg = math.hypot(x1 - x0, y1 - y0) or 1.0
    ux, uy = (x1 - x0) / seg, (y1 - y0) / seg
    back = min(seg, head * 0.6)
    shaft = [*pts[:-1], (x1 - ux * back, y1 - uy * back)]
    width = max(1, round(e.width_px * s))
    scaled = [(x * s, y * s) for x, y in shaft]
    if e.dashed:
        for a, b in _dashes(scaled, DASH_ON * e.width_px * s, DASH_OFF * e.width_px * s):
            draw.line([a, b], fill=e.color, width=width)
    else:
        draw.line(scaled, fill=e.color, width=width, joint="curve")
    # The filled triangle: tip at the end point, base ``head`` behind it, ``head`` wide.
    tip = (x1 * s, y1 * s)
    bx, by = (x1 - ux * head) * s, (y1 - uy * head) * s
    nx, ny = -uy * head / 2 * s, ux * head / 2 * s
    draw.polygon([tip, (bx + nx, by + ny), (bx - nx, by - ny)], fill=e.color)


def _dashes(
    pts: list[tuple[float, float]], on: float, off: float
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Split a polyline into dash segments with a pattern continuous across corners."""
    out: list[tuple[tuple[float, float], tuple[float, float]]] = []
    period = on + off
    phase = 0.0  # distance along the pattern at the start of the current segment
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        length = math.hypot(x1 - x0, y1 - y0)
        if length == 0:
            continue
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        t = 0.0
        while t < length:
            pos = (phase + t) % period
            if pos < on:
                run = min(on - pos, length - t)
                out.append(((x0 + ux * t, y0 + uy * t), (x0 + ux * (t + run), y0 + uy * (t + run))))
            else:
                run = min(period - pos, length - t)
            t += run
        phase = (phase + length) % period
    return out
