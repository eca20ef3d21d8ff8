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
from typing import Any

import numpy as np

from judge.tools.base import Tool, ToolContext, ToolOutput, memo
from judge.tools.edgepasses import (
    crossing_probe_pass,
    edge_tree_pass,
    head_contrast_pass,
    head_probe_pass,
    ref_strokes_entangled,
    rewire_pass,
    tail_guessed,
)
from judge.tools.evidence import Corpus, compact
from judge.tools.graphread import (
    Discrepancy,
    GNode,
    Graph,
    discrepancy_dict,
    inside_box,
    label_distance,
    node_text,
    normalise_label,
)
from judge.tools.graphread import compare_graphs as compare_readings
from judge.tools.ocr import box_to_frame, ocr_zoomed
from judge.tools.readings import Judged, Readings, readings
from judge.tools.thresholds import (
    BLANK_PLACE_MAX_INK_FRAC,
    EXTRA_TREE_MATCH_DISTANCE,
    FONT_INK_FRAC,
    ICON_PLACE_MARGIN_FRAC,
    INK_DIFF,
    LEGIBLE_INK_MIN_PX,
    LOOK_AGAIN_MARGIN_FRAC,
    OCR_CONFIDENT,
    OCR_SURE,
    PRESENT_MIN_CHARS,
    SAME_PLACE_MIN_OVERLAP_FRAC,
    TEXT_BOX_INK_FRAC,
    UNCONFIRMED_CONFIDENCE_FACTOR,
)

NODE_KINDS = ("missing_node", "extra_node", "changed_label")
EDGE_KINDS = ("missing_edge", "rewired_edge", "reversed_edge", "extra_edge")


# ------------------------------------------------------------------------------------------
# Node checks


def _absent_from_candidate(
    r: Readings, label: str, checks: list[str], node: GNode | None = None
) -> bool:
    """True when the candidate shows ``label`` nowhere (tree text and render OCR); a text that
    reads like another reference node's label belongs to that node. A ``node`` whose label
    spans several text lines is there when the candidate holds one of its own lines
    (:func:`_own_lines`) letter for letter, in whole words ("Artifact" is not in "artifacts"):
    a long label misread in a few letters is too far from the deck's text as a whole."""
    for line in _own_lines(r, node) if node is not None else []:
        words = f" {normalise_label(line)} "
        if any(words in f" {t} " for t in r.candidate_words):
            checks.append(f'the candidate holds "{line}", a line of this node\'s own')
            return False
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


def _label_confidence(r: Readings, n: GNode, checks: list[str]) -> float:
    """Reference node ``n``'s label confidence. Under ``OCR_CONFIDENT`` its box is read again
    on its own (:func:`ocr_zoomed`), and that reading's confidence counts when it finds the
    same text: the whole figure's reading can be less sure of a short label than a reading of
    the node alone (Graphviz seed-4343 figure 2: "Loss" 0.84 in the figure, 1.00 alone, and
    the deck that dropped it passed)."""
    if n.confidence >= OCR_CONFIDENT or r.ref_img is None or not n.label:
        return n.confidence
    h, w = r.ref_img.shape[:2]
    x, y, bw, bh = n.box
    x0, y0 = max(0, int(x)), max(0, int(y))
    x1, y1 = min(w, int(math.ceil(x + bw))), min(h, int(math.ceil(y + bh)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return n.confidence
    lines = ocr_zoomed(np.ascontiguousarray(r.ref_img[y0:y1, x0:x1]), r.ref_zoom)
    if not lines or compact(" ".join(ln.text for ln in lines)) != compact(n.label):
        return n.confidence
    again = min(ln.confidence for ln in lines)
    if again <= n.confidence:
        return n.confidence
    checks.append(f'read again on its own, the reference node reads "{n.label}" ({again:.2f})')
    return again


def _judge_missing(r: Readings, d: Discrepancy, n: GNode) -> Judged:
    checks: list[str] = []
    absent = _absent_from_candidate(r, n.label, checks, n)
    sure = _label_confidence(r, n, checks) if absent else n.confidence
    ok = absent and sure >= OCR_CONFIDENT and _long_enough(n.label, checks)
    conf = sure if ok else sure * UNCONFIRMED_CONFIDENCE_FACTOR
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


def _mapped_box(r: Readings, c: GNode) -> tuple[float, float, float, float]:
    """Render node ``c``'s box mapped onto the reference (``_to_reference``), as (x0, y0, x1,
    y1)."""
    (ax, ay), (bx, by) = (
        _to_reference(r, (c.box[0], c.box[1])),
        _to_reference(r, (c.box[0] + c.box[2], c.box[1] + c.box[3])),
    )
    return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def _illegible_in_reference(r: Readings, c: GNode) -> float | None:
    """How tall render node ``c``'s text would be in the reference's own pixels (its ink height
    scaled as ``_mapped_box`` maps its box), when under ``LEGIBLE_INK_MIN_PX``: there the
    reference's OCR reading no such text proves nothing (a figure drawn 400 px wide sets a
    12 pt label 4 px tall). None when legible or unknown."""
    if c.box[3] <= 0:
        return None
    # a deck shape's text has no measured height: its font size says it, else at most the
    # box's share per line
    ink = c.text_height_px
    if not ink and c.font_size_pt and r.px_per_pt:
        ink = FONT_INK_FRAC * c.font_size_pt * r.px_per_pt
    ink = ink or TEXT_BOX_INK_FRAC * c.box[3] / max(1, c.lines)
    _x0, y0, _x1, y1 = _mapped_box(r, c)
    tall = ink * (y1 - y0) / c.box[3] / max(1, r.ref_zoom)
    return tall if tall < LEGIBLE_INK_MIN_PX else None


def _blank_in_reference(r: Readings, c: GNode) -> bool:
    """Whether the reference is empty at render node ``c``'s place (its box mapped onto the
    reference): under ``BLANK_PLACE_MAX_INK_FRAC`` of the pixels differ from the place's own
    colour. Evidence of an added node that needs no reading of small print."""
    if r.ref_img is None:
        return False
    x0, y0, x1, y1 = _mapped_box(r, c)
    h, w = r.ref_img.shape[:2]
    X0, Y0, X1, Y1 = max(0, int(x0)), max(0, int(y0)), min(w, int(x1) + 1), min(h, int(y1) + 1)
    if X1 - X0 < 2 or Y1 - Y0 < 2:
        return False
    crop = r.ref_img[Y0:Y1, X0:X1].reshape(-1, 3).astype(np.int16)
    ink = np.abs(crop - np.median(crop, axis=0)).max(axis=1) > INK_DIFF
    return float(ink.mean()) < BLANK_PLACE_MAX_INK_FRAC


def _unreadable_there(r: Readings, c: GNode, checks: list[str]) -> bool:
    """Whether an added node ``c`` must stay unconfirmed because its text is too small to read
    in the reference (``_illegible_in_reference``) and the reference is not blank at its
    place (``_blank_in_reference``); says which in ``checks``."""
    tall = _illegible_in_reference(r, c)
    if tall is None:
        return False
    checks.append(
        f"at the reference's size its text would be {tall:.1f} px tall, too small to read"
    )
    if _blank_in_reference(r, c):
        checks.append("the reference is blank at its place")
        return False
    return True


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
    x0, y0, x1, y1 = _mapped_box(r, c)
    mx, my = LOOK_AGAIN_MARGIN_FRAC * (x1 - x0), LOOK_AGAIN_MARGIN_FRAC * (y1 - y0)
    h, w = r.ref_img.shape[:2]
    X0, Y0 = max(0, int(x0 - mx)), max(0, int(y0 - my))
    X1, Y1 = min(w, int(math.ceil(x1 + mx))), min(h, int(math.ceil(y1 + my)))
    if X1 - X0 < 8 or Y1 - Y0 < 8:
        return None
    lines = ocr_zoomed(np.ascontiguousarray(r.ref_img[Y0:Y1, X0:X1]), r.ref_zoom)
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
    line = (
        None
        if in_ref
        else _reference_line_of(r, c.label, [m.label for m in r.ren.nodes if m.id != c.id])
    )
    if in_ref:
        checks.append(f'the reference shows the text "{c.label}"')
    elif line is not None:
        in_ref = True
        checks.append(f'the reference shows "{line}", a line of this label\'s own')
    elif (in_tree or r.tree is None) and (again := _reference_reads_at(r, c)) is not None:
        in_ref = True  # the whole-image reading missed it
        checks.append(f'read again at its place, the reference shows "{again}"')
    checks.append(
        f'the deck has a shape reading "{c.label}"' if in_tree else "no shape of the deck reads so"
    )
    blurred = None if in_ref else _unread_reference_node_at(r, c)
    if blurred is not None:
        checks.append(_unread_check(blurred))
        conf = c.confidence * UNCONFIRMED_CONFIDENCE_FACTOR
        return Judged(d, False, conf, checks, blurred.box, c.box)
    if not in_ref and _unreadable_there(r, c, checks):
        return Judged(d, False, c.confidence * UNCONFIRMED_CONFIDENCE_FACTOR, checks, None, c.box)
    ok = not in_ref and (in_tree if r.tree is not None else c.confidence >= OCR_CONFIDENT)
    ok = ok and _long_enough(c.label, checks)
    conf = c.confidence if ok else c.confidence * UNCONFIRMED_CONFIDENCE_FACTOR
    return Judged(d, ok, conf, checks, cand_box=c.box)


def _reference_line_of(r: Readings, label: str, others: list[str]) -> str | None:
    """A line the reference reads beyond doubt (``OCR_SURE``, ``PRESENT_MIN_CHARS`` long) that
    is, letter for letter, part of ``label`` and of none of the ``others`` labels: the node is
    in the reference though its long label reads with slips as a whole."""
    mine = compact(label)
    rest = [compact(o) for o in others if o]
    for ln in r.ref_ocr:
        t = compact(ln.text)
        if ln.confidence < OCR_SURE or len(t) < PRESENT_MIN_CHARS or t not in mine:
            continue
        if t != mine and not any(t in o for o in rest):
            return ln.text
    return None


def _own_lines(r: Readings, n: GNode) -> list[str]:
    """The text lines of a reference node whose label spans two or more lines that are its
    own: inside its box, ``PRESENT_MIN_CHARS`` long, read beyond doubt (``OCR_SURE``, so
    taken letter for letter) and in no other reference node's label or text line elsewhere
    ("fr_retriever" in a box whose other lines, "Optional inputs:", its neighbours share, and
    whose neighbour reads "es_retriever")."""
    inside = node_text(r.ref_ocr, n.box)
    if len(inside) < 2:
        return []
    others = [compact(m.label) for m in r.ref.nodes if m.id != n.id and m.label]
    others += [compact(ln.text) for ln in r.ref_ocr if all(ln is not t for t in inside)]
    return [
        ln.text
        for ln in inside
        if ln.confidence >= OCR_SURE
        and len(compact(ln.text)) >= PRESENT_MIN_CHARS
        and not any(compact(ln.text) in o for o in others)
    ]


def _judge_changed(r: Readings, d: Discrepancy, n: GNode, c: GNode) -> Judged:
    checks: list[str] = []
    absent = _absent_from_candidate(r, n.label, checks, n)
    new_in_ref = r.ref_text.has(c.label)
    if new_in_ref:
        checks.append(f'the reference shows "{c.label}" too')
    sure = _label_confidence(r, n, checks) if absent and not new_in_ref else n.confidence
    ok = absent and not new_in_ref and min(sure, c.confidence) >= OCR_CONFIDENT
    conf = min(sure, c.confidence)
    # the render's text at that place is another reference text, a whole one away from this
    # node (the matching paired the node with a neighbour): the node itself is what the
    # candidate lacks. Words of it scattered over the figure, or this node's own text read
    # differently, are not another text.
    elsewhere = Corpus.of(
        [m.label for m in r.ref.nodes if m.id != n.id]
        + [ln.text for ln in r.ref_ocr if not inside_box(ln.centre, n.box)]
    ).has_whole(c.label)
    if absent and elsewhere and sure >= OCR_CONFIDENT and _long_enough(n.label, checks):
        gone = Discrepancy(
            "missing_node",
            d.target,
            f'the candidate holds the text "{n.label}" nowhere; the render shows another '
            f'reference text, "{c.label}", at its place',
            f"node:{normalise_label(n.label)}",
            True,
        )
        return Judged(gone, True, sure, checks, n.box, c.box)
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
    if agrees and d.kind == "rewired_edge" and len(d.ref_nodes) == 3:
        s, t, x = d.ref_nodes
        moved = r.tree_moves.get(d.key)
        if d.tail_moved and tail_guessed(r, s, t, x):
            # the reference may have read the line's tail at either node
            checks.append("the reference may have read this line's tail at the new source")
            agrees = False
        elif ref_strokes_entangled(r, s, t, x):
            # the reference line read as s -> t also touches the new target and pairs its
            # stroke with one of them: a crossing the reader may have paired wrongly
            checks.append("the reference line it rests on also reaches the new target")
            agrees = False
        elif moved is not None and moved != x:
            # the render and the deck lead the line to different nodes: one of the readings
            # (most likely the reference's, which both differ from) is wrong
            checks.append("the object tree leads it to another node than the render does")
            agrees = False
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
        if _absent_from_candidate(r, n.label, checks, n):
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
        if _reference_line_of(r, t.label, [o.label for o in r.tree.nodes if o.id != t.id]):
            continue  # a long label the reference reads with slips, one line of it surely
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
        blurred = _unread_reference_node_at(r, c) if c is not None else None
        if blurred is not None:  # small or blurred text: the node is there, its text unread
            checks.append(_unread_check(blurred))
            out.append(
                Judged(d, False, 0.9 * UNCONFIRMED_CONFIDENCE_FACTOR, checks, blurred.box, box)
            )
            continue
        if _unreadable_there(r, c or t, checks):  # the reference's OCR cannot read it
            out.append(Judged(d, False, 0.9 * UNCONFIRMED_CONFIDENCE_FACTOR, checks, None, box))
            continue
        out.append(Judged(d, True, 0.9, checks, cand_box=box))
    return out


def _unread_check(n: GNode) -> str:
    return (
        "the reference has a node at its place whose text does not read clearly "
        f'("{n.label}", OCR score {n.confidence:.2f})'
    )


def _unread_reference_node_at(r: Readings, c: GNode) -> GNode | None:
    """A reference node at render node ``c``'s place (:func:`_overlap` at least
    ``SAME_PLACE_MIN_OVERLAP_FRAC``) whose label was not read confidently (under
    ``OCR_CONFIDENT``): a node whose text is too small or blurred to read, not a node the
    reference lacks. Not one another render node sits at better (that node is its
    counterpart), and None when the reference reads a text at ``c``'s place surely
    (``OCR_SURE``) that the candidate holds nowhere: the node reads otherwise (a changed
    label), whatever else blurs."""
    ax, ay, bx, by = _mapped_box(r, c)
    for ln in r.ref_ocr:
        if ln.confidence < OCR_SURE or len(compact(ln.text)) < PRESENT_MIN_CHARS:
            continue
        if not (ax <= ln.centre[0] <= bx and ay <= ln.centre[1] <= by):
            continue
        if not r.ren_text.has(ln.text) and (r.tree_text is None or not r.tree_text.has(ln.text)):
            return None
    for n in r.ref.nodes:
        share = _overlap(r, c, n)
        if n.confidence >= OCR_CONFIDENT or share < SAME_PLACE_MIN_OVERLAP_FRAC:
            continue
        if any(_overlap(r, o, n) > share for o in r.ren.nodes if o.id != c.id):
            continue  # another render node sits there better: the node is that one's
        return n
    return None


def _overlap(r: Readings, c: GNode, n: GNode) -> float:
    """How far render node ``c`` and reference node ``n`` sit at one place: the share of the
    smaller box that ``c``'s box, mapped onto the reference, and ``n``'s box have in common."""
    ax, ay, bx, by = _mapped_box(r, c)
    x, y, w, h = n.box
    iw = min(bx, x + w) - max(ax, x)
    ih = min(by, y + h) - max(ay, y)
    smaller = min(w * h, (bx - ax) * (by - ay))
    return iw * ih / smaller if iw > 0 and ih > 0 and smaller > 0 else 0.0


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
        # confirmed only: an edge the readings' comparison left unconfirmed as one kind (a
        # rewire the tree does not show) may be proved another (the connector reversed)
        for tree_pass in (edge_tree_pass, crossing_probe_pass):
            for j in tree_pass(r, [x.d for x in judged if x.confirmed]):
                j.ref_box, j.cand_box = _edge_boxes(r, j.d)
                judged.append(j)
        # in turn, each skipping what the readings or an earlier pass already proved
        for edge_pass in (rewire_pass, head_probe_pass, head_contrast_pass):
            for j in edge_pass(r, found + [x.d for x in judged if x.confirmed]):
                j.ref_box, j.cand_box = _edge_boxes(r, j.d)
                judged.append(j)
        proved = {x.d.key for x in judged if x.confirmed}
        judged = [x for x in judged if x.confirmed or x.d.key not in proved]
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
