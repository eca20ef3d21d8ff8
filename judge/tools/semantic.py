"""Stage 1 evidence: discrepancies read raster against raster, confirmed by the object tree.

The reference and the candidate's render are read by the same raster reader, so a reading slip
both images share (a title read as a node, an edge the reader cannot follow) cancels out. Each
difference between the two readings is then checked against the candidate's object tree, which
knows what text the deck holds and what its connectors join:

* a missing or renamed node is confirmed only when the candidate holds its label nowhere (no
  shape, text box or group member carries the text, and the render's OCR does not show it);
* an invented node is confirmed only when the tree has a node with that text and the reference
  shows the text nowhere, not even when read again at the node's place;
* a reversed or rewired edge is confirmed when the tree agrees (or cannot tell, e.g. an open
  polyline whose drawing order it does not record) and the render reading is confident.

Every discrepancy keeps its evidence, a 0-1 confidence and the boxes of what it concerns in
both images (panel frames); unconfirmed ones are reported too, never dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judge.tools.arrows import LineComp, lines_cached
from judge.tools.base import Tool, ToolContext, ToolOutput, memo
from judge.tools.evidence import Corpus, compact
from judge.tools.graphread import (
    Discrepancy,
    GNode,
    Graph,
    Match,
    discrepancy_dict,
    label_distance,
    normalise_label,
    readings_agree,
)
from judge.tools.graphread import compare_graphs as compare_readings
from judge.tools.ocr import box_to_frame, ocr_full, ocr_image
from judge.tools.thresholds import (
    ACROSS_NODE_MARGIN_FRAC,
    EXTRA_TREE_MATCH_DISTANCE,
    HEAD_PROBE_TOLERANCE_FRAC,
    ICON_PLACE_MARGIN_FRAC,
    LOOK_AGAIN_MARGIN_FRAC,
    OCR_CONFIDENT,
    PRESENT_MIN_CHARS,
    UNCONFIRMED_CONFIDENCE_FACTOR,
)

NODE_KINDS = ("missing_node", "extra_node", "changed_label")
EDGE_KINDS = ("missing_edge", "rewired_edge", "reversed_edge", "extra_edge")


@dataclass
class Judged:
    """A discrepancy with the evidence for and against it."""

    d: Discrepancy
    confirmed: bool
    confidence: float
    checks: list[str] = field(default_factory=list)
    """What was checked, in words (e.g. ``the deck holds "Agent" in a text box``)."""
    ref_box: tuple[float, float, float, float] | None = None
    """Reference image frame."""
    cand_box: tuple[float, float, float, float] | None = None
    """Render image frame."""


@dataclass
class Readings:
    """The three readings of one case and the text corpora the checks search."""

    ref: Graph
    ren: Graph
    tree: Graph | None
    m_ren: Match
    m_tree: Match | None
    ref_text: Corpus
    ren_text: Corpus
    tree_text: Corpus | None
    tree_kinds: list[tuple[str, str]]
    ref_lines: list[LineComp] = field(default_factory=list)
    ren_lines: list[LineComp] = field(default_factory=list)
    """The line components each raster reading came from (their contacts carry the heads)."""
    ref_img: np.ndarray | None = None
    """The reference image (BGR), to read again where a check needs a closer look."""


def _tree_texts(ctx: ToolContext) -> list[str]:
    if ctx.object_tree is None:
        return []
    return [o.text for o in ctx.object_tree.objects if o.text.strip()]


def readings(ctx: ToolContext) -> Readings:
    from judge.tools.graphs import raster_graph, tree_graph

    ref = raster_graph(ctx, "reference")
    ren = raster_graph(ctx, "candidate")
    tree = tree_graph(ctx)
    m_ren, _ = compare_readings(ref, ren)
    tree_ok = tree is not None and len(tree.nodes) >= 2
    m_tree, tree_kinds = None, []
    if tree_ok and tree is not None:
        m_tree, d_tree = compare_readings(ref, tree)
        tree_kinds = [(d.kind, d.key) for d in d_tree]
    return Readings(
        ref=ref,
        ren=ren,
        tree=tree if tree_ok else None,
        m_ren=m_ren,
        m_tree=m_tree,
        ref_text=Corpus.of(ln.text for ln in ocr_full(ctx, "reference")),
        ren_text=Corpus.of(ln.text for ln in ocr_full(ctx, "candidate")),
        tree_text=Corpus.of(_tree_texts(ctx)) if tree_ok else None,
        tree_kinds=tree_kinds,
        ref_lines=lines_cached(ctx, "reference"),
        ren_lines=lines_cached(ctx, "candidate"),
        ref_img=ctx.image("reference"),
    )


# ------------------------------------------------------------------------------------------
# Node checks


def _absent_from_candidate(r: Readings, label: str, checks: list[str]) -> bool:
    """True when the candidate shows ``label`` nowhere (tree text and render OCR); a text that
    reads like another reference node's label belongs to that node."""
    absent = True
    labels = [n.label for n in r.ref.nodes if n.label]
    me = compact(label)
    # the same text twice in the reference (two nodes, or a node and an edge label such as
    # "sum" on the edge out of node "sum"): the candidate must hold it as often
    twins = max(
        sum(1 for x in labels if compact(x) == me), sum(1 for t in r.ref_text.texts if t == me)
    )
    if twins >= 2 and r.tree_text is not None:
        held = sum(1 for t in r.tree_text.texts if me in t)
        shown = sum(1 for t in r.ren_text.texts if t == me)
        if held < twins and shown < twins:
            checks.append(
                f'the reference shows "{label}" {twins} times, the deck holds it {held} times'
            )
            return True
    if r.tree_text is not None:
        dist = r.tree_text.distance(label, r.tree_text.owned_by_others(label, labels))
        if dist <= 0.2:
            checks.append(f'the deck holds the text "{label}" (distance {dist:.2f})')
            absent = False
        else:
            checks.append(f'no text of the deck reads like "{label}"')
    if r.ren_text.has(label, r.ren_text.owned_by_others(label, labels)):
        checks.append(f'the render\'s OCR shows "{label}"')
        absent = False
    return absent


def _tree_node_like(r: Readings, label: str) -> bool:
    if r.tree is None:
        return False
    return any(
        n.label and label_distance(n.label, label) <= EXTRA_TREE_MATCH_DISTANCE
        for n in r.tree.nodes
    )


def _judge_missing(r: Readings, d: Discrepancy, n: GNode) -> Judged:
    checks: list[str] = []
    absent = _absent_from_candidate(r, n.label, checks)
    ok = absent and n.confidence >= OCR_CONFIDENT and _long_enough(n.label, checks)
    conf = n.confidence if ok else n.confidence * UNCONFIRMED_CONFIDENCE_FACTOR
    return Judged(d, ok, conf, checks, ref_box=n.box)


def _long_enough(label: str, checks: list[str]) -> bool:
    """Labels under PRESENT_MIN_CHARS ("1", "No") are no evidence: OCR misses and invents
    them, and they are mostly step markers and edge labels."""
    if len(compact(label)) >= PRESENT_MIN_CHARS:
        return True
    checks.append(f'"{label}" is too short to prove anything')
    return False


def _to_reference(r: Readings, p: tuple[float, float]) -> tuple[float, float]:
    """A render point in the reference's frame: mapped by the matched nodes (scale and shift
    per axis, least squares), or by the two images' sizes when fewer than two are matched."""
    pairs = [(r.ref.node(a).centre, r.ren.node(b).centre) for a, b in r.m_ren.pairs.items()]
    if len(pairs) < 2:
        return (
            p[0] * r.ref.width / max(1, r.ren.width),
            p[1] * r.ref.height / max(1, r.ren.height),
        )
    ref_xy = np.array([q[0] for q in pairs], float)
    ren_xy = np.array([q[1] for q in pairs], float)
    at = []
    for k in (0, 1):
        if float(np.ptp(ren_xy[:, k])) < 1.0:  # all in one row or column: shift only
            at.append(p[k] + float(np.mean(ref_xy[:, k] - ren_xy[:, k])))
        else:
            a, b = np.polyfit(ren_xy[:, k], ref_xy[:, k], 1)
            at.append(float(a * p[k] + b))
    return (at[0], at[1])


def _on_reference_icon(r: Readings, c: GNode) -> tuple[float, float, float, float] | None:
    """The reference icon (picture, logo) at the place of render node ``c``, if any: ``c``'s
    centre, mapped onto the reference (``_to_reference``), must fall in the icon's box grown by
    ``ICON_PLACE_MARGIN_FRAC`` of its size."""
    if not r.ref.icons or len(r.m_ren.pairs) < 2:
        return None
    at = _to_reference(r, c.centre)
    for box in r.ref.icons:
        x, y, w, h = box
        mx, my = ICON_PLACE_MARGIN_FRAC * w, ICON_PLACE_MARGIN_FRAC * h
        if x - mx <= at[0] <= x + w + mx and y - my <= at[1] <= y + h + my:
            return box
    return None


def _reference_reads_at(r: Readings, c: GNode) -> str | None:
    """The text a second reading of the reference finds at render node ``c``'s place (its box
    mapped onto the reference, grown by ``LOOK_AGAIN_MARGIN_FRAC``) if it reads like ``c``'s
    label, else None."""
    if r.ref_img is None or not c.label:
        return None
    (ax, ay), (bx, by) = (
        _to_reference(r, (c.box[0], c.box[1])),
        _to_reference(r, (c.box[0] + c.box[2], c.box[1] + c.box[3])),
    )
    x0, x1, y0, y1 = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
    mx, my = LOOK_AGAIN_MARGIN_FRAC * (x1 - x0), LOOK_AGAIN_MARGIN_FRAC * (y1 - y0)
    h, w = r.ref_img.shape[:2]
    X0, Y0 = max(0, int(x0 - mx)), max(0, int(y0 - my))
    X1, Y1 = min(w, int(math.ceil(x1 + mx))), min(h, int(math.ceil(y1 + my)))
    if X1 - X0 < 8 or Y1 - Y0 < 8:
        return None
    lines = ocr_image(np.ascontiguousarray(r.ref_img[Y0:Y1, X0:X1]))
    texts = [ln.text for ln in lines]
    if Corpus.of(texts).has(c.label) or Corpus.of([" ".join(texts)]).has(c.label):
        return " ".join(texts)
    return None


def _judge_extra(r: Readings, d: Discrepancy, c: GNode) -> Judged:
    checks: list[str] = []
    icon = _on_reference_icon(r, c)
    if icon is not None:
        # the protocol: icons may be approximated with native shapes or left out
        checks.append("the reference has a picture or logo at its place: an approximation of it")
        return Judged(d, False, c.confidence * UNCONFIRMED_CONFIDENCE_FACTOR, checks, icon, c.box)
    in_ref = r.ref_text.has(c.label)
    in_tree = _tree_node_like(r, c.label)
    if in_ref:
        checks.append(f'the reference shows the text "{c.label}"')
    elif (in_tree or r.tree is None) and (again := _reference_reads_at(r, c)) is not None:
        in_ref = True  # the whole-image reading missed it
        checks.append(f'read again at its place, the reference shows "{again}"')
    checks.append(
        f'the deck has a shape reading "{c.label}"' if in_tree else "no shape of the deck reads so"
    )
    ok = not in_ref and (in_tree if r.tree is not None else c.confidence >= OCR_CONFIDENT)
    ok = ok and _long_enough(c.label, checks)
    conf = c.confidence if ok else c.confidence * UNCONFIRMED_CONFIDENCE_FACTOR
    return Judged(d, ok, conf, checks, cand_box=c.box)


def _judge_changed(r: Readings, d: Discrepancy, n: GNode, c: GNode) -> Judged:
    checks: list[str] = []
    absent = _absent_from_candidate(r, n.label, checks)
    new_in_ref = r.ref_text.has(c.label)
    if new_in_ref:
        checks.append(f'the reference shows "{c.label}" too')
    ok = absent and not new_in_ref and min(n.confidence, c.confidence) >= OCR_CONFIDENT
    conf = min(n.confidence, c.confidence)
    if absent and new_in_ref and n.confidence >= OCR_CONFIDENT and _long_enough(n.label, checks):
        # the render's text at that place is another reference text (the matching paired the
        # node with a neighbour): the node itself is what the candidate lacks
        gone = Discrepancy(
            "missing_node",
            d.target,
            f'the candidate holds the text "{n.label}" nowhere; the render shows another '
            f'reference text, "{c.label}", at its place',
            f"node:{normalise_label(n.label)}",
            True,
        )
        return Judged(gone, True, n.confidence, checks, n.box, c.box)
    return Judged(d, ok, conf if ok else conf * UNCONFIRMED_CONFIDENCE_FACTOR, checks, n.box, c.box)


# ------------------------------------------------------------------------------------------
# Edge checks


def _key_close(a: str, b: str) -> bool:
    if a.split(":", 1)[0] != b.split(":", 1)[0]:
        return False
    pa, pb = a.split(":", 1)[1].split(">"), b.split(":", 1)[1].split(">")
    if len(pa) != len(pb):
        return False
    return all(label_distance(x, y) <= 0.25 for x, y in zip(pa, pb, strict=True))


def _tree_pair_undirected(r: Readings, d: Discrepancy) -> bool:
    if r.tree is None or r.m_tree is None:
        return False
    body = d.key.split(":", 1)[1]
    src_l, _, dst_l = body.partition(">")
    ids: dict[str, str] = {}
    for n in r.ref.nodes:
        ids.setdefault(normalise_label(n.label), n.id)
    s, t = ids.get(src_l), ids.get(dst_l)
    if s is None or t is None or s not in r.m_tree.pairs or t not in r.m_tree.pairs:
        return False
    cs, ct = r.m_tree.pairs[s], r.m_tree.pairs[t]
    return any({e.src, e.dst} == {cs, ct} and not e.directed for e in r.tree.edges)


def _judge_edge(r: Readings, d: Discrepancy) -> Judged:
    checks: list[str] = []
    if r.tree is None:
        return Judged(d, d.confident, 0.8 if d.confident else 0.4, ["no object tree to check"])
    kinds = (
        {"missing_edge", "rewired_edge"} if d.kind in ("missing_edge", "rewired_edge") else {d.kind}
    )
    agrees = any(k in kinds and (key == d.key or _key_close(key, d.key)) for k, key in r.tree_kinds)
    if agrees:
        checks.append("the object tree shows the same difference")
    elif d.kind == "reversed_edge" and _tree_pair_undirected(r, d):
        agrees = True
        checks.append("the object tree cannot tell this line's direction; the render decides")
    else:
        checks.append("the object tree does not show this difference")
    if d.kind in ("missing_edge", "extra_edge"):
        # alone, never proof: readers miss lines (curves, buses, lines through edge labels)
        checks.append("a missing or extra line alone is not confirmed")
        return Judged(d, False, 0.5 if agrees and d.confident else 0.2, checks)
    ok = agrees and d.confident
    return Judged(d, ok, (0.9 if ok else 0.3) if d.confident else 0.2, checks)


# ------------------------------------------------------------------------------------------


def absence_pass(r: Readings, found: list[Discrepancy]) -> list[Judged]:
    """Node discrepancies the readings' matching did not raise, found by text presence: a
    confident reference node whose label the candidate holds nowhere, and a tree node whose
    label the reference shows nowhere while the render shows it."""
    seen = {d.key for d in found if d.kind in NODE_KINDS}
    out: list[Judged] = []
    for n in r.ref.nodes:
        key = f"node:{normalise_label(n.label)}"
        lkey = f"label:{normalise_label(n.label)}"
        if not n.label or n.confidence < OCR_CONFIDENT or key in seen or lkey in seen:
            continue
        if len(compact(n.label)) < PRESENT_MIN_CHARS:
            continue  # "1", "No": step markers and edge labels; OCR misses and invents them
        checks: list[str] = []
        if _absent_from_candidate(r, n.label, checks):
            d = Discrepancy(
                "missing_node",
                f'node "{n.label}"',
                f'the candidate holds the text "{n.label}" nowhere',
                key,
                True,
            )
            out.append(Judged(d, True, n.confidence, checks, ref_box=n.box))
    if r.tree is None:
        return out
    labels = [n.label for n in r.ref.nodes if n.label]
    for t in r.tree.nodes:
        key = f"node:{normalise_label(t.label)}"
        if not t.label or key in seen or len(compact(t.label)) < PRESENT_MIN_CHARS:
            continue
        if r.ref_text.has(t.label):
            continue
        if not r.ren_text.has(t.label):
            continue  # the render does not show it: a reading or layout question, not proof
        if any(label_distance(t.label, x) <= EXTRA_TREE_MATCH_DISTANCE for x in labels):
            continue
        near = EXTRA_TREE_MATCH_DISTANCE  # the render's reading of the deck's text
        c = next((m for m in r.ren.nodes if label_distance(m.label, t.label) <= near), None)
        if c is not None and _on_reference_icon(r, c) is not None:
            continue  # a native approximation of a reference picture or logo
        d = Discrepancy(
            "extra_node",
            f'node "{t.label}"',
            f'the deck has a shape reading "{t.label}" that the reference shows nowhere',
            key,
            True,
        )
        checks = ["the render's OCR shows it", "the reference's OCR shows no text like it"]
        box = c.box if c else t.box
        again = _reference_reads_at(r, c or t)
        if again is not None:  # the whole-image reading missed it
            checks.append(f'read again at its place, the reference shows "{again}"')
            out.append(Judged(d, False, 0.9 * UNCONFIRMED_CONFIDENCE_FACTOR, checks, cand_box=box))
            continue
        out.append(Judged(d, True, 0.9, checks, cand_box=box))
    return out


def _union(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float, float]:
    x0, y0 = min(a[0], b[0]), min(a[1], b[1])
    x1, y1 = max(a[0] + a[2], b[0] + b[2]), max(a[1] + a[3], b[1] + b[3])
    return (x0, y0, x1 - x0, y1 - y0)


def _edge_boxes(r: Readings, d: Discrepancy) -> tuple[Any, Any]:
    """Boxes around an edge's two nodes: in the reference, and (matched) in the render."""
    body = d.key.split(":", 1)[1]
    src_l, _, dst_l = body.partition(">")
    ids: dict[str, GNode] = {}
    for n in r.ref.nodes:
        ids.setdefault(normalise_label(n.label), n)
    a, b = ids.get(src_l), ids.get(dst_l)
    if a is None or b is None:
        return None, None
    ref_box = _union(a.box, b.box)
    ca, cb = r.m_ren.pairs.get(a.id), r.m_ren.pairs.get(b.id)
    if ca is None or cb is None:
        return ref_box, None
    return ref_box, _union(r.ren.node(ca).box, r.ren.node(cb).box)


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
    reference edge read with its head (``high``) that the render does not show only as drawn:

    * reversed: the deck's connector between the two nodes has a clear head at the source end
      only;
    * rewired: neither the tree nor the render joins the two nodes, while the tree leads a
      line with a clear head (not a double-headed line, whose ends the tree may mis-assign)
      from the source to a node the reference does not join it to.

    A reference arrowhead misread fails a faithful deck here only when the render reading does
    not repeat the misreading (measured: four dev10 decks that should pass, in our real
    benchmark)."""
    if r.tree is None or r.m_tree is None:
        return []
    seen = {d.key for d in found if d.kind in ("reversed_edge", "rewired_edge")}
    tree_e, ren_e, ref_e = _edge_lookup(r.tree), _edge_lookup(r.ren), _edge_lookup(r.ref)
    inv_tree = {v: k for k, v in r.m_tree.pairs.items()}
    out: list[Judged] = []
    for (s, d), how in ref_e.items():
        if how != "high" or (d, s) in ref_e:
            continue
        ts, td = r.m_tree.pairs.get(s), r.m_tree.pairs.get(d)
        rs, rd = r.m_ren.pairs.get(s), r.m_ren.pairs.get(d)
        if ts is None or td is None or rs is None or rd is None:
            continue
        sure = ("high", "medium")
        if ren_e.get((rs, rd)) in sure and ren_e.get((rd, rs)) not in sure:
            continue  # the render shows the edge as the reference draws it (and only so)
        if tree_e.get((td, ts)) == "high" and (ts, td) not in tree_e:
            disc = _edge_disc("reversed_edge", r, s, d, "the deck's connector points the other way")
            if disc.key not in seen:
                checks = [
                    "the reference's line has its head at the target end",
                    "the deck's connector has its head at the source end only",
                    "the render reading does not show the reference's direction",
                ]
                out.append(Judged(disc, True, 0.7, checks))
            continue
        if (ts, td) in tree_e or (td, ts) in tree_e:
            continue  # the tree joins them (backwards: a direction question, left to the two
            # raster readings)
        if ((rd, rs) in ren_e or (rs, rd) in ren_e) and not _runs_across(r.tree, ts, td):
            continue  # the render sees a line between them (a bus, a line the tree cannot
            # follow), unless it is the deck's line from the source running across the node
        elsewhere = [
            x
            for (a, x) in tree_e
            if a == ts
            and x in inv_tree
            and (s, inv_tree[x]) not in ref_e
            and tree_e[(a, x)] == "high"
        ]
        if elsewhere:
            target = r.ref.node(inv_tree[elsewhere[0]]).label
            disc = _edge_disc("rewired_edge", r, s, d, f'the deck leads it to "{target}" instead')
            if disc.key in seen:
                continue
            checks = [
                f'the tree joins no line between these nodes but one from the source to "{target}"',
                "the render reading does not show the reference's edge",
            ]
            out.append(Judged(disc, True, 0.75, checks))
    return out


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
    core = (x + mx, y + my, w - 2 * mx, h - 2 * my)
    return any(
        e.ends is not None and _segment_hits_box(e.ends[0], e.ends[1], core)
        for e in tree.edges
        if ts in (e.src, e.dst) and td not in (e.src, e.dst)
    )


def _blob_of(g: Graph, nid: str) -> int | None:
    return next((int(x[5:]) for x in g.node(nid).source if x.startswith("blob:")), None)


def _ref_line_touches(r: Readings, a: str, b: str, x: str) -> bool:
    """Whether a reference line component read as joining ``a`` and ``b`` also touches ``x``."""
    places = {e.source for e in r.ref.edges if {e.src, e.dst} == {a, b}}
    bx = _blob_of(r.ref, x)
    return any(
        f"line@{ln.box[0]},{ln.box[1]}" in places and any(c.node == bx for c in ln.contacts)
        for ln in r.ref_lines
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
    in its lines too)."""
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
    inv_tree = {v: k for k, v in r.m_tree.pairs.items()}
    ref_pairs = {frozenset((e.src, e.dst)) for e in r.ref.edges}
    out: list[Judged] = []
    for e in r.tree.edges:
        if e.direction != "high" or e.ends is None:
            continue
        s, d = inv_tree.get(e.src), inv_tree.get(e.dst)
        if s is None or d is None or frozenset((s, d)) in ref_pairs:
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
        # the reference's line runs from the deck's head end to its tail: the edge is d -> s
        disc = _edge_disc("reversed_edge", r, d, s, "the deck's connector points the other way")
        if disc.key in seen:
            continue
        seen.add(disc.key)
        checks = [
            "the render shows the deck's connector with its head where the deck puts it",
            "at the same places the reference shows a head at the connector's tail and none at "
            "its head",
        ]
        out.append(Judged(disc, True, 0.6, checks))
    return out


def judge_discrepancies(r: Readings, found: list[Discrepancy]) -> list[Judged]:
    """Evidence for each discrepancy of the render reading against the reference reading."""
    inv = {v: k for k, v in r.m_ren.pairs.items()}
    out: list[Judged] = []
    for d in found:
        if d.kind == "missing_node":
            n = _ref_node(r, d)
            out.append(_judge_missing(r, d, n) if n else Judged(d, False, 0.1))
        elif d.kind == "extra_node":
            c = _ren_node(r, d, inv)
            out.append(_judge_extra(r, d, c) if c else Judged(d, False, 0.1))
        elif d.kind == "changed_label":
            n = _ref_node(r, d)
            c = r.ren.node(r.m_ren.pairs[n.id]) if n and n.id in r.m_ren.pairs else None
            out.append(_judge_changed(r, d, n, c) if n and c else Judged(d, False, 0.1))
        else:
            j = _judge_edge(r, d)
            j.ref_box, j.cand_box = _edge_boxes(r, d)
            out.append(j)
    return out


def _ref_node(r: Readings, d: Discrepancy) -> GNode | None:
    key = d.key.split(":", 1)[1]
    for n in r.ref.nodes:
        if normalise_label(n.label) == key:
            return n
    return None


def _ren_node(r: Readings, d: Discrepancy, inv: dict[str, str]) -> GNode | None:
    key = d.key.split(":", 1)[1]
    for n in r.ren.nodes:
        if n.id not in inv and normalise_label(n.label) == key:
            return n
    return None


def judged_dict(ctx: ToolContext, j: Judged) -> dict[str, Any]:
    out = dict(discrepancy_dict(j.d), confirmed=j.confirmed, confidence=round(j.confidence, 3))
    out["checks"] = j.checks
    if j.ref_box is not None:
        out["reference_bbox"] = box_to_frame(ctx, "reference", j.ref_box, "panel")
    if j.cand_box is not None:
        out["candidate_bbox"] = box_to_frame(ctx, "candidate", j.cand_box, "panel")
    return out


def _reading_dict(ctx: ToolContext, which: str, g: Graph, matched: set[str]) -> dict[str, Any]:
    """A graph as read, for audit: nodes (panel-frame boxes, matched or not) and directed
    edges (``direction`` high/medium: an arrowhead was seen; low/undirected: not)."""
    return {
        "nodes": [
            {
                "id": n.id,
                "label": n.label,
                "box": box_to_frame(ctx, which, n.box, "panel"),
                "matched": n.id in matched,
            }
            for n in g.nodes
        ],
        "edges": [{"src": e.src, "dst": e.dst, "direction": e.direction} for e in g.edges],
    }


def semantic_comparison(ctx: ToolContext) -> dict[str, Any]:
    """Discrepancies of the candidate against the reference with evidence, confidence, boxes
    and whether each is confirmed; the graphs' sizes; the tree's own differences for audit."""

    def compute() -> dict[str, Any]:
        r = readings(ctx)
        _, found = compare_readings(r.ref, r.ren)
        judged = judge_discrepancies(r, found)
        judged += absence_pass(r, found)
        for j in edge_tree_pass(r, found):
            j.ref_box, j.cand_box = _edge_boxes(r, j.d)
            judged.append(j)
        for j in rewire_pass(r, found + [x.d for x in judged if x.confirmed]):
            j.ref_box, j.cand_box = _edge_boxes(r, j.d)
            judged.append(j)
        for j in head_probe_pass(r, found + [x.d for x in judged if x.confirmed]):
            j.ref_box, j.cand_box = _edge_boxes(r, j.d)
            judged.append(j)
        tree_only: list[dict[str, Any]] = []
        if r.tree is not None:
            tree_only = [discrepancy_dict(d) for d in compare_readings(r.ref, r.tree)[1]]
        return {
            "readings": {
                "reference": _reading_dict(ctx, "reference", r.ref, set(r.m_ren.pairs)),
                "render": _reading_dict(ctx, "candidate", r.ren, set(r.m_ren.pairs.values())),
            },
            "reference": {"nodes": len(r.ref.nodes), "edges": len(r.ref.edges)},
            "render": {"nodes": len(r.ren.nodes), "edges": len(r.ren.edges)},
            "tree": None
            if r.tree is None
            else {"nodes": len(r.tree.nodes), "edges": len(r.tree.edges)},
            "discrepancies": [judged_dict(ctx, j) for j in judged],
            "tree_only": tree_only,
        }

    return memo(ctx, "semantic_comparison", compute)


def compare_graphs(ctx: ToolContext) -> ToolOutput:
    """Compare the candidate's graph with the reference's: nodes matched by label similarity and
    position after global alignment, edges compared with direction. Lists each discrepancy
    (missing/extra node, changed label, missing/extra/reversed/rewired edge) with evidence and
    whether it is confirmed (confident in the render reading and not contradicted by the object
    tree). Unconfirmed ones may be reading errors.
    """
    return ToolOutput(semantic_comparison(ctx))


TOOLS = [Tool.from_function(compare_graphs)]
