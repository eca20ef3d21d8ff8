"""Looking closer: crops of the reference or the candidate at full resolution, matched crops.

Coordinates the model may use (``frame``):

* ``pair`` -- pixels of the pair image it was shown (reference panel at x 0-1199, candidate panel
  from x 1204);
* ``panel`` -- pixels of one 1200x900 panel (the ``image`` argument says which);
* ``image`` -- pixels of the full-resolution image itself (reference PNG or LibreOffice render).

Crops are always cut from the full-resolution image, then scaled so their longest side is
:data:`CROP_MAX_PX` (small regions are enlarged: that is the zoom).
"""

from __future__ import annotations

from typing import Literal

import cv2
import numpy as np

from judge.schema import Box, PanelMapping
from judge.tools.base import Tool, ToolContext, ToolOutput, ToolUsageError

Which = Literal["reference", "candidate"]
Frame = Literal["pair", "panel", "image"]

CROP_MAX_PX = 768
"""Longest side of a returned crop, pixels: 1.5 tiles of 512 px, legible and cheap."""
MAX_ZOOM = 8.0
"""Largest enlargement of a crop: beyond this, pixels only get blurrier."""
MATCH_GAP_PX = 8
"""White gap between the two halves of a matched crop, pixels."""
MIN_CROP_PX = 2
"""Smallest region (image pixels per side) worth cutting."""


def mapping(ctx: ToolContext, which: str) -> PanelMapping:
    """How ``which`` in the reading frame (the image enlarged :meth:`ToolContext.zoom` times)
    maps to its panel."""
    if which == "reference":
        m = ctx.pair.reference
    elif which == "candidate":
        m = ctx.pair.candidate
    else:
        raise ToolUsageError(f"unknown image {which!r}: use 'reference' or 'candidate'")
    k = ctx.zoom(which)
    if k == 1:
        return m
    c = m.crop_box
    return m.model_copy(
        update={
            "image_width": m.image_width * k,
            "image_height": m.image_height * k,
            "crop_box": Box(x=c.x * k, y=c.y * k, w=c.w * k, h=c.h * k),
            "scale": m.scale / k,
        }
    )


def to_image_box(
    ctx: ToolContext, which: str, x: float, y: float, w: float, h: float, frame: str
) -> tuple[int, int, int, int]:
    """A region in ``frame`` as (x0, y0, x1, y1) pixels of the reading frame, clipped."""
    if w <= 0 or h <= 0:
        raise ToolUsageError("w and h must be positive")
    m = mapping(ctx, which)
    k = ctx.zoom(which)
    if frame == "pair":
        x -= m.panel_left
        frame = "panel"
    if frame == "panel":
        x0, y0 = m.panel_to_image(x, y)
        x1, y1 = m.panel_to_image(x + w, y + h)
    elif frame == "image":
        x0, y0, x1, y1 = x * k, y * k, (x + w) * k, (y + h) * k
    else:
        raise ToolUsageError(f"unknown frame {frame!r}: use 'pair', 'panel' or 'image'")
    cx0, cy0 = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
    cx1 = min(m.image_width, int(np.ceil(x1)))
    cy1 = min(m.image_height, int(np.ceil(y1)))
    if cx1 - cx0 < MIN_CROP_PX or cy1 - cy0 < MIN_CROP_PX:
        raise ToolUsageError(
            f"the region lies outside the {which} image "
            f"({m.image_width // k}x{m.image_height // k} px "
            f"image frame; panel content spans the 1200x900 panel): pick a region inside it"
        )
    return cx0, cy0, cx1, cy1


def own_pixels(
    ctx: ToolContext, which: str, x0: float, y0: float, x1: float, y1: float
) -> dict[str, float]:
    """A reading-frame box (x0, y0, x1, y1) as x/y/w/h in the image's own pixels."""
    k = ctx.zoom(which)
    return {"x": x0 / k, "y": y0 / k, "w": (x1 - x0) / k, "h": (y1 - y0) / k}


def image_box_to_panel(
    ctx: ToolContext, which: str, box: tuple[float, float, float, float]
) -> dict[str, float]:
    """A reading-frame box (x0, y0, x1, y1) in the panel frame, as x/y/w/h."""
    m = mapping(ctx, which)
    px0, py0 = m.image_to_panel(box[0], box[1])
    px1, py1 = m.image_to_panel(box[2], box[3])
    return {
        "x": round(px0, 1),
        "y": round(py0, 1),
        "w": round(px1 - px0, 1),
        "h": round(py1 - py0, 1),
    }


def _scale_to(img: np.ndarray, longest: int) -> tuple[np.ndarray, float]:
    h, w = img.shape[:2]
    s = min(MAX_ZOOM, longest / max(h, w))
    if abs(s - 1.0) < 1e-6:
        return img, 1.0
    interp = cv2.INTER_CUBIC if s > 1 else cv2.INTER_AREA
    out = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=interp)
    return out, s


def crop(
    ctx: ToolContext,
    image: Which,
    x: float,
    y: float,
    w: float,
    h: float,
    frame: Frame = "panel",
) -> ToolOutput:
    """Zoom into a region of the reference or the candidate render, cut at full resolution.

    image: "reference" or "candidate". x, y, w, h: the region, in pixels of `frame`:
    "pair" (the side-by-side image you were shown), "panel" (that image's 1200x900 panel) or
    "image" (the full-resolution image). Returns the crop (enlarged so its longest side is
    768 px) and the region in the image and panel frames.
    """
    x0, y0, x1, y1 = to_image_box(ctx, image, x, y, w, h, frame)
    region = ctx.image(image)[y0:y1, x0:x1]
    out, scale = _scale_to(region, CROP_MAX_PX)
    return ToolOutput(
        {
            "image": image,
            "image_box": own_pixels(ctx, image, x0, y0, x1, y1),
            "panel_box": image_box_to_panel(ctx, image, (x0, y0, x1, y1)),
            "zoom": round(scale * ctx.zoom(image), 3),  # from the image's own pixels
            "crop_size_px": [int(out.shape[1]), int(out.shape[0])],
        },
        [out],
    )


def compare_crops(
    ctx: ToolContext,
    x: float,
    y: float,
    w: float,
    h: float,
    frame: Literal["pair", "panel"] = "panel",
) -> ToolOutput:
    """Matched crops: the same panel region of the reference (left) and the candidate (right).

    Both panels are normalised the same way, so one panel-frame region picks corresponding
    content in both. x, y, w, h: pixels of a 1200x900 panel ("panel") or of the pair image
    ("pair": a region in either panel, the other panel's region is matched). Each half is cut
    from its full-resolution image; both are scaled to the same height, 8 px apart.
    """
    if frame == "pair" and x >= ctx.pair.candidate.panel_left:
        x -= ctx.pair.candidate.panel_left
    halves: list[np.ndarray] = []
    boxes: dict[str, dict[str, float]] = {}
    for which in ("reference", "candidate"):
        x0, y0, x1, y1 = to_image_box(ctx, which, x, y, w, h, "panel")
        halves.append(ctx.image(which)[y0:y1, x0:x1])
        boxes[which] = own_pixels(ctx, which, x0, y0, x1, y1)
    height = max(a.shape[0] for a in halves)
    scaled = [
        cv2.resize(a, (max(1, round(a.shape[1] * height / a.shape[0])), height)) for a in halves
    ]
    gap = np.full((height, MATCH_GAP_PX, 3), 255, dtype=np.uint8)
    joined = np.hstack([scaled[0], gap, scaled[1]])
    out, _ = _scale_to(joined, CROP_MAX_PX * 2)
    return ToolOutput(
        {
            "panel_box": {"x": x, "y": y, "w": w, "h": h},
            "image_boxes": boxes,
            "layout": "reference left, candidate right",
            "crop_size_px": [int(out.shape[1]), int(out.shape[0])],
        },
        [out],
    )


TOOLS = [Tool.from_function(crop), Tool.from_function(compare_crops)]
