"""Line ink as the line reader sees it: nodes erased (with the outline slivers their masks
miss), a closed line component reduced to its strokes as drawn, and what is left of a
node's outline at a line's end (a diamond's cut tip) told from the line."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from itertools import pairwise

import cv2
import numpy as np

from judge.tools.aim import head_thick
from judge.tools.blobtests import erode
from judge.tools.colour import channel_off
from judge.tools.nodes import Blob, own_mask
from judge.tools.strokes import off_segment, ridge_half
from judge.tools.thresholds import (
    BRIDGE_FILL_MAX_WIDTHS_SQ,
    CLOSING_FILL_MAX_WIDTHS_SQ,
    DASH_PIECE_MAX_CLOSINGS,
    GLYPH_BRIDGE_EXTRA_PX,
    GLYPH_LINE_RING_MARGINS,
    GLYPH_OPEN_MIN_RATIO,
    HEAD_LENGTH_WIDTHS,
    HEAD_MIN_EXTRA_PX,
    HEAD_THICKNESS_RATIO,
    INK_DIFF,
    LINE_INK_DIFF,
    OUTLINE_ONLY_MAX_PAST,
    OUTLINE_PROBE_OUT_FRAC,
    OUTLINE_RIM_SLACK_PX,
    OUTLINE_SLIVER_MIN_COLOUR_FRAC,
    OUTLINE_SLIVER_MIN_ELONGATION,
    OUTLINE_SLIVER_MIN_TILT_DEG,
    REMNANT_FAR_FRAC,
    REMNANT_MAX_COVER,
    REMNANT_MIN_BALANCE,
    REMNANT_MIN_FILL_FRAC,
    REMNANT_NEAR_FRAC,
    REMNANT_STEADY_SLICES,
    STRAIGHT_MIN_INKED,
    TEXT_ERASE_MARGIN_FRAC,
    TEXT_NODE_PIECE_MIN_HEIGHTS,
    TEXT_PAST_BOX_PX,
)


def node_erase(
    img: np.ndarray,
    blobs: list[Blob],
    ep: set[int],
    ink: np.ndarray,
    text: Set[int] = frozenset(),
    own: Mapping[int, np.ndarray] | None = None,
    wider: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """What to erase of the nodes before lines are read: each endpoint's own mask and the
    slivers of its outline the mask misses, each other blob's outline ring but those of
    ``text`` outside the endpoints (letters fused into a blob, left to the text erasing: ring
    and all, a blob of a label's letters fused with the head it is laid over took the head:
    seed-6767 matplotlib figure 3; a node's own label's blobs go with it as before); grown by
    2 px.
    ``ink``: the image's line ink; ``own``: the endpoints' :func:`own_mask`, where computed.
    Also returns the ink kept there because it is not in the node's colours
    (:func:`_keep_foreign_ink`): a head drawn over the outline, measured as clear of the node.
    ``wider`` (uint8, the image's shape), if given, marks the slivers found only by the
    outline's width as drawn (:func:`_erase_outline_slivers`)."""
    erase: np.ndarray = np.zeros(img.shape[:2], np.uint8)
    for i, b in enumerate(blobs):
        if i in text and b.parent not in ep:  # free letters; a node's own label goes with it
            continue
        x, y, w, h = b.box
        m = b.mask.astype(np.uint8)
        if i in ep:  # not a head or a stub the blob kept: the line is read up to the node
            part = (own[i] if own is not None and i in own else own_mask(img, b)).astype(np.uint8)
        else:  # a container: erase only its outline ring
            s = int(max(2, b.stroke_px)) + 3
            part = ((m > 0) & ~(erode(m, s) > 0)).astype(np.uint8)
        erase[y : y + h, x : x + w] |= part
        if i in ep:
            _erase_outline_slivers(img, b, part, erase, ink, wider)
    out: np.ndarray = cv2.dilate(erase, np.ones((5, 5), np.uint8))
    kept = np.zeros_like(out)
    for i in ep:
        _keep_foreign_ink(img, blobs[i], out, ink, kept)
    return out, kept


def heads_in_masks(
    img: np.ndarray, blobs: list[Blob], own: Mapping[int, np.ndarray], ink: np.ndarray
) -> np.ndarray:
    """``ink`` (uint8 0/1 line ink) with what the blobs' masks hid added (``own``: the
    endpoints' :func:`own_mask`): the pixels a mask took in past its node's own region that
    are neither in its fill's nor in its outline's colour and are ink on what lies under the
    node (the page, or the container's fill). Line ink is measured against the node's fill
    there, and a dark grey head ending on a dark teal ellipse's rim differs from that fill by
    less than line ink does (seed-2929 matplotlib figure 7). Only adds ink (what the fill's
    colour showed stays), and only what is 3 px thick."""
    out: np.ndarray = np.zeros(img.shape[:2], np.uint8)
    for i, part in own.items():
        b = blobs[i]
        x, y, w, h = b.box
        sub = img[y : y + h, x : x + w]
        hidden = b.mask & ~part & (channel_off(sub, b.background_bgr) > LINE_INK_DIFF)
        for colour in (b.interior_bgr, b.stroke_bgr):
            if colour is not None:
                hidden &= channel_off(sub, colour) > INK_DIFF
        out[y : y + h, x : x + w] |= hidden.astype(np.uint8)
    # a head's body, not the anti-aliased pixels along a line's junction with the rim: one of
    # those joined a line to an outline's sliver (seed-6767 figure 13)
    out &= (ink == 0).astype(np.uint8)
    body: np.ndarray = cv2.morphologyEx(out, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    more: np.ndarray = ink | body
    return more


def _off_blend(px: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far (max over channels) each pixel of ``px`` (N x 3) lies from the blends of
    colours ``a`` and ``b`` (anti-aliasing between them)."""
    seg = b - a
    t = np.clip(((px - a) @ seg) / max(1.0, float(seg @ seg)), 0.0, 1.0)
    off: np.ndarray = np.abs(px - (a + t[:, None] * seg)).max(axis=1)
    return off


def _keep_foreign_ink(
    img: np.ndarray, b: Blob, erase: np.ndarray, ink: np.ndarray, kept: np.ndarray
) -> None:
    """Clears from ``erase`` the ink over and around endpoint ``b``'s outline that is not in its
    colours (outline, background, interior, or a blend of two): another stroke drawn across the
    outline, such as an arrowhead whose barb lies on an ellipse. Erased with the outline, half
    the head went and the line read with no direction. Only pieces running on past the erased
    ring into the line are kept; a node's own label, set inside, never does. When the lines
    share the outline's colour nothing is kept and the outline goes with its ink as before."""
    if b.stroke_bgr is None:
        return
    # the outline, the slivers' slack past it and the erase's 2 px growth (5 x 5)
    grow = int(math.ceil(max(2.0, b.stroke_px))) + OUTLINE_RIM_SLACK_PX + 2
    x, y, w, h = b.box
    X0, Y0 = max(0, x - grow), max(0, y - grow)
    X1, Y1 = min(img.shape[1], x + w + grow), min(img.shape[0], y + h + grow)
    sub_ink = ink[Y0:Y1, X0:X1] > 0
    sub_erase = erase[Y0:Y1, X0:X1] > 0
    cand = sub_ink & sub_erase
    if not cand.any():
        return
    px = img[Y0:Y1, X0:X1][cand].astype(np.float32)
    stroke = np.asarray(b.stroke_bgr, np.float32)
    bg = np.asarray(b.background_bgr, np.float32)
    inner = np.asarray(b.interior_bgr, np.float32)
    off = np.minimum(
        np.minimum(_off_blend(px, stroke, bg), _off_blend(px, stroke, inner)),
        _off_blend(px, inner, bg),
    )
    foreign = np.zeros(cand.shape, bool)
    foreign[cand] = off > INK_DIFF
    if not foreign.any():
        return
    # a foreign piece is kept when it joins ink beyond the erased ring: the line it ends.
    # Not when it joins two such pieces: two lines meeting at one point of the node (a head
    # arriving where another line leaves) stay apart, as the erasing kept them (dev06)
    beyond = sub_ink & ~sub_erase
    n, lab = cv2.connectedComponents((foreign | beyond).astype(np.uint8), connectivity=8)
    _, blab = cv2.connectedComponents(beyond.astype(np.uint8), connectivity=8)
    pairs = np.unique(np.stack([lab[beyond], blab[beyond]]), axis=1)
    runs_on = np.bincount(pairs[0], minlength=n) == 1
    runs_on[0] = False
    keep = foreign & runs_on[lab]
    erase[Y0:Y1, X0:X1][keep] = 0
    kept[Y0:Y1, X0:X1][keep] = 1


def _erase_outline_slivers(
    img: np.ndarray,
    b: Blob,
    part: np.ndarray,
    erase: np.ndarray,
    ink: np.ndarray,
    wider: np.ndarray | None = None,
) -> None:
    """Marks in ``erase`` (the image frame) the slivers of ``b``'s outline that its mask
    ``part`` (in the box's frame) misses: the openings finding blobs shave a thick outline's
    outer edge where it curves most (an ellipse's ends). Left, such a sliver joins the arrows
    on either side of the node into one line. A sliver is a piece of ``ink`` lying wholly
    within the outline's width (``Blob.stroke_px``) plus ``OUTLINE_RIM_SLACK_PX`` of the
    mask, mostly (``OUTLINE_SLIVER_MIN_COLOUR_FRAC``) in the outline's colour or its blends
    with the background (anti-aliasing); a head touching the node goes on into its shaft, so
    it is never one. Where the outline as drawn is wider (:func:`outline_width`: the mask
    shaved it), a piece lying within that width is a sliver too when it is also long and
    thin along the rim (:func:`_along_rim`): a head's barb that the node's erasing cut off
    its shaft is not, nor is a dashed line's first dash (dev15), and in the outline's colour
    they would go with it (seed-9595 matplotlib figure 1: black heads on black outlines).
    Those are also marked in ``wider``, where given."""
    if b.stroke_bgr is None:
        return
    grow0 = int(math.ceil(max(2.0, b.stroke_px))) + OUTLINE_RIM_SLACK_PX
    grow = max(grow0, int(math.ceil(outline_width(img, b))) + OUTLINE_RIM_SLACK_PX)
    x, y, w, h = b.box
    X0, Y0 = max(0, x - grow - 1), max(0, y - grow - 1)
    X1, Y1 = min(img.shape[1], x + w + grow + 1), min(img.shape[0], y + h + grow + 1)
    mine = np.zeros((Y1 - Y0, X1 - X0), np.uint8)
    mine[y - Y0 : y - Y0 + h, x - X0 : x - X0 + w] = part

    def grown(g: int) -> np.ndarray:
        disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1))
        out: np.ndarray = cv2.dilate(mine, disk) > 0
        return out

    near, near0 = grown(grow), grown(grow0)
    loose = ((ink[Y0:Y1, X0:X1] > 0) & (mine == 0)).astype(np.uint8)
    n, lab = cv2.connectedComponents(loose, connectivity=8)
    if n <= 1:
        return
    beyond = np.unique(lab[~near])  # pieces reaching past the rim: lines, heads, text
    past0 = {int(v) for v in np.unique(lab[~near0])}  # ... past the width the mask keeps
    sub = img[Y0:Y1, X0:X1].astype(np.float32)
    colour = np.asarray(b.stroke_bgr, np.float32)
    background = np.asarray(b.background_bgr, np.float32)
    for c in set(range(1, n)) - {int(v) for v in beyond}:
        sel = lab == c
        off = _off_blend(sub[sel], colour, background)
        if float((off <= INK_DIFF).mean()) < OUTLINE_SLIVER_MIN_COLOUR_FRAC:
            continue
        if c in past0:
            if not _along_rim(sel, mine):
                continue
            if wider is not None:
                wider[Y0:Y1, X0:X1][sel] = 1
        erase[Y0:Y1, X0:X1][sel] = 1


def _along_rim(piece: np.ndarray, mask: np.ndarray) -> bool:
    """Whether ``piece`` (a boolean image) is long and thin along the rim of ``mask`` (uint8,
    the same frame): its smallest rotated box ``OUTLINE_SLIVER_MIN_ELONGATION`` times as long
    as wide, its long side across the way to the mask's nearest pixel (at least
    ``OUTLINE_SLIVER_MIN_TILT_DEG`` from it). A line's dash ending at the rim points at the
    mask."""
    pts = cv2.findNonZero(piece.astype(np.uint8))
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(pts)
    if max(rw, rh) < OUTLINE_SLIVER_MIN_ELONGATION * max(1.0, min(rw, rh)):
        return False
    rim = cv2.findNonZero(mask)
    if rim is None:
        return True
    d = rim.reshape(-1, 2).astype(np.float64) - (cx, cy)
    normal = d[int(np.argmin(np.hypot(d[:, 0], d[:, 1])))]
    norm = float(np.hypot(normal[0], normal[1]))
    if norm == 0.0:
        return True
    theta = math.radians(angle if rw >= rh else angle + 90.0)
    long_axis = np.array([math.cos(theta), math.sin(theta)])
    return abs(float(long_axis @ normal)) / norm <= math.cos(
        math.radians(OUTLINE_SLIVER_MIN_TILT_DEG)
    )


def outline_width(img: np.ndarray, b: Blob) -> float:
    """The width (px) of ``b``'s outline as drawn, where the node's mask may have shaved it:
    the median run of outline-coloured pixels (or its blends with the background; not the
    fill's colour) met first on the four probes across the box's sides at their middles,
    each walked inwards from ``OUTLINE_PROBE_OUT_FRAC`` of the box's short side outside it
    (``Blob.stroke_px`` counts only the run inside the box, and the openings finding blobs
    shave an ellipse's ends: Graphviz's 5-6 px outlines measured 2 px). A probe whose run
    starts at its first pixel meets a line arriving there, not the outline's outer edge, and
    does not count. 0 where no probe counts."""
    if b.stroke_bgr is None:
        return 0.0
    x, y, w, h = b.box
    out = max(2, int(round(OUTLINE_PROBE_OUT_FRAC * min(w, h))))
    depth = out + max(2, min(w, h) // 3)
    H, W = img.shape[:2]
    colour = np.asarray(b.stroke_bgr, np.float32)
    background = np.asarray(b.background_bgr, np.float32)
    interior = np.asarray(b.interior_bgr, np.float32)
    cx, cy = x + w // 2, y + h // 2
    probes = [  # (rows, cols) from outside inwards
        (np.full(depth, cy), np.arange(x - out, x - out + depth)),
        (np.full(depth, cy), np.arange(x + w - 1 + out, x + w - 1 + out - depth, -1)),
        (np.arange(y - out, y - out + depth), np.full(depth, cx)),
        (np.arange(y + h - 1 + out, y + h - 1 + out - depth, -1), np.full(depth, cx)),
    ]
    runs = []
    for rows, cols in probes:
        ok = (rows >= 0) & (rows < H) & (cols >= 0) & (cols < W)
        if not ok.all():
            continue
        px = img[rows, cols].astype(np.float32)
        on = (_off_blend(px, colour, background) <= INK_DIFF) & (
            np.abs(px - background).max(axis=1) > INK_DIFF
        )
        on &= np.abs(px - interior).max(axis=1) > INK_DIFF
        if on[0] or not on.any():
            continue
        first = int(np.argmax(on))
        after = np.flatnonzero(~on[first:])
        runs.append(float(after[0]) if after.size else float(on.size - first))
    return float(np.median(runs)) if runs else 0.0


def own_ink(closed: np.ndarray, ink: np.ndarray, dk: int | None = None) -> np.ndarray:
    """A line component as drawn: its ink plus the closing's fill that joins two pieces of
    ink as a bridge (a dash gap, a break: ``BRIDGE_FILL_MAX_WIDTHS_SQ``) or is small (an
    anti-aliased head's notches). Larger fill within one piece (the acute angles of a
    crossing, the wedge between lines fanning out of one point) is dropped
    (``CLOSING_FILL_MAX_WIDTHS_SQ``), and so is a wedge joining separate lines that leave a
    node close together (of a solid line: ``dk``, the closing's size, given), unless a head
    lies by it or it touches a dash, but for what the closing (a ``dk`` square) of one of
    them alone lays there (a hollow head's inside)."""
    own = closed & ink
    n_add, alab, stats, _ = cv2.connectedComponentsWithStats(
        (closed & ~ink).astype(np.uint8), connectivity=8
    )
    if n_add <= 1:
        return closed.astype(np.uint8)
    # the width of the line as drawn: the closing's fill thickens a crossing's ridge (a thick
    # X filled into a bow tie measured twice its width, and kept its fill)
    dto = cv2.distanceTransform(own.astype(np.uint8), cv2.DIST_L2, 3)
    half = ridge_half(dto)
    width = 1.0 if half is None else 2.0 * half
    n_p, plab, pstats, _ = cv2.connectedComponentsWithStats(own.astype(np.uint8), connectivity=8)
    k = np.ones((3, 3), np.uint8)
    hi = cv2.dilate(plab.astype(np.float32), k)  # the largest piece label next to a pixel
    lo = cv2.erode(np.where(plab > 0, plab, np.inf).astype(np.float32), k)  # the smallest
    fill = alab > 0
    seen_hi = np.zeros(n_add)
    np.maximum.at(seen_hi, alab[fill], hi[fill])
    seen_lo = np.full(n_add, np.inf)
    np.minimum.at(seen_lo, alab[fill], lo[fill])
    area = stats[:, cv2.CC_STAT_AREA]
    joins = np.isfinite(seen_lo) & (seen_hi > seen_lo)
    keep = (joins & (area <= BRIDGE_FILL_MAX_WIDTHS_SQ * width**2)) | (
        area <= CLOSING_FILL_MAX_WIDTHS_SQ * width**2
    )
    keep[0] = False
    big = np.flatnonzero(joins & ~keep)
    if dk is None:  # a dashed line (or no closing size): every joining fill is a bridge
        keep[big] = True
        big = big[:0]
    if big.size and dk is not None:
        # a wedge with a head by it stays whole: a head and the tail of another line beside
        # it, glued to one point of a node, read together as one strong head (connectors
        # sharing a connection site in a render; heads converging side by side)
        r = int(math.ceil(width))
        head_half = max(HEAD_THICKNESS_RATIO * width / 2, width / 2 + HEAD_MIN_EXTRA_PX)
        # dashes: pieces no longer than a few closings that carry no head (a short arrow
        # does); the closing's fill between a dash and a line is left as it was laid
        top = np.zeros(n_p)
        np.maximum.at(top, plab[plab > 0], dto[plab > 0])
        side = np.maximum(pstats[:, 2], pstats[:, 3])
        headed = np.array([head_thick(float(t), width / 2) for t in top], bool)
        dash = (side <= DASH_PIECE_MAX_CLOSINGS * dk) & ~headed
        dash &= pstats[:, 4] >= width**2  # specks of anti-aliasing are no dashes
        dash[0] = False
        H, W = alab.shape
        for i in big:
            x, y, w, h = (int(v) for v in stats[i][:4])
            x0, y0, x1, y1 = max(0, x - r), max(0, y - r), min(W, x + w + r), min(H, y + h + r)
            region = (alab[y0:y1, x0:x1] == i).astype(np.uint8)
            near = cv2.dilate(region, np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
            joined = np.unique(plab[y0:y1, x0:x1][cv2.dilate(region, k) > 0])
            keep[i] = float(dto[y0:y1, x0:x1][near].max()) >= head_half or bool(dash[joined].any())
    out: np.ndarray = (own | keep[alab]).astype(np.uint8)
    if dk is not None:
        for i in np.flatnonzero(joins & ~keep):
            _own_fill(out, alab, plab, int(i), stats[i], dk)
    return out


def _own_fill(
    out: np.ndarray, alab: np.ndarray, plab: np.ndarray, i: int, stat: np.ndarray, dk: int
) -> None:
    """Add to ``out`` the part of fill region ``i`` (``alab``) that the closing of one piece
    of ink (``plab``) next to it lays by itself: that piece's own notches and insides."""
    x, y, w, h = (int(v) for v in stat[:4])
    H, W = out.shape
    x0, y0, x1, y1 = max(0, x - dk), max(0, y - dk), min(W, x + w + dk), min(H, y + h + dk)
    region = alab[y0:y1, x0:x1] == i
    pl = plab[y0:y1, x0:x1]
    grown = cv2.dilate(region.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    kernel = np.ones((dk, dk), np.uint8)
    for p in np.unique(pl[grown]):
        if p == 0:
            continue
        alone = cv2.morphologyEx((pl == p).astype(np.uint8), cv2.MORPH_CLOSE, kernel) > 0
        out[y0:y1, x0:x1][alone & region] = 1


def all_outline(
    img: np.ndarray,
    b: Blob,
    xs: np.ndarray,
    ys: np.ndarray,
    point: tuple[float, float],
    wd: float,
    X0: int,
    Y0: int,
) -> bool:
    """Whether the whole line component (window pixels ``xs``, ``ys``; the window starts at
    ``X0``, ``Y0``) touching node ``b`` at ``point`` is what is left of that node's outline:
    a V opening toward it that closes with no line going on past its apex (a diamond's tip cut
    by the body opening, aimed at a neighbour across the gap). A line leaving the tip goes on
    past it (dev10)."""
    bx, by, bw, bh = b.box
    out_dir = (point[0] + X0 - (bx + bw / 2), point[1] + Y0 - (by + bh / 2))
    own = img[ys + Y0, xs + X0].astype(np.int16) - np.asarray(b.interior_bgr, np.int16)
    keep, _end = skip_remnant(xs, ys, point, wd, out_dir, np.abs(own).max(axis=1) <= INK_DIFF)
    return keep.size > 0 and int(keep.sum()) <= OUTLINE_ONLY_MAX_PAST * wd * wd


def skip_remnant(
    xs: np.ndarray,
    ys: np.ndarray,
    point: tuple[float, float],
    width: float,
    outward: tuple[float, float],
    own_fill: np.ndarray,
) -> tuple[np.ndarray, tuple[float, float]]:
    """The pixels (a mask over ``xs``) and the end point a head is measured on, past what is
    left of the node's own outline at a line's end: a V opening toward the node (a diamond's or
    a cut ellipse's tip), widest in the slice nearest the node, hollow there, narrowing away
    from it (thresholds ``REMNANT_*``). A head may sit at the V's apex, within three head
    lengths of it; a V that never narrows to a line is all remnant (an empty mask). No
    remnant: every pixel, the same point. The V is symmetric about the ray from the node's
    centre through ``point`` (``outward``): it is measured across that ray, not across the
    line's own direction, which the V's arms would tilt."""
    keep = np.ones(xs.shape, bool)
    n = float(np.hypot(*outward))
    if n < 1e-6 or xs.size < 4:
        return keep, point
    ax, ay = outward[0] / n, outward[1] / n
    hl = max(6.0, HEAD_LENGTH_WIDTHS * width)
    dx, dy = xs - point[0], ys - point[1]
    t = dx * ax + dy * ay
    across = dx * -ay + dy * ax
    ahead = t >= -2.0
    if ahead.sum() < 4:
        return keep, point
    step = max(2.0, width)
    t0 = float(t[ahead].min())
    slot = np.where(ahead, ((t - t0) // step).astype(int), -1)
    widths: list[float] = []
    cover: list[float] = []  # share of the slice's width its ink covers (two arms: little)
    for i in range(int(slot.max()) + 1):
        a = across[slot == i]
        widths.append(float(a.max() - a.min()) + 1.0 if a.size else 0.0)
        cells = np.unique(np.floor(a - a.min()).astype(int)) if a.size else a
        cover.append(cells.size / widths[-1] if a.size else 0.0)
    head_len = max(3, int(1.2 * hl / step) + 1)
    first = int(np.argmax(widths[:2]))  # a few stray anti-aliased pixels may come first
    near = widths[first]
    steps = widths[first : first + REMNANT_STEADY_SLICES + 1]
    # hollow (an outline's two arms, reaching about as far to each side: other strokes
    # closing in on the end make a lopsided V), or a tip in the node's own fill that narrows
    # slice after slice (a tee head drops to the shaft at once; heads meeting at one point
    # narrow too, but in the line's colour)
    hollow = cover[first] < REMNANT_MAX_COVER
    side = across[slot == first] if (slot == first).any() else np.zeros(1)
    left, right = max(0.0, -float(side.min())), max(0.0, float(side.max()))
    balanced = min(left, right) >= REMNANT_MIN_BALANCE * max(left, right, 1e-6)
    steady = (
        len(steps) == REMNANT_STEADY_SLICES + 1
        and all(a > b for a, b in pairwise(steps))
        and float(own_fill[slot == first].mean()) >= REMNANT_MIN_FILL_FRAC
    )
    if (
        len(widths) < 3
        or near < REMNANT_NEAR_FRAC * max(widths[:head_len])
        or not ((hollow and balanced) or steady)
        or min(widths) > REMNANT_FAR_FRAC * near
    ):
        return keep, point
    narrow = max(3.0, 2.0 * width)
    for i in range(first + 1, len(widths)):
        # the apex: where the V has closed to a line, or stops narrowing (a head starts there)
        if widths[i] <= narrow or (i + 1 < len(widths) and widths[i + 1] >= widths[i]):
            apex = slot == i
            if not apex.any():
                break
            # the head, if any, starts at the apex: look no further than a few head lengths
            cut = (slot > i) & (t <= t0 + i * step + 3 * hl)
            return cut, (point[0] + float(dx[apex].mean()), point[1] + float(dy[apex].mean()))
    return np.zeros(xs.shape, bool), point


def erase_text(
    ink: np.ndarray,
    boxes: Sequence[tuple[float, float, float, float]],
    heights: Sequence[float],
    windows: np.ndarray,
    nodes: np.ndarray | None = None,
) -> None:
    """Erase (in place) the ink of the free text in ``boxes`` (letters ``heights`` tall): the
    pieces of ink that lie within a box grown by ``TEXT_ERASE_MARGIN_FRAC`` of its letters'
    height (a label set at an angle has a box far taller than its letters). Pieces reaching
    the window's edge are lines running past or through the label and are kept; so are pieces
    running past the box itself on both sides, which no letter of it does (a short arrow right
    above its label, within the margin at either end: seed-4141 matplotlib figure 0), and,
    given the erased ``nodes`` (a mask), long pieces leaving one of them
    (``TEXT_NODE_PIECE_MIN_HEIGHTS``: a short arrow from a node past its label). Each
    window is marked in ``windows``: the dashes of a panel border running past a title are
    pieces within it. Then the letters touching lines that run through a box are erased
    (:func:`_through_box`), the lines kept; their strokes are measured on the letters standing
    free in that box, or in all the boxes when none there does."""
    found = [
        _free_letters(ink, box, th, windows, nodes) for box, th in zip(boxes, heights, strict=True)
    ]
    strokes = [f[3] for f in found if f is not None and f[3] is not None]
    every = float(np.median(strokes)) if strokes else None
    for f in found:
        if f is not None:
            sub, pieces, core, own, rim = f
            for piece, half in pieces:
                _through_box(sub, piece, core, every if own is None else own, half, rim)


def _free_letters(
    ink: np.ndarray,
    box: tuple[float, float, float, float],
    th: float,
    windows: np.ndarray,
    nodes: np.ndarray | None = None,
) -> (
    tuple[
        np.ndarray,
        list[tuple[np.ndarray, float | None]],
        tuple[int, int, int, int],
        float | None,
        np.ndarray | None,
    ]
    | None
):
    """Erase the pieces of ink in ``box``'s window that are letters standing free (see
    :func:`erase_text`); return the window (a view of ``ink``), the pieces left that reach
    into the box (each with half its lines' width, :func:`_line_half`), the box in the window
    (x0, y0, x1, y1), half the free letters' stroke and the erased ``nodes``' rim in the
    window (None without ``nodes``)."""
    tx, ty, tw, bh = box
    m = max(2, int(round(TEXT_ERASE_MARGIN_FRAC * th)))
    x0, y0 = max(0, int(tx) - m), max(0, int(ty) - m)
    x1, y1 = min(ink.shape[1], int(tx + tw) + 2 + m), min(ink.shape[0], int(ty + bh) + 2 + m)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    windows[y0:y1, x0:x1] = 1
    sub = ink[y0:y1, x0:x1]
    n_lab, lab, st, _ = cv2.connectedComponentsWithStats(sub, connectivity=8)
    h, w = sub.shape
    x, y, cw, ch = st[1:, 0], st[1:, 1], st[1:, 2], st[1:, 3]
    inside = (x > 0) & (y > 0) & (x + cw < w) & (y + ch < h)
    rim = None
    if nodes is not None:
        # a long piece leaving an erased node is a line's end, however short the line
        rim = cv2.dilate(nodes[y0:y1, x0:x1], np.ones((3, 3), np.uint8)) > 0
        touching = np.isin(np.arange(1, n_lab), np.unique(lab[rim & (sub > 0)]))
        inside &= ~(touching & (np.maximum(cw, ch) >= TEXT_NODE_PIECE_MIN_HEIGHTS * th))
    bx0, by0 = tx - x0 - TEXT_PAST_BOX_PX, ty - y0 - TEXT_PAST_BOX_PX
    bx1, by1 = tx + tw - x0 + TEXT_PAST_BOX_PX, ty + bh - y0 + TEXT_PAST_BOX_PX
    past = ((x < bx0) & (x + cw > bx1)) | ((y < by0) & (y + ch > by1))
    letters = np.isin(lab, np.flatnonzero(inside & ~past) + 1)
    stroke = _half_width(letters)
    sub[letters] = 0
    core = (
        max(0, int(tx) - x0),
        max(0, int(ty) - y0),
        int(tx + tw) - x0 + 1,
        int(ty + bh) - y0 + 1,
    )
    pieces = [lab == c for c in np.flatnonzero(~inside) + 1]
    pieces = [p for p in pieces if p[core[1] : core[3], core[0] : core[2]].any()]
    halves = [(p, _line_half(ink, p, (x0, y0, x1, y1), m)) for p in pieces]
    return sub, halves, core, stroke, rim


def _line_half(
    ink: np.ndarray, piece: np.ndarray, win: tuple[int, int, int, int], m: int
) -> float | None:
    """Half the width of the lines ``piece`` (a mask of window ``win``: x0, y0, x1, y1 of
    ``ink``) belongs to, measured on their ink outside the window, out to
    ``GLYPH_LINE_RING_MARGINS`` window margins ``m`` (inside, letters on a line and its head's
    tip thin the median: a 7 px line measured 4 px there, seed-1111 figure 3)."""
    x0, y0, x1, y1 = win
    r = GLYPH_LINE_RING_MARGINS * m
    gx0, gy0 = max(0, x0 - r), max(0, y0 - r)
    gx1, gy1 = min(ink.shape[1], x1 + r), min(ink.shape[0], y1 + r)
    _n, lab = cv2.connectedComponents(ink[gy0:gy1, gx0:gx1], connectivity=8)
    ys, xs = np.nonzero(piece)
    own = np.isin(lab, np.unique(lab[ys + y0 - gy0, xs + x0 - gx0]))
    own[y0 - gy0 : y1 - gy0, x0 - gx0 : x1 - gx0] = False
    return _half_width(own)


def _half_width(mask: np.ndarray) -> float | None:
    """Half the typical stroke width of ``mask``'s ink (its distance transform on the ridge)."""
    return ridge_half(cv2.distanceTransform(mask.astype(np.uint8), cv2.DIST_L2, 3))


def _through_box(
    sub: np.ndarray,
    piece: np.ndarray,
    core: tuple[int, int, int, int],
    stroke: float | None,
    line_half: float | None,
    rim: np.ndarray | None = None,
) -> None:
    """Erase (in place, in ``sub``) the letters of a label touching lines that run through the
    label's box ``core`` (x0, y0, x1, y1) (``piece``: the lines and the letters on them).

    Lines (half their width: ``line_half``) at least ``GLYPH_OPEN_MIN_RATIO`` times as thick
    as the letters' strokes (half of it: ``stroke``, measured on the letters standing free)
    keep what survives an opening between the two widths: the letters go, the lines and their
    heads stay (seed-6767 matplotlib figure 3: labels set over two heads arriving at
    "Monitor").

    Thinner lines: ``piece`` without the box must fall into two parts that reach the window's
    edge or an erased node (``rim``: the line's head on a node just past the label), one
    line's two sides (a Graphviz edge label set against its edge: the letters were part of the
    line and read as a head by its end, seed-2929 figure 8; a label whose last letter the line
    crosses right behind its head, Graphviz seed-2727 figure 8). The box's ink within
    half a line width and ``GLYPH_BRIDGE_EXTRA_PX`` of the straight segment between the two cut
    ends is the line and stays, when it covers ``STRAIGHT_MIN_INKED`` of that segment; every
    other piece of ink in the box or off the two parts goes. Anything else (one part: a line
    ending at the label, or passing it outside the box; three or more: several lines; lines
    thicker than the letters with ink off the segment ``GLYPH_OPEN_MIN_RATIO`` times as thick
    as the letters: another line) is left as it is."""
    x0, y0, x1, y1 = core
    box = np.zeros(piece.shape, bool)
    box[y0:y1, x0:x1] = True
    rest = (piece & ~box).astype(np.uint8)
    if stroke is not None and line_half is not None and line_half >= GLYPH_OPEN_MIN_RATIO * stroke:
        d = max(3, int(round(line_half + stroke)))  # wider than a letter's stroke, not a line
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))
        opened = cv2.morphologyEx(piece.astype(np.uint8), cv2.MORPH_OPEN, disc)
        sub[piece & box & ~(cv2.dilate(opened, np.ones((3, 3), np.uint8)) > 0)] = 0
        return
    n, lab = cv2.connectedComponents(rest, connectivity=8)
    edge = np.zeros(piece.shape, bool)
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    sides = [c for c in range(1, n) if (edge & (lab == c)).any()]
    if rim is not None:
        # what touches an erased node is one side, however the box's edge cut it (a head's
        # two barbs)
        at_node = [c for c in range(1, n) if c not in sides and (rim & (lab == c)).any()]
        if at_node:
            lab[np.isin(lab, at_node)] = at_node[0]
            sides.append(at_node[0])
    if len(sides) != 2:
        return
    near = cv2.dilate((piece & box).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    ends = []
    for c in sides:
        ys, xs = np.nonzero((lab == c) & near)
        if ys.size == 0:
            return
        ends.append(np.array([ys.mean(), xs.mean()]))
    part = np.isin(lab, sides)
    half = line_half or 1.0
    ys, xs = np.nonzero(piece & box)
    off = off_segment(np.column_stack([ys, xs]).astype(float), ends[0], ends[1])
    band = off <= half + GLYPH_BRIDGE_EXTRA_PX
    kept = np.zeros(piece.shape, np.uint8)
    kept[ys[band], xs[band]] = 1
    steps = max(2, int(np.hypot(*(ends[1] - ends[0]))))
    ry, rx = np.linspace(ends[0], ends[1], steps).round().astype(int).T
    gaps = cv2.distanceTransform(1 - (kept | part.astype(np.uint8)), cv2.DIST_L2, 3)[ry, rx]
    if float((gaps <= half + 1.0).mean()) < STRAIGHT_MIN_INKED:
        return
    drop = piece & ~part
    drop[ys[band], xs[band]] = False
    if stroke is not None and line_half is not None and line_half > stroke:
        # ink off that segment as thick as the lines, thicker than the letters, is a line of
        # its own, not letters (two lines crossing over the label, one ending at a node past
        # it and the other before it: seed-5353 matplotlib figure 3, whose X's arm and head
        # to "Filter" went). Not where lines and letters are as thin (a small real figure's
        # letters touching its lines survive the opening: dev11 at 640 px)
        d = max(3, int(round(GLYPH_OPEN_MIN_RATIO * 2.0 * stroke)))
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))
        if int(cv2.morphologyEx(drop.astype(np.uint8), cv2.MORPH_OPEN, disc).sum()) >= d * d:
            return
    sub[drop] = 0
