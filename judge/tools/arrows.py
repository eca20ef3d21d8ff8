"""Lines and arrowheads on a raster: which node each line touches and which end carries a head.

Method (measured on LibreOffice renders, see issue 5): paint every detected blob with its own
interior colour to get a local-background map, take the ink that differs from it, erase the node
blobs, panel borders and free text, join dashes by a closing, and take connected components.
Each component touching two or more nodes is a (possibly branching or elbow) connection; at each
touch point the distance transform's maximum nearby says whether an arrowhead sits there (heads
are 2-3x thicker than shafts). Pixels are those of the measured image (the image frame).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import cv2
import numpy as np

from judge.tools import anchors, headtests
from judge.tools.aim import aimed_ends, dash_closing, dash_pieces, drop_dashed_rings
from judge.tools.base import Tool, ToolContext, ToolOutput, memo
from judge.tools.contacts import (
    barb_touches,
    cap_places,
    join_past,
    kept_nodes,
    line_touches,
    passes_by,
    place_ids,
    same_line,
    settle_places,
    touch_boxes,
)
from judge.tools.lineink import all_outline, erase_text, heads_in_masks, node_erase, own_ink
from judge.tools.nodes import (
    Blob,
    blobs_cached,
    border_bgr,
    channel_max,
    ink_mask,
    own_mask,
)
from judge.tools.nodetext import free_text, text_cached
from judge.tools.ocr import OcrLine, box_to_frame
from judge.tools.strokes import Strokes, off_runs, ridge_half, stroke_joins
from judge.tools.strokes import ridge as dt_ridge
from judge.tools.thresholds import (
    AIM_GAP_PER_KPX,
    BLOCK_BACK_WIDTHS,
    BLOCK_MIN_SHAFT_PX,
    CONTACT_MARGIN_PER_KPX,
    CONTACT_MARGIN_WIDTHS,
    DASH_CLOSE_PER_KPX,
    DASH_GAP_WIDTHS,
    DASH_JOIN_FACTOR,
    DASH_MIN_PIECES,
    DRAWN_HEADS_MIN_WIDTH_PX,
    HEAD_BEHIND_MAX_WIDTHS,
    HEAD_CLEAR_MIN_PX,
    HEAD_CLEAR_WIDTHS,
    HEAD_MIN_EXTRA_PX,
    HEAD_REACH_PER_KPX,
    HEAD_SPREAD_RATIO,
    HEAD_STRONG_RATIO,
    HEAD_THICKNESS_RATIO,
    LABEL_BRIDGE_GAP_FRAC,
    LABEL_STACK_GAP_FRAC,
    MIN_EDGE_LENGTH_PER_KPX,
    PILL_NODE_MIN_PARTNERS,
    REMNANT_WIDE_REACHES,
    SHAFT_DT_MIN_WIDTH_PX,
    SHAFT_DT_SLACK_PX,
    SHAFT_DT_STEP_PX,
    STROKE_SPUR_PER_KPX,
    scaled_px,
)


@dataclass
class Contact:
    """Where a line touches a node: ``node`` indexes the endpoint list given to detect_lines."""

    node: int
    point: tuple[float, float]
    head: bool
    thickness_px: float
    """Largest local thickness (2 x distance-transform max) near the touch point."""
    lines_behind: int = 0
    """Separate lines behind a head at a line touching three or more nodes (0: not counted):
    two or more where lines fan out of or into one point, whose wedge may pass for a head."""
    thin_head: bool = False
    """A head-thick end too thin to tell from a fan's hub by itself (several lines behind it):
    the component's strokes decide (:func:`headtests.unhead_fan_hub`)."""
    behind_px: float | None = None
    """The line's thickness a few end thicknesses back from this end (:func:`headtests.behind`;
    None: a line touching three or more nodes, or too short there): a head stands out from
    it, a tapered tail's blunt start does not (it thins gradually)."""
    leaves_to: frozenset[int] | None = None
    """A head another line leaves beside (:func:`anchors.mark_leaving`): the nodes reached."""


@dataclass
class LineComp:
    """One connected line drawing (possibly branching). Image-frame pixels."""

    box: tuple[int, int, int, int]
    thickness_px: float
    """Shaft thickness (2 x median ridge distance)."""
    dashed: bool
    length_px: float
    contacts: list[Contact] = field(default_factory=list)
    pieces: int = 1
    labels: list[LabelBlock] = field(default_factory=list)
    """A line touching one node only: the label blocks it reaches (``LABEL_BRIDGE_GAP_FRAC``),
    where a line set on its label stops."""
    joins: set[frozenset[int]] | None = None
    """Node pairs a stroke of this component joins (``strokes.stroke_joins``) when it touches
    three or more nodes; ``None``: every pair (one stroke, or the skeleton gave no answer)."""
    crossed: bool = False
    """Two of its strokes cross (four branches going straight on at one junction)."""
    fixed: list[tuple[int, int, str]] | None = None
    """Its edges, read before its contacts at one node's several places named that node again
    (:func:`contacts.settle_places`); None: read from the contacts."""

    def joined(self, a: int, b: int) -> bool:
        return self.joins is None or frozenset((a, b)) in self.joins

    def edges(self) -> list[tuple[int, int, str]]:
        """(source, target, confidence) pairs between endpoint indices.

        ``high``: exactly two nodes and one head; ``medium``: branching lines with heads on some
        ends; ``undirected``: no head seen (direction unknown).
        """
        if self.fixed is not None:
            return list(self.fixed)
        nodes: dict[int, Contact] = {}
        for c in self.contacts:
            prev = nodes.get(c.node)
            nodes[c.node] = c if prev is None or (c.head and not prev.head) else prev
        cs = list(nodes.values())
        if len(cs) < 2:
            return []
        if any(c.leaves_to for c in cs):
            return anchors.anchor_edges(self, cs)
        heads = [c for c in cs if c.head]
        tails = [c for c in cs if not c.head]
        out: list[tuple[int, int, str]] = []

        def partners(c: Contact) -> list[Contact]:
            return [o for o in cs if o.node != c.node and self.joined(c.node, o.node)]

        if heads and tails:
            for t in tails:
                mine = partners(t)
                leaving = anchors.leaves_beside(t, mine, tails, partners) if self.joins else None
                if leaving is not None:
                    # a thin head at the far end of a line leaving beside an arriving head
                    out.append((leaving.node, t.node, "medium"))
                    continue
                for h in heads:
                    if h in mine:
                        # one stroke from this tail to this head alone: as sure as a plain line
                        sole = len(cs) == 2 or (self.joins is not None and len(mine) == 1)
                        out.append((t.node, h.node, "high" if sole else "medium"))
            if self.joins is not None:
                # a head several lines meet at, reached by a tail's stroke, is also where a
                # stroke to another head may start: a line leaving beside an arriving head
                # (a back edge's tail next to the head of the edge into that node)
                fed = {h.node for t in tails for h in partners(t) if h.head}
                for c in heads:
                    if c.lines_behind >= 2 and c.node in fed:
                        for h in partners(c):
                            if h.head and h.node not in fed:
                                # one stroke to that head alone, one line behind it (a head
                                # two lines run into may be where a line passing the first
                                # node ends: Graphviz seed-8484 figure 1)
                                sole = len(partners(h)) == 1 and h.lines_behind <= 1
                                out.append((c.node, h.node, "high" if sole else "medium"))
        elif heads:  # every end headed: bidirectional
            for a in heads:
                for b in partners(a):
                    out.append((a.node, b.node, "medium" if len(cs) == 2 else "low"))
        else:
            for i, a in enumerate(cs):
                for b in cs[i + 1 :]:
                    if self.joined(a.node, b.node):
                        out.append((a.node, b.node, "undirected"))
        return out


def _half_contrast_width(comp: np.ndarray, contrast: np.ndarray) -> float | None:
    """Stroke width of a line component measured on its pixels above half the line's contrast,
    so anti-aliasing at different resolutions does not change it."""
    near = cv2.dilate(comp, np.ones((3, 3), np.uint8)) > 0
    vals = contrast[comp > 0]
    if vals.size == 0:
        return None
    thr = 0.5 * float(np.percentile(vals, 95))
    return _stroke_width(near & (contrast > thr))


def _stroke_width(mask: np.ndarray) -> float | None:
    """Mean stroke width (px) of thin ink: 2 x area / perimeter (the perimeter of a thin stroke
    is about twice its length); finer than distance-transform steps."""
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    perimeter = sum(cv2.arcLength(c, True) for c in contours)
    return 2.0 * float(mask.sum()) / perimeter if perimeter > 0 else None


def background_map(img: np.ndarray, blobs: list[Blob]) -> np.ndarray:
    """HxWx3 map of the local background: the image background, with each blob painted in its
    interior colour (children over parents)."""
    bgmap = np.empty_like(img)
    bgmap[:] = border_bgr(img)
    for b in blobs:
        x, y, w, h = b.box
        view = bgmap[y : y + h, x : x + w]
        view[b.mask] = b.interior_bgr
    return bgmap


def detect_lines(
    img: np.ndarray,
    blobs: list[Blob],
    endpoints: list[int],
    text_boxes: list[tuple[float, float, float, float]] = (),  # type: ignore[assignment]
    aim_at: Collection[int] | None = None,
    text_heights: Sequence[float] | None = None,
    text_blobs: Collection[int] = (),
) -> list[LineComp]:
    """Line components of a BGR image and the endpoint blobs (indices into ``blobs``) they touch.

    ``text_boxes`` (image frame) are erased first so free labels are not mistaken for lines;
    ``text_heights``: their letters' heights (default: the boxes'; text set at an angle has a
    far taller box, :attr:`OcrLine.text_height`); ``text_blobs``: blobs that are letters,
    left to that erasing (a head the label is laid over fuses with its letters into a blob).
    A line touching fewer than two endpoints joins the two it points at across a gap
    (:func:`judge.tools.aim.aimed_ends`), among ``aim_at`` (default: every endpoint; not a
    label's pill, which only a line that touches it reaches).

    A line joining two nodes has its heads measured once more with the ink kept over the
    nodes' outlines (``lineink.node_erase``: a head whose barb lies on an outline in another
    colour lost half its ink with it: seed-7474 matplotlib figure 1), and takes those heads
    when that reading finds the same line. Lines touching three or more nodes keep the first
    reading: the kept ink moves which strokes pair where lines crowd at a node. Where a node
    has several places, one more reading gives one contact per node (``contacts.cap_places``).
    """
    args = (img, blobs, endpoints, text_boxes, aim_at, text_heights, text_blobs)
    lines, over, dk = _detect(*args, keep_over=False)
    if any(ln.fixed is not None for ln in lines):
        cap_places(lines, _detect(*args, keep_over=False, dash_px=dk, places=False)[0])
    if not over.any():
        return lines
    again, _, _ = _detect(*args, keep_over=True, dash_px=dk)
    for ln in lines:
        twin = next((t for t in again if same_line(ln, t)), None)
        if twin is not None:
            ln.contacts = twin.contacts
    return lines


def _detect(
    img: np.ndarray,
    blobs: list[Blob],
    endpoints: list[int],
    text_boxes: Sequence[tuple[float, float, float, float]],
    aim_at: Collection[int] | None,
    text_heights: Sequence[float] | None,
    text_blobs: Collection[int],
    keep_over: bool,
    dash_px: int | None = None,
    places: bool = True,
) -> tuple[list[LineComp], np.ndarray, int]:
    """:func:`detect_lines` with the ink over the nodes' outlines in another colour erased
    with them, or kept (``keep_over``); also returns that ink and the dash closing's size.
    ``dash_px``: that size, given (the reading with the ink kept uses the first reading's:
    measured again on the kept ink, one pixel more joined two thick tails' ink kept over an
    ellipse's outline into one line, seed-3131 matplotlib figure 13). ``places``: whether a
    node a line touches at places far apart has a contact at each (:func:`line_touches`)."""
    shape = img.shape
    margin = scaled_px(CONTACT_MARGIN_PER_KPX, shape, 3)
    reach = scaled_px(HEAD_REACH_PER_KPX, shape, 8)
    min_len = scaled_px(MIN_EDGE_LENGTH_PER_KPX, shape, 8)
    dk = scaled_px(DASH_CLOSE_PER_KPX, shape, 3)
    ep = set(endpoints)
    own = {i: own_mask(img, blobs[i]) for i in ep}
    bgmap = background_map(img, blobs)
    ink = heads_in_masks(img, blobs, own, ink_mask(img, bgmap, strong=True))
    contrast = channel_max(cv2.absdiff(img, bgmap))
    wider = np.zeros(shape[:2], np.uint8)
    erase, kept = node_erase(img, blobs, ep, ink, set(text_blobs) - ep, own, wider)
    erase |= kept * np.uint8(not keep_over)  # the first reading erases it with the outline
    wider &= ink
    ink[erase > 0] = 0
    # distance to the nearest erased node: an outline's remnant (a diamond's mitred tip) sits
    # right there, so arrowheads are measured a little clear of it; not the ink kept over an
    # outline, in another colour than the node's (no remnant)
    clear_of = cv2.distanceTransform((erase == 0).astype(np.uint8), cv2.DIST_L2, 3)
    clear_of[(kept > 0) & keep_over] = np.float32(1e6)
    blocks = label_blocks(list(text_boxes))
    windows: np.ndarray = np.zeros(shape[:2], np.uint8)
    heights = text_heights or [b[3] for b in text_boxes]
    erase_text(ink, text_boxes, heights, windows, erase)
    base = dk
    # the closing is sized on the line ink as the mask's outline width leaves it: the slivers
    # only the outline as drawn finds move the typical width (seed-9595 matplotlib figure 1:
    # a 16 px closing for 13 joined small heads to outline remnants)
    dk = dash_px if dash_px is not None else _dash_size(ink | wider, dk)
    drop_dashed_rings(ink, dk, windows)
    closed = dash_closing(ink, dk, base)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    # dashed runs whose corner gap the closing did not bridge are joined to each other
    pieces_of, dashed_of = {}, {}
    width = 2.0 * (ridge_half(cv2.distanceTransform(ink, cv2.DIST_L2, 3)) or 1.0)
    for c in range(1, n):
        x, y, w, h, _a = (int(v) for v in stats[c])
        sub = (labels[y : y + h, x : x + w] == c) & (ink[y : y + h, x : x + w] > 0)
        pieces_of[c], dashed_of[c] = dash_pieces(sub, width)
    dashed_ids = [c for c in range(1, n) if dashed_of[c]]
    if len(dashed_ids) >= 2:
        dmask = np.isin(labels, dashed_ids).astype(np.uint8)
        jk = DASH_JOIN_FACTOR * dk
        _, groups = cv2.connectedComponents(
            cv2.dilate(dmask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (jk, jk))),
            connectivity=8,
        )
        first: dict[int, int] = {}
        for c in dashed_ids:
            x, y, w, h, _a = (int(v) for v in stats[c])
            sub = labels[y : y + h, x : x + w] == c
            ys_, xs_ = np.nonzero(sub)
            gid = int(groups[y + ys_[0], x + xs_[0]])
            if gid in first:
                f = first[gid]
                labels[y : y + h, x : x + w][sub] = f
                pieces_of[f] += pieces_of[c]
                fx, fy, fw, fh, fa = (int(v) for v in stats[f])
                nx, ny = min(fx, x), min(fy, y)
                stats[f] = (nx, ny, max(fx + fw, x + w) - nx, max(fy + fh, y + h) - ny, fa + _a)
                stats[c, 4] = 0
            else:
                first[gid] = c
    out: list[LineComp] = []
    ep_boxes = [(i, blobs[i].box) for i in endpoints]
    spur = float(scaled_px(STROKE_SPUR_PER_KPX, shape, 6))
    aim = float(scaled_px(AIM_GAP_PER_KPX, shape, 8))
    aims = set(endpoints if aim_at is None else aim_at)
    aim_boxes = [(i, b) for i, b in ep_boxes if i in aims]
    shape_near: dict[tuple[int, int], np.ndarray] = {}
    for c in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[c])
        if area == 0 or max(w, h) < min_len:
            continue
        pad_ = reach + margin
        X0, Y0 = max(0, x - pad_), max(0, y - pad_)
        X1, Y1 = min(shape[1], x + w + pad_), min(shape[0], y + h + pad_)
        comp = (labels[Y0:Y1, X0:X1] == c).astype(np.uint8)
        pieces = pieces_of[c]
        dt = cv2.distanceTransform(comp, cv2.DIST_L2, 3)
        half = ridge_half(dt)
        shaft = 1.0 if half is None else half
        length = float(area) / max(1.0, 2 * shaft)
        line = LineComp(
            box=(x, y, w, h),
            thickness_px=round(_half_contrast_width(comp, contrast[Y0:Y1, X0:X1]) or 2 * shaft, 2),
            dashed=dashed_of[c],
            length_px=round(length, 1),
            pieces=int(pieces),
        )
        ys, xs = np.nonzero(comp)
        xs_abs, ys_abs = xs + X0, ys + Y0
        # a thick line's head stops as many line widths short as a thin one's (matplotlib:
        # 2 pt), whatever the image's size
        reach_m = max(margin, int(math.ceil(CONTACT_MARGIN_WIDTHS * line.thickness_px)))
        apart = float(reach + margin) if places else math.inf  # a node's places: a head apart
        short = (float(reach + margin), line.thickness_px)  # a line stopping short of a node
        touches = line_touches(
            xs_abs, ys_abs, (x, y, w, h), blobs, ep_boxes, reach_m, shape_near, apart, short
        )
        barbs = barb_touches(touches, comp > 0, (X0, Y0), float(reach + margin))
        touches = [t for t in touches if t[0] not in barbs]
        touched = {node for node, _, _ in touches}
        if len(touches) < 2:  # an arrow stopping short of its boxes (hand-drawn)
            # aimed from its skeleton's far ends only when it is about one piece of ink: not
            # dashes, nor a shaft the closing joined to letters left of a label (seed-1313
            # matplotlib figure 12: a stub and "upd" aimed from "Deploy" to "Augment")
            aimed = aimed_ends(
                xs_abs, ys_abs, aim_boxes, aim, reach_m, line.thickness_px, pieces < DASH_MIN_PIECES
            )
            touches = aimed or touches
        joins, runs, ids = None, {}, place_ids(touches, len(blobs))
        if len(touches) >= 3:
            boxes = touch_boxes(touches, [_window_box(blobs[n].box, X0, Y0) for n, _, _ in touches])
            drawn = own_ink(comp > 0, ink[Y0:Y1, X0:X1] > 0, None if line.dashed else dk)
            read, kept = _strokes_as_drawn(comp, drawn, boxes, line, spur, float(margin + reach))
            if kept is not comp:
                comp = kept
                dt = cv2.distanceTransform(comp, cv2.DIST_L2, 3)
                # the shaft too is measured on the ink the heads are: the closing can fill an
                # acute crossing into a blob whose ridge passes for a shaft twice a head's width,
                # and the heads' clearance off the nodes then swallows their windows (seed-5858
                # matplotlib figure 9, two arrows crossing between two rows of nodes)
                half = ridge_half(dt)
                shaft = 1.0 if half is None else half
                ys, xs = np.nonzero(comp)
                xs_abs, ys_abs = xs + X0, ys + Y0
            joins, runs = (read.joins, read.runs) if read is not None else (None, {})
            line.crossed = read is not None and read.crossed
        d2 = [(xs_abs - px) ** 2 + (ys_abs - py) ** 2 for _, px, py in touches]
        on_ridge = dt_ridge(dt)[ys, xs]
        clear = max(HEAD_CLEAR_MIN_PX, HEAD_CLEAR_WIDTHS * shaft * 2)
        clear_ok = clear_of[ys_abs, xs_abs] > clear  # heads are measured this far off a node
        outline_only = False  # the one node this touches: all of it there is that node's outline
        passing: set[int] = set()  # headed touches where the line passes a node by
        ends: list[np.ndarray] = []
        for k, (node, px, py) in enumerate(touches):
            # look for the head only on this end's side of the line (short lines: the nearer half)
            mine = np.ones(d2[k].shape, bool)
            for j in range(len(touches)):
                if j != k:
                    mine &= d2[k] <= d2[j]
            win = mine & (d2[k] <= (reach + margin) ** 2)
            win &= clear_ok
            wd = line.thickness_px
            at = np.flatnonzero(win)
            bx, by, bw, bh = blobs[node].box
            out_dir = (px - (bx + bw / 2), py - (by + bh / 2))
            keep, end = headtests.past_remnant(img, blobs[node], xs, ys, (X0, Y0), at, (px, py), wd)
            if node in touched and len(touched) < 2 and keep.size and not keep.any():
                outline_only = all_outline(img, blobs[node], xs, ys, (px - X0, py - Y0), wd, X0, Y0)
            # all the window holds may be the outline's V: a sharp tip the node finder's
            # opening cut off leaves a long one, and the head waits past its apex
            wide = mine & (d2[k] <= (REMNANT_WIDE_REACHES * (reach + margin)) ** 2)
            wide &= clear_ok
            at, keep, end = headtests.past_long_remnant(
                img,
                blobs[node],
                xs,
                ys,
                (X0, Y0),
                np.flatnonzero(wide),
                (px, py),
                wd,
                (at, keep, end),
            ) or (at, keep, end)
            if keep.any() and not keep.all() and len(touches) <= 2:
                # past the remnant of the node's outline: the head starts at its apex, so the
                # window runs its full reach from there (a big head on a diamond's tip). Not
                # where lines cross near a node: their V is no outline's, and the reach would
                # take in the other strokes (seed-4242 matplotlib figure 3)
                ex, ey = xs_abs - (end[0] + X0), ys_abs - (end[1] + Y0)
                far = mine & (ex**2 + ey**2 <= (reach + margin) ** 2)
                far &= ex * out_dir[0] + ey * out_dir[1] >= 0  # beyond the apex, away from it
                far &= clear_ok
                at = np.union1d(at[keep], np.flatnonzero(far))
            else:
                at = at[keep]
            dtk, ran, own_shaft = dt, sum(k in p for p in runs), shaft  # runs ending here
            if runs:  # straight runs: a crossing by the node is no head (``strokes.off_runs``)
                others = [r for p, r in runs.items() if k not in p]
                off, dtk, own_shaft = off_runs(ink[Y0:Y1, X0:X1], xs, ys, others, wd)
                at = at[off[at]] if ran else at[:0]  # a node a run passes by: no end there
            tmax = float(dtk[ys[at], xs[at]].max()) if at.size else own_shaft
            # a line's shaft by this end: a tapered `fancy` arrow runs thick at its tail and
            # thin by its head, and a component can join a thick stroke to a thin one
            from_end = (xs - end[0]) ** 2 + (ys - end[1]) ** 2  # past a remnant: its apex
            local = (
                headtests.local_shaft(dt, xs, ys, on_ridge & mine, from_end, reach + margin, shaft)
                if len(touches) <= 2
                else own_shaft
            )
            # the head is measured against the shaft right behind it where that is thinner
            # (``headtests.neck``): a small head on a tapered shaft's thin end
            neck, behind_px = local, None
            if at.size and len(touches) <= 2:
                widest = int(at[int(np.argmax(dtk[ys[at], xs[at]]))])
                nk = headtests.neck(dt[ys, xs], mine, from_end, widest, tmax)
                neck = local if nk is None else min(local, nk)
                # the distance transform's steps make a thin slanted shaft read a step thicker
                # than a level one (seed-6969 matplotlib figure 3: 2.74 against 1.91 px for
                # 4.1 px lines): within a step of half its stroke width measured finer, the
                # head is measured against that (``SHAFT_DT_STEP_PX``)
                if wd >= SHAFT_DT_MIN_WIDTH_PX and neck <= wd / 2.0 + SHAFT_DT_STEP_PX:
                    neck = min(neck, wd / 2.0 + SHAFT_DT_SLACK_PX)
                behind_px = headtests.behind(dt[ys, xs], mine, from_end, tmax)
            # the other tests keep the shaft a window back: thick only at the window's far rim
            # is a junction, a crossing or the other end's head reaching in, not a head here
            # (dev10: a thin line's bus junction by a diamond's tip)
            head = tmax >= HEAD_THICKNESS_RATIO * neck and tmax >= neck + HEAD_MIN_EXTRA_PX
            if head:
                head = not headtests.thick_only_far(
                    xs[at], ys[at], dt[ys[at], xs[at]], end, reach + margin, local, len(touches) > 2
                )
            thin = False  # a thin head with several lines behind: a head or a fan's hub
            if head and tmax < HEAD_STRONG_RATIO * local and len(touches) != 2:
                # lines fanning out of one point overlap into a thick wedge there too, but split
                # behind it; a head this thin counts only with one shaft behind, or (below)
                # where the strokes show it is not a hub. A line touching two nodes has no fan at
                # its ends (lines leaving one point reach a third node, or stop at their labels:
                # one node touched): what split behind its thin heads was their own barbs, on
                # small images whose head window reaches no ring past them (seed-3434
                # matplotlib figure 12). Counting past the window where lines crowd made a fan's
                # hub one line (``bench/mpl_smoke`` seed 4's ``simple`` arrows read backwards)
                head = (ran if runs else headtests.lines_behind(xs[at], ys[at], end, wd)) <= 1
                thin = not head and len(touches) >= 3
            spread, behind = headtests.end_spread(xs[at], ys[at], end, wd)
            # an open or hollow head is thin but wide, with one plain shaft behind it (a fan
            # or a bend is wide behind too)
            head = head or (
                spread >= HEAD_SPREAD_RATIO * wd
                and spread >= wd + 2 * HEAD_MIN_EXTRA_PX
                and 0 < behind <= HEAD_BEHIND_MAX_WIDTHS * wd
            )
            if not head and wd >= BLOCK_MIN_SHAFT_PX:
                sel = mine & (d2[k] <= (BLOCK_BACK_WIDTHS[1] * wd) ** 2)
                head = headtests.block_head(xs_abs[sel], ys_abs[sel], (px, py), wd)
            behind = 0
            if head and len(touches) >= 3:  # counted on the ink before the dash closing,
                raw = ink[ys_abs[at], xs_abs[at]] > 0  # which fills a narrow fan into a wedge
                behind = ran or headtests.lines_behind(xs[at][raw], ys[at][raw], end, wd)
                # a line passing a node's corner on its way between two others, its label
                # touching it there (seed-9797 matplotlib figure 0): no end there, so no touch
                by = passes_by(xs_abs, ys_abs, (px, py), reach_m, ends)
                passing |= {ids[k]} if by else set()
            line.contacts.append(
                Contact(
                    ids[k],
                    (round(px, 1), round(py, 1)),
                    head,
                    2 * tmax,
                    behind,
                    thin,
                    behind_px,
                )
            )
        line.contacts = [c for c in line.contacts if c.node not in passing]
        headtests.untaper(line, dt, xs, ys, on_ridge, d2, reach + margin)
        headtests.stub_tail(line, xs_abs, ys_abs)
        if len(touches) == 1:
            line.labels = _labels_reached(xs_abs, ys_abs, blocks)
        if joins is not None:
            line.joins = {frozenset((ids[a], ids[b])) for a, b in map(tuple, joins)}
            line.joins = join_past(line.joins, passing)
            hubs = headtests.unhead_fan_hub(line)
            node_boxes = [blobs[n].box for n in kept_nodes(touches, ids, passing)]
            anchors.mark_leaving(line, comp, dt, (X0, Y0), node_boxes, reach_m, shaft, hubs)
            headtests.unhead_star_centre(line)
        settle_places(line, {i: t[0] for i, t in zip(ids, touches, strict=True) if i != t[0]})
        if outline_only:
            continue  # what the node's erasing left of its outline (a diamond's cut tip), no line
        out.append(line)
    return out, kept, dk


def _dash_size(ink: np.ndarray, dk: int) -> int:
    """The dash closing's size: dash gaps grow with the line width (OOXML's dash: gap = 3
    widths), so at least ``DASH_GAP_WIDTHS`` typical line widths of ``ink``, and ``dk``."""
    half_all = ridge_half(cv2.distanceTransform(ink, cv2.DIST_L2, 3))
    if half_all is None:
        return dk
    return max(dk, int(round(DASH_GAP_WIDTHS * (2.0 * half_all))))


def _strokes_as_drawn(
    comp: np.ndarray,
    drawn: np.ndarray,
    boxes: list[tuple[float, float, float, float]],
    line: LineComp,
    spur: float,
    reach: float,
) -> tuple[Strokes | None, np.ndarray]:
    """The stroke reading (``strokes.stroke_joins``) of a component touching three or more
    nodes, and the ink its heads are measured on. The closing fills a crossing's acute angles
    into a band: a crossing seen only in the strokes as ``drawn`` (``lineink.own_ink``) is read
    there, heads included (the band would pass for a head at a nearby end); so are straight
    runs seen only there (``strokes.straight_joins``: the closing's fill between two thick
    lines crossing by their heads takes the runs off the skeleton, seed-6767 matplotlib
    figure 3, "Residual" -> "Preprocess" across "Align" -> "Sampler"). A thick solid
    line's heads are measured on its ink as drawn anyway (``DRAWN_HEADS_MIN_WIDTH_PX``): the
    closing fills thick lines crossing or fanning out into blobs as thick as heads (seed-1313
    matplotlib figure 9)."""
    read = stroke_joins(comp, boxes, line.thickness_px, spur, reach)
    differs = bool((drawn != comp).any())
    if differs and not (read is not None and read.runs):
        as_drawn = stroke_joins(drawn, boxes, line.thickness_px, spur, reach)
        if as_drawn is not None and (
            as_drawn.runs or (as_drawn.crossed and not (read is not None and read.crossed))
        ):
            return as_drawn, drawn
    if not line.dashed and differs and line.thickness_px >= DRAWN_HEADS_MIN_WIDTH_PX:
        return read, drawn
    return read, comp


LabelBlock = tuple[float, float, float, float, float]
"""A label's box (x, y, w, h) and its smallest text line height."""


def label_blocks(boxes: list[tuple[float, float, float, float]]) -> list[LabelBlock]:
    """Free text line boxes stacked into the labels they make (``LABEL_STACK_GAP_FRAC``)."""
    parent = list(range(len(boxes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = sorted(range(len(boxes)), key=lambda i: boxes[i][1])
    for n, i in enumerate(order):
        ax, ay, aw, ah = boxes[i]
        for j in order[n + 1 :]:
            bx, by, bw, bh = boxes[j]
            if by - (ay + ah) > LABEL_STACK_GAP_FRAC * ah:
                break  # sorted by top: every later line starts lower still
            if min(ax + aw, bx + bw) <= max(ax, bx):
                continue
            gap = max(by - (ay + ah), ay - (by + bh))
            if gap <= LABEL_STACK_GAP_FRAC * min(ah, bh):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        groups.setdefault(root(i), []).append(i)
    out: list[LabelBlock] = []
    for members in groups.values():
        x0 = min(boxes[i][0] for i in members)
        y0 = min(boxes[i][1] for i in members)
        x1 = max(boxes[i][0] + boxes[i][2] for i in members)
        y1 = max(boxes[i][1] + boxes[i][3] for i in members)
        line_h = min(boxes[i][3] for i in members)
        out.append((x0, y0, x1 - x0, y1 - y0, line_h))
    return out


def _labels_reached(xs: np.ndarray, ys: np.ndarray, blocks: list[LabelBlock]) -> list[LabelBlock]:
    """The label blocks some of these pixels come within ``LABEL_BRIDGE_GAP_FRAC`` of."""
    out: list[LabelBlock] = []
    if xs.size == 0:
        return out
    lx0, lx1, ly0, ly1 = float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max())
    for b in blocks:
        x, y, w, h, lh = b
        tol = max(2.0, LABEL_BRIDGE_GAP_FRAC * lh)
        if x - tol > lx1 or x + w + tol < lx0 or y - tol > ly1 or y + h + tol < ly0:
            continue  # nowhere near the line's box
        dx = np.maximum(np.maximum(x - xs, xs - (x + w)), 0.0)
        dy = np.maximum(np.maximum(y - ys, ys - (y + h)), 0.0)
        if bool((dx * dx + dy * dy <= tol * tol).any()):
            out.append(b)
    return out


def _window_box(
    box: tuple[float, float, float, float], x0: int, y0: int
) -> tuple[float, float, float, float]:
    return (float(box[0] - x0), float(box[1] - y0), float(box[2]), float(box[3]))


def node_endpoints(blobs: list[Blob]) -> list[int]:
    """Blobs a line may end at when nothing better is known: those holding no other blob."""
    return [i for i, b in enumerate(blobs) if not b.children]


def read_lines(
    img: np.ndarray, blobs: list[Blob], ocr: list[OcrLine]
) -> tuple[list[LineComp], frozenset[int]]:
    """The line components of an image with the node blobs as endpoints, and the label pills
    the lines show to be nodes.

    A box drawn tight round its label with no outline is read as text (a label pill on a
    line); a light node drawn that way looks the same. Lines tell them apart: the lines are
    read once more with the pills as endpoints too, and a pill some line ends at with a head,
    that lines join to three or more nodes, or that lines join to two met all on one side
    (:func:`_one_side`), is a node (a label on a line joins two, with a tail on each of its
    opposite sides). Lines are then read with those pills as nodes."""
    from judge.tools.graphread import node_blobs, pill_blobs

    leaves, _kids, glyphs, _icons = node_blobs(blobs, ocr, img)

    def lines_for(eps: list[int]) -> list[LineComp]:
        texts, heights = free_text(ocr, blobs, eps, img)
        return detect_lines(img, blobs, eps, texts, leaves, heights, glyphs)

    pills = pill_blobs(blobs, glyphs, leaves, ocr)
    if not pills:
        return lines_for(leaves), frozenset()
    trial = lines_for(sorted([*leaves, *pills]))
    joined: dict[int, set[int]] = {}
    headed: set[int] = set()
    leave: dict[int, list[tuple[float, float]]] = {}  # where joining lines meet each pill
    for ln in trial:
        at = {c.node for c in ln.contacts}
        for c in ln.contacts:
            partners = {o for o in at if o != c.node and ln.joined(c.node, o)}
            joined.setdefault(c.node, set()).update(partners)
            if partners:
                leave.setdefault(c.node, []).append(c.point)
            if c.head:
                headed.add(c.node)
    nodes = frozenset(
        p
        for p in pills
        if p in headed
        or len(joined.get(p, ())) >= PILL_NODE_MIN_PARTNERS
        or (len(joined.get(p, ())) >= 2 and _one_side(blobs[p].box, leave[p]))
    )
    if nodes == frozenset(pills):
        return trial, nodes
    return lines_for(sorted([*leaves, *nodes])), nodes


def _one_side(box: tuple[int, int, int, int], points: list[tuple[float, float]]) -> bool:
    """Whether the lines meet a box all on one side of it: every two of ``points``, seen from
    the box's centre in half-widths and half-heights, less than a right angle apart. A label
    sits on a line, which enters on one side and leaves on the other; a node's lines may all
    leave on one side (a source fanning out to the right: seed-9191 matplotlib figure 3)."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    dirs = [((px - cx) / max(w / 2, 1.0), (py - cy) / max(h / 2, 1.0)) for px, py in points]
    return len(dirs) >= 2 and all(
        a[0] * b[0] + a[1] * b[1] > 0 for i, a in enumerate(dirs) for b in dirs[i + 1 :]
    )


def lines_cached(ctx: ToolContext, which: str) -> list[LineComp]:
    """detect_lines on the reference or candidate image, node blobs as endpoints, once per case
    (:func:`read_lines`)."""
    return read_lines_cached(ctx, which)[0]


def read_lines_cached(ctx: ToolContext, which: str) -> tuple[list[LineComp], frozenset[int]]:
    """:func:`read_lines` on the reference or candidate image, once per case."""

    def compute() -> tuple[list[LineComp], frozenset[int]]:
        return read_lines(ctx.image(which), blobs_cached(ctx, which), text_cached(ctx, which))

    return memo(ctx, f"lines:{which}", compute)


def line_dict(ctx: ToolContext, which: str, line: LineComp, frame: str) -> dict[str, Any]:
    """JSON view of a line (box and points in ``frame``; thickness in image pixels)."""

    def pt(p: tuple[float, float]) -> list[float]:
        b = box_to_frame(ctx, which, (p[0], p[1], 0, 0), frame)
        return [b[0], b[1]]

    return {
        "box": box_to_frame(ctx, which, line.box, frame),
        "thickness_px": round(line.thickness_px / ctx.zoom(which), 2),
        "dashed": line.dashed,
        "contacts": [
            {"blob": c.node, "point": pt(c.point), "arrowhead": c.head} for c in line.contacts
        ],
        "edges": [{"from_blob": a, "to_blob": b, "confidence": k} for a, b, k in line.edges()],
    }


def detect_arrows(
    ctx: ToolContext,
    image: Literal["reference", "candidate"],
    frame: Literal["panel", "image"] = "panel",
) -> ToolOutput:
    """Find lines and arrows in the reference or candidate image and the boxes they connect.

    Each line lists its box (in `frame`), shaft thickness in pixels of the image, whether it
    is dashed, the blobs it touches (indices from detect_nodes on the same image) with the touch
    point and whether an arrowhead sits there, and the directed edges this gives
    (from_blob -> to_blob; confidence high / medium / low / undirected).
    """
    lines = lines_cached(ctx, image)
    return ToolOutput(
        {
            "image": image,
            "frame": frame,
            "lines": [line_dict(ctx, image, ln, frame) for ln in lines],
        }
    )


TOOLS = [Tool.from_function(detect_arrows)]
