"""Candidate variants: faithful reconstructions and ones with labelled, injected defects.

Each variant takes the task's diagram and returns the diagram to build (changed or not), the deck
options, and the defects it injected, each named by a taxonomy subtype where one fits. The label
of a variant says which gate a correct judge ends at:

* ``pass`` -- faithful variants (glued connectors, free lines, grouped nodes) and Stage 3 defects
  (layout, typography, node and connector styling); the defects' subtypes are the findings;
* ``semantic`` -- the process changed (reversed or rewired edge, missing or extra node, a label
  that means something else);
* ``render`` -- most labels overflow their boxes (> 50% of text boxes, the Stage 2 threshold);
* ``artifact`` -- a Stage 0 check fails (pasted reference picture, too few native components,
  external hyperlink, embedded OLE object, VBA macro part).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from generation.deck import TEXT_INSET_PX, DeckOptions, EdgeStyle
from generation.diagram import (
    LABELS,
    PALETTE,
    TEXT_DARK,
    TEXT_PAD_EM,
    Diagram,
    Edge,
    Node,
    Side,
    cell_centre,
    text_width,
)
from judge.schema import InjectedDefect, VariantGate

Rng = np.random.Generator


@dataclass(frozen=True)
class Built:
    """What a variant produced: the diagram to build, deck options and the injected defects."""

    diagram: Diagram
    options: DeckOptions
    defects: list[InjectedDefect]


VariantFn = Callable[[Diagram, EdgeStyle, Rng, bytes], Built]


@dataclass(frozen=True)
class Variant:
    name: str
    gate: VariantGate
    make: VariantFn
    artifact_check: str | None = None
    """The Stage 0 check (``judge.schema.CHECK_NAMES``) that must fail."""
    fixed_style: EdgeStyle | None = None
    """Faithful variants fix the style; defect variants take the style they are given."""


OVERFLOW_SPILL = 0.2
"""Overflow variant: a chosen label, wrapping off, runs past each side of its box by this
fraction of the gap to the nearest node in its row (so two neighbours' spills never meet) ..."""
OVERFLOW_SPILL_EM = 0.6
"""... but by at most this many ems of its original font: a clear overflow, still one readable
line in its place (the process is unchanged)."""
OVERFLOW_SCALE = (1.2, 1.6)
"""Label font growth range of the overflow variant. A short label in a wide box would need a
bigger font to spill: its box narrows instead (same centre), so the text stays moderate."""
OVERFLOW_SHARE = 0.85
"""Share of nodes whose labels overflow: well over the 50% Stage 2 threshold."""
SMALL_FONT_SCALE = 0.6
"""Label font scale of the font-size variant: clearly smaller, never overflowing."""
SHIFT_CELL_FRACTION = 0.22
"""Node shift of the shifted-layout variant, as a fraction of the cell height (stays in the
node's own cell, so nothing overlaps, yet moves it ~50-80 px in a 900 px figure)."""
LINE_WIDTH_SCALE = 2.4
"""Connector width growth of the line-width variant."""
WRONG_STROKE = ((230, 120, 0), 2.0)
"""(colour, width scale) of the wrong-stroke variant: orange outlines, twice as thick."""
WRONG_TEXT_COLOURS = ((200, 0, 0), (255, 230, 0))
"""Label colours of the text-colour variant: red instead of dark text, yellow instead of white."""
FALLBACK_DARK_FILL = (110, 40, 40)
"""Fill for the wrong-fill variant when every dark palette fill is already in use."""
LINE_HEIGHT_EM = 1.17
"""Line height of DejaVu Sans / Liberation Sans in ems (ascent + descent), for wrap planning."""
WRAP_WIDTH_FRACTION = 0.75
"""Text width left to a label by the wrapped-labels variant, as a fraction of its one-line
width: it then takes two lines (inside a word when it is one word), in an unchanged box."""
WRAP_SHARE = 0.35
"""Share of a diagram's text frames the wrapped-labels variant wraps: a Stage 3 finding, well
under the 50% at which Stage 2 fails."""
MISALIGN_PX = 16.0
"""Vertical offset of every other chain node in the misaligned variant, pixels (~2% of 900)."""
DETACH_GAP_PX = 14.0
"""Gap left between line ends and nodes by the detached-ends variant, pixels."""
EXTERNAL_URL = "https://example.org/diagram-source"


def _edge_name(d: Diagram, e: Edge) -> str:
    return f'edge "{d.node(e.src).label}" -> "{d.node(e.dst).label}"'


def _node_name(n: Node) -> str:
    return f'node "{n.label}"'


def _unused_label(d: Diagram, rng: Rng) -> str:
    used = {n.label for n in d.nodes}
    pool = [lb for lb in LABELS if lb not in used]
    return pool[int(rng.integers(len(pool)))]


def _motif_nodes(d: Diagram) -> list[Node]:
    return [n for n in d.nodes if n.row != d.chain_row]


# ----------------------------------------------------------------------------------------------
# Faithful


def _faithful(style: EdgeStyle) -> VariantFn:
    def make(d: Diagram, _style: EdgeStyle, _rng: Rng, _ref: bytes) -> Built:
        return Built(d, DeckOptions(style=style), [])

    return make


# ----------------------------------------------------------------------------------------------
# Semantic


def _reversed_edge(d: Diagram, style: EdgeStyle, rng: Rng, _ref: bytes) -> Built:
    d = d.copy()
    e = d.edges[int(rng.integers(len(d.edges)))]
    before = _edge_name(d, e)
    e.src, e.dst = e.dst, e.src
    e.src_side, e.dst_side = e.dst_side, e.src_side
    defect = InjectedDefect(
        kind="reversed_edge", target=before, detail=f"drawn as {_edge_name(d, e)}"
    )
    return Built(d, DeckOptions(style=style), [defect])


def _missing_node(d: Diagram, style: EdgeStyle, rng: Rng, _ref: bytes) -> Built:
    d = d.copy()
    pool = _motif_nodes(d) or [d.nodes[-1]]
    n = pool[int(rng.integers(len(pool)))]
    lost = [e for e in d.edges if n.id in (e.src, e.dst)]
    defects = [InjectedDefect(kind="missing_node", subtype="missing_shape", target=_node_name(n))]
    defects += [
        InjectedDefect(kind="missing_edge", subtype="missing_connector", target=_edge_name(d, e))
        for e in lost
    ]
    d.nodes = [m for m in d.nodes if m.id != n.id]
    d.edges = [e for e in d.edges if e not in lost]
    return Built(d, DeckOptions(style=style), defects)


def _extra_node(d: Diagram, style: EdgeStyle, rng: Rng, _ref: bytes) -> Built:
    d = d.copy()
    panel, row, col = d.free_cells[int(rng.integers(len(d.free_cells)))]
    anchor = next(n for n in d.nodes if n.panel == panel and n.row == d.chain_row and n.col == col)
    cx, cy = cell_centre(d, panel, row, col)
    template = anchor
    label = _unused_label(d, rng)
    new = replace(
        template,
        id=max(n.id for n in d.nodes) + 1,
        label=label,
        row=row,
        x=float(round(cx - template.w / 2)),
        y=float(round(cy - template.h / 2)),
    )
    d.nodes.append(new)
    toward: Side = "bottom" if row > d.chain_row else "top"
    away: Side = "top" if row > d.chain_row else "bottom"
    base = d.edges[0]
    edge = replace(
        base,
        id=max(e.id for e in d.edges) + 1,
        src=anchor.id,
        dst=new.id,
        src_side=toward,
        dst_side=away,
        route="straight",
        dashed=False,
    )
    d.edges.append(edge)
    defects = [
        InjectedDefect(kind="extra_node", subtype="extra_shape", target=_node_name(new)),
        InjectedDefect(kind="extra_edge", subtype="extra_connector", target=_edge_name(d, edge)),
    ]
    return Built(d, DeckOptions(style=style), defects)


def _segment_hits(
    d: Diagram, p0: tuple[float, float], p1: tuple[float, float], skip: set[int]
) -> bool:
    """Does the straight segment p0-p1 pass through a node box other than ``skip``?"""
    for t in np.linspace(0.02, 0.98, 60):
        x = p0[0] + (p1[0] - p0[0]) * t
        y = p0[1] + (p1[1] - p0[1]) * t
        for n in d.nodes:
            if n.id not in skip and n.x - 4 <= x <= n.x + n.w + 4 and n.y - 4 <= y <= n.y + n.h + 4:
                return True
    return False


def _facing_sides(a: Node, b: Node) -> tuple[Side, Side]:
    dx, dy = b.cx - a.cx, b.cy - a.cy
    if abs(dx) >= abs(dy):
        return ("right", "left") if dx > 0 else ("left", "right")
    return ("bottom", "top") if dy > 0 else ("top", "bottom")


def _rewired_endpoint(d: Diagram, style: EdgeStyle, rng: Rng, _ref: bytes) -> Built:
    d = d.copy()
    glued = {(e.src, e.src_side) for e in d.edges} | {(e.dst, e.dst_side) for e in d.edges}
    options: list[tuple[float, Edge, Node, Side, Side]] = []
    for e in d.edges:
        src, old = d.node(e.src), d.node(e.dst)
        linked = {f.dst for f in d.edges if f.src == e.src} | {
            f.src for f in d.edges if f.dst == e.src
        }
        for n in d.nodes:
            if n.id in (e.src, e.dst) or n.id in linked:
                continue
            s_side, d_side = _facing_sides(src, n)
            if (n.id, d_side) in glued and (n.id, d_side) != (e.dst, e.dst_side):
                continue
            p0, p1 = src.side_point(s_side), n.side_point(d_side)
            if _segment_hits(d, p0, p1, {src.id, n.id}):
                continue
            dist = float(np.hypot(n.cx - old.cx, n.cy - old.cy))
            options.append((dist, e, n, s_side, d_side))
    if not options:  # no clean rewiring exists: fall back to reversing (still a semantic error)
        return _reversed_edge(d, style, rng, _ref)
    options.sort(key=lambda o: (o[0], o[1].id, o[2].id))
    top = options[: min(4, len(options))]
    _, e, n, s_side, d_side = top[int(rng.integers(len(top)))]
    before = _edge_name(d, e)
    e.dst, e.src_side, e.dst_side, e.route = n.id, s_side, d_side, "straight"
    defect = InjectedDefect(
        kind="rewired_endpoint",
        subtype="endpoint_attachment",
        target=before,
        detail=f"drawn as {_edge_name(d, e)}",
    )
    return Built(d, DeckOptions(style=style), [defect])


def _changed_label(d: Diagram, style: EdgeStyle, rng: Rng, _ref: bytes) -> Built:
    d = d.copy()
    n = d.nodes[int(rng.integers(len(d.nodes)))]
    before = n.label
    regular, _ = d.font_files()
    used = {m.label for m in d.nodes}
    # a different word that still fits on one line in the box: only the meaning changes
    fits = [
        lb
        for lb in LABELS
        if lb not in used
        and text_width(lb, regular, n.font_px) + 2 * TEXT_PAD_EM * n.font_px <= n.w
    ]
    n.label = fits[int(rng.integers(len(fits)))] if fits else _unused_label(d, rng)
    defect = InjectedDefect(
        kind="changed_label", target=f'node "{before}"', detail=f'labelled "{n.label}"'
    )
    return Built(d, DeckOptions(style=style), [defect])


# ----------------------------------------------------------------------------------------------
# Render gate


def _row_gap(d: Diagram, n: Node) -> float:
    """Pixels between ``n`` and its nearest neighbour in the same row (or its cell's spare)."""
    cell_w = d.grid[n.panel][2]
    gaps = [cell_w - n.w]
    for m in d.nodes:
        if m.id != n.id and m.row == n.row and abs(m.cy - n.cy) < n.h:
            gaps.append(abs(m.cx - n.cx) - (m.w + n.w) / 2)
    return max(0.0, min(gaps))


def _overflowing_text(d: Diagram, style: EdgeStyle, rng: Rng, _ref: bytes) -> Built:
    d = d.copy()
    regular, _ = d.font_files()
    # labels in dark text first (white ones turn dark, or what spills onto the page would vanish)
    order = [int(i) for i in rng.permutation(len(d.nodes))]
    order.sort(key=lambda i: d.nodes[i].text_color[0] >= 128)
    k = max(1, int(np.ceil(OVERFLOW_SHARE * len(d.nodes))))
    gaps = {n.id: _row_gap(d, n) for n in d.nodes}
    lo, hi = OVERFLOW_SCALE
    for i in sorted(order[:k]):
        n = d.nodes[i]
        spill = min(OVERFLOW_SPILL * gaps[n.id], OVERFLOW_SPILL_EM * n.font_px)
        width = text_width(n.label, regular, n.font_px)
        scale = min(hi, max(lo, (n.w + 2 * spill) / width))
        if scale * width < n.w + 2 * spill:  # narrow the box around the same centre
            cx = n.cx
            n.w = float(round(scale * width - 2 * spill))
            n.x = float(round(cx - n.w / 2))
            n.radius_px = min(n.radius_px, 0.3 * min(n.w, n.h))
        n.font_px = round(n.font_px * scale, 1)
        n.wrap = False
        if n.text_color[0] >= 128:  # white text would vanish where it leaves its dark box
            n.text_color = TEXT_DARK
    defect = InjectedDefect(
        kind="overflowing_text",
        subtype="overflow",
        target=f"{k} of {len(d.nodes)} node labels",
        detail="one-line labels run past both sides of their boxes",
    )
    return Built(d, DeckOptions(style=style), [defect])


# ----------------------------------------------------------------------------------------------
# Stage 3 (the gates pass)


def _stage3(kind: str, subtype: str, change: Callable[[Diagram, Rng], str]) -> VariantFn:
    def make(d: Diagram, style: EdgeStyle, rng: Rng, _ref: bytes) -> Built:
        d = d.copy()
        target = change(d, rng)
        return Built(
            d, DeckOptions(style=style), [InjectedDefect(kind=kind, subtype=subtype, target=target)]
        )

    return make


def _shift_nodes(d: Diagram, rng: Rng) -> str:
    pool = _motif_nodes(d) or [d.nodes[0]]
    k = min(len(pool), 2)
    moved = [pool[int(i)] for i in rng.permutation(len(pool))[:k]]
    for n in moved:
        cell_h = d.grid[n.panel][3]
        away = 1.0 if n.row > d.chain_row else -1.0
        if n.row == d.chain_row:
            away = 1.0 if d.chain_row == 0 else -1.0
        n.y = float(round(n.y + away * SHIFT_CELL_FRACTION * cell_h))
    return ", ".join(_node_name(n) for n in moved)


def _wrong_fill(d: Diagram, rng: Rng) -> str:
    groups: dict[tuple[int, int, int], list[Node]] = {}
    for n in d.nodes:
        groups.setdefault(n.fill, []).append(n)
    biggest = max(groups.values(), key=lambda g: (len(g), g[0].fill))
    dark_text = biggest[0].text_color[0] < 128
    used = {n.fill for n in d.nodes}
    # keep the label readable: a light fill for dark text, a dark fill for light text
    pool = [p[0] for p in PALETTE if (p[2][0] < 128) == dark_text and p[0] not in used]
    # the most different of the unused fills, so the change is clear
    old = np.asarray(biggest[0].fill, dtype=float)
    fill = (
        max(pool, key=lambda c: float(np.abs(np.asarray(c, dtype=float) - old).sum()))
        if pool
        else FALLBACK_DARK_FILL
    )
    for n in biggest:
        n.fill = fill
    return f"{len(biggest)} of {len(d.nodes)} nodes"


def _wrong_stroke(d: Diagram, _rng: Rng) -> str:
    colour, scale = WRONG_STROKE
    for n in d.nodes:
        n.stroke = colour
        n.stroke_px = n.stroke_px * scale
    return f"all {len(d.nodes)} nodes"


def _dash_lost(d: Diagram, _rng: Rng) -> str:
    dashed = [e for e in d.edges if e.dashed]
    for e in dashed:
        e.dashed = False
    return ", ".join(_edge_name(d, e) for e in dashed)


def _small_font(d: Diagram, _rng: Rng) -> str:
    for n in d.nodes:
        n.font_px = round(n.font_px * SMALL_FONT_SCALE, 1)
    return f"all {len(d.nodes)} node labels"


def _open_arrowheads(d: Diagram, _rng: Rng) -> str:
    for e in d.edges:
        e.head = "arrow"
    return f"all {len(d.edges)} edges"


def _corner_radius(d: Diagram, _rng: Rng) -> str:
    for n in d.nodes:
        n.radius_px = 0.0 if n.radius_px > 0 else round(0.3 * min(n.w, n.h), 1)
    return f"all {len(d.nodes)} nodes"


def _line_width(d: Diagram, _rng: Rng) -> str:
    for e in d.edges:
        e.width_px = e.width_px * LINE_WIDTH_SCALE
    return f"all {len(d.edges)} edges"


def _bold_labels(d: Diagram, _rng: Rng) -> str:
    for n in d.nodes:
        n.bold = True
    return f"all {len(d.nodes)} node labels"


def _text_colour(d: Diagram, _rng: Rng) -> str:
    dark, light = WRONG_TEXT_COLOURS
    for n in d.nodes:
        n.text_color = dark if n.text_color[0] < 128 else light
    return f"all {len(d.nodes)} node labels"


def _wrapped_labels(d: Diagram, rng: Rng) -> str:
    regular, _ = d.font_files()
    # Under half of all text frames (labels and panel titles): more would fail Stage 2.
    limit = max(1, int(WRAP_SHARE * (len(d.nodes) + len(d.panels))))
    wrapped: list[Node] = []
    for i in rng.permutation(len(d.nodes)):
        n = d.nodes[int(i)]
        two_lines = 2 * LINE_HEIGHT_EM * n.font_px + 2 * TEXT_INSET_PX
        if len(wrapped) >= limit or two_lines > n.h:
            continue  # a second line that overflows would be another defect
        width = text_width(n.label, regular, n.font_px)
        n.text_side_inset_px = max(0.0, (n.w - WRAP_WIDTH_FRACTION * width) / 2)
        wrapped.append(n)
    wrapped.sort(key=lambda n: n.id)
    return ", ".join(_node_name(n) for n in wrapped)


def _misaligned(d: Diagram, _rng: Rng) -> str:
    chain = [n for n in d.nodes if n.row == d.chain_row]
    moved = chain[1::2]
    for k, n in enumerate(moved):
        n.y += MISALIGN_PX if k % 2 == 0 else -MISALIGN_PX
    return ", ".join(_node_name(n) for n in moved)


def _detached(d: Diagram, style: EdgeStyle, rng: Rng, _ref: bytes) -> Built:
    d = d.copy()
    for e in d.edges:
        e.end_gap_px = DETACH_GAP_PX
    defect = InjectedDefect(
        kind="detached_ends",
        subtype="endpoint_attachment",
        target=f"all {len(d.edges)} edges",
        detail=f"both ends {DETACH_GAP_PX:.0f} px short of the nodes",
    )
    return Built(d, DeckOptions(style="freelines"), [defect])


# ----------------------------------------------------------------------------------------------
# Artifact gate


def _artifact(**opts: object) -> VariantFn:
    def make(d: Diagram, style: EdgeStyle, _rng: Rng, ref: bytes) -> Built:
        kw = dict(opts)
        if kw.pop("overlay", False):
            kw["overlay_png"] = ref
        return Built(d, DeckOptions(style=style, **kw), [])  # type: ignore[arg-type]

    return make


def _variants() -> dict[str, Variant]:
    v = [
        Variant("faithful_connectors", "pass", _faithful("connectors"), fixed_style="connectors"),
        Variant("faithful_freelines", "pass", _faithful("freelines"), fixed_style="freelines"),
        Variant("faithful_groups", "pass", _faithful("groups"), fixed_style="groups"),
        Variant("reversed_edge", "semantic", _reversed_edge),
        Variant("missing_node", "semantic", _missing_node),
        Variant("extra_node", "semantic", _extra_node),
        Variant("rewired_endpoint", "semantic", _rewired_endpoint),
        Variant("changed_label", "semantic", _changed_label),
        Variant("overflowing_text", "render", _overflowing_text),
        Variant("shifted_layout", "pass", _stage3("shifted_layout", "node_position", _shift_nodes)),
        Variant("wrong_fill", "pass", _stage3("wrong_fill", "node_fill", _wrong_fill)),
        Variant("wrong_stroke", "pass", _stage3("wrong_stroke", "node_stroke", _wrong_stroke)),
        Variant("dash_lost", "pass", _stage3("dash_lost", "dash_style", _dash_lost)),
        Variant("wrong_font_size", "pass", _stage3("wrong_font_size", "font_size", _small_font)),
        Variant(
            "arrowhead_style",
            "pass",
            _stage3("arrowhead_style", "arrowhead_style", _open_arrowheads),
        ),
        Variant("corner_radius", "pass", _stage3("corner_radius", "corner_radius", _corner_radius)),
        Variant("line_width", "pass", _stage3("line_width", "line_width", _line_width)),
        Variant("font_style", "pass", _stage3("font_style", "font_style", _bold_labels)),
        Variant("text_color", "pass", _stage3("text_color", "text_color", _text_colour)),
        Variant(
            "wrapped_labels", "pass", _stage3("wrapped_labels", "unexpected_wrap", _wrapped_labels)
        ),
        Variant("misaligned", "pass", _stage3("misaligned", "alignment", _misaligned)),
        Variant("detached_ends", "pass", _detached, fixed_style="freelines"),
        Variant("pasted_reference", "artifact", _artifact(overlay=True), "no_reference_copy"),
        Variant("too_few_components", "artifact", _artifact(text_only=True), "editable_components"),
        Variant(
            "external_hyperlink",
            "artifact",
            _artifact(hyperlink=EXTERNAL_URL),
            "no_external_relationships",
        ),
        Variant("embedded_ole", "artifact", _artifact(ole_object=True), "no_embedded_objects"),
        Variant("macro", "artifact", _artifact(macro=True), "no_macros"),
    ]
    return {x.name: x for x in v}


VARIANTS: dict[str, Variant] = _variants()
"""Every variant by name."""

FAITHFUL = ("faithful_connectors", "faithful_freelines", "faithful_groups")
SEMANTIC = ("reversed_edge", "missing_node", "extra_node", "rewired_endpoint", "changed_label")
RENDER = ("overflowing_text",)
STAGE3 = (
    "shifted_layout", "wrong_fill", "wrong_stroke", "dash_lost", "wrong_font_size",
    "arrowhead_style", "corner_radius", "line_width", "font_style", "text_color",
)  # fmt: skip
EXTRA_STAGE3 = ("wrapped_labels", "misaligned", "detached_ends")
"""Further Stage 3 variants, not in the default configurations (use them with ``--config``)."""
ARTIFACT = ("pasted_reference", "too_few_components", "external_hyperlink", "embedded_ole", "macro")
