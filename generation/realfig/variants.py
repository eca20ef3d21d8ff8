"""Faithful and defect variants of a real figure, with the gate a correct judge ends at.

Targets are chosen by rules on the spec (never by figure id), so every figure gets the same
kinds of change:

* ``faithful_shapes`` / ``faithful_overlay`` / ``faithful_handmade`` -- the three
  constructions, unchanged (pass);
* ``reversed_edge`` -- the longest one-way edge between two labelled nodes flips (semantic);
* ``missing_node`` -- the labelled node with the most edges (ties: reading order) and its
  edges are left out (semantic);
* ``wrong_endpoint`` -- one edge's head moves to the nearest labelled node it does not already
  join (semantic);
* ``changed_label`` -- one node's label becomes a different word (semantic);
* ``extra_node`` -- a labelled node in free space, fed by an edge from an existing node
  (semantic);
* ``overflow_label`` -- one label set far larger than its box, so it overflows (pass; Stage 3
  ``overflow``);
* ``layout_shift`` -- two nodes moved by 4 % of the figure (pass; ``node_position``);
* ``style_change`` -- every node's fill and outline recoloured (pass; ``node_fill``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from generation.realfig.deck import Construction
from generation.realfig.geometry import centre, free_box
from generation.realfig.model import E, Fig, N
from judge.schema import InjectedDefect, VariantGate
from judge.tools.graphread import label_distance

REPLACEMENT_WORDS = (
    "Scheduler", "Validator", "Archive", "Monitor", "Gateway", "Billing", "Firewall",
    "Renderer", "Indexer", "Notifier",
)  # fmt: skip
"""Labels a changed or extra node takes (the first not already in the figure)."""
DISTINCT_LABEL_DISTANCE = 0.5
"""A replacement word is this far (normalised edit distance) from every label of the figure."""
TEXT_WIDTH_EM = 0.62
"""Average glyph advance of a sans label, in ems (sizes an extra node to fit its word)."""
SHIFT_FRAC = 0.04
"""A layout shift moves nodes by this share of the figure's larger side."""
OVERFLOW_SCALE = 2.4
"""An overflowing label's font grows by this factor (and stops wrapping)."""
REWIRE_MIN_GAP = 0.03
"""A rewired end moves to a node at least this share of the figure away from the old end."""
EXTRA_SCALES = (1.0, 0.75, 0.5, 0.0)
"""An extra node copies the largest node's size at the first of these scales that leaves
room for it (0: just large enough for its word, in a compact Graphviz layout) ..."""
EXTRA_SMALL_FONT = 0.7
"""... or, when none does, just large enough for its word set this much smaller."""
STYLE_FILL = "F4CCCC"
STYLE_STROKE = "990000"


@dataclass(frozen=True)
class Built:
    fig: Fig
    construction: Construction
    defects: list[InjectedDefect]
    wrap: dict[str, bool]
    """Node key -> word wrap of its label (False for an overflowing label)."""


@dataclass(frozen=True)
class Variant:
    name: str
    gate: VariantGate
    make: Callable[[Fig, Construction], Built]
    subtypes: tuple[str, ...] = ()


def _labelled(fig: Fig) -> list[N]:
    return [n for n in fig.nodes if n.label.strip() and n.label.strip() not in ("*", "...")]


def _is_node(fig: Fig, key: str | None) -> bool:
    return key is not None and any(n.key == key for n in fig.nodes)


def _edge_name(fig: Fig, e: E) -> str:
    def lab(k: str | None) -> str:
        if k is None:
            return "(space)"
        try:
            return fig.node(k).label
        except KeyError:
            return k

    return f'edge "{lab(e.src)}" -> "{lab(e.dst)}"'


def _nesting(fig: Fig, n: N) -> bool:
    """True when ``n`` holds another node or sits inside one (nested boxes)."""
    for m in fig.nodes:
        if m.key == n.key:
            continue
        a, b = n.box, m.box
        inside = (
            a[0] <= b[0]
            and a[1] <= b[1]
            and a[0] + a[2] >= b[0] + b[2]
            and a[1] + a[3] >= b[1] + b[3]
        )
        around = (
            b[0] <= a[0]
            and b[1] <= a[1]
            and b[0] + b[2] >= a[0] + a[2]
            and b[1] + b[3] >= a[1] + a[3]
        )
        if inside or around:
            return True
    return False


def _simple_edges(fig: Fig) -> list[E]:
    """Edges between two distinct labelled nodes, one-way, with no twin either way; nodes that
    hold or sit in other nodes only when nothing else qualifies, twins after that."""
    for strict in ((True, True), (False, True), (False, False)):
        out = _edges_where(fig, *strict)
        if out:
            return out
    return []


def _edges_where(fig: Fig, unnested: bool, single: bool) -> list[E]:
    labelled = {n.key for n in _labelled(fig) if not (unnested and _nesting(fig, n))}
    out = []
    for e in fig.edges:
        if e.src not in labelled or e.dst not in labelled or e.src == e.dst or e.both:
            continue
        twins = [x for x in fig.edges if {x.src, x.dst} == {e.src, e.dst}]
        if len(twins) == 1 or not single:
            out.append(e)
    return out


def _length(fig: Fig, e: E) -> float:
    if e.src is None:
        return 0.0
    (x0, y0), (x1, y1) = centre(fig.box_of(e.src)), centre(fig.box_of(e.dst))
    return math.hypot(x1 - x0, y1 - y0)


def _unused_word(fig: Fig) -> str:
    """The first replacement word unlike every label and text of the figure, and unlike each
    word in them ("Scheduler" would read as present in "TensorIR Schedules")."""
    have = [n.label for n in fig.nodes] + [t.text for t in fig.texts]
    have += [w for h in have for w in re.split(r"[^\w']+", h)]
    for w in REPLACEMENT_WORDS:
        if all(label_distance(w, h) > DISTINCT_LABEL_DISTANCE for h in have if h):
            return w
    raise ValueError(f"{fig.id}: every replacement word resembles a label")


def _faithful(fig: Fig, how: Construction) -> Built:
    return Built(fig, how, [], {})


def _reversed(fig: Fig, how: Construction) -> Built:
    e = max(_simple_edges(fig), key=lambda x: (_length(fig, x), x.src or "", x.dst))
    assert e.src is not None  # _simple_edges joins two nodes
    flipped = replace(e, src=e.dst, dst=e.src, points=tuple(reversed(e.points)), bend=-e.bend)
    edges = tuple(flipped if x is e else x for x in fig.edges)
    d = InjectedDefect(
        kind="reversed_edge", target=_edge_name(fig, e), detail="arrowhead moved to the source end"
    )
    return Built(replace(fig, edges=edges), how, [d], {})


def _degree(fig: Fig, key: str) -> int:
    return sum(1 for e in fig.edges if key in (e.src, e.dst))


def _missing(fig: Fig, how: Construction) -> Built:
    cands = [n for n in _labelled(fig) if not _nesting(fig, n)]
    n = max(cands, key=lambda m: (_degree(fig, m.key), -m.box[1], -m.box[0]))
    nodes = tuple(m for m in fig.nodes if m.key != n.key)
    edges = tuple(e for e in fig.edges if n.key not in (e.src, e.dst))
    d = InjectedDefect(
        kind="missing_node", target=f'node "{n.label}"', detail="node and its edges left out"
    )
    return Built(replace(fig, nodes=nodes, edges=edges), how, [d], {})


def _wrong_endpoint(fig: Fig, how: Construction) -> Built:
    """One edge's head moved to another node; when every other node already joins each
    edge's source (a star), its tail moved instead."""
    for end in ("dst", "src"):
        best = _rewire_target(fig, True, end) or _rewire_target(fig, False, end)
        if best is not None:
            break
    else:
        raise ValueError(f"{fig.id}: no edge can be rewired")
    e, m = best
    moved = replace(e, route="straight", points=(), offset=0.0)
    moved = replace(moved, dst=m.key) if end == "dst" else replace(moved, src=m.key)
    edges = tuple(moved if x is e else x for x in fig.edges)
    what = "head" if end == "dst" else "tail"
    d = InjectedDefect(
        kind="rewired_edge", target=_edge_name(fig, e), detail=f'{what} moved to "{m.label}"'
    )
    return Built(replace(fig, edges=edges), how, [d], {})


def _rewire_target(fig: Fig, avoid_crossing: bool, end: str = "dst") -> tuple[E, N] | None:
    """The edge to rewire and its new ``end`` (``dst``: head, ``src``: tail): the nearest
    labelled node to the old end that the kept end does not already join, clear of the old
    end (and, if asked, reached without crossing another node)."""
    labelled = [n for n in _labelled(fig) if not _nesting(fig, n)] or _labelled(fig)
    best: tuple[float, E, N] | None = None
    for e in _simple_edges(fig):
        kept, old = (e.src or "", e.dst or "") if end == "dst" else (e.dst or "", e.src or "")
        joined = {x.dst for x in fig.edges if x.src == kept} | {
            x.src for x in fig.edges if x.dst == kept
        }
        dc = centre(fig.box_of(old))
        for m in labelled:
            if m.key in joined or m.key in (e.src, e.dst):
                continue
            mc = centre(m.box)
            dist = math.hypot(mc[0] - dc[0], mc[1] - dc[1])
            if _near(m.box, fig.box_of(old), REWIRE_MIN_GAP * max(fig.size)):
                continue  # a neighbour of the old end: the arrow would barely move
            if avoid_crossing and _crosses(fig, centre(fig.box_of(kept)), mc, {kept, m.key}):
                continue  # the new line would run through another node
            if best is None or dist < best[0]:
                best = (dist, e, m)
    return None if best is None else (best[1], best[2])


def _near(a: tuple[float, ...], b: tuple[float, ...], gap: float) -> bool:
    return _hit((a[0] - gap, a[1] - gap, a[2] + 2 * gap, a[3] + 2 * gap), b)


def _crosses(fig: Fig, p: tuple[float, float], q: tuple[float, float], skip: set[str]) -> bool:
    for n in fig.nodes:
        if n.key in skip or _nesting(fig, n):
            continue
        x, y, w, h = n.box
        for i in range(1, 40):
            t = i / 40
            px, py = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
            if x < px < x + w and y < py < y + h:
                return True
    return False


def _changed(fig: Fig, how: Construction) -> Built:
    cands = [n for n in _labelled(fig) if len(n.label) >= 4 and " " not in n.label.strip()[:3]]
    cands = cands or _labelled(fig)
    n = max(cands, key=lambda m: (_degree(fig, m.key), len(m.label) < 30, -m.box[1]))
    word = _unused_word(fig)
    nodes = tuple(replace(m, label=word) if m.key == n.key else m for m in fig.nodes)
    d = InjectedDefect(kind="changed_label", target=f'node "{n.label}"', detail=f'reads "{word}"')
    return Built(replace(fig, nodes=nodes), how, [d], {})


def _extra(fig: Fig, how: Construction) -> Built:
    ref = max(_labelled(fig), key=lambda m: m.box[2] * m.box[3] if not _nesting(fig, m) else 0)
    w, h = ref.box[2], ref.box[3]
    word = _unused_word(fig)
    box, fs = None, ref.font_px or fig.font_px
    for font, scale in [*((1.0, s) for s in EXTRA_SCALES), (EXTRA_SMALL_FONT, 0.0)]:
        text_w = TEXT_WIDTH_EM * fs * font * len(word) + 2 * fs * font  # one line of text
        box = free_box(fig, max(text_w, w * scale), max(2.2 * fs * font, h * scale), [])
        if box is not None:
            break
    if box is None:
        raise ValueError(f"{fig.id}: no room for an extra node")
    new = replace(ref, key="extra", label=word, box=box, top=False, dashed=False)
    if font != 1.0:
        new = replace(new, font_px=fs * font)
    src = min(
        (n for n in _labelled(fig) if not _nesting(fig, n)),
        key=lambda n: math.hypot(
            centre(n.box)[0] - centre(box)[0], centre(n.box)[1] - centre(box)[1]
        ),
    )
    edge = E(src.key, "extra", colour=fig.edge_colour, width_px=1.5)
    d = InjectedDefect(kind="extra_node", target=f'node "{word}"', detail=f'fed by "{src.label}"')
    return Built(replace(fig, nodes=(*fig.nodes, new), edges=(*fig.edges, edge)), how, [d], {})


def _overflow(fig: Fig, how: Construction) -> Built:
    cands = [n for n in _labelled(fig) if not _nesting(fig, n) and n.shape != "plain"]
    n = min(cands, key=lambda m: (len(m.label) > 20, -len(m.label), m.box[1], m.box[0]))
    fs = (n.font_px or fig.font_px) * OVERFLOW_SCALE
    text = n.text if n.fill is None or n.text != "FFFFFF" else "000000"
    nodes = tuple(replace(m, font_px=fs, text=text) if m.key == n.key else m for m in fig.nodes)
    d = InjectedDefect(
        kind="overflowing_text",
        subtype="overflow",
        target=f'node "{n.label}"',
        detail=f"label set {OVERFLOW_SCALE}x larger, no wrap",
    )
    return Built(replace(fig, nodes=nodes), how, [d], {n.key: False})


def _shift(fig: Fig, how: Construction) -> Built:
    step = SHIFT_FRAC * max(fig.size)
    movable = [n for n in _labelled(fig) if not _nesting(fig, n)]
    chosen: list[str] = []
    nodes = list(fig.nodes)
    for n in sorted(movable, key=lambda m: (m.box[1], m.box[0])):
        for dx, dy in ((step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)):
            b = (n.box[0] + dx, n.box[1] + dy, n.box[2], n.box[3])
            if b[0] < 0 or b[1] < 0 or b[0] + b[2] > fig.size[0] or b[1] + b[3] > fig.size[1]:
                continue
            others = [m.box for m in nodes if m.key != n.key]
            if all(not _hit(b, o) for o in others):
                nodes = [replace(m, box=b) if m.key == n.key else m for m in nodes]
                chosen.append(n.label)
                break
        if len(chosen) == 2:
            break
    d = InjectedDefect(
        kind="shifted_nodes",
        subtype="node_position",
        target=", ".join(f'node "{c}"' for c in chosen) or "none",
        detail=f"moved by {SHIFT_FRAC:.0%} of the figure",
    )
    return Built(replace(fig, nodes=tuple(nodes)), how, [d], {})


def _hit(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return not (
        a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]
    )


def _style(fig: Fig, how: Construction) -> Built:
    nodes = tuple(
        replace(n, fill=STYLE_FILL, stroke=STYLE_STROKE, text="000000") if n.shape != "plain" else n
        for n in fig.nodes
    )
    d = InjectedDefect(
        kind="recoloured_nodes",
        subtype="node_fill",
        target="every node",
        detail=f"fill {STYLE_FILL}, outline {STYLE_STROKE}",
    )
    return Built(replace(fig, nodes=nodes), how, [d], {})


def _fixed(how: Construction) -> Callable[[Fig, Construction], Built]:
    return lambda fig, _how: _faithful(fig, how)


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("faithful_shapes", "pass", _fixed("shapes")),
        Variant("faithful_overlay", "pass", _fixed("overlay")),
        Variant("faithful_handmade", "pass", _fixed("handmade")),
        Variant("reversed_edge", "semantic", _reversed),
        Variant("missing_node", "semantic", _missing),
        Variant("wrong_endpoint", "semantic", _wrong_endpoint),
        Variant("changed_label", "semantic", _changed),
        Variant("extra_node", "semantic", _extra),
        Variant("overflow_label", "pass", _overflow, ("overflow",)),
        Variant("layout_shift", "pass", _shift, ("node_position",)),
        Variant("style_change", "pass", _style, ("node_fill",)),
    )
}
"""Every variant by name, in the order the benchmark writes them."""
