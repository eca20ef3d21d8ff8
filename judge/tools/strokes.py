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

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np
from skimage.morphology import skeletonize

from judge.tools.thresholds import (
    APEX_MAX_OPENING_DEG,
    CROSSING_MAX_TURN_DEG,
    JUNCTION_MAX_TURN_DEG,
    NODE_APEX_MAX_OPENING_DEG,
)


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


def _apexes(
    skel: np.ndarray, nb: np.ndarray, reach: float, at_node: np.ndarray | None = None
) -> np.ndarray:
    """Skeleton pixels where the path folds back sharply: two arrows meeting at one point
    (their heads merged) or a fan leaving one point skeletonise into a single bent path, with no
    junction. At such an apex both arms lie on the same side: every skeleton pixel ``reach``
    away is within ``APEX_MAX_OPENING_DEG`` of the others, in two separate pieces. Pixels near
    a path's end see one arm only and are left out."""
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
        if float((vec @ vec.T).min()) < cos_max:
            continue  # the arms go apart (a straight or bent path): no apex
        # two arms, not one: the ring pixels fall into pieces more than 2 px apart
        rp = pts[ring]
        gaps = np.linalg.norm(rp[:, None, :] - rp[None, :, :], axis=2)
        if float(gaps.max()) > 2.5:
            out[p[0], p[1]] = True
    return out


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
    junction |= _apexes(skel, nb, max(6.0, 4.0 * width), at_node)
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
    return _Skeleton(skel, nb, zone_lab, br_lab, branches, centres, rj)


def _starts(
    sk: _Skeleton, boxes: list[tuple[float, float, float, float]], radius: float
) -> list[set[tuple[int, int]]]:
    """Per box, where its strokes start: (branch, 0) for a skeleton end on a branch, (-1, zone)
    for an end or a junction (a fan's or a merge's) inside a zone. Each end and junction goes
    to the nearest box within ``radius``."""
    starts: list[set[tuple[int, int]]] = [set() for _ in boxes]

    def nearest(r: float, c: float) -> int | None:
        dist = [_box_distance(int(r), int(c), b) for b in boxes]
        k = int(np.argmin(dist))
        return k if dist[k] <= radius else None

    for r, c in np.argwhere(sk.skel & (sk.nb <= 1)):
        k = nearest(r, c)
        if k is None:
            continue
        if sk.br_lab[r, c] > 0:
            starts[k].add((int(sk.br_lab[r, c]) - 1, 0))
        elif sk.zone_lab[r, c] > 0:
            starts[k].add((-1, int(sk.zone_lab[r, c])))
    for z, centre in sk.centres.items():
        k = nearest(centre[0], centre[1])
        if k is not None:
            starts[k].add((-1, z))
    # a box no end or junction reaches but the skeleton passes close by (two arrows whose
    # heads merged into one V: its apex is not an end): it stands on the nearest branch
    pix = np.argwhere(sk.br_lab > 0)
    for k, box in enumerate(boxes):
        if starts[k] or len(pix) == 0:
            continue
        d = [_box_distance(int(r), int(c), box) for r, c in pix[:: max(1, len(pix) // 400)]]
        i = int(np.argmin(d))
        if d[i] <= radius:
            r, c = pix[:: max(1, len(pix) // 400)][i]
            starts[k].add((int(sk.br_lab[r, c]) - 1, 0))
    return starts


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
) -> tuple[set[frozenset[int]], bool] | None:
    """Pairs of ``boxes`` (nodes the component touches; (x, y, w, h) in the window frame) that
    a stroke of the component joins, and whether two of its strokes cross. A stroke starts at a
    skeleton end or junction within ``radius`` of a box (each belongs to the nearest box); a
    box no end of the component reaches is only passed by, and joined to nothing. ``None`` when
    the skeleton gives no usable answer (then every box is joined to every other, as before)."""
    sk = _skeleton(comp, width, spur_px, boxes)
    if sk is None:
        return None
    starts = _starts(sk, boxes, radius)
    if sum(1 for st in starts if st) < 2:
        return None
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
    return joins, crossed
