"""Which ends of one drawn line component are joined by a stroke: crossings, merges and fans.

One connected component of line ink may hold several edges: two lines that cross, two arrows
that meet at the same arrowhead spot, a fan of lines leaving one point, a bus (one trunk
branching out). Pairing every end with every other end of such a component invents edges.
This module skeletonises the component, cuts the skeleton at its junctions into branches and
lets a path pass a junction only where a drawn stroke plausibly goes on:

* at a junction of two or three branches (a bend with a spur pruned away, a T or a Y: a bus
  or a merge) a path may turn by up to ``JUNCTION_MAX_TURN_DEG`` but not double back (two
  arrows meeting at one point are not joined to each other);
* at a junction of four or more (a crossing) a path goes straight on only, turning at most
  ``CROSSING_MAX_TURN_DEG``.

Spurs (short terminal branches that reach no node: arrowhead barbs, skeleton whiskers) are
pruned first. Coordinates are pixels of the component's own window.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np
from skimage.morphology import skeletonize

from judge.tools.thresholds import (
    APEX_MAX_OPENING_DEG,
    CROSS_END_MARGIN_FRAC,
    CROSSING_MAX_TURN_DEG,
    DRAWN_HEADS_MIN_WIDTH_PX,
    JUNCTION_MAX_TURN_DEG,
    NODE_APEX_AWAY_MAX_DEG,
    NODE_APEX_MAX_OPENING_DEG,
    STRAIGHT_CORE_EXTRA_PX,
    STRAIGHT_END_MIN_PX,
    STRAIGHT_END_WIDTHS,
    STRAIGHT_MIN_INKED,
)


class Strokes(NamedTuple):
    """Node pairs a component's strokes join, whether two strokes cross, and the straight
    runs (per pair: the segment's two ends, (row, col)) when it was read as straight lines."""

    joins: set[frozenset[int]]
    crossed: bool
    runs: dict[frozenset[int], tuple[np.ndarray, np.ndarray]]


@dataclass
class _Branch:
    pixels: np.ndarray
    """(k, 2) array of (row, col)."""
    zones: list[int] = field(default_factory=list)


def neighbour_counts(skel: np.ndarray) -> np.ndarray:
    """How many of each skeleton pixel's eight neighbours are skeleton (1: an end)."""
    k = np.ones((3, 3), np.float32)
    k[1, 1] = 0
    return cv2.filter2D(skel.astype(np.float32), -1, k, borderType=cv2.BORDER_CONSTANT)


def _direction(b: _Branch, centre: np.ndarray, near: float, far: float) -> np.ndarray | None:
    d = np.hypot(*(b.pixels - centre).T)
    sel = b.pixels[(d > near) & (d <= far)]
    if len(sel) == 0:
        sel = b.pixels[d <= far] if (d <= far).any() else b.pixels
    v = sel.mean(axis=0) - centre
    n = float(np.hypot(*v))
    return v / n if n > 1e-6 else None


def _turn_deg(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """How much a path turns going out along ``b`` after coming in along ``-a`` (both point
    away from the junction): 0 = straight on, 180 = doubling back."""
    if a is None or b is None:
        return 0.0
    cos = float(np.clip(np.dot(a, b), -1.0, 1.0))
    return 180.0 - float(np.degrees(np.arccos(cos)))


def _box_distance(r: int, c: int, box: tuple[float, float, float, float]) -> float:
    x, y, w, h = box
    dx = max(x - c, 0.0, c - (x + w))
    dy = max(y - r, 0.0, r - (y + h))
    return float(np.hypot(dx, dy))


@dataclass
class _Skeleton:
    """A component's skeleton cut into branches at its junction zones."""

    skel: np.ndarray
    nb: np.ndarray
    zone_lab: np.ndarray
    br_lab: np.ndarray
    branches: list[_Branch]
    centres: dict[int, np.ndarray]
    rj: int
    width: float


def _apexes(
    skel: np.ndarray,
    nb: np.ndarray,
    reach: float,
    at_node: np.ndarray | None = None,
    boxes: Sequence[tuple[float, float, float, float]] = (),
    width: float = 0.0,
) -> np.ndarray:
    """Skeleton pixels where the path folds back sharply: two arrows meeting at one point
    (their heads merged) or a fan leaving one point skeletonise into a single bent path, with no
    junction. At such an apex both arms lie on the same side: every skeleton pixel ``reach``
    away is within ``APEX_MAX_OPENING_DEG`` of the others, in two separate pieces. Pixels near
    a path's end see one arm only and are left out. Near a node (``at_node``) the opening may
    reach ``NODE_APEX_MAX_OPENING_DEG`` when both arms lead away from the nearest of ``boxes``
    (within ``NODE_APEX_AWAY_MAX_DEG``) or the fold lies within a line ``width`` of it:
    arrows meeting at a node come from beyond it or reach it, an elbow line bending a few
    pixels off a node runs on along its side (seed-8989 Graphviz figure 5)."""
    from scipy.spatial import cKDTree

    pts = np.argwhere(skel)
    out = np.zeros_like(skel)
    ends = np.argwhere(skel & (nb <= 1))
    if len(pts) < 8:
        return out
    tree = cKDTree(pts)
    far = tree.query_ball_point(pts, reach + 1.5)
    near = tree.query_ball_point(pts, reach - 1.5)
    end_tree = cKDTree(ends) if len(ends) else None
    cos_far = float(np.cos(np.radians(APEX_MAX_OPENING_DEG)))
    cos_node = float(np.cos(np.radians(NODE_APEX_MAX_OPENING_DEG)))
    for i, p in enumerate(pts):
        if nb[p[0], p[1]] != 2:
            continue
        cos_max = cos_node if at_node is not None and at_node[p[0], p[1]] else cos_far
        if end_tree is not None and end_tree.query(p)[0] <= 1.5 * reach:
            continue
        ring = sorted(set(far[i]) - set(near[i]))
        if len(ring) < 2:
            continue
        vec = (pts[ring] - p).astype(np.float64)
        vec /= np.linalg.norm(vec, axis=1, keepdims=True)
        dots = vec @ vec.T
        if float(dots.min()) < cos_max:
            continue  # the arms go apart (a straight or bent path): no apex
        if float(dots.min()) < cos_far and boxes and not _arms_away(p, vec, dots, boxes, width):
            continue  # a bend by a node, one arm along its side: no arrows meeting there
        # two arms, not one: the ring pixels fall into pieces more than 2 px apart
        rp = pts[ring]
        gaps = np.linalg.norm(rp[:, None, :] - rp[None, :, :], axis=2)
        if float(gaps.max()) > 2.5:
            out[p[0], p[1]] = True
    return out


def _arms_away(
    p: np.ndarray,
    vec: np.ndarray,
    dots: np.ndarray,
    boxes: Sequence[tuple[float, float, float, float]],
    touch: float,
) -> bool:
    """Whether the two arms of a fold at skeleton pixel ``p`` (row, col) both lead away from
    the nearest of ``boxes``: its two most different directions (``vec``, unit (row, col)
    vectors; ``dots`` their dot products) each within ``NODE_APEX_AWAY_MAX_DEG`` of the way
    from the box's nearest point to ``p``. True where ``p`` lies within ``touch`` px of the
    box (the line reaches it: an elbow's short last leg, a head, ends there)."""
    r, c = float(p[0]), float(p[1])
    x, y, w, h = min(boxes, key=lambda b: _box_distance(int(r), int(c), b))
    away = np.array([r - min(max(r, y), y + h), c - min(max(c, x), x + w)])
    norm = float(np.hypot(away[0], away[1]))
    if norm <= touch:
        return True
    i, j = np.unravel_index(int(np.argmin(dots)), dots.shape)
    cos_away = math.cos(math.radians(NODE_APEX_AWAY_MAX_DEG))
    return bool(min(float(vec[i] @ away), float(vec[j] @ away)) / norm >= cos_away)


def _skeleton(
    comp: np.ndarray,
    width: float,
    spur_px: float,
    boxes: list[tuple[float, float, float, float]] = (),  # type: ignore[assignment]
) -> _Skeleton | None:
    skel: np.ndarray = skeletonize(comp > 0)  # type: ignore[no-untyped-call]
    if not skel.any():
        return None
    nb = neighbour_counts(skel)
    junction = skel & (nb >= 3)
    at_node = np.zeros_like(skel)
    prox = 2 * max(3, int(round(2.0 * width))) + 3
    for bx, by, bw, bh in boxes:
        x0, y0 = max(0, int(bx) - prox), max(0, int(by) - prox)
        at_node[y0 : int(by + bh) + prox + 1, x0 : int(bx + bw) + prox + 1] = True
    junction |= _apexes(skel, nb, max(6.0, 4.0 * width), at_node, boxes, width)
    # junction pixels closer than half a spur are one junction (an arrowhead's or a crossing's
    # skeleton splits into several close ones)
    rj = max(3, int(round(2.0 * width)), int(round(spur_px / 2)))
    zone_mask = cv2.dilate(junction.astype(np.uint8), cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * rj + 1, 2 * rj + 1)))  # fmt: skip
    nz, zone_lab = cv2.connectedComponents(zone_mask, connectivity=8)
    rest = (skel & (zone_mask == 0)).astype(np.uint8)
    nbr, br_lab = cv2.connectedComponents(rest, connectivity=8)
    branches: list[_Branch] = []
    for b in range(1, nbr):
        br = _Branch(np.argwhere(br_lab == b))
        ring = cv2.dilate((br_lab == b).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        br.zones = sorted({int(z) for z in np.unique(zone_lab[ring]) if z > 0})
        branches.append(br)
    if not branches:
        return None
    centres = {z: np.argwhere((zone_lab == z) & junction).mean(axis=0) for z in range(1, nz)}
    return _Skeleton(skel, nb, zone_lab, br_lab, branches, centres, rj, width)


def _starts(
    sk: _Skeleton,
    boxes: list[tuple[float, float, float, float]],
    radius: float,
    points: list[list[tuple[float, float]]] | None = None,
) -> list[set[tuple[int, int]]]:
    """Per box, where its strokes start: (branch, 0) for a skeleton end on a branch, (-1, zone)
    for an end or a junction (a fan's or a merge's) inside a zone. Each end and junction goes
    to the nearest box within ``radius``; ``points`` collects where they lie, per box."""
    starts: list[set[tuple[int, int]]] = [set() for _ in boxes]
    pts: list[list[tuple[float, float]]] = points if points is not None else [[] for _ in boxes]
    # where a line ends for ``straight_joins``; a junction only right at the box (a fan's hub):
    # farther off it is a crossing by the node
    close, hub = _end_reach(sk.width), sk.width + STRAIGHT_END_MIN_PX

    def nearest(r: float, c: float) -> int | None:
        dist = [_box_distance(int(r), int(c), b) for b in boxes]
        k = int(np.argmin(dist))
        return k if dist[k] <= radius else None

    for r, c in np.argwhere(sk.skel & (sk.nb <= 1)):
        k = nearest(r, c)
        if k is None:
            continue
        if _box_distance(r, c, boxes[k]) <= close:
            pts[k].append((float(r), float(c)))
        if sk.br_lab[r, c] > 0:
            starts[k].add((int(sk.br_lab[r, c]) - 1, 0))
        elif sk.zone_lab[r, c] > 0:
            starts[k].add((-1, int(sk.zone_lab[r, c])))
    for z, centre in sk.centres.items():
        k = nearest(centre[0], centre[1])
        if k is not None:
            starts[k].add((-1, z))
            if _box_distance(int(centre[0]), int(centre[1]), boxes[k]) <= hub:
                pts[k].append((float(centre[0]), float(centre[1])))
    # a box no end or junction reaches but the skeleton passes close by (two arrows whose
    # heads merged into one V: its apex is not an end): it stands on the nearest branch,
    # where both of the path's arms there lead away from it (an elbow line bending by the
    # box or a line running past it has an arm along its side: seed-8989 Graphviz figure 5)
    pix = np.argwhere(sk.br_lab > 0)
    skel_pts = np.argwhere(sk.skel)
    skel_ends = sk.nb[skel_pts[:, 0], skel_pts[:, 1]] <= 1
    for k, box in enumerate(boxes):
        if starts[k] or len(pix) == 0:
            continue
        sub = pix[:: max(1, len(pix) // 400)]
        d = np.array([_box_distance(int(r), int(c), box) for r, c in sub])
        i = int(np.argmin(d))
        if d[i] <= radius:
            r, c = sub[i]
            # where a path runs along the box, every pixel as near as the nearest must pass by
            closest = sub[d <= d[i] + 1.0]
            if all(
                _passes_by(sk, skel_pts, skel_ends, q, box)
                for q in closest[:: max(1, len(closest) // 40)]
            ):
                continue
            starts[k].add((int(sk.br_lab[r, c]) - 1, 0))
    return starts


def _passes_by(
    sk: _Skeleton,
    pts: np.ndarray,
    ends: np.ndarray,
    p: np.ndarray,
    box: tuple[float, float, float, float],
) -> bool:
    """Whether the skeleton (``pts``: its pixels; ``ends``: which of them are ends) runs past
    ``box`` at ``p``, a pixel of it nearest the box: no
    skeleton end lies within the apex reach of ``p`` (the path does not end there, as at
    heads pointing at the box from a gap beside it), and the path's arms there (its pixels
    twice the apex reach away, past the barbs of heads that merged there) do not both lead
    away from the box (:func:`_arms_away`). False where ``p`` sees fewer than two arm
    pixels."""
    reach = max(6.0, 4.0 * sk.width)
    dist = np.hypot(*(pts - p).T)
    if bool(ends[dist <= reach].any()):
        return False
    ring = pts[(dist >= 2 * reach - 1.5) & (dist <= 2 * reach + 1.5)]
    if len(ring) < 2:
        return False
    vec = (ring - p).astype(np.float64)
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    return not _arms_away(p, vec, vec @ vec.T, [box], 0.0)


def _alive(sk: _Skeleton, at_node: set[int], spur_px: float) -> set[int]:
    """Branches left once spurs (short terminal branches reaching no node) are pruned."""
    alive = set(range(len(sk.branches)))
    for _ in range(3):
        spurs = {
            i
            for i in alive
            if i not in at_node
            and len(sk.branches[i].zones) == 1
            and len(sk.branches[i].pixels) <= spur_px
        }
        if not spurs:
            break
        alive -= spurs
    return alive


class _Walker:
    """Follows strokes through junction zones under the turn limits."""

    def __init__(
        self,
        sk: _Skeleton,
        alive: set[int],
        width: float,
        at_nodes: frozenset[int] | set[int] = frozenset(),
    ) -> None:
        self.sk, self.alive, self.at_nodes = sk, alive, at_nodes
        self.pairs: dict[int, dict[int, int] | None] = {}
        self.at_zone: dict[int, list[int]] = {z: [] for z in sk.centres}
        for i in sorted(alive):
            for z in sk.branches[i].zones:
                self.at_zone.setdefault(z, []).append(i)
        near, far = float(sk.rj), float(sk.rj + max(8.0, 6.0 * width))
        self.dirs = {
            (i, z): _direction(sk.branches[i], sk.centres[z], near, far)
            for z, members in self.at_zone.items()
            if z in sk.centres
            for i in members
        }

    def allowed(self, i: int, j: int, z: int) -> bool:
        if z in self.at_nodes:
            return False  # lines meeting right at a node (a fan out of it, arrows into it)
        pairing = self._pairing(z)
        if pairing is not None:  # a crossing: each stroke goes on along its own way only
            return pairing.get(i) == j
        limit = JUNCTION_MAX_TURN_DEG if len(self.at_zone[z]) <= 3 else CROSSING_MAX_TURN_DEG
        return _turn_deg(self.dirs.get((i, z)), self.dirs.get((j, z))) <= limit

    def _pairing(self, z: int) -> dict[int, int] | None:
        """At four branches meeting at ``z``: the pairing into two strokes that turns least,
        when both go straight on (a crossing); else ``None``. Worked out once per zone."""
        if z not in self.pairs:
            self.pairs[z] = self._pair_off(z)
        return self.pairs[z]

    def _pair_off(self, z: int) -> dict[int, int] | None:
        m = self.at_zone.get(z, [])
        if len(m) != 4:
            return None
        best: tuple[float, dict[int, int]] | None = None
        a = m[0]
        for b in m[1:]:
            c, d = (x for x in m[1:] if x != b)
            t = max(
                _turn_deg(self.dirs.get((a, z)), self.dirs.get((b, z))),
                _turn_deg(self.dirs.get((c, z)), self.dirs.get((d, z))),
            )
            if t <= CROSSING_MAX_TURN_DEG and (best is None or t < best[0]):
                best = (t, {a: b, b: a, c: d, d: c})
        return best[1] if best else None

    def crossing(self, z: int) -> bool:
        """Four branches meet at ``z`` and pair off into two strokes going straight on."""
        return self._pairing(z) is not None

    def members(self, start: set[tuple[int, int]]) -> set[int]:
        """The branches a start set stands on (those of its zones included)."""
        out = {b for b, _ in start if b in self.alive}
        for b, z in start:
            if b < 0:
                out.update(self.at_zone.get(z, []))
        return out

    def reachable(self, start: set[tuple[int, int]]) -> set[int]:
        todo: deque[tuple[int, int]] = deque((b, 0) for b, _ in start if b in self.alive)
        for b, z in start:
            if b < 0:  # an end inside a junction zone: any branch there
                todo.extend((j, z) for j in self.at_zone.get(z, []))
        got = {b for b, _ in todo}
        seen: set[tuple[int, int]] = set()
        while todo:
            b, came = todo.popleft()
            if (b, came) in seen:
                continue
            seen.add((b, came))
            for z in self.sk.branches[b].zones:
                if z == came:
                    continue
                for j in self.at_zone.get(z, []):
                    if j != b and self.allowed(b, j, z):
                        got.add(j)
                        todo.append((j, z))
        return got


def stroke_joins(
    comp: np.ndarray,
    boxes: list[tuple[float, float, float, float]],
    width: float,
    spur_px: float,
    radius: float,
) -> Strokes | None:
    """Pairs of ``boxes`` (nodes the component touches; (x, y, w, h) in the window frame) that
    a stroke of the component joins, and whether two of its strokes cross. A stroke starts at a
    skeleton end or junction within ``radius`` of a box (each belongs to the nearest box); a
    box no end of the component reaches is only passed by, and joined to nothing. ``None`` when
    the skeleton gives no usable answer (then every box is joined to every other, as before)."""
    sk = _skeleton(comp, width, spur_px, boxes)
    if sk is None:
        return None
    points: list[list[tuple[float, float]]] = [[] for _ in boxes]
    starts = _starts(sk, boxes, radius, points)
    if sum(1 for st in starts if st) < 2:
        return None
    # thick lines only: a thin line's crossing skeletonises into one junction, and two thin
    # heads meeting back to back make a straight run between their nodes (seed-1313 figure 8)
    if width >= DRAWN_HEADS_MIN_WIDTH_PX:
        straight = straight_joins(comp, sk.skel, points, width, boxes)
        if straight is not None:
            return straight
    at_node = {b for st in starts for b, _ in st if b >= 0}
    node_zones = {z for st in starts for b, z in st if b < 0}
    walk = _Walker(sk, _alive(sk, at_node, spur_px), width, node_zones)
    crossings = {z for z in node_zones if walk.crossing(z)}
    if crossings:  # two lines crossing near a node, not lines meeting at it
        trimmed = [{(b, z) for b, z in st if not (b < 0 and z in crossings)} for st in starts]
        if all(t or not st for t, st in zip(trimmed, starts, strict=True)):
            starts, node_zones = trimmed, node_zones - crossings
            walk = _Walker(sk, walk.alive, width, node_zones)
    mine = [walk.members(st) for st in starts]
    crossed = any(walk.crossing(z) for z in sk.centres if z not in node_zones)
    joins: set[frozenset[int]] = set()
    for a, st in enumerate(starts):
        if not st:
            continue
        got = walk.reachable(st)
        for b in range(a + 1, len(starts)):
            if got & mine[b]:
                joins.add(frozenset((a, b)))
    return Strokes(joins, crossed, {})


def _end_reach(width: float) -> float:
    """How far from its node a line's end for ``straight_joins`` may lie."""
    return STRAIGHT_END_WIDTHS * width + STRAIGHT_END_MIN_PX


def _inked(ink: np.ndarray, p: tuple[float, float], q: tuple[float, float]) -> float:
    """The share of the straight segment ``p`` -> ``q`` ((row, col)) that runs on ``ink``
    (a boolean image: the line's ink along its skeleton)."""
    n = int(math.ceil(math.dist(p, q))) + 1
    rows = np.rint(np.linspace(p[0], q[0], n)).astype(int)
    cols = np.rint(np.linspace(p[1], q[1], n)).astype(int)
    return float(ink[rows, cols].mean())


def _cross(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether two segments cross away from their ends."""
    (p, q), (r, s) = a, b
    d1, d2 = q - p, s - r
    den = float(d1[0] * d2[1] - d1[1] * d2[0])
    if abs(den) < 1e-9:
        return False
    t = float((r - p)[0] * d2[1] - (r - p)[1] * d2[0]) / den
    u = float((r - p)[0] * d1[1] - (r - p)[1] * d1[0]) / den
    lo, hi = CROSS_END_MARGIN_FRAC, 1.0 - CROSS_END_MARGIN_FRAC
    return lo < t < hi and lo < u < hi


def straight_joins(
    comp: np.ndarray,
    skel: np.ndarray,
    points: list[list[tuple[float, float]]],
    width: float,
    boxes: list[tuple[float, float, float, float]],
) -> Strokes | None:
    """The component read as straight lines: node pairs with an end of each (``points``, per
    node: skeleton ends and junctions) that a straight run of ink joins (``STRAIGHT_MIN_INKED``
    of the segment between them on the ink and within half a line width of its skeleton ``skel``:
    not across two heads side by side; its middle clear of both nodes' ``boxes``: not from
    one node's corner to the next's), and whether two of those runs cross. Only when
    every node with an end is joined so: then thick lines crossing at a shallow angle, whose
    skeleton splits the crossing into two junctions a stroke may turn at (seed-5151 matplotlib
    figure 9), are read as drawn, and each end's head is measured off the other runs
    (:func:`off_runs`). ``None`` when some end has no straight run (a bend, a bus, an arc):
    the skeleton's strokes decide."""
    if sum(1 for p in points if p) < 2:
        return None
    ink = cv2.dilate((comp > 0).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    off = cv2.distanceTransform((~skel).astype(np.uint8), cv2.DIST_L2, 3)
    ink &= off <= width / 2 + STRAIGHT_CORE_EXTRA_PX
    segs: dict[frozenset[int], tuple[np.ndarray, np.ndarray]] = {}
    close = _end_reach(width)

    def clear(pq: tuple[tuple[float, float], tuple[float, float]], ab: tuple[int, int]) -> bool:
        mid = ((pq[0][0] + pq[1][0]) / 2, (pq[0][1] + pq[1][1]) / 2)
        return all(_box_distance(int(mid[0]), int(mid[1]), boxes[k]) > close for k in ab)

    for a in range(len(points)):
        for b in range(a + 1, len(points)):
            pairs = [(p, q) for p in points[a] for q in points[b] if clear((p, q), (a, b))]
            if pairs:
                inked, p, q = max((_inked(ink, p, q), p, q) for p, q in pairs)
                if inked >= STRAIGHT_MIN_INKED:
                    segs[frozenset((a, b))] = (np.array(p), np.array(q))
    joined = {k for pair in segs for k in pair}
    if any(p and k not in joined for k, p in enumerate(points)):
        return None
    sk_pts = np.argwhere(skel).astype(np.float64)
    for pair, (e0, e1) in segs.items():
        # the run's axis fitted to its skeleton: an end found at a slanted cut lies off it
        on = sk_pts[off_segment(sk_pts, e0, e1) <= width / 2 + STRAIGHT_CORE_EXTRA_PX]
        if len(on) >= 2:
            centre = on.mean(axis=0)
            axis = np.linalg.svd(on - centre, full_matrices=False)[2][0]
            segs[pair] = (
                centre + ((e0 - centre) @ axis) * axis,
                centre + ((e1 - centre) @ axis) * axis,
            )
    runs = list(segs.values())
    crossed = any(_cross(runs[i], runs[j]) for i in range(len(runs)) for j in range(i))
    return Strokes(set(segs), crossed, segs)


def off_runs(
    ink: np.ndarray,
    xs: np.ndarray,
    ys: np.ndarray,
    runs: list[tuple[np.ndarray, np.ndarray]],
    width: float,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Which of a component's pixels (``xs``, ``ys``) lie off the bands of ``runs`` (straight
    segments, (row, col) ends): farther than half a line ``width`` and
    ``STRAIGHT_CORE_EXTRA_PX``; the distance transform of those on the ``ink`` as drawn (the
    closing fills a crossing's acute angles), and its median on its ridge (the shaft's half
    width there). A head is measured there: where lines cross, their ink is as thick as a
    head's."""
    keep = np.ones(xs.shape, bool)
    pts = np.stack([ys, xs], axis=1).astype(np.float64)
    for p, q in runs:
        keep &= off_segment(pts, p, q) > width / 2 + STRAIGHT_CORE_EXTRA_PX
    own = np.zeros(ink.shape, np.uint8)
    own[ys[keep], xs[keep]] = 1
    dt = cv2.distanceTransform(own & (ink > 0), cv2.DIST_L2, 3)
    half = ridge_half(dt)
    return keep, dt, width / 2 if half is None else half


def ridge(dt: np.ndarray) -> np.ndarray:
    """The ridge of a distance transform ``dt``: the pixels of ink (``dt`` > 0) at least as far from
    its edge as their 8 neighbours, the middle of a stroke (twice their ``dt`` is its width)."""
    return np.asarray((dt > 0) & (dt >= cv2.dilate(dt, np.ones((3, 3), np.uint8))))


def ridge_half(dt: np.ndarray) -> float | None:
    """Half the typical stroke width under a distance transform ``dt``: the median of its
    :func:`ridge`; ``None`` when there is no ink."""
    on = ridge(dt)
    return float(np.median(dt[on])) if on.any() else None


def off_segment(pts: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Each point's distance from the segment ``p`` -> ``q`` (all (row, col))."""
    d = q - p
    t = np.clip(((pts - p) @ d) / max(float(d @ d), 1e-9), 0.0, 1.0)
    return np.asarray(np.hypot(*(pts - (p + t[:, None] * d)).T))
