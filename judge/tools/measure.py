"""Measuring regions and shapes: colour segmentation, connected components, box geometry.

Regions are given like :func:`judge.tools.view.crop` (``pair``/``panel``/``image`` frame) and
measured at full resolution; results come back in both the image frame (pixels of the
full-resolution image) and the panel frame (pixels of its 1200x900 panel). Geometry uses shapely.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict
from shapely.geometry import box as shp_box

from judge.tools.base import Tool, ToolContext, ToolOutput, ToolUsageError
from judge.tools.tree import panel_box
from judge.tools.view import (
    Frame,
    Which,
    image_box_to_panel,
    mapping,
    own_pixels,
    to_image_box,
)

QUANT_STEP = 32
"""Colour quantisation step per channel (0-255) for segmentation: 8 levels, robust to
anti-aliasing and JPEG noise."""
MAX_SEGMENTS = 12
"""Most colour segments reported."""
DARK_MAX = 40
"""A pixel with every channel at or below this is "near black" (render defect checks)."""
BACKGROUND_TOLERANCE = 24
"""Max channel difference from the image background still counted as background."""
MAX_COMPONENTS = 60
"""Most components reported (largest first)."""
ALIGN_TOLERANCE_PX = 4.0
"""Centres or edges within this many panel pixels count as aligned."""
MAX_GEOMETRY_BOXES = 40
"""Most boxes one geometry call compares (pairs grow quadratically)."""


def _region(
    ctx: ToolContext, image: str, x: float, y: float, w: float, h: float, frame: str
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    box = to_image_box(ctx, image, x, y, w, h, frame)
    x0, y0, x1, y1 = box
    return ctx.image(image)[y0:y1, x0:x1], box


def _hex_bgr(bgr: np.ndarray | tuple[int, int, int]) -> str:
    b, g, r = (int(v) for v in bgr)
    return f"{r:02X}{g:02X}{b:02X}"


def _parse_hex(colour: str) -> np.ndarray:
    c = colour.strip().lstrip("#")
    if len(c) != 6:
        raise ToolUsageError(f"colour {colour!r} is not RRGGBB hex")
    try:
        r, g, b = int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)
    except ValueError as exc:
        raise ToolUsageError(f"colour {colour!r} is not RRGGBB hex") from exc
    return np.array([b, g, r], dtype=np.int16)


def colour_segments(
    ctx: ToolContext,
    image: Which,
    x: float,
    y: float,
    w: float,
    h: float,
    frame: Frame = "panel",
) -> ToolOutput:
    """Colour segmentation of a region: its main colours (RRGGBB) with their area fractions
    (0-1), the background fraction and the near-black fraction (solid black blocks are a render
    defect). Region as in crop: pixels of frame "pair", "panel" or "image".
    """
    region, box = _region(ctx, image, x, y, w, h, frame)
    pixels = region.reshape(-1, 3).astype(np.int16)
    n = len(pixels)
    bg = np.array(mapping(ctx, image).background_rgb[::-1], dtype=np.int16)
    is_bg = np.abs(pixels - bg).max(axis=1) <= BACKGROUND_TOLERANCE
    dark = (pixels <= DARK_MAX).all(axis=1)
    q = (pixels // QUANT_STEP).astype(np.int32)
    keys = (q[:, 0] << 16) | (q[:, 1] << 8) | q[:, 2]
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    order = np.argsort(-counts, kind="stable")[:MAX_SEGMENTS]
    segments = []
    for idx in order:
        members = pixels[inverse.ravel() == idx]
        segments.append(
            {"colour": _hex_bgr(np.median(members, axis=0)), "fraction": round(counts[idx] / n, 4)}
        )
    return ToolOutput(
        {
            "image": image,
            "image_box": own_pixels(ctx, image, *box),
            "panel_box": image_box_to_panel(ctx, image, box),
            "background": _hex_bgr(bg),
            "background_fraction": round(float(is_bg.mean()), 4),
            "near_black_fraction": round(float(dark.mean()), 4),
            "segments": segments,
        }
    )


def components(
    ctx: ToolContext,
    image: Which,
    x: float,
    y: float,
    w: float,
    h: float,
    frame: Frame = "panel",
    colour: str | None = None,
    tolerance: int = 40,
    min_area_px: int = 20,
) -> ToolOutput:
    """Connected components of a region: every blob of non-background pixels (or, with
    colour="RRGGBB", of pixels within tolerance of that colour), largest first, with its box
    and centre in the image frame and the panel frame, and its area in image pixels.
    Use it to count boxes, arrowheads, icons or text blobs. Region as in crop.
    """
    if not 0 <= tolerance <= 255:
        raise ToolUsageError("tolerance is a per-channel difference, 0-255")
    if min_area_px < 1:
        raise ToolUsageError("min_area_px must be at least 1")
    region, box = _region(ctx, image, x, y, w, h, frame)
    px = region.astype(np.int16)
    if colour is None:
        bg = np.array(mapping(ctx, image).background_rgb[::-1], dtype=np.int16)
        mask = np.abs(px - bg).max(axis=2) > BACKGROUND_TOLERANCE
    else:
        mask = np.abs(px - _parse_hex(colour)).max(axis=2) <= tolerance
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(
        mask.astype(np.uint8), connectivity=8
    )
    del labels
    found: list[dict[str, Any]] = []
    for i in range(1, n):
        bx, by, bw, bh, area = (int(v) for v in stats[i])
        if area < min_area_px:
            continue
        ib = (box[0] + bx, box[1] + by, box[0] + bx + bw, box[1] + by + bh)
        cx, cy = box[0] + float(centroids[i][0]), box[1] + float(centroids[i][1])
        pcx, pcy = mapping(ctx, image).image_to_panel(cx, cy)
        found.append(
            {
                "area_px": area / ctx.zoom(image) ** 2,
                "image_box": own_pixels(ctx, image, *ib),
                "panel_box": image_box_to_panel(ctx, image, ib),
                "panel_centre": [round(pcx, 1), round(pcy, 1)],
            }
        )
    found.sort(key=lambda c: -c["area_px"])
    return ToolOutput(
        {
            "image": image,
            "count": len(found),
            "truncated": len(found) > MAX_COMPONENTS,
            "mask_fraction": round(float(mask.mean()), 4),
            "components": found[:MAX_COMPONENTS],
        }
    )


class NamedBox(BaseModel):
    """A box to measure, in panel-frame pixels of either panel."""

    model_config = ConfigDict(extra="forbid")
    name: str
    x: float
    y: float
    w: float
    h: float


def geometry(
    ctx: ToolContext,
    boxes: list[NamedBox] | None = None,
    object_ids: list[int] | None = None,
) -> ToolOutput:
    """Geometry of boxes: centres, sizes, and for each pair the centre distance, the gap between
    edges, horizontal/vertical alignment (centres or edges within 4 px), and overlap (shapely:
    intersection area over the smaller box, 0-1). Give boxes in panel-frame pixels (from
    components or your own reading) and/or candidate object ids (their panel boxes are used).
    Compare boxes of one panel with each other; positions across panels are comparable because
    both panels are normalised.
    """
    items: list[tuple[str, tuple[float, float, float, float]]] = []
    for raw in boxes or []:
        b = NamedBox.model_validate(raw) if isinstance(raw, dict) else raw  # Tool.call dumps
        if b.w <= 0 or b.h <= 0:
            raise ToolUsageError(f"box {b.name!r}: w and h must be positive")
        items.append((b.name, (b.x, b.y, b.w, b.h)))
    if object_ids:
        if ctx.object_tree is None:
            raise ToolUsageError("the candidate's object tree could not be read")
        by_id = {o.id: o for o in ctx.object_tree.objects}
        for oid in object_ids:
            if oid not in by_id:
                raise ToolUsageError(f"no object with id {oid} on the slide")
            pb = panel_box(ctx, by_id[oid])
            items.append((f"#{oid} {by_id[oid].name}", (pb["x"], pb["y"], pb["w"], pb["h"])))
    if not items:
        raise ToolUsageError("give boxes or object_ids to measure")
    if len(items) > MAX_GEOMETRY_BOXES:
        raise ToolUsageError(f"at most {MAX_GEOMETRY_BOXES} boxes per call")
    shapes = {n: shp_box(x, y, x + w, y + h) for n, (x, y, w, h) in items}
    out_boxes = [
        {
            "name": n,
            "centre": [round(x + w / 2, 1), round(y + h / 2, 1)],
            "size": [round(w, 1), round(h, 1)],
        }
        for n, (x, y, w, h) in items
    ]
    pairs = []
    for (na, ra), (nb, rb) in combinations(items, 2):
        ca = (ra[0] + ra[2] / 2, ra[1] + ra[3] / 2)
        cb = (rb[0] + rb[2] / 2, rb[1] + rb[3] / 2)
        sa, sb = shapes[na], shapes[nb]
        inter = sa.intersection(sb).area
        smaller = min(sa.area, sb.area) or 1.0
        pairs.append(
            {
                "a": na,
                "b": nb,
                "centre_distance": round(float(np.hypot(cb[0] - ca[0], cb[1] - ca[1])), 1),
                "dx": round(cb[0] - ca[0], 1),
                "dy": round(cb[1] - ca[1], 1),
                "gap": round(float(sa.distance(sb)), 1),
                "overlap": round(inter / smaller, 4),
                "aligned_horizontally": abs(ca[1] - cb[1]) <= ALIGN_TOLERANCE_PX
                or abs(ra[1] - rb[1]) <= ALIGN_TOLERANCE_PX,
                "aligned_vertically": abs(ca[0] - cb[0]) <= ALIGN_TOLERANCE_PX
                or abs(ra[0] - rb[0]) <= ALIGN_TOLERANCE_PX,
            }
        )
    return ToolOutput({"boxes": out_boxes, "pairs": pairs})


TOOLS = [
    Tool.from_function(colour_segments),
    Tool.from_function(components),
    Tool.from_function(geometry),
]
