"""A head and another line's tail at one anchor of a node: which stroke owns the head.

Diagram tools attach every line at a node's anchor points (the middle of a side). Where one
line's head lands on the anchor another line leaves from, the two merge into one component
and the node is touched once, by a head: the line leaving there was read as arriving too, and
its edge came out reversed or not at all (seed-4646 matplotlib figure 4: "Align" -> "Critic"
leaves "Align" right at the tip of "Mapper" -> "Align"'s head). The head's own line runs on
along its axis; a line leaving beside it runs off at an angle. Each line behind the head is
followed through the component (its ink, the head cut away) to the nodes it reaches first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import cv2
import numpy as np
from skimage.graph import MCP_Geometric

from judge.tools.contacts import near_box
from judge.tools.thresholds import (
    ANCHOR_CORE_FRAC,
    ANCHOR_DECISIVE,
    ANCHOR_ELONGATED,
    ANCHOR_FORK_HEADS,
    ANCHOR_HEAD_MIN_PX,
    ANCHOR_HEAD_THICKNESSES,
    ANCHOR_LEAVE_MAX_DEG,
    ANCHOR_MARGIN_DEG,
    ANCHOR_OWN_MAX_DEG,
    ANCHOR_RING_HEADS,
)

if TYPE_CHECKING:
    from judge.tools.arrows import Contact, LineComp


def mark_leaving(
    line: LineComp,
    comp: np.ndarray,
    dt: np.ndarray,
    origin: tuple[int, int],
    boxes: list[tuple[int, int, int, int]],
    reach: int,
    shaft_half: float,
    hubs: Sequence[Contact] = (),
) -> None:
    """Set ``Contact.leaves_to`` on each head of ``line`` (touching three or more nodes) that
    another line leaves beside: the nodes the strokes leaving there reach, each with a head of
    its own. ``comp``: the line's mask in its window (corner at ``origin``, image frame), ``dt``
    its distance transform; ``boxes[k]``: contact ``k``'s node's box (image frame), touched
    within ``reach``. ``hubs``: heads :func:`headtests.unhead_fan_hub` took for a fan's hub; one
    whose own line runs on along its axis while the other leaves beside it is a head again, and
    so is one where a line leaving beside another head ends (:func:`_hub_head`)."""
    if line.joins is None:
        return
    ys, xs = np.nonzero(comp)
    if xs.size == 0:
        return
    vals = dt[ys, xs]
    near: list[np.ndarray] = []  # filled for the first head looked at
    split: list[tuple[Contact, list[tuple[int, bool]]]] = []
    angles: dict[int, list[float]] = {}  # per contact looked at: its lines' angles to its axis
    for c in line.contacts:
        if c.head or any(c is h for h in hubs):
            near = near or [near_box(xs + origin[0], ys + origin[1], b, reach) for b in boxes]
            found = _split(line, c, comp, vals, (xs, ys), origin, near, shaft_half, angles)
            if found:
                split.append((c, found))
    # a hub whose two lines leave side by side, along its axis alike, is a fan's
    fans = {k for k, a in angles.items() if len(a) == 2 and abs(a[0] - a[1]) < ANCHOR_MARGIN_DEG}
    for _ in range(2):  # a head found again may be where a line from another head ends
        for c, found in split:
            for j, ok in found:
                o = line.contacts[j]
                if ok and any(o is h for h in hubs) and id(o) not in fans:
                    _hub_head(line, o, c)
            leaves = frozenset(
                line.contacts[j].node for j, ok in found if ok and line.contacts[j].head
            )
            if leaves:
                c.leaves_to = leaves
                c.head = True


def _hub_head(line: LineComp, o: Contact, c: Contact) -> None:
    """Make hub ``o`` a head again where a line leaving beside head ``c`` ends at it, and ``o``
    has one other line, to a head: a line arriving at ``o`` beside one that leaves it, both
    thick there, made the wedge :func:`headtests.unhead_fan_hub` took for a fan's hub (seed-2121
    matplotlib figure 10: the arc "Cache" -> "Indexer" lands where "Indexer" -> "Router" leaves,
    and leaves "Cache" where "Labeler" -> "Cache" lands). The line from ``c`` has no head at
    ``c``, so its head is at ``o``; ``o``'s other line leaves beside it."""
    others = [
        p for p in line.contacts if p.node not in (o.node, c.node) and line.joined(o.node, p.node)
    ]
    if len(others) == 1 and others[0].head:  # ``o`` is one of ``c``'s partners: joined to it
        o.head = True
        o.leaves_to = frozenset({others[0].node})


def anchor_edges(line: LineComp, cs: list[Contact]) -> list[tuple[int, int, str]]:
    """Edges of ``line`` (its contacts ``cs``, one per node) where another line leaves beside a
    head (``Contact.leaves_to``): each stroke ends at a node with a head unless it leaves that
    node beside another line's head; a stroke with a head at one end runs to it, one with
    both is read both ways, one with neither has no direction. ``high`` where a plain tail's
    one stroke, or a line leaving beside a head, runs to a head with one line behind it that
    this stroke alone reaches (as sure as a plain line), else ``medium``."""
    out: list[tuple[int, int, str]] = []

    def arrives(c: Contact, other: int) -> bool:
        return c.head and not (c.leaves_to is not None and other in c.leaves_to)

    def partners(c: Contact) -> int:
        return sum(1 for o in cs if o is not c and line.joined(c.node, o.node))

    def sure(src: Contact, dst: Contact) -> str:
        if not src.head and partners(src) == 1:
            return "high"
        return "high" if src.head and partners(dst) == 1 and dst.lines_behind <= 1 else "medium"

    for i, a in enumerate(cs):
        for b in cs[i + 1 :]:
            if not line.joined(a.node, b.node):
                continue
            into_a, into_b = arrives(a, b.node), arrives(b, a.node)
            if into_b:
                out.append((a.node, b.node, sure(a, b) if not into_a else "low"))
            if into_a:
                out.append((b.node, a.node, sure(b, a) if not into_b else "low"))
            if not (into_a or into_b):
                out.append((a.node, b.node, "undirected"))
    return out


def _split(
    line: LineComp,
    c: Contact,
    comp: np.ndarray,
    vals: np.ndarray,
    pixels: tuple[np.ndarray, np.ndarray],
    origin: tuple[int, int],
    near: list[np.ndarray],
    shaft_half: float,
    seen: dict[int, list[float]],
) -> list[tuple[int, bool]]:
    """For head ``c`` with two lines behind it, its own on its axis and another at an angle:
    each partner contact's index and whether the other line reaches it first, decisively
    (``ANCHOR_DECISIVE``). Empty when the head is no such head. ``seen[id(c)]``: the angles
    of the lines behind it to its axis, where there are two."""
    xs, ys = pixels
    partners = [
        j for j, o in enumerate(line.contacts) if o.node != c.node and line.joined(c.node, o.node)
    ]
    if len(partners) < 2:
        return []
    px, py = c.point[0] - origin[0], c.point[1] - origin[1]
    d = np.hypot(xs - px, ys - py)
    core = vals >= max(shaft_half + 1.0, ANCHOR_CORE_FRAC * (c.thickness_px / 2.0))
    core &= d <= max(ANCHOR_HEAD_THICKNESSES * c.thickness_px, ANCHOR_HEAD_MIN_PX)
    if int(core.sum()) < 3:
        return []
    hl = float(d[core].max())
    axis = _head_axis(xs[core] - px, ys[core] - py)
    if axis is None:
        return []
    ax, ay = axis
    r0, r1 = ANCHOR_RING_HEADS[0] * hl, ANCHOR_RING_HEADS[1] * hl
    ring = (d >= r0) & (d <= r1)
    m = np.zeros(comp.shape, np.uint8)
    m[ys[ring], xs[ring]] = 1
    n, lab = cv2.connectedComponents(m, connectivity=8)
    if n - 1 != 2:
        return []  # one line behind it; or three or more: a fan's hub has one in the middle
    angles = []
    for p in (1, 2):
        py_, px_ = np.nonzero(lab == p)
        ux, uy = float(px_.mean()) - px, float(py_.mean()) - py
        un = math.hypot(ux, uy)
        cos = (ux * ax + uy * ay) / un if un > 0 else -1.0
        angles.append(math.degrees(math.acos(max(-1.0, min(1.0, cos)))))
    seen[id(c)] = angles
    own = int(np.argmin(angles))
    if angles[own] > ANCHOR_OWN_MAX_DEG or angles[1 - own] < angles[own] + ANCHOR_MARGIN_DEG:
        return []
    if angles[1 - own] > ANCHOR_LEAVE_MAX_DEG:
        return []  # a line ahead of the head's base runs along the node, no line leaving it
    cost = np.full(comp.shape, np.inf)
    yy, xx = np.mgrid[0 : comp.shape[0], 0 : comp.shape[1]]
    cost[(comp > 0) & (np.hypot(xx - px, yy - py) >= r0)] = 1.0
    reach = []
    for p in (1, 2):
        starts = list(zip(*np.nonzero(lab == p), strict=True))
        cum, _ = MCP_Geometric(cost).find_costs(starts)
        reach.append(
            [
                float(cum[ys[near[j]], xs[near[j]]].min()) if near[j].any() else np.inf
                for j in partners
            ]
        )
    r = np.array(reach)  # pieces x partners
    for col, j in enumerate(partners):
        o = line.contacts[j]
        if (o.head or o.thin_head) and float(r[:, col].min()) < ANCHOR_FORK_HEADS * hl:
            return []  # another head right there: heads side by side (a fork)
    if all(
        line.contacts[j].head for col, j in enumerate(partners) if r[own, col] == r[:, col].min()
    ):
        return []  # the line on its axis has no tail: two lines leaving one point (a fan's hub)
    out = []
    for col, j in enumerate(partners):
        best = int(np.argmin(r[:, col]))
        ok = best != own and bool(np.isfinite(r[best, col]))
        out.append((j, ok and bool(r[own, col] >= ANCHOR_DECISIVE * r[best, col])))
    return out


def _head_axis(dx: np.ndarray, dy: np.ndarray) -> tuple[float, float] | None:
    """Unit direction from a head's tip back along its line, from its thick ink (offsets from
    the tip): toward that ink's middle, or where the ink is elongated (``ANCHOR_ELONGATED``)
    along its long axis when that runs about that way (a slender head), across it when it runs
    across (a head whose tip went with the node's outline leaves its base, a bar across the
    line)."""
    cx, cy = float(dx.mean()), float(dy.mean())
    norm = math.hypot(cx, cy)
    if norm < 1e-6:
        return None
    cx, cy = cx / norm, cy / norm
    if dx.size < 3:
        return cx, cy
    cov = np.cov(np.stack([dx, dy]).astype(float))
    vals, vecs = np.linalg.eigh(cov)  # ascending
    if vals[0] <= 0 or vals[1] < ANCHOR_ELONGATED * vals[0]:
        return cx, cy
    major, minor = vecs[:, 1], vecs[:, 0]
    pick = major if abs(major[0] * cx + major[1] * cy) >= math.cos(math.radians(45.0)) else minor
    ux, uy = float(pick[0]), float(pick[1])
    if ux * cx + uy * cy < 0:
        ux, uy = -ux, -uy
    return ux, uy


def leaves_beside(
    t: Contact,
    mine: list[Contact],
    tails: list[Contact],
    partners: Callable[[Contact], list[Contact]],
) -> Contact | None:
    """The head ``t``'s one stroke runs to when ``t`` is a thin head (head-thick, undecided:
    ``Contact.thin_head``) and that head has two or more lines behind it, one of them a
    plain tail's: the head is that other line's, and ``t``'s stroke is a line leaving beside
    it with its own head at ``t`` (seed-5656 matplotlib figure 4: a back arc's head lands on a
    diamond's tip right where the line to "Input" leaves). None otherwise; a fan's hub has
    two or more partners."""
    if not t.thin_head or len(mine) != 1:
        return None
    h = mine[0]
    if not h.head or h.lines_behind < 2:
        return None
    fed = any(o is not t and not o.thin_head and h in partners(o) for o in tails)
    return h if fed else None
