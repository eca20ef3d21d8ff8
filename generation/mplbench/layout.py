"""Hand-style layered layout of a seeded graph, as a real-figure truth spec.

A matplotlib user places boxes on a grid and joins them with arrows; this module does the same
for the Graphviz benchmark's seeded graphs (:func:`generation.gvbench.spec.make_spec`: graph
kinds, labels, colours). Nodes go into layers by longest path (back edges, found by a DFS in
node order, do not count), layers into columns (``LR``) or rows (``TB``), nodes within a layer
ordered by the mean position of their parents. Edges between neighbouring layers are straight
or elbows; the rest arc (a quadratic curve bent to whichever side clears the other boxes). A
task whose arcs cannot clear every box is laid out again with a wider spacing.

The result is a :class:`generation.realfig.model.Fig` in pixels of the image matplotlib will
draw (:mod:`generation.mplbench.draw`), so the real-figure deck builder and variants read it
unchanged, with the matplotlib styling (:class:`MplStyle`) beside it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from generation.gvbench.layout import SHAPE_OF
from generation.gvbench.spec import FONTS, GvSpec
from generation.realfig.geometry import route
from generation.realfig.model import BoxT, E, Fig, N, P, Shape, T
from judge.errors import BenchmarkError

ArrowKind = Literal["-|>", "->", "simple", "fancy", "-|>wide", "annotate", "arrow"]
ARROWS: tuple[ArrowKind, ...] = ("-|>", "->", "annotate", "simple", "-|>wide", "arrow", "fancy")
"""How a task draws its arrows: a ``FancyArrowPatch`` ``arrowstyle`` (``-|>wide``: a filled
head with a wider, shorter triangle), ``annotate`` (``ax.annotate`` with the classic
``arrowprops`` of ``width``/``headwidth``/``headlength``, no ``arrowstyle``: one filled polygon)
or ``arrow`` (``ax.arrow``, a ``FancyArrow`` polygon). The last two are straight only: their
tasks route straight, and an edge that must arc is drawn with ``-|>``."""
STRAIGHT_ONLY: frozenset[str] = frozenset({"annotate", "arrow"})
EdgeRoute = Literal["straight", "elbow", "arc"]
ROUTES: tuple[EdgeRoute, ...] = ("straight", "arc", "elbow")
"""How a task joins neighbouring layers (other edges always arc)."""
BOX_STYLES: tuple[str, ...] = ("square", "round", "round4", "roundtooth")
"""matplotlib ``boxstyle`` of rectangle nodes (``round4``, ``roundtooth``: hand-drawn looks)."""
TARGET_WIDTH_PX = (600, 1900)
"""The reference's width is drawn from this range; the dpi follows from the layout."""
DPI_RANGE = (60, 220)
FONT_PT = (9, 14)
"""Label font size range, points."""
LINE_PT = (0.8, 2.0)
"""Edge and outline width range, points."""
TEXT_EM = 0.6
"""Average glyph advance of a label, in ems (sizes the boxes)."""
LAYER_GAP_EM = (3.5, 6.0)
"""Gap between layers, ems (range; more on the retry)."""
SIBLING_GAP_EM = (1.6, 3.0)
"""Gap between nodes of one layer, ems."""
MARGIN_EM = 2.0
MAX_ELONGATION = 2.0
"""A drawing is at most this many times longer along its layers than across them (a thin
chain gets room beside it, as a figure on a page does)."""
TITLE_EM = 1.5
"""Title font size, in label ems."""
PANEL_PAD_EM = 1.2
ALIGNED_PX = 0.5
"""Nodes whose centres are this many ems apart across the layers are joined straight, never
by an elbow."""
CLEAR_PX = 3.0
"""An arc must pass this far from every box but its two ends."""
BENDS = (0.22, -0.22, 0.4, -0.4, 0.6, -0.6, 0.85, -0.85)
"""Sideways bulges an arc tries, as a share of its chord (first that clears the boxes)."""
VIA_EM = 1.0
"""An edge routed round the whole drawing runs this far outside the outermost boxes."""
JPEG_QUALITIES = (0, 0, 0, 70, 85)
"""Per task: 0 = plain PNG, else the reference goes through JPEG at that quality first."""
ATTEMPTS = 4
TITLES = ("Pipeline", "System overview", "Training loop", "Inference")


@dataclass(frozen=True)
class MplStyle:
    arrow: ArrowKind
    route: EdgeRoute
    box: str
    dpi: int
    """Set by :func:`layout` from ``target_width_px``."""
    target_width_px: int
    font: str
    font_pt: float
    line_pt: float
    mutation: float
    """``mutation_scale`` of the arrows (head size, points); for ``annotate`` and ``arrow`` the
    head's width in points."""
    edge_colour: str
    jpeg: int
    title: str
    panel: bool
    rankdir: str


def make_style(spec: GvSpec, index: int, seed: int) -> MplStyle:
    rng = np.random.default_rng([seed, index, 11])
    arrow = ARROWS[index % len(ARROWS)]
    how = ROUTES[index % len(ROUTES)]
    if arrow in STRAIGHT_ONLY or (arrow in ("simple", "fancy") and how == "elbow"):
        how = "straight"  # these draw straight, or along one quadratic curve, only
    lw = round(float(rng.uniform(*LINE_PT)), 1)
    mutation = (
        float(rng.uniform(8, 14)) if arrow in ("simple", "fancy") else float(rng.uniform(10, 20))
    )
    return MplStyle(
        arrow=arrow,
        route=how,
        box=BOX_STYLES[(index // 2) % len(BOX_STYLES)],
        dpi=72,
        target_width_px=int(rng.integers(TARGET_WIDTH_PX[0], TARGET_WIDTH_PX[1] + 1)),
        font=FONTS[int(rng.integers(len(FONTS)))],
        font_pt=float(rng.integers(FONT_PT[0], FONT_PT[1] + 1)),
        line_pt=lw,
        mutation=round(mutation, 1),
        edge_colour=spec.style.edge_colour,
        jpeg=JPEG_QUALITIES[int(rng.integers(len(JPEG_QUALITIES)))],
        title=TITLES[int(rng.integers(len(TITLES)))] if index % 2 else "",
        panel=index % 3 == 2,
        rankdir="LR" if index % 4 in (0, 3) else "TB",
    )


# ------------------------------------------------------------------------------------------
# layering


def _back_edges(n: int, pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    out: dict[int, list[int]] = {i: [] for i in range(n)}
    for s, d in pairs:
        out[s].append(d)
    state = [0] * n  # 0 new, 1 on stack, 2 done
    back: set[tuple[int, int]] = set()

    def visit(u: int) -> None:
        state[u] = 1
        for v in out[u]:
            if state[v] == 1:
                back.add((u, v))
            elif state[v] == 0:
                visit(v)
        state[u] = 2

    for i in range(n):
        if state[i] == 0:
            visit(i)
    return back


def layers_of(n: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    """Nodes by layer (longest path from a source, back edges ignored; a source sits just
    before the nearest node it feeds), each layer ordered by the mean position of its parents
    in the layer before."""
    back = _back_edges(n, pairs)
    fwd = [(s, d) for s, d in pairs if (s, d) not in back and s != d]
    layer = [0] * n
    for _ in range(n):
        changed = False
        for s, d in fwd:
            if layer[d] < layer[s] + 1:
                layer[d] = layer[s] + 1
                changed = True
        if not changed:
            break
    # a side input sits just before the node it feeds, not in the first layer
    for v in range(n):
        succ = [layer[d] for s, d in fwd if s == v]
        if succ and not any(d == v for _, d in fwd):
            layer[v] = min(succ) - 1
    out: list[list[int]] = [[] for _ in range(max(layer) + 1)]
    for i in range(n):
        out[layer[i]].append(i)
    for k in range(1, len(out)):
        prev = {v: j for j, v in enumerate(out[k - 1])}

        def bary(v: int, prev: dict[int, int] = prev) -> float:
            ps = [prev[s] for s, d in fwd if d == v and s in prev]
            return sum(ps) / len(ps) if ps else float(len(prev))

        out[k].sort(key=lambda v: (bary(v), v))
    return out


# ------------------------------------------------------------------------------------------
# geometry


def _size(label: str, shape: Shape, font_px: float) -> tuple[float, float]:
    w = TEXT_EM * font_px * len(label) + 1.6 * font_px
    h = 2.2 * font_px
    if shape == "ellipse":
        return w * 1.3, h * 1.25
    if shape == "diamond":
        return w * 1.6, h * 1.9
    if shape == "can":
        return w, h * 1.5
    return w, h


def _inflate(b: BoxT, d: float) -> BoxT:
    return (b[0] - d, b[1] - d, b[2] + 2 * d, b[3] + 2 * d)


def _inside(p: tuple[float, float], b: BoxT) -> bool:
    return b[0] <= p[0] <= b[0] + b[2] and b[1] <= p[1] <= b[1] + b[3]


def _clear(pts: list[tuple[float, float]], boxes: list[BoxT], size: tuple[int, int]) -> bool:
    """No segment of ``pts`` (sampled) enters any of ``boxes`` or leaves the image."""
    if any(not (0 <= x <= size[0] and 0 <= y <= size[1]) for x, y in pts):
        return False
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        steps = max(2, int(math.hypot(x1 - x0, y1 - y0) / 3))
        for k in range(steps + 1):
            t = k / steps
            p = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
            if any(_inside(p, b) for b in boxes):
                return False
    return True


def _route_edge(
    fig: Fig, src: str, dst: str, adjacent: bool, st: MplStyle, width_px: float
) -> E | None:
    """The edge ``src -> dst``: the task's route between neighbouring layers, else the first
    arc that clears every other box (None when none does)."""
    others = [_inflate(n.box, CLEAR_PX) for n in fig.nodes if n.key not in (src, dst)]
    base = E(src, dst, colour=fig.edge_colour, width_px=width_px)
    tries: list[E] = []
    if adjacent and st.route == "straight":
        tries.append(base)
    a, b = _centre(fig.box_of(src)), _centre(fig.box_of(dst))
    aligned = abs(a[1] - b[1] if st.rankdir == "LR" else a[0] - b[0]) < ALIGNED_PX * fig.font_px
    if adjacent and st.route == "elbow" and not aligned:
        tries.append(replace(base, route="hv" if st.rankdir == "LR" else "vh"))
        tries.append(base)
    tries += [replace(base, route="curved", bend=b) for b in BENDS]
    if adjacent:
        tries.insert(1, base)
    tries += _round_about(fig, base, st)
    for e in tries:
        if _clear(route(fig, e), others, fig.size):
            return e
    return None


def _round_about(fig: Fig, e: E, st: MplStyle) -> list[E]:
    """``e`` routed outside every box: over the top and under the bottom (``LR``), or past
    the left and right (``TB``)."""
    d = VIA_EM * fig.font_px
    (sx, sy), (tx, ty) = (_centre(fig.box_of(k)) for k in (e.src or "", e.dst))
    if st.rankdir == "LR":
        top = min(n.box[1] for n in fig.nodes) - d
        bottom = max(n.box[1] + n.box[3] for n in fig.nodes) + d
        return [replace(e, points=((sx, v), (tx, v))) for v in (top, bottom)]
    left = min(n.box[0] for n in fig.nodes) - d
    right = max(n.box[0] + n.box[2] for n in fig.nodes) + d
    return [replace(e, points=((v, sy), (v, ty))) for v in (left, right)]


def _centre(b: BoxT) -> tuple[float, float]:
    return (b[0] + b[2] / 2, b[1] + b[3] / 2)


def to_fig(spec: GvSpec, st: MplStyle, spacing: float) -> Fig | None:
    """The truth spec of ``spec`` laid out by hand (pixels at ``st.dpi``); ``spacing`` in
    0..1 picks the layer and sibling gaps within their ranges. None when an edge finds no
    clear route."""
    k = st.dpi / 72
    font_px = st.font_pt * k
    keys = [nd.key for nd in spec.nodes]
    index = {key: i for i, key in enumerate(keys)}
    pairs = [(index[e.src], index[e.dst]) for e in spec.edges]
    layers = layers_of(len(keys), pairs)
    layer_of = {v: li for li, layer in enumerate(layers) for v in layer}
    shapes = [SHAPE_OF[nd.shape] for nd in spec.nodes]
    if st.box == "round":  # matplotlib's rounded boxes are PowerPoint's rounded rectangles
        shapes = ["round" if s == "rect" else s for s in shapes]
    sizes = [_size(nd.label, shapes[i], font_px) for i, nd in enumerate(spec.nodes)]
    gap_l = (LAYER_GAP_EM[0] + (LAYER_GAP_EM[1] - LAYER_GAP_EM[0]) * spacing) * font_px
    gap_s = (SIBLING_GAP_EM[0] + (SIBLING_GAP_EM[1] - SIBLING_GAP_EM[0]) * spacing) * font_px
    lr = st.rankdir == "LR"
    # along = the layer axis, across = within a layer
    thick = [max(sizes[v][0 if lr else 1] for v in layer) for layer in layers]
    spans = [
        sum(sizes[v][1 if lr else 0] for v in layer) + gap_s * (len(layer) - 1) for layer in layers
    ]
    along_total = sum(thick) + gap_l * (len(layers) - 1)
    span = max(max(spans), along_total / MAX_ELONGATION)
    margin = MARGIN_EM * font_px
    top = margin + (TITLE_EM * 2.2 * font_px if st.title else 0.0)
    pad = (PANEL_PAD_EM + 2.0) * font_px if st.panel else 0.0
    origin = (margin + pad, top + pad)
    centres: dict[int, tuple[float, float]] = {}
    along = 0.0
    for li, layer in enumerate(layers):
        across = (span - spans[li]) / 2
        for v in layer:
            w, h = sizes[v]
            a_mid = along + thick[li] / 2
            c_mid = across + (h if lr else w) / 2
            centres[v] = (a_mid, c_mid) if lr else (c_mid, a_mid)
            across += (h if lr else w) + gap_s
        along += thick[li] + gap_l
    along -= gap_l
    width = origin[0] + (along if lr else span) + pad + margin
    height = origin[1] + (span if lr else along) + pad + margin
    nodes = []
    for i, nd in enumerate(spec.nodes):
        (cx, cy), (w, h) = centres[i], sizes[i]
        x, y = origin[0] + cx - w / 2, origin[1] + cy - h / 2
        stroke = None if nd.shape == "plainfill" else nd.stroke
        nodes.append(N(nd.key, nd.label, (x, y, w, h), shapes[i], nd.fill, stroke, nd.text))
    size = (math.ceil(width), math.ceil(height))
    fig = Fig(id=spec.task_id, size=size, nodes=tuple(nodes), edges=(), font_px=font_px,
              font=st.font, edge_colour=st.edge_colour)  # fmt: skip
    width_px = st.line_pt * k
    edges = []
    for (s, d), ge in zip(pairs, spec.edges, strict=True):
        adjacent = layer_of[d] - layer_of[s] == 1
        e = _route_edge(fig, ge.src, ge.dst, adjacent, st, width_px)
        if e is None:
            return None
        edges.append(e)
    fig = replace(fig, edges=tuple(edges))
    texts = list(_edge_labels(fig, spec, font_px))
    if st.title:
        tw = TEXT_EM * TITLE_EM * font_px * len(st.title) + font_px
        th = 1.6 * TITLE_EM * font_px
        texts.append(T(st.title, ((width - tw) / 2, margin * 0.6, tw, th), "title", "000000",
                       TITLE_EM * font_px, bold=True))  # fmt: skip
    panels: tuple[P, ...] = ()
    if st.panel:
        px0 = min(n.box[0] for n in nodes) - PANEL_PAD_EM * font_px
        py0 = min(n.box[1] for n in nodes) - PANEL_PAD_EM * font_px - 2.0 * font_px
        px1 = max(n.box[0] + n.box[2] for n in nodes) + PANEL_PAD_EM * font_px
        py1 = max(n.box[1] + n.box[3] for n in nodes) + PANEL_PAD_EM * font_px
        title = "Stage A" if not st.title else "Components"
        tb = (px0 + 0.6 * font_px, py0 + 0.4 * font_px, TEXT_EM * font_px * len(title) + font_px,
              1.5 * font_px)  # fmt: skip
        panels = (P("panel", title, (px0, py0, px1 - px0, py1 - py0), None, "777777",
                    dashed=True, round=True, title_box=tb),)  # fmt: skip
    notes = f"{spec.kind}; matplotlib {st.arrow} {st.route} {st.box} dpi {st.dpi}"
    return replace(fig, texts=tuple(texts), panels=panels, notes=notes)


def _edge_labels(fig: Fig, spec: GvSpec, font_px: float) -> list[T]:
    out = []
    for e, ge in zip(fig.edges, spec.edges, strict=True):
        if not ge.label:
            continue
        pts = route(fig, e)
        (x0, y0), (x1, y1) = _midpoint(pts)
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy) or 1.0
        fs = 0.9 * font_px
        w, h = TEXT_EM * fs * len(ge.label) + 0.6 * fs, 1.4 * fs
        off = 0.5 * math.hypot(w * dy / norm, h * dx / norm) + 0.4 * fs
        cx, cy = mx - dy / norm * off, my + dx / norm * off
        out.append(T(ge.label, (cx - w / 2, cy - h / 2, w, h), "edge_label", "000000", fs))
    return out


def _midpoint(pts: list[tuple[float, float]]) -> tuple[tuple[float, float], tuple[float, float]]:
    """The segment of ``pts`` holding half its length."""
    lengths = [math.dist(p, q) for p, q in itertools.pairwise(pts)]
    half, run = sum(lengths) / 2, 0.0
    for i, seg in enumerate(lengths):
        if run + seg >= half:
            return pts[i], pts[i + 1]
        run += seg
    return pts[-2], pts[-1]


def layout(spec: GvSpec, st: MplStyle) -> tuple[Fig, MplStyle]:
    """:func:`to_fig` at the dpi that makes the drawing ``target_width_px`` wide, with the
    spacing widened until every edge clears the boxes; the spec and the style with its dpi."""
    for attempt in range(ATTEMPTS):
        spacing = attempt / (ATTEMPTS - 1)
        probe = to_fig(spec, replace(st, dpi=72), spacing)
        if probe is None:
            continue
        dpi = round(min(max(st.target_width_px / probe.size[0] * 72, DPI_RANGE[0]), DPI_RANGE[1]))
        final = replace(st, dpi=dpi)
        fig = to_fig(spec, final, spacing)
        if fig is not None:
            problems = fig.check()
            if problems:
                raise BenchmarkError(f"{spec.task_id}: layout wrong: " + "; ".join(problems))
            return fig, final
    raise BenchmarkError(f"{spec.task_id}: no layout clears every box ({ATTEMPTS} spacings)")
