"""Edge routes of a spec: the polyline each edge is drawn along (reference pixels)."""

from __future__ import annotations

import math

from generation.realfig.model import BoxT, E, Fig, Shape

Pt = tuple[float, float]
CURVE_SAMPLES = 14
"""Points a curved edge is sampled at (a quadratic Bezier)."""
SNAP_PX = 2.0
"""A first or last waypoint this close to its node's outline is taken as the edge's end."""
LOOP_HEIGHT = 0.7
"""A self-loop rises this share of its node's height above it."""


def centre(b: BoxT) -> Pt:
    return (b[0] + b[2] / 2, b[1] + b[3] / 2)


def _shape_of(fig: Fig, key: str) -> Shape:
    for n in fig.nodes:
        if n.key == key:
            return n.shape
    return "rect"


def clip(box: BoxT, shape: Shape, inside: Pt, toward: Pt) -> Pt:
    """Where the ray from ``inside`` toward ``toward`` leaves the shape drawn in ``box``."""
    w, h = box[2], box[3]
    cx, cy = centre(box)
    dx, dy = toward[0] - inside[0], toward[1] - inside[1]
    norm = math.hypot(dx, dy) or 1.0
    dx, dy = dx / norm, dy / norm
    # bisection on "inside the shape" along the ray (robust for every shape kind)
    lo, hi = 0.0, math.hypot(w, h) + 1

    def inside_shape(px: float, py: float) -> bool:
        u, v = (px - cx) / (w / 2), (py - cy) / (h / 2)
        if shape == "ellipse":
            return u * u + v * v <= 1
        if shape == "diamond":
            return abs(u) + abs(v) <= 1
        if shape == "hexagon":
            return abs(v) <= 1 and abs(u) <= 1 - 0.5 * abs(v)
        return abs(u) <= 1 and abs(v) <= 1

    for _ in range(30):
        mid = (lo + hi) / 2
        if inside_shape(inside[0] + dx * mid, inside[1] + dy * mid):
            lo = mid
        else:
            hi = mid
    return (inside[0] + dx * lo, inside[1] + dy * lo)


def _side_point(box: BoxT, side: str) -> Pt:
    x, y, w, h = box
    return {
        "top": (x + w / 2, y),
        "bottom": (x + w / 2, y + h),
        "left": (x, y + h / 2),
        "right": (x + w, y + h / 2),
    }[side]


def _bezier(p0: Pt, c: Pt, p1: Pt) -> list[Pt]:
    out = []
    for i in range(CURVE_SAMPLES + 1):
        t = i / CURVE_SAMPLES
        a, b, d = (1 - t) ** 2, 2 * t * (1 - t), t * t
        out.append((a * p0[0] + b * c[0] + d * p1[0], a * p0[1] + b * c[1] + d * p1[1]))
    return out


def _self_loop(box: BoxT) -> list[Pt]:
    x, y, w, h = box
    cx = x + w / 2
    top = y - LOOP_HEIGHT * h
    return _bezier((cx + 0.22 * w, y + 0.04 * h), (cx, top), (cx - 0.22 * w, y + 0.04 * h))


def route(fig: Fig, e: E) -> list[Pt]:
    """The polyline of ``e`` from its tail to its head (reference pixels)."""
    db = fig.box_of(e.dst)
    ds = _shape_of(fig, e.dst)
    if e.src is None:
        start = e.start or (db[0] - 100, centre(db)[1])
        return [start, clip(db, ds, centre(db), start)]
    sb = fig.box_of(e.src)
    ss = _shape_of(fig, e.src)
    if e.src == e.dst:
        return _self_loop(sb)
    (sx, sy), (tx, ty) = centre(sb), centre(db)
    if e.points:
        first, last = e.points[0], e.points[-1]
        a, b = clip(sb, ss, (sx, sy), first), clip(db, ds, (tx, ty), last)
        inner = list(e.points)
        # a waypoint already on the node's outline is the end itself (a laid-out spline)
        head = [] if math.dist(a, first) <= SNAP_PX else [a]
        tail = [] if math.dist(b, last) <= SNAP_PX and len(inner) > 1 else [b]
        return [*head, *inner, *tail]
    if e.route == "hv":
        p1 = _side_point(sb, "right" if tx > sx else "left")
        p2 = _side_point(db, "top" if sy < ty else "bottom")
        return [p1, (p2[0], p1[1]), p2]
    if e.route == "vh":
        p1 = _side_point(sb, "bottom" if ty > sy else "top")
        p2 = _side_point(db, "left" if sx < tx else "right")
        return [p1, (p1[0], p2[1]), p2]
    if e.route == "vhv":
        via = e.via if e.via is not None else (sy + ty) / 2
        p1 = _side_point(sb, "top" if via < sy else "bottom")
        p2 = _side_point(db, "top" if via < ty else "bottom")
        return [p1, (p1[0], via), (p2[0], via), p2]
    dx, dy = tx - sx, ty - sy
    norm = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / norm, dx / norm
    a = (sx + nx * e.offset, sy + ny * e.offset)
    b = (tx + nx * e.offset, ty + ny * e.offset)
    p1, p2 = clip(sb, ss, a, b), clip(db, ds, b, a)
    if e.route == "curved":
        length = math.hypot(p2[0] - p1[0], p2[1] - p1[1])
        mid = (
            (p1[0] + p2[0]) / 2 + nx * e.bend * length,
            (p1[1] + p2[1]) / 2 + ny * e.bend * length,
        )
        return _bezier(p1, mid, p2)
    return [p1, p2]


def free_box(fig: Fig, w: float, h: float, avoid: list[BoxT]) -> BoxT | None:
    """A ``w x h`` box inside the figure clear of every node, text and icon box (and ``avoid``),
    nearest the figure's centre; None when there is no room."""
    W, H = fig.size
    taken = [n.box for n in fig.nodes] + [t.box for t in fig.texts] + [i.box for i in fig.icons]
    taken += avoid
    pad = 0.02 * max(W, H)
    best: BoxT | None = None
    bd = float("inf")
    step = max(4.0, min(W, H) / 40)
    y = pad
    while y + h + pad <= H:
        x = pad
        while x + w + pad <= W:
            cand = (x, y, w, h)
            if all(not _overlap(cand, t, pad) for t in taken):
                d = math.hypot(x + w / 2 - W / 2, y + h / 2 - H / 2)
                if d < bd:
                    best, bd = cand, d
            x += step
        y += step
    return best


def _overlap(a: BoxT, b: BoxT, pad: float) -> bool:
    return not (
        a[0] + a[2] + pad <= b[0]
        or b[0] + b[2] + pad <= a[0]
        or a[1] + a[3] + pad <= b[1]
        or b[1] + b[3] + pad <= a[1]
    )
