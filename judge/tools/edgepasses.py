"""Stage 1 edge evidence the two raster readings alone miss, with the object tree's help.

Passes over a case's :class:`judge.tools.semantic.Readings`, each returning confirmed
discrepancies with their checks:

* ``edge_tree_pass`` -- a reference edge read with its head that the deck's connector reverses
  or leads to or from another node (a rewired line running across its old target included);
* ``rewire_pass`` -- a line moved to another node where the reference line has no sure
  direction: neither the deck nor the render joins the old pair, both join the source to a
  node the reference never joins it to;
* ``head_probe_pass`` -- a reversed connector the reference's line reading did not join,
  read at the connector's own ends in both images;
* ``crossing_probe_pass`` -- the same probe, with a clear reference head, for a reversed
  connector whose reference line was read with no sure direction where strokes cross or fan
  out;
* ``head_contrast_pass`` -- a reversed connector whose reference line was read with no
  direction, told by comparing that line's two ends with each other.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from judge.tools.arrows import LineComp
from judge.tools.graphread import Discrepancy, GEdge, Graph, normalise_label, readings_agree
from judge.tools.readings import Judged, Readings
from judge.tools.thresholds import (
    ACROSS_NODE_MARGIN_FRAC,
    ENDPOINT_TOLERANCE_FRAC,
    HEAD_CONTRAST_MIN_SHAFTS,
    HEAD_CONTRAST_RATIO,
    HEAD_PROBE_TOLERANCE_FRAC,
    HEAD_THICKNESS_RATIO,
)


def _edge_lookup(g: Graph) -> dict[tuple[str, str], str]:
    return {(e.src, e.dst): e.direction for e in g.edges}


def _edge_disc(kind: str, r: Readings, s: str, d: str, evidence: str) -> Discrepancy:
    ls, ld = r.ref.node(s).label, r.ref.node(d).label
    return Discrepancy(
        kind,
        f'edge "{ls}" -> "{ld}"',
        evidence,
        f"edge:{normalise_label(ls)}>{normalise_label(ld)}",
        True,
    )


def edge_tree_pass(r: Readings, found: list[Discrepancy]) -> list[Judged]:
    """Reversed and rewired edges the render reading missed, proved by the tree, for each
    reference edge read with its head (``high``) that the render does not show only as drawn,
    or read from a branching line's paired strokes (``medium``, no wedge) when the readings
    agree on every node, the edge is one-way and the render reads no sure line back
    (seed-1313 matplotlib figure 8, reversed; seed-6363 figure 8, moved):

    * reversed: the deck's connector between the two nodes has a clear head at the source end
      only;
    * rewired: neither the tree nor the render joins the two nodes, while the tree leads a
      line with a clear head (not a double-headed line, whose ends the tree may mis-assign)
      from the source to a node the reference does not join it to, or one into the target
      from a node the reference does not join to it that the render joins to it too (the
      line's tail moved: seed-8181 matplotlib figure 7).

    A reference arrowhead misread fails a faithful deck here only when the render reading does
    not repeat the misreading (measured: four dev10 decks that should pass, in our real
    benchmark)."""
    if r.tree is None or r.m_tree is None:
        return []
    seen = {d.key for d in found if d.kind in ("reversed_edge", "rewired_edge")}
    tree_e, ren_e, ref_e = _edge_lookup(r.tree), _edge_lookup(r.ren), _edge_lookup(r.ref)
    inv_tree = {v: k for k, v in r.m_tree.pairs.items()}
    ref_line = {(e.src, e.dst): e.source for e in r.ref.edges}
    ref_simple = {(e.src, e.dst): e.simple for e in r.ref.edges}
    ren_simple = {(e.src, e.dst): e.simple for e in r.ren.edges}
    # a branching line's paired strokes (``medium``, no wedge, no crossing) are evidence too
    # when the two readings agree on every node, as in the readings' own comparison
    # (:func:`judge.tools.graphread.compare_graphs`)
    paired = readings_agree(r.ref, r.ren, r.m_ren)
    ref_paired = {
        (e.src, e.dst)
        for e in r.ref.edges
        if e.direction == "medium" and not e.wedge and not e.crossed and paired
    }
    out: list[Judged] = []
    for (s, d), how in ref_e.items():
        if how != "high" and (s, d) not in ref_paired:
            continue
        ts, td = r.m_tree.pairs.get(s), r.m_tree.pairs.get(d)
        rs, rd = r.m_ren.pairs.get(s), r.m_ren.pairs.get(d)
        if ts is None or td is None or rs is None or rd is None:
            continue
        if (d, s) in ref_e and not (
            ref_e[(d, s)] == "high" and ref_line[(d, s)] != ref_line[(s, d)]
        ):
            continue  # a double-headed line (two arrows, one each way, are two sure edges)
        sure = ("high", "medium")
        # the render's reading only pairs the strokes of a tangle where the reference reads
        # one plain arrow and the tree joins no line between the two: no sign the edge is there
        # (seed-4343 matplotlib figure 3: a moved head crossing two lines)
        tangled = (
            how == "high"
            and ref_simple[(s, d)]
            and ren_e.get((rs, rd)) == "medium"
            and not ren_simple[(rs, rd)]
            and (ts, td) not in tree_e
            and (td, ts) not in tree_e
        )
        if (
            ren_e.get((rs, rd)) in sure
            and (ren_e.get((rd, rs)) not in sure or not ref_simple[(s, d)])
            and not tangled
        ):
            continue  # the render shows the edge as the reference draws it (and only so, or
            # both ways while the reference's head came from pairing the strokes of three or
            # more ends: seed-4141 matplotlib figure 4, an arc's head at a node read as the
            # head of another line leaving it)
        two_way = (d, s) in ref_e
        if two_way and ren_e.get((rs, rd)) in sure:
            continue  # the render reads this arrow too (as its reference reads it or both ways)
        if how != "high" and ((d, s) in ref_e or ren_e.get((rd, rs)) in sure):
            continue  # paired strokes: only a one-way reading the render leaves unread
        if tree_e.get((td, ts)) == "high" and (ts, td) not in tree_e:
            # with two arrows, the deck's line d -> s may be the reference's other one, and
            # this one gone elsewhere
            moved = _new_targets(r, tree_e, ref_e, inv_tree, s, ts) if two_way else []
            if not moved:
                if two_way and _tree_lines(r.tree, td, ts) < 2:
                    continue  # the deck draws one line: the reference's second is no arrow
                disc = _edge_disc(
                    "reversed_edge", r, s, d, "the deck's connector points the other way"
                )
                if disc.key not in seen:
                    checks = [
                        "the reference's line has its head at the target end",
                        "the deck's connector has its head at the source end only",
                        "the render reading does not show the reference's direction",
                    ]
                    out.append(Judged(disc, True, 0.7, checks))
                continue
        elif (ts, td) in tree_e or (td, ts) in tree_e:
            continue  # the tree joins them (backwards: a direction question, left to the two
            # raster readings)
        else:
            headless = ren_e.get((rs, rd)) not in sure and ren_e.get((rd, rs)) not in sure
            if (
                ((rd, rs) in ren_e or (rs, rd) in ren_e)
                and not tangled
                and not (_runs_across(r.tree, ts, td) or (headless and _runs_by(r.tree, ts, td)))
            ):
                continue  # the render sees a line between them (a bus, a line the tree cannot
                # follow), unless it is the deck's line from the source running across the
                # node, or one running past it that the render reads with no head there
            if how != "high" and not _sole_tail(r, s, d):
                continue  # the strokes join the head to two tails: which line moved is a guess
            moved = _new_targets(r, tree_e, ref_e, inv_tree, s, ts)
            if any(x in inv_tree and ref_strokes_entangled(r, s, d, inv_tree[x]) for x in moved):
                continue  # the reference line read as s -> d crosses the one to the deck's new
                # target, and the reader paired that target's stroke with s or d: it may have
                # paired the crossing's strokes wrongly
            if not moved:
                tail = _new_source(r, tree_e, ref_e, ren_e, inv_tree, s, d)
                if tail is not None:
                    disc = _edge_disc(
                        "rewired_edge", r, s, d, f'the deck leads it from "{tail}" instead'
                    )
                    if disc.key not in seen:
                        checks = [
                            f'the tree joins no line between these nodes but one from "{tail}" '
                            "to the target, which the render reads too",
                            "the render reading does not show the reference's edge",
                        ]
                        out.append(Judged(disc, True, 0.7, checks))
                continue
        if moved:
            x = moved[0]
            target = r.ref.node(inv_tree[x]).label if x in inv_tree else r.tree.node(x).label
            disc = _edge_disc("rewired_edge", r, s, d, f'the deck leads it to "{target}" instead')
            if disc.key in seen:
                continue
            checks = [
                f'the tree joins no line between these nodes but one from the source to "{target}"',
                "the render reading does not show the reference's edge",
            ]
            out.append(Judged(disc, True, 0.75, checks))
    return out


def _new_targets(
    r: Readings,
    tree_e: dict[tuple[str, str], str],
    ref_e: dict[tuple[str, str], str],
    inv_tree: dict[str, str],
    s: str,
    ts: str,
) -> list[str]:
    """Tree nodes the deck leads a sure line to from ``ts`` (reference node ``s``) that the
    reference does not: a sure reference edge is not new; an unsure one may be a merge the
    reader misread (a lost node's lines joined). A text node with no body counts (the raster
    reader does not take it for a node, so it is in no matching)."""
    return [
        x
        for (a, x) in tree_e
        if a == ts
        and tree_e[(a, x)] == "high"
        and (ref_e.get((s, inv_tree[x])) != "high" if x in inv_tree else _bodiless(r.tree, x))
    ]


def _new_source(
    r: Readings,
    tree_e: dict[tuple[str, str], str],
    ref_e: dict[tuple[str, str], str],
    ren_e: dict[tuple[str, str], str],
    inv_tree: dict[str, str],
    s: str,
    d: str,
) -> str | None:
    """The label of the one matched node ``x`` the deck leads a sure line from into the target
    ``d`` of the reference edge ``s -> d`` (which neither the tree nor the render joins), where
    the reference joins no line between ``x`` and ``d`` and the render reads one (either
    way): the line's tail moved from ``s`` to ``x``. None when there is no such node, or more
    than one, or the reference may have read the tail at the wrong one of ``s`` and ``x``
    (:func:`tail_guessed`)."""
    assert r.m_tree is not None
    td = r.m_tree.pairs[d]
    rd = r.m_ren.pairs[d]
    found = []
    for (x, b), how in tree_e.items():
        if b != td or how != "high" or x not in inv_tree:
            continue
        rx_ref = inv_tree[x]
        if rx_ref == s or (rx_ref, d) in ref_e or (d, rx_ref) in ref_e:
            continue
        rx = r.m_ren.pairs.get(rx_ref)
        if rx is None or ((rx, rd) not in ren_e and (rd, rx) not in ren_e):
            continue
        if tail_guessed(r, s, d, rx_ref):
            continue
        found.append(r.ref.node(rx_ref).label)
    return found[0] if len(found) == 1 else None


def tail_guessed(r: Readings, s: str, d: str, x: str) -> bool:
    """Whether the reference reading may have started its line ``s`` -> ``d`` at the wrong one
    of ``s`` and ``x``: the reference line read as ``s`` -> ``d`` touches ``x`` too (which end
    is whose is the reader's guess: an elbow from ``x`` running past ``s``, Graphviz seed-7373
    figure 1; a fan out of ``x`` whose heads merge between ``s`` and ``d``, seed-8484
    matplotlib figure 8), or the reference reads a line from ``x`` into ``s`` (a line from
    ``x`` running past ``s``'s corner on its way to ``d`` is cut there, its two pieces read
    ``x`` -> ``s`` and ``s`` -> ``d``: Graphviz seed-5858 figure 3), or ``x`` sits within
    ``ENDPOINT_TOLERANCE_FRAC`` of ``s`` (two small boxes stacked close; dev06 at
    small+jpeg)."""
    near = ENDPOINT_TOLERANCE_FRAC * max(r.ref.width, r.ref.height)
    into_s = any(e.src == x and e.dst == s and e.directed for e in r.ref.edges)
    return (
        into_s
        or _ref_line_touches(r, s, d, x)
        or _box_gap(r.ref.node(s).box, r.ref.node(x).box) <= near
    )


def _box_gap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The distance between two boxes (x, y, w, h): 0 when they touch or overlap."""
    dx = max(0.0, max(a[0], b[0]) - min(a[0] + a[2], b[0] + b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[1] + a[3], b[1] + b[3]))
    return math.hypot(dx, dy)


def _tree_lines(g: Graph, a: str, b: str) -> int:
    """How many of the deck's lines lead from ``a`` to ``b``."""
    return sum(e.lines for e in g.edges if (e.src, e.dst) == (a, b))


def _bodiless(g: Graph | None, nid: str) -> bool:
    """Whether a tree node is text with no fill and no outline (``treeread._text_nodes``)."""
    if g is None:
        return False
    n = g.node(nid)
    return bool(n.label.strip()) and n.fill is None and n.stroke is None


def _segment_hits_box(
    a: tuple[float, float], b: tuple[float, float], box: tuple[float, float, float, float]
) -> bool:
    """Whether segment ``a``-``b`` passes through ``box`` (x, y, w, h; clipped Liang-Barsky)."""
    x, y, w, h = box
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - x), (dx, x + w - a[0]), (-dy, a[1] - y), (dy, y + h - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def _runs_across(tree: Graph, ts: str, td: str) -> bool:
    """Whether a deck line from node ``ts`` to some other node runs straight across the core of
    node ``td`` (its box less ``ACROSS_NODE_MARGIN_FRAC`` on each side): the render then reads
    a line between ``ts`` and ``td`` that the deck does not draw between them."""
    x, y, w, h = tree.node(td).box
    mx, my = ACROSS_NODE_MARGIN_FRAC * w, ACROSS_NODE_MARGIN_FRAC * h
    return _line_hits(tree, ts, td, (x + mx, y + my, w - 2 * mx, h - 2 * my))


def _runs_by(tree: Graph, ts: str, td: str) -> bool:
    """Whether a deck line from node ``ts`` to some other node passes within
    ``ENDPOINT_TOLERANCE_FRAC`` of node ``td``'s box: the render may read it as touching
    ``td`` (with no head there)."""
    x, y, w, h = tree.node(td).box
    m = ENDPOINT_TOLERANCE_FRAC * max(tree.width, tree.height)
    return _line_hits(tree, ts, td, (x - m, y - m, w + 2 * m, h + 2 * m))


def _line_hits(tree: Graph, ts: str, td: str, box: tuple[float, float, float, float]) -> bool:
    """Whether a deck line from ``ts`` to a node other than ``td`` runs straight through
    ``box``."""
    return any(
        e.ends is not None and _segment_hits_box(e.ends[0], e.ends[1], box)
        for e in tree.edges
        if ts in (e.src, e.dst) and td not in (e.src, e.dst)
    )


def _blob_of(g: Graph, nid: str) -> int | None:
    return next((int(x[5:]) for x in g.node(nid).source if x.startswith("blob:")), None)


def _ref_lines_of(r: Readings, a: str, b: str) -> list[LineComp]:
    """The reference line components read as joining nodes ``a`` and ``b`` (either way): the
    ``GEdge.source`` of their edges."""
    places = {e.source for e in r.ref.edges if {e.src, e.dst} == {a, b}}
    return [ln for ln in r.ref_lines if f"line@{ln.box[0]},{ln.box[1]}" in places]


def _ref_line_touches(r: Readings, a: str, b: str, x: str) -> bool:
    """Whether a reference line component read as joining ``a`` and ``b`` also touches ``x``."""
    bx = _blob_of(r.ref, x)
    return any(any(c.node == bx for c in ln.contacts) for ln in _ref_lines_of(r, a, b))


def _sole_tail(r: Readings, s: str, d: str) -> bool:
    """Whether every reference line component read as joining ``s`` and ``d`` joins its end
    at ``d`` to one headless end only, ``s``'s: with two tails paired to one head (strokes
    that tell no pair from another), a deck leading one of them elsewhere cannot say which
    (seed-8181 matplotlib figure 10)."""
    bs, bd = _blob_of(r.ref, s), _blob_of(r.ref, d)
    if bs is None or bd is None:
        return False
    for ln in _ref_lines_of(r, s, d):
        tails = {c.node for c in ln.contacts if not c.head and c.node != bd}
        if {t for t in tails if ln.joined(bd, t)} != {bs}:
            return False
    return True


def _ref_pair_guessed(r: Readings, a: str, b: str) -> bool:
    """Whether every reference line component read as joining ``a`` and ``b`` touches three or
    more nodes and either its strokes tell no pair from another (``LineComp.joins`` holds
    every pair) or none of its ends has a head: ``a``-``b`` is then one of the pairs such a
    tangle might join, not a line seen (the closing fills a thick crossing's acute angles, and
    its strokes are then paired by guesswork)."""
    mine = _ref_lines_of(r, a, b)
    if not mine:
        return False
    for ln in mine:
        nodes = {c.node for c in ln.contacts}
        pairs = len(nodes) * (len(nodes) - 1) // 2
        every = ln.joins is None or len(ln.joins) >= pairs
        headless = not any(c.head for c in ln.contacts)
        if len(nodes) < 3 or not (every or headless):
            return False
    return True


def ref_strokes_entangled(r: Readings, a: str, b: str, x: str) -> bool:
    """Whether a reference line component read as joining ``a`` and ``b`` has a crossing,
    also touches ``x`` and pairs ``x``'s stroke with ``a``'s or ``b``'s (``LineComp.joins``):
    a crossing whose strokes the reader may have paired wrongly (seed-5151 matplotlib
    figure 9)."""
    ba, bb, bx = _blob_of(r.ref, a), _blob_of(r.ref, b), _blob_of(r.ref, x)
    if bx is None:
        return False
    return any(
        ln.crossed  # a merge into one node pairs its strokes rightly (Graphviz seed 1234)
        and any(c.node == bx for c in ln.contacts)
        and any(e is not None and ln.joined(bx, e) for e in (ba, bb))
        for ln in _ref_lines_of(r, a, b)
    )


def _loose_line_at(r: Readings, nid: str) -> bool:
    """Whether a reference line component touches node ``nid`` and no other node."""
    bx = _blob_of(r.ref, nid)
    return any({c.node for c in ln.contacts} == {bx} for ln in r.ref_lines)


def rewire_pass(r: Readings, found: list[Discrepancy]) -> list[Judged]:
    """Rewired edges whose reference line has no sure direction (a double head, a fan's wedge,
    a head the reader missed): the reference joins nodes ``a`` and ``b``; neither the deck nor
    the render joins them at all, while both the deck (a line with a clear head) and the render
    join ``a`` to a node ``x`` that the reference never joins to ``a``, and the reference line
    read as ``a``-``b`` does not touch ``x`` (lines merging on their way to ``x``, whose strokes
    the reader may have paired wrongly) and no reference line touching ``a`` or ``x`` alone
    (a line broken at a crossing) may be the deck's. Two readings and the tree agree that the
    line now ends elsewhere, so a misreading of the reference alone cannot pass this: the
    render of a faithful deck repeats the reference's misreadings. Only where the two readings
    agree on every node (a reference the reader sees differently, e.g. through JPEG, differs
    in its lines too), and not where the reference's ``a``-``b`` is only one of the pairs a
    tangle of three or more ends might join (:func:`_ref_pair_guessed`)."""
    if r.tree is None or r.m_tree is None or not readings_agree(r.ref, r.ren, r.m_ren):
        return []  # where the two readings differ on a node, they differ on its lines too
    seen = {d.key for d in found if d.kind in ("reversed_edge", "rewired_edge")}
    ref_pairs = {frozenset((e.src, e.dst)) for e in r.ref.edges}
    ren_pairs = {frozenset((e.src, e.dst)) for e in r.ren.edges}
    tree_pairs = {frozenset((e.src, e.dst)) for e in r.tree.edges}
    inv_tree = {v: k for k, v in r.m_tree.pairs.items()}
    sure_ref = {(e.src, e.dst) for e in r.ref.edges if e.direction == "high"}
    out: list[Judged] = []
    for pair in sorted(ref_pairs, key=sorted):
        a, b = sorted(pair)
        if (a, b) in sure_ref or (b, a) in sure_ref:
            continue  # a sure reference direction: edge_tree_pass's case
        ta, tb = r.m_tree.pairs.get(a), r.m_tree.pairs.get(b)
        ra, rb = r.m_ren.pairs.get(a), r.m_ren.pairs.get(b)
        if None in (ta, tb, ra, rb):
            continue
        if frozenset((ta, tb)) in tree_pairs or frozenset((ra, rb)) in ren_pairs:
            continue  # the deck or the render still joins them
        if _ref_pair_guessed(r, a, b):
            continue  # a tangle read as every pair it touches (seed-7373 figure 4 at 60 dpi)
            # or paired with no head to go by (seed-4242 figure 3: thick crossings)
        for end, t_end, r_end in ((a, ta, ra), (b, tb, rb)):
            for e in r.tree.edges:
                if e.src != t_end or e.direction != "high" or e.dst not in inv_tree:
                    continue
                x = inv_tree[e.dst]
                rx = r.m_ren.pairs.get(x)
                if x in pair or frozenset((end, x)) in ref_pairs or rx is None:
                    continue
                if _ref_line_touches(r, a, b, x):
                    continue  # lines merging on their way to x: the reader may have paired
                    # their strokes wrongly
                if _loose_line_at(r, end) or _loose_line_at(r, x):
                    continue  # a reference line leaves one of them and is lost on its way (a
                    # crossing broke it): it may be the line the deck draws
                if frozenset((r_end, rx)) not in ren_pairs:
                    continue  # the render does not see the deck's new line
                other = b if end == a else a
                target = r.ref.node(x).label
                disc = _edge_disc(
                    "rewired_edge", r, end, other, f'the deck leads it to "{target}" instead'
                )
                if disc.key in seen:
                    continue
                seen.add(disc.key)
                checks = [
                    "neither the deck nor the render joins these two nodes",
                    f'the deck and the render both join the first to "{target}", which the '
                    "reference does not",
                ]
                out.append(Judged(disc, True, 0.6, checks))
    return out


def _contacts_at(lines: list[LineComp], g: Graph, nid: str) -> list[tuple[int, Any]]:
    """(line index, contact) of every line end the raster reading found at node ``nid``."""
    blob = _blob_of(g, nid)
    return [(i, c) for i, ln in enumerate(lines) for c in ln.contacts if c.node == blob]


def _near(
    found: list[tuple[int, Any]], p: tuple[float, float], tol: float
) -> tuple[int, Any] | None:
    best = min(found, key=lambda ic: math.dist(ic[1].point, p), default=None)
    return best if best is not None and math.dist(best[1].point, p) <= tol else None


def _same_place(
    p: tuple[float, float], box: tuple[float, ...], onto: tuple[float, ...]
) -> tuple[float, float]:
    """Point ``p`` relative to ``box``, put at the same place relative to ``onto``."""
    u = (p[0] - box[0]) / max(1.0, box[2])
    v = (p[1] - box[1]) / max(1.0, box[3])
    return (onto[0] + u * onto[2], onto[1] + v * onto[3])


def head_probe_pass(r: Readings, found: list[Discrepancy]) -> list[Judged]:
    """Reversed edges found by reading the two images at the deck connector's own ends, for
    connectors the reference's line reading did not join (a line broken at its label, merged
    into a bus): the same reader reads, on the render, the head where the deck puts it and no
    head at its tail, and, at the same places of the reference (relative to the matched
    nodes), a head at the deck's tail and none where the deck puts its head. A misreading both
    images share cannot pass this: the render must read the deck as drawn."""
    if r.tree is None or r.m_tree is None:
        return []
    seen = {d.key for d in found if d.kind in ("reversed_edge", "rewired_edge")}
    ref_pairs = {frozenset((e.src, e.dst)) for e in r.ref.edges}
    return _probe_reversals(r, seen, lambda s, d: frozenset((s, d)) not in ref_pairs)


def crossing_probe_pass(r: Readings, proved: list[Discrepancy]) -> list[Judged]:
    """Reversed edges whose reference line was read with no sure direction where its strokes
    cross or fan out (``medium`` from paired strokes, ``GEdge.crossed`` or ``GEdge.wedge``;
    seed-8181 Graphviz figure 7). The readings' comparison leaves such a reversal unconfirmed
    (a crossing's strokes may pair wrongly), but the heads at the deck connector's own ends do
    not depend on that pairing: they are probed in both images as :func:`head_probe_pass`
    does, and the reference's head at the deck's tail must be a clear one: one line behind it,
    not a thin head the strokes decided, and ``HEAD_THICKNESS_RATIO`` times its line (heads by
    a crossing read from its wedge failed three faithful decks: seed-7474 figure 3, seed-5656
    figure 4, seed-3737 Graphviz figure 1). ``proved``: confirmed discrepancies only (the
    unconfirmed reversal of the same edge is the one this confirms)."""
    if r.tree is None or r.m_tree is None:
        return []
    seen = {d.key for d in proved if d.kind in ("reversed_edge", "rewired_edge")}
    pairs: dict[frozenset[str], list[GEdge]] = {}
    for e in r.ref.edges:
        pairs.setdefault(frozenset((e.src, e.dst)), []).append(e)

    def unsure(s: str, d: str) -> bool:
        es = pairs.get(frozenset((s, d)), [])
        return bool(es) and all(e.direction == "medium" and (e.crossed or e.wedge) for e in es)

    return _probe_reversals(r, seen, unsure, clear_head=True)


def _probe_reversals(
    r: Readings,
    seen: set[str],
    wanted: Callable[[str, str], bool],
    clear_head: bool = False,
) -> list[Judged]:
    """The probe of :func:`head_probe_pass` over the deck's one-way connectors between matched
    nodes ``s``, ``d`` (reference ids) for which ``wanted(s, d)``; with ``clear_head``, the
    reference's head must be no thin head and ``HEAD_THICKNESS_RATIO`` times its line."""
    assert r.tree is not None and r.m_tree is not None
    inv_tree = {v: k for k, v in r.m_tree.pairs.items()}
    out: list[Judged] = []
    for e in r.tree.edges:
        if e.direction != "high" or e.ends is None:
            continue
        s, d = inv_tree.get(e.src), inv_tree.get(e.dst)
        if s is None or d is None or not wanted(s, d):
            continue
        rs, rd = r.m_ren.pairs.get(s), r.m_ren.pairs.get(d)
        if rs is None or rd is None:
            continue
        tail, head = e.ends
        tol_ren = HEAD_PROBE_TOLERANCE_FRAC * max(r.ren.width, r.ren.height)
        tol_ref = HEAD_PROBE_TOLERANCE_FRAC * max(r.ref.width, r.ref.height)
        # the render, read where the deck's connector ends: head at its head end only
        ren_t = _near(_contacts_at(r.ren_lines, r.ren, rs), tail, tol_ren)
        ren_h = _near(_contacts_at(r.ren_lines, r.ren, rd), head, tol_ren)
        if ren_t is None or ren_h is None or ren_t[0] != ren_h[0]:
            continue
        if ren_t[1].head or not ren_h[1].head:
            continue
        ts, td = r.tree.node(e.src).box, r.tree.node(e.dst).box
        at_t = _same_place(tail, ts, r.ref.node(s).box)
        at_h = _same_place(head, td, r.ref.node(d).box)
        ref_t = _near(_contacts_at(r.ref_lines, r.ref, s), at_t, tol_ref)
        ref_h = _near(_contacts_at(r.ref_lines, r.ref, d), at_h, tol_ref)
        if ref_t is None or ref_h is None or not ref_t[1].head or ref_h[1].head:
            continue
        if ref_t[1].lines_behind >= 2:
            continue  # the "head" is where several lines leave one point: a fan's wedge
        ref_ln = r.ref_lines[ref_t[0]]
        if clear_head and (
            ref_t[1].thin_head or ref_t[1].thickness_px < HEAD_THICKNESS_RATIO * ref_ln.thickness_px
        ):
            continue  # a head read from a crossing's wedge, or barely thicker than its line
        if _head_of_other_edge(r, ref_t[0], s, d):
            continue
        # the reference's line runs from the deck's head end to its tail: the edge is d -> s
        j = _deck_reversal(
            r,
            s,
            d,
            seen,
            "at the same places the reference shows a head at the connector's tail and none at "
            "its head",
            0.6,
        )
        out += [j] if j is not None else []
    return out


def _head_of_other_edge(r: Readings, line: int, s: str, d: str) -> bool:
    """Whether reference line ``line`` is a plain line from node ``s`` to a node other than
    ``d``: a head it has at ``s`` is that edge's, no sign of the deck's connector ``s -> d``
    reversed (seed-4141 matplotlib figure 4: an arc leaving "Attention" right where another
    line's head arrives)."""
    ln = r.ref_lines[line]
    ends = {c.node for c in ln.contacts}
    return len(ln.contacts) == 2 and len(ends) == 2 and _blob_of(r.ref, d) not in ends


def _deck_reversal(
    r: Readings, s: str, d: str, seen: set[str], why: str, confidence: float
) -> Judged | None:
    """The confirmed reversed edge ``d -> s`` of a deck connector drawn ``s -> d`` that the
    render reads as the deck draws it, with ``why`` the reference shows it the other way; None
    when that edge was already found (``seen``, updated)."""
    disc = _edge_disc("reversed_edge", r, d, s, "the deck's connector points the other way")
    if disc.key in seen:
        return None
    seen.add(disc.key)
    checks = ["the render shows the deck's connector with its head where the deck puts it", why]
    return Judged(disc, True, confidence, checks)


def _plain_line(lines: list[LineComp], a: int, b: int) -> LineComp | None:
    """The one line component touching exactly blobs ``a`` and ``b`` (once each), if any."""
    found = [
        ln
        for ln in lines
        if len(ln.contacts) == 2 and {c.node for c in ln.contacts} == {a, b} and not ln.crossed
    ]
    return found[0] if len(found) == 1 else None


def head_contrast_pass(r: Readings, found: list[Discrepancy]) -> list[Judged]:
    """Reversed edges where the reference's plain line between two nodes was read with no
    direction (neither end passed the head tests: a small open head at a low resolution)
    while the deck's connector has one clear head and the render reads it there. The
    reference line's two ends are then compared with each other, on the same line in the same
    image: the end at the deck's tail is the head when it is ``HEAD_CONTRAST_RATIO`` times
    thicker than the end at the deck's head and ``HEAD_CONTRAST_MIN_SHAFTS`` times the shaft.
    A faithful deck has its head at the reference's thicker end, so this never fires on it
    unless the reference's tail is the thicker end (a tapered tail's blunt start stays below
    the shaft bound), nor where the thicker end is about as thick a few of its thicknesses
    back (``Contact.behind_px``: a tapered tail thins gradually, a head stands out from its
    shaft). Ends read as heads are left alone: a tail on a diamond's tip reads as
    thick as a head there (its outline's remnant; seed-6262 figure 4)."""
    if r.tree is None or r.m_tree is None:
        return []
    seen = {d.key for d in found if d.kind in ("reversed_edge", "rewired_edge")}
    inv_tree = {v: k for k, v in r.m_tree.pairs.items()}
    ref_dir = _edge_lookup(r.ref)
    ren_dir = _edge_lookup(r.ren)
    out: list[Judged] = []
    for e in r.tree.edges:
        if e.direction != "high":
            continue
        s, d = inv_tree.get(e.src), inv_tree.get(e.dst)
        if s is None or d is None:
            continue
        # read with no head at either end; an end read as a head is no smaller-head question
        # (a tail on a diamond's tip reads as thick as a head: its outline's remnant)
        unread = (ref_dir.get((s, d)), ref_dir.get((d, s)))
        if unread not in (("undirected", None), (None, "undirected")):
            continue
        rs, rd = r.m_ren.pairs.get(s), r.m_ren.pairs.get(d)
        if rs is None or rd is None or ren_dir.get((rs, rd)) != "high" or (rd, rs) in ren_dir:
            continue  # the render must read the deck's connector as the deck draws it
        bs, bd = _blob_of(r.ref, s), _blob_of(r.ref, d)
        if bs is None or bd is None:
            continue
        ln = _plain_line(r.ref_lines, bs, bd)
        if ln is None:
            continue
        at = {c.node: c.thickness_px for c in ln.contacts}
        t_tail, t_head = at[bs], at[bd]
        if t_tail < HEAD_CONTRAST_RATIO * t_head or t_tail < HEAD_CONTRAST_MIN_SHAFTS * (
            ln.thickness_px
        ):
            continue
        # and stands out from the line a few of its thicknesses back, as a head does: a
        # tapered tail's blunt start thins gradually (seed-7878 matplotlib figure 13)
        back = next(c.behind_px for c in ln.contacts if c.node == bs)
        if back is not None and t_tail < HEAD_CONTRAST_RATIO * back:
            continue
        why = (
            f"the reference's line, read with no direction, is {t_tail / max(t_head, 0.1):.1f} "
            f"times thicker at the connector's tail ({t_tail:.1f} px) than at its head "
            f"({t_head:.1f} px)"
        )
        j = _deck_reversal(r, s, d, seen, why, 0.5)
        out += [j] if j is not None else []
    return out
