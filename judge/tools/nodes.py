"""Node detection on a raster: box-like blobs with fill and stroke colours and corner rounding.

Method: ink = pixels differing from the local background; box-like holes (outlined boxes) are
filled; an opening removes lines and text strokes; the remaining components that are big and
solid enough are blobs. Each blob is scanned again inside, against its own fill colour, so
panels (containers) and the nodes they hold come out as a hierarchy. Everything is in pixels of
the image measured (the image frame) unless a tool caller asks for the panel frame.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import cv2
import numpy as np

from judge.tools.base import Tool, ToolContext, ToolOutput, memo
from judge.tools.blobtests import (
    big_head,
    erode,
    head_core,
    mirrored,
    open_merged,
    plain,
    plain_heads,
    restore_points,
    shallow_crossing,
    triangle_fill,
)
from judge.tools.colour import channel_off, ciede2000_bgr
from judge.tools.ocr import box_to_frame, region_to_image
from judge.tools.thresholds import (
    BG_SAME_DE,
    CORNER_SHARP_PX,
    CYLINDER_CAP_MATCH_FRAC,
    ELLIPSE_MIN_EXTENT,
    HEAD_MAX_EXTENT,
    HEAD_MAX_SIDE_FACTOR,
    HEAD_MIN_TRIANGLE_FILL,
    HOLE_CONVEX_MIN_SOLIDITY,
    HOLE_FILL_MIN_EXTENT,
    INK_DIFF,
    LID_MAX_DEPTH_FRAC,
    LID_MAX_GAP_FRAC,
    LID_MIN_SPAN_FRAC,
    LIGHT_FILL_DIFF,
    LIGHT_FILL_MAX_GRADIENT,
    LIGHT_FILL_MIN_PX,
    LINE_INK_DIFF,
    LINE_OPEN_PER_KPX,
    MAX_DEPTH,
    MIN_NODE_EXTENT,
    MIN_NODE_SIDE_PER_KPX,
    OWN_MIN_KEEP_FRAC,
    OWN_MIN_REGION_FRAC,
    OWN_PIECE_MAX_SIDES,
    OWN_RIM_SLACK_PX,
    RECT_MIN_EXTENT,
    ROUNDED_MIN_RADIUS_FRAC,
    SHADOW_MAX_DIFF,
    SHADOW_MAX_SPREAD,
    SHADOW_MIN_GRADIENT,
    SOLID_HEAD_MAX_EXTENT,
    SOLID_HEAD_MAX_SIDE_FACTOR,
    STRADDLE_MAX_INSIDE_FRAC,
    STROKE_MIN_RING_FRAC,
    TEXT_SLOT_MAX_SIDES,
    TEXT_SLOT_MIN_INK_FRAC,
    TEXT_SLOT_RIM_PX,
    scaled_px,
)


@dataclass
class Blob:
    """One box-like region. ``box`` = (x, y, w, h) in pixels of the measured image."""

    box: tuple[int, int, int, int]
    fill_bgr: tuple[int, int, int] | None
    """Dominant interior colour; None when it equals the surrounding background (outline only)."""
    stroke_bgr: tuple[int, int, int] | None
    """Colour of the outer ring when it differs from the fill; None when there is no outline."""
    stroke_px: float
    corner_radius_px: float
    extent: float
    """Blob area over its bounding-box area (1 = rectangle, 0.785 = ellipse, 0.5 = diamond)."""
    shape: str
    depth: int
    parent: int | None
    background_bgr: tuple[int, int, int]
    """Colour around the blob (the image background or its parent's fill)."""
    mask: np.ndarray = field(repr=False)
    """Bool mask of the blob within ``box``."""
    interior_bgr: tuple[int, int, int] = (255, 255, 255)
    """Colour inside the blob (its fill, or the background showing through when unfilled)."""
    children: list[int] = field(default_factory=list)

    @property
    def corner_radius_frac(self) -> float:
        """Corner radius over the short side (PowerPoint's roundRect adjustment is 0-0.5)."""
        return self.corner_radius_px / max(1.0, min(self.box[2], self.box[3]))

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return (x + w / 2, y + h / 2)


def hex_of(bgr: tuple[int, int, int] | None) -> str | None:
    """``RRGGBB`` of a BGR triple (None stays None)."""
    if bgr is None:
        return None
    b, g, r = bgr
    return f"{r:02X}{g:02X}{b:02X}"


def border_bgr(img: np.ndarray) -> tuple[int, int, int]:
    """Median colour of the outermost rows and columns (the image background), BGR."""
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]], axis=0)
    med = np.median(border, axis=0)
    return (int(med[0]), int(med[1]), int(med[2]))


def dominant_bgr(pixels: np.ndarray) -> tuple[int, int, int] | None:
    """Median colour of the most common 16-level colour bin of an (N, 3) BGR array."""
    if pixels.size == 0:
        return None
    q = (pixels >> 4).astype(np.int32)
    keys = (q[:, 0] << 8) | (q[:, 1] << 4) | q[:, 2]
    vals, counts = np.unique(keys, return_counts=True)
    top = vals[int(np.argmax(counts))]
    sel = pixels[keys == top]
    med = np.median(sel, axis=0)
    return (int(med[0]), int(med[1]), int(med[2]))


def channel_max(img: np.ndarray) -> np.ndarray:
    b, g, r = cv2.split(img)
    return cv2.max(cv2.max(b, g), r)


def channel_min(img: np.ndarray) -> np.ndarray:
    b, g, r = cv2.split(img)
    return cv2.min(cv2.min(b, g), r)


def ink_mask(
    img: np.ndarray, background: Any, strong: bool = False, light: bool = False
) -> np.ndarray:
    """uint8 0/1 mask of pixels differing from ``background`` (a BGR triple or an HxWx3 map).

    Soft grey shadows (neutral, light, with a gradient) are left out; ``strong`` uses the
    higher line-ink threshold, which also drops shadows of lines; ``light`` adds light flat
    fills (on the page's background only: inside a node, a lighter cap or band of its own
    fill is no new node).
    """
    if isinstance(background, np.ndarray) and background.shape == img.shape:
        bg = background
    else:
        bg = np.empty_like(img)
        bg[:] = np.asarray(background, dtype=np.uint8)
    diff = channel_max(cv2.absdiff(img, bg))
    if strong:
        return (diff > LINE_INK_DIFF).astype(np.uint8)
    ink = diff > INK_DIFF
    spread = cv2.subtract(channel_max(img), channel_min(img))
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    grad = cv2.morphologyEx(grey, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    shadow = (
        (spread <= SHADOW_MAX_SPREAD)
        & (diff < SHADOW_MAX_DIFF)
        & (grad >= SHADOW_MIN_GRADIENT)
        & (grad <= 3 * SHADOW_MAX_DIFF // 2)
    )
    if not light:
        return (ink & ~shadow).astype(np.uint8)
    # a light flat fill (#EEE on white) differs by less than INK_DIFF: flat stretches that
    # differ a little, wide enough not to be anti-aliasing or JPEG ringing, are ink too
    flat = ((diff > LIGHT_FILL_DIFF) & (grad <= LIGHT_FILL_MAX_GRADIENT)).astype(np.uint8)
    k = np.ones((LIGHT_FILL_MIN_PX, LIGHT_FILL_MIN_PX), np.uint8)
    wide = cv2.morphologyEx(flat, cv2.MORPH_OPEN, k) > 0
    # the whole flat stretch that is wide somewhere: the narrow strip between a label's
    # glyphs and the box's edge belongs to the fill too (else the label's slot breaks the box)
    n, lab = cv2.connectedComponents(flat, connectivity=4)
    keep = np.zeros(n, bool)
    keep[np.unique(lab[wide])] = True
    keep[0] = False
    out: np.ndarray = ((ink & ~shadow) | keep[lab]).astype(np.uint8)
    return out


def outside_of(mask: np.ndarray) -> np.ndarray:
    """A mask with its holes filled: everything within its outer contours."""
    outer = np.zeros(mask.shape, np.uint8)
    rims, _h = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cv2.drawContours(outer, rims, -1, 1, thickness=-1)
    return outer > 0


def _fill_holes(
    ink: np.ndarray,
    min_side: int,
    k: int,
    cylinders_only: bool = False,
    img: np.ndarray | None = None,
) -> np.ndarray:
    """Fill box-like holes (outlined box and panel interiors) and small holes (glyph counters).

    A loop of lines closed through nodes also makes a box-like hole; it is told apart because
    solid blobs straddle its bounding box (the nodes sit on the loop), whereas the solid blobs
    of a panel lie wholly inside or outside it. ``cylinders_only``: return only the filled
    bodies of cylinders (holes with a cap, :func:`_is_cap`), not the ink. ``img`` (the BGR
    image ``ink`` was taken from): solids shaped like heads with nothing inside do not count
    as nodes on a loop (:func:`blobtests.plain_heads`).
    """
    solid = np.zeros_like(ink) if cylinders_only else ink.copy()
    contours, hier = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return solid
    small = min_side * min_side / 4
    thick = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    n, tlab, stats, _ = cv2.connectedComponentsWithStats(thick, connectivity=8)
    # a node is a node's least side thick both ways over a node's length: a tapered tail's
    # fat stub, however long its slant makes its box, is not (seed-2525 matplotlib figure 6:
    # two 10 px tails left an outlined diamond's lower sides, and the diamond stayed a loop of
    # lines), nor a fat line with its head, of which only the head is that thick (seed-3838
    # matplotlib figure 10: 10 px lines with 18 px heads joining outlined boxes in a loop
    # counted as nodes on it, and "Cache", "Augment" and "Labeler" stayed unfilled)
    core = cv2.morphologyEx(thick, cv2.MORPH_OPEN, np.ones((min_side, min_side), np.uint8))
    nc, clab, cstats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    cored: dict[int, list[tuple[int, int, int, int]]] = {}
    for piece in range(1, nc):
        cx, cy, cw, ch = (int(v) for v in cstats[piece, :4])
        if max(cw, ch) >= HEAD_MAX_SIDE_FACTOR * min_side and mirrored(
            clab[cy : cy + ch, cx : cx + cw] == piece
        ):
            ys_, xs_ = np.nonzero(clab[cy : cy + ch, cx : cx + cw] == piece)
            cored.setdefault(int(tlab[cy + ys_[0], cx + xs_[0]]), []).append((cx, cy, cw, ch))
    # solids that may be nodes sitting on a loop of lines; arrowhead-sized ones (under
    # HEAD_MAX_SIDE_FACTOR node sides) do not count: an arrowhead touching an outlined node's
    # border would otherwise stop that node from being filled; nor do solids thinner than a
    # node (the thick stub of a tapered arrow's tail on an outlined node), nor bigger heads,
    # shaped like a triangle, as the blob scan reads them (seed-7878 matplotlib figure 5:
    # four 50-60 px heads on an outlined ellipse left it unfilled, and no node)
    # each straddles by the box of what is node-thick of it, not by its whole box: fat lines
    # join outlined boxes into one solid, whose box holds every interior (Graphviz seed-4646
    # figure 0: a chain of five outlined boxes joined by 10 px lines, 48 px heads on them)
    boxes = [
        box
        for j in range(1, n)
        if stats[j, 4] >= small
        and max(stats[j, 2], stats[j, 3]) >= HEAD_MAX_SIDE_FACTOR * min_side
        and min(stats[j, 2], stats[j, 3]) >= min_side
        and j in cored
        and not big_head(tlab, stats[j], j, min_side)
        and not (img is not None and plain_heads(img, tlab, stats[j], j, min_side))
        for box in cored[j]
    ]
    # the interiors of outlined boxes are holes too: a loop of lines through outlined nodes
    # is straddled by them just as by filled nodes (holes thinner than a node, a cylinder's
    # caps, are no node's interior)
    holes = {
        i: r
        for i, c in enumerate(contours)
        if hier[0][i][3] >= 0
        and cv2.contourArea(c) > small
        and min((r := cv2.boundingRect(c))[2:]) >= min_side
    }
    # caps thinner than a node are left out of ``holes``, but fill with their cylinder's body:
    # left open, the cap's outer arc stays line ink, and a head arriving on it reads there as
    # a line along the cap (seed-2525 matplotlib figure 10, "Labeler")
    thin_caps = {
        i: r
        for i, c in enumerate(contours)
        if hier[0][i][3] >= 0
        and i not in holes
        and cv2.contourArea(c) > small
        and max((r := cv2.boundingRect(c))[2:]) >= min_side
    }
    tol = k
    for i, c in enumerate(contours):
        if hier[0][i][3] < 0:
            continue
        x, y, w, h = cv2.boundingRect(c)
        area = cv2.contourArea(c)
        if area <= small:
            if not cylinders_only:
                cv2.drawContours(solid, [c], -1, 1, thickness=-1)
            continue
        slot = not cylinders_only and min(w, h) < TEXT_SLOT_MAX_SIDES * min_side
        if slot and _text_slot(ink, c, (x, y, w, h)):
            # a label's slot in a light box: its frame may break into pieces that look like
            # nodes on a loop of lines, so it is not tested for straddling
            cv2.drawContours(solid, [c], -1, 1, thickness=-1)
            continue
        if w < min_side or h < min_side:
            continue
        if area < HOLE_FILL_MIN_EXTENT * w * h and not (
            # an outlined diamond's interior fills half its box, but is convex
            area >= MIN_NODE_EXTENT * w * h
            and area >= HOLE_CONVEX_MIN_SOLIDITY * cv2.contourArea(cv2.convexHull(c))
        ):
            continue
        straddle = False
        # only smaller holes count (a node's interior is not straddled by the loop around it)
        others = [hb for j, hb in holes.items() if j != i and hb[2] * hb[3] < w * h]
        caps = [hb for hb in others if _is_cap(hb, (x, y, w, h), tol)]
        if cylinders_only and not caps:
            continue
        for bx, by, bw, bh in boxes + [hb for hb in others if hb not in caps]:
            if bx >= x + w or bx + bw <= x or by >= y + h or by + bh <= y:
                continue  # outside
            if (
                bx >= x - tol
                and by >= y - tol
                and bx + bw <= x + w + tol
                and by + bh <= y + h + tol
            ):
                continue  # inside
            ix = min(bx + bw, x + w) - max(bx, x)
            iy = min(by + bh, y + h) - max(by, y)
            if ix * iy > STRADDLE_MAX_INSIDE_FRAC * bw * bh:
                continue  # mostly inside: lines meeting at the node's rim, no node on a loop
            straddle = True
            break
        if not straddle:  # the hull: a panel's hole loses what is attached inside it
            cv2.fillConvexPoly(solid, cv2.convexHull(c), 1)
            for j, cap in thin_caps.items():
                if _is_cap(cap, (x, y, w, h), tol):
                    cv2.drawContours(solid, contours, j, 1, thickness=-1)
    return solid


def _text_slot(ink: np.ndarray, contour: np.ndarray, box: Sequence[int]) -> bool:
    """Whether a hole is the knocked-out label inside a light flat fill: round the glyphs of a
    #EEE box the fill is not flat, so the label leaves a slot in the box's ink with the glyphs
    as islands in it (``TEXT_SLOT_MIN_INK_FRAC`` of the slot is ink). The gap between two
    parallel lines closed at both ends holds no ink; a loop of lines, mostly empty page."""
    x, y, w, h = box
    slot = np.zeros((h, w), np.uint8)
    cv2.drawContours(slot, [contour], -1, 1, thickness=-1, offset=(-x, -y))
    # a hole's contour runs over the ink round it: only what lies clear of that rim counts
    cv2.drawContours(slot, [contour], -1, 0, thickness=TEXT_SLOT_RIM_PX, offset=(-x, -y))
    inside = slot > 0
    n = int(inside.sum())
    return n > 0 and float(ink[y : y + h, x : x + w][inside].mean()) >= TEXT_SLOT_MIN_INK_FRAC


def _is_cap(cap: Sequence[int], body: Sequence[int], tol: int) -> bool:
    """Whether hole ``cap`` is an end cap of a cylinder whose body is hole ``body``: as wide as
    the body (``CYLINDER_CAP_MATCH_FRAC``) and overlapping one of its ends (top or bottom; left
    or right for a cylinder lying down). A loop of lines through outlined nodes is straddled
    by node interiors narrower than it; a cylinder's caps span its whole width."""
    cx, cy, cw, ch = cap
    x, y, w, h = body
    slack = CYLINDER_CAP_MATCH_FRAC
    across = abs(cx - x) <= slack * w + tol and abs(cw - w) <= slack * w + tol
    if across and ch < h and (cy < y < cy + ch or cy < y + h < cy + ch):
        return True
    down = abs(cy - y) <= slack * h + tol and abs(ch - h) <= slack * h + tol
    return down and cw < w and (cx < x < cx + cw or cx < x + w < cx + cw)


def _outline_colour(
    pixels: np.ndarray, fill: tuple[int, int, int], bg: tuple[int, int, int]
) -> tuple[int, int, int] | None:
    """The outline colour among a blob's outer-band pixels (BGR, (N, 3)).

    Anti-aliased pixels are blends of the outline with the fill or the background, so they lie
    closer to the fill-background segment (in RGB) than the outline itself: take the pixels
    farthest from that segment. When the outline lies on the segment, the dominant colour.
    """
    p = pixels.astype(np.float64)
    a, b = np.asarray(bg, np.float64), np.asarray(fill, np.float64)
    ab = b - a
    t = np.clip(((p - a) @ ab) / max(1.0, float(ab @ ab)), 0.0, 1.0)
    dist = np.linalg.norm(p - (a + t[:, None] * ab), axis=1)
    if float(dist.max()) < INK_DIFF:
        return dominant_bgr(pixels)
    core = pixels[dist >= np.percentile(dist, 70)]
    med = np.median(core, axis=0)
    return (int(med[0]), int(med[1]), int(med[2]))


def _corner_inset(mask: np.ndarray) -> float:
    """Median over the four corners of the diagonal distance (px) from the corner to the mask."""
    h, w = mask.shape
    n = min(w, h) // 2
    insets = []
    for sx, sy in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)):
        dx = 1 if sx == 0 else -1
        dy = 1 if sy == 0 else -1
        t = 0
        while t < n and not mask[sy + dy * t, sx + dx * t]:
            t += 1
        insets.append(t)
    return float(np.median(insets))


def _stroke_width(sub: np.ndarray, mask: np.ndarray, stroke: Any, fill: Any) -> float:
    """Median run length (px) of stroke-coloured pixels from the outer edge inwards, 4 sides."""
    if stroke is None:
        return 0.0
    h, w = mask.shape
    s = np.asarray(stroke, dtype=float)
    f = np.asarray(fill, dtype=float)
    runs = []
    probes = [
        (sub[h // 2, :], 1),
        (sub[h // 2, ::-1], 1),
        (sub[:, w // 2], 1),
        (sub[::-1, w // 2], 1),
    ]
    for line, _ in probes:
        run = 0
        started = False
        for px in line[: max(2, min(w, h) // 3)]:
            p = px.astype(float)
            ds, df = np.abs(p - s).max(), np.abs(p - f).max()
            if ds < df and ds < 3 * INK_DIFF:
                run += 1
                started = True
            elif started:
                break
        runs.append(run)
    return float(np.median(runs))


def own_mask(img: np.ndarray, b: Blob) -> np.ndarray:
    """``b.mask`` without what sticks out of the node's fill and outline: an arrowhead ending
    on its rim, or a thick line's stub, that the opening finding blobs kept with it (so a line
    reader erasing the node does not erase them). What lies farther from the
    fill-coloured region (with the label it encloses; specks of that colour under
    ``(min_side / 2)**2`` pixels do not count) than the rim's median distance from it plus
    ``OWN_RIM_SLACK_PX`` is cut, in pieces no longer than ``OWN_PIECE_MAX_SIDES`` node sides
    (a band along a whole side is a shadow or a border), when that keeps
    ``OWN_MIN_KEEP_FRAC`` of the mask. Else (no clear fill: a gradient, a picture; or too
    much would go) the mask is returned whole."""
    x, y, w, h = b.box
    mask = b.mask.astype(bool)
    sub = img[y : y + h, x : x + w]
    min_side = scaled_px(MIN_NODE_SIDE_PER_KPX, img.shape, 8)
    same = channel_off(sub, b.interior_bgr)
    n, lab, stats, _c = cv2.connectedComponentsWithStats(
        ((same <= INK_DIFF) & mask).astype(np.uint8), connectivity=4
    )
    pieces = [c for c in range(1, n) if stats[c, cv2.CC_STAT_AREA] >= (min_side // 2) ** 2]
    if not pieces:
        return mask
    region = outside_of(np.isin(lab, pieces)) & mask
    if region.sum() < OWN_MIN_REGION_FRAC * mask.sum():
        return mask
    dist = cv2.distanceTransform((~region).astype(np.uint8), cv2.DIST_L2, 3)
    outer = outside_of(mask)
    rim = outer & ~(erode(outer, 1) > 0)
    if not rim.any():
        return mask
    stray = mask & (dist > float(np.median(dist[rim])) + OWN_RIM_SLACK_PX)
    # a head or a stub is small; a band along a whole side is the node's shadow or border
    n, lab, stats, _c = cv2.connectedComponentsWithStats(stray.astype(np.uint8), connectivity=8)
    side = OWN_PIECE_MAX_SIDES * min_side
    small = [
        c
        for c in range(1, n)
        if max(stats[c, cv2.CC_STAT_WIDTH], stats[c, cv2.CC_STAT_HEIGHT]) <= side
    ]
    own = mask & ~np.isin(lab, small)
    return own if own.sum() >= OWN_MIN_KEEP_FRAC * mask.sum() else mask


def _scan(
    img: np.ndarray,
    area: np.ndarray,
    bg: tuple[int, int, int],
    depth: int,
    parent: int | None,
    off: tuple[int, int],
    out: list[Blob],
    full_shape: tuple[int, ...],
) -> None:
    min_side = scaled_px(MIN_NODE_SIDE_PER_KPX, full_shape, 8)
    k = scaled_px(LINE_OPEN_PER_KPX, full_shape, 3)
    ink = ink_mask(img, bg, light=depth == 0) & area
    # close 1-2 px gaps (anti-aliased seams between a stroke and a fill)
    filled = _fill_holes(ink, min_side, k, img=img)
    # a hand-drawn cylinder's side may stop a pixel short of its cap: its body is found with
    # such gaps closed (only cylinder bodies: closing gaps everywhere joins callouts to lines)
    sealed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    filled |= _fill_holes(sealed, min_side, k, cylinders_only=True)
    solid = cv2.morphologyEx(filled, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    opened = cv2.morphologyEx(solid, cv2.MORPH_OPEN, kernel)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    # lines thicker than the opening (matplotlib's fat arrows) join their nodes into one
    # sprawling component: open those again, wider, to part the nodes from their lines
    w_, h_, a_ = stats[1:, 2], stats[1:, 3], stats[1:, 4]
    merged = 1 + np.flatnonzero(
        (w_ >= min_side) & (h_ >= min_side) & (a_ < MIN_NODE_EXTENT * w_ * h_)
    )
    if merged.size:
        m = np.isin(labels, merged)
        opened[m] = open_merged(m.astype(np.uint8), k, min_side)[m]
        n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    if _part_bridged(img, opened, labels, stats, n, bg, min_side, k):
        n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    order = sorted(range(1, n), key=lambda i: (stats[i, 1], stats[i, 0]))
    for i in order:
        x, y, w, h, a = (int(v) for v in stats[i])
        if w < min_side or h < min_side:
            continue
        extent = a / float(w * h)
        if extent < MIN_NODE_EXTENT:
            continue
        if extent < HEAD_MAX_EXTENT and max(w, h) < HEAD_MAX_SIDE_FACTOR * min_side:
            continue  # a big arrowhead (a small triangle), not a node
        mid = extent < RECT_MIN_EXTENT and max(w, h) < SOLID_HEAD_MAX_SIDE_FACTOR * min_side
        if (
            (extent < RECT_MIN_EXTENT and max(w, h) < HEAD_MAX_SIDE_FACTOR * min_side)
            or (mid and extent < SOLID_HEAD_MAX_EXTENT)
            or (
                mid
                and triangle_fill(labels[y : y + h, x : x + w] == i, a) >= HEAD_MIN_TRIANGLE_FILL
            )
        ):
            # a small solid non-rectangular blob with nothing inside: an arrowhead with a stub
            # of a thick shaft (text or an outline inside would make it a small node); a
            # triangle-like one (a big head, a tapered "fancy" arrow's body) at larger sizes too
            flat = plain(img[y : y + h, x : x + w], labels[y : y + h, x : x + w] == i)
            if flat is None or flat:
                continue
        comp = labels[y : y + h, x : x + w] == i
        if mid and shallow_crossing(img, (x, y, w, h), comp, bg, k):
            continue
        if max(w, h) < HEAD_MAX_SIDE_FACTOR * min_side:
            r = 2 * k
            wy0, wx0 = max(0, y - r), max(0, x - r)
            win = (slice(wy0, y + h + r), slice(wx0, x + w + r))
            if head_core(img[win], labels[win] == i, k):
                continue
        # trim protrusions (arrowheads, line stubs) with an opening scaled to the blob
        bk = max(k, min(w, h) // 3)
        body = cv2.morphologyEx(comp.astype(np.uint8), cv2.MORPH_OPEN, np.ones((bk, bk), np.uint8))
        body = restore_points(comp, body > 0).astype(np.uint8)  # a diamond's tips
        ys_, xs_ = np.nonzero(body)
        if xs_.size == 0:
            continue
        bx0, by0, bx1, by1 = int(xs_.min()), int(ys_.min()), int(xs_.max()) + 1, int(ys_.max()) + 1
        if (bx1 - bx0, by1 - by0) != (w, h):
            x, y, w, h = x + bx0, y + by0, bx1 - bx0, by1 - by0
            comp = body[by0:by1, bx0:bx1] > 0
            a = int(comp.sum())
            if w < min_side or h < min_side:
                continue
        # the un-opened solid shape near the component (keeps exact corners), minus far lines
        near = cv2.dilate(comp.astype(np.uint8), kernel) > 0
        shape_mask = (solid[y : y + h, x : x + w] > 0) & near
        sub = img[y : y + h, x : x + w]
        er = max(2, k // 2)
        inner = erode(comp, er) > 0
        interior = dominant_bgr(sub[inner]) if inner.any() else dominant_bgr(sub[comp])
        if interior is None:
            continue
        # the outline runs round the outside: holes (a logo's background-coloured parts) have
        # rims too, in the colours round them
        outer = outside_of(comp)
        ring = outer & ~(erode(outer, 3) > 0) & comp
        stroke = None
        if ring.any():
            rp = sub[ring]
            away = np.abs(rp.astype(np.int16) - np.asarray(interior, np.int16)).max(axis=1)
            strong = rp[away > INK_DIFF]
            # an outline runs all round the blob: enough of the ring must differ from the fill
            if strong.shape[0] >= STROKE_MIN_RING_FRAC * (2 * (w + h)):
                stroke = _outline_colour(strong, interior, bg)
        fill: tuple[int, int, int] | None = interior
        if ciede2000_bgr(interior, bg) <= BG_SAME_DE:
            fill = None
        inset = max(0.0, _corner_inset(shape_mask) - CORNER_SHARP_PX)
        radius = inset * math.sqrt(2) / (math.sqrt(2) - 1)
        shape = _shape_of(extent, radius, min(w, h))
        if parent is not None and _is_lid(shape, (x, y, w, h), img.shape, k):
            continue
        idx = len(out)
        out.append(
            Blob(
                box=(x + off[0], y + off[1], w, h),
                fill_bgr=fill,
                stroke_bgr=stroke,
                stroke_px=_stroke_width(sub, comp, stroke, interior),
                corner_radius_px=round(radius, 1),
                extent=round(extent, 3),
                shape=shape,
                depth=depth,
                parent=parent,
                background_bgr=bg,
                mask=shape_mask | comp,
                interior_bgr=interior,
            )
        )
        if parent is not None:
            out[parent].children.append(idx)
        if depth + 1 < MAX_DEPTH and min(w, h) > 3 * min_side:
            er2 = max(3, k)
            inside = erode(comp, er2)
            _scan(sub, inside, interior, depth + 1, idx, (x + off[0], y + off[1]), out, full_shape)


def _shape_of(extent: float, radius: float, short: int) -> str:
    """A blob's shape from its ``extent`` (area / box area), corner ``radius``, ``short`` side."""
    if extent >= RECT_MIN_EXTENT:
        return "rounded" if radius > ROUNDED_MIN_RADIUS_FRAC * short else "rect"
    if extent >= ELLIPSE_MIN_EXTENT:
        return "ellipse"
    return "diamond" if extent >= MIN_NODE_EXTENT else "other"


def _is_lid(shape: str, box: Sequence[int], parent: Sequence[int], k: int) -> bool:
    """Whether a blob of ``shape`` and ``box`` (x, y, w, h) found inside a node of ``parent``
    shape (rows, cols) is that node's lid: a flat ellipse, a cylinder's top drawn in a lighter
    shade of its fill (LibreOffice's "can" shape; on a dark fill it differs like ink). It lies
    against one of the node's ends (as near as the inner scan reaches: the line opening ``k``
    and ``LID_MAX_GAP_FRAC`` of the node's side), spans ``LID_MIN_SPAN_FRAC`` of the node's
    width there and at most ``LID_MAX_DEPTH_FRAC`` of its height. Read as a node, it took the
    cylinder's lines and left the labelled body with none (seed-2929 matplotlib figure 6,
    "Ranker")."""
    if shape != "ellipse":
        return False
    x, y, w, h = box
    ph, pw = parent[0], parent[1]
    for near, span, depth, side in (
        (min(y, ph - y - h), w / pw, h / ph, ph),  # top or bottom
        (min(x, pw - x - w), h / ph, w / pw, pw),  # left or right (lying down)
    ):
        if (
            near <= max(3, k) + LID_MAX_GAP_FRAC * side
            and span >= LID_MIN_SPAN_FRAC
            and depth <= LID_MAX_DEPTH_FRAC
        ):
            return True
    return False


def _part_bridged(
    img: np.ndarray,
    opened: np.ndarray,
    labels: np.ndarray,
    stats: np.ndarray,
    n: int,
    bg: tuple[int, int, int],
    min_side: int,
    k: int,
) -> bool:
    """Part filled nodes that a bridge of other ink holds together, in place in ``opened``.

    A short fat arrow between two nodes with its label over it (or a crossing of fat arrows
    next to them) fills, holes and all, into a patch the opening keeps, and the two nodes come
    out as one blob (seed-1111 matplotlib figure 3: "Mapper", "update" and "Tokenizer"). Such a
    component holds two or more separate patches of one fill, each node-sized, side by side
    at least a node's side apart (a panel's fill, cut by the lines looping inside it,
    surrounds its inner patches; a line drawn across a node parts its fill by a line's width), and
    between them ink of other colours and the background showing through (a node's own
    compartments, split by its rules, have no background between them): what is not near
    those patches goes.
    Returns whether anything was parted."""
    parted = False
    r = max(3, k // 2)
    grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    bg_px = np.asarray(bg, np.int16)
    for i in range(1, n):
        x, y, w, h, _a = (int(v) for v in stats[i])
        if w < min_side or h < min_side or max(w, h) < 2 * min_side:
            continue
        comp = labels[y : y + h, x : x + w] == i
        patch = img[y : y + h, x : x + w]
        sub = patch.astype(np.int16)
        inner = erode(comp, max(2, k // 2)) > 0
        interior = dominant_bgr(patch[inner]) if inner.any() else None
        if interior is None or ciede2000_bgr(interior, bg) <= BG_SAME_DE:
            continue
        fill = comp & (np.abs(sub - np.asarray(interior, np.int16)).max(axis=2) <= INK_DIFF)
        m, plab, pst, _ = cv2.connectedComponentsWithStats(fill.astype(np.uint8), connectivity=8)
        big = [
            j
            for j in range(1, m)
            if pst[j, 2] >= min_side and pst[j, 3] >= min_side and pst[j, 4] >= min_side * min_side
        ]
        if len(big) < 2 or any(
            _gap(pst[a, :4], pst[b, :4]) < min_side for a, b in itertools.combinations(big, 2)
        ):
            # one patch round another (a panel's fill round its nodes and lines), or a node's
            # fill cut by a line drawn across it (seed-4242 matplotlib figure 4's diamond)
            continue
        if any(_holds_node(plab == j, min_side) for j in big):
            continue  # a panel's lanes, a band between them, round their nodes
        near = cv2.dilate(np.isin(plab, big).astype(np.uint8), grow) > 0
        neck = comp & ~near
        shows_bg = neck & (np.abs(sub - bg_px).max(axis=2) <= INK_DIFF)
        if int(shows_bg.sum()) < k:
            continue
        opened[y : y + h, x : x + w][neck] = 0
        parted = True
    return parted


def _holds_node(patch: np.ndarray, min_side: int) -> bool:
    """Whether a patch of fill surrounds a hole twice a node's least side each way: a node
    (a panel's), not its label's letters."""
    contours, hier = cv2.findContours(
        patch.astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE
    )
    if hier is None:
        return False
    return any(
        hier[0][i][3] >= 0 and min(cv2.boundingRect(c)[2:]) >= 2 * min_side
        for i, c in enumerate(contours)
    )


def _gap(a: Sequence[int], b: Sequence[int]) -> int:
    """How far apart two (x, y, w, h) boxes are along the axis they are apart on (0 or less:
    they overlap or touch)."""
    return int(max(b[0] - a[0] - a[2], a[0] - b[0] - b[2], b[1] - a[1] - a[3], a[1] - b[1] - b[3]))


def detect_blobs(img: np.ndarray) -> list[Blob]:
    """Every box-like blob of a BGR image, parents before children, image-frame pixels."""
    out: list[Blob] = []
    if img.ndim != 3 or min(img.shape[:2]) < 16:
        return out
    bg = border_bgr(img)
    area = np.ones(img.shape[:2], np.uint8)
    _scan(img, area, bg, 0, None, (0, 0), out, img.shape)
    return out


def blobs_cached(ctx: ToolContext, which: str) -> list[Blob]:
    """detect_blobs of the reference or candidate image, once per case."""
    return memo(ctx, f"blobs:{which}", lambda: detect_blobs(ctx.image(which)))


def blob_dict(
    ctx: ToolContext | None, which: str, i: int, b: Blob, frame: str = "image"
) -> dict[str, Any]:
    """JSON view of a blob (box in ``frame``)."""
    box = list(b.box) if ctx is None else box_to_frame(ctx, which, b.box, frame)
    k = 1 if ctx is None else ctx.zoom(which)
    return {
        "index": i,
        "box": box,
        "shape": b.shape,
        "fill": hex_of(b.fill_bgr),
        "stroke": hex_of(b.stroke_bgr),
        "stroke_px": round(b.stroke_px / k, 2),
        "corner_radius_px": round(b.corner_radius_px / k, 2),
        "corner_radius_frac": round(b.corner_radius_frac, 3),
        "depth": b.depth,
        "parent": b.parent,
        "children": list(b.children),
    }


def detect_nodes(
    ctx: ToolContext,
    image: Literal["reference", "candidate"],
    x: float | None = None,
    y: float | None = None,
    w: float | None = None,
    h: float | None = None,
    frame: Literal["panel", "image"] = "panel",
) -> ToolOutput:
    """Find box-like shapes (nodes and panels) in the reference or candidate image.

    Returns each blob's box [x, y, w, h] (in `frame`: "panel" = pixels of the 1200x900 panel,
    "image" = pixels of the image), shape (rect, rounded, ellipse, diamond), fill and stroke
    colours as RRGGBB (fill null = outline only), stroke width and corner radius in pixels of the
    image, corner radius as a fraction of the short side, and nesting (parent /
    children indices: a blob holding others is a panel). Give x, y, w, h to keep only blobs whose
    centre lies in that region.
    """
    blobs = blobs_cached(ctx, image)
    keep: list[int] = list(range(len(blobs)))
    if x is not None and y is not None and w is not None and h is not None:
        x0, y0, x1, y1 = region_to_image(ctx, image, x, y, w, h, frame)
        keep = [
            i for i, b in enumerate(blobs) if x0 <= b.centre[0] <= x1 and y0 <= b.centre[1] <= y1
        ]
    return ToolOutput(
        {
            "image": image,
            "frame": frame,
            "blobs": [blob_dict(ctx, image, i, blobs[i], frame) for i in keep],
        }
    )


TOOLS = [Tool.from_function(detect_nodes)]
