"""Seeded diagram specs for the Graphviz benchmark, and their DOT text.

A spec is a small directed graph (5-12 nodes) of one *kind* -- ``chain`` (a main chain with side
inputs and outputs), ``fan_out``, ``fan_in``, ``diamond`` (split and re-merge, repeated),
``crossing`` (two layers wired with crossing edges) and ``back_edges`` (a chain closed by edges
that run backwards) -- plus the Graphviz styling it is drawn with. The kind, the spline mode, the
arrowhead, the node shape, the engine and the rank direction each cycle over the task index with
different periods, so a dozen tasks cover every value of each; labels, colours, fonts, pen widths
and the image width come from the task's seed. Node labels come from the synthetic generator's
vocabulary (:data:`generation.diagram.LABELS`), colours from its palette.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from generation.diagram import LABELS, PALETTE, RGB

Kind = Literal["chain", "fan_out", "fan_in", "diamond", "crossing", "back_edges"]
NodeShape = Literal["box", "rounded", "ellipse", "cylinder", "diamond", "plainfill"]
Engine = Literal["dot", "neato", "fdp"]

KINDS: tuple[Kind, ...] = ("chain", "fan_out", "diamond", "crossing", "back_edges", "fan_in")
SPLINES: tuple[str, ...] = ("true", "ortho", "polyline", "curved")
"""Graphviz ``splines`` values: curved splines, orthogonal, polyline, arcs."""
ARROWHEADS: tuple[str, ...] = ("normal", "vee", "open", "empty", "onormal")
NODE_SHAPES: tuple[NodeShape, ...] = ("box", "ellipse", "rounded", "plainfill", "box", "ellipse")
"""The main node shape of a task (cycles); box tasks also get a diamond and a cylinder."""
FONTS: tuple[str, ...] = ("DejaVu Sans", "Liberation Sans", "Liberation Serif", "Noto Sans")
EDGE_WORDS: tuple[str, ...] = (
    "yes", "no", "data", "retry", "batch", "logits", "tokens", "ok", "error", "update",
)  # fmt: skip
"""Edge labels (free text, never nodes)."""
EDGE_COLOURS: tuple[str, ...] = ("000000", "333333", "1F3A5F", "444444")
MIN_NODES, MAX_NODES = 5, 12
TARGET_WIDTH_PX = (700, 1900)
"""The reference PNG's width is drawn from this range (the dpi follows from the layout)."""


@dataclass(frozen=True)
class GvNode:
    key: str
    label: str
    shape: NodeShape
    fill: str | None
    """RRGGBB, or None: not filled (white page shows through)."""
    stroke: str
    text: str


@dataclass(frozen=True)
class GvEdge:
    src: str
    dst: str
    label: str = ""


@dataclass(frozen=True)
class GvStyle:
    engine: Engine
    splines: str
    arrowhead: str
    rankdir: str
    font: str
    fontsize: float
    """Points (Graphviz units)."""
    penwidth: float
    edge_colour: str
    target_width_px: int


@dataclass(frozen=True)
class GvSpec:
    task_id: str
    kind: Kind
    nodes: tuple[GvNode, ...]
    edges: tuple[GvEdge, ...]
    style: GvStyle

    def with_rankdir(self, rankdir: str) -> GvSpec:
        s = self.style
        style = GvStyle(s.engine, s.splines, s.arrowhead, rankdir, s.font, s.fontsize,
                        s.penwidth, s.edge_colour, s.target_width_px)  # fmt: skip
        return GvSpec(self.task_id, self.kind, self.nodes, self.edges, style)


# ------------------------------------------------------------------------------------------
# graph shapes: edges between node indices 0..n-1


def _attach(rng: np.random.Generator, edges: list[tuple[int, int]], anchors: list[int],
            first: int, n: int) -> None:  # fmt: skip
    """Hang nodes ``first..n-1`` on ``anchors`` as side outputs or side inputs."""
    for k in range(first, n):
        a = anchors[int(rng.integers(len(anchors)))]
        edges.append((a, k) if rng.random() < 0.6 else (k, a))


def _chain(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    m = min(n - 2, int(rng.integers(4, 7)))
    edges = [(i, i + 1) for i in range(m - 1)]
    _attach(rng, edges, list(range(m)), m, n)
    return edges


def _fan_out(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    k = min(n - 1, int(rng.integers(3, 6)))
    edges = [(0, i) for i in range(1, k + 1)]
    for j in range(k + 1, n):  # grandchildren, one per child first
        edges.append((1 + (j - k - 1) % k, j))
    return edges


def _fan_in(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    k = min(n - 2, int(rng.integers(3, 6)))
    merge = k
    edges = [(i, merge) for i in range(k)]
    edges += [(i, i + 1) for i in range(merge, n - 1)]
    return edges


def _diamond(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    edges: list[tuple[int, int]] = []
    top, nxt = 0, 1
    while nxt + 2 < n:  # top -> (b, c) -> d
        b, c, d = nxt, nxt + 1, nxt + 2
        edges += [(top, b), (top, c), (b, d), (c, d)]
        top, nxt = d, nxt + 3
    for k in range(nxt, n):
        edges.append((k - 1 if k > nxt else top, k))
    if rng.random() < 0.5 and n >= 7:
        edges.append((1, n - 1))  # a shortcut past the merge
    return edges


def _crossing(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    """source -> layer A -> layer B -> sink, A and B wired as one cycle (A[i] -> B[i] and
    A[i] -> B[i+1]): no two-layer drawing of a cycle is free of crossings."""
    k = max(2, min(4, (n - 2) // 2))
    a = list(range(1, k + 1))
    b = list(range(k + 1, 2 * k + 1))
    edges = [(0, x) for x in a]
    edges += [(a[i], b[i]) for i in range(k)]
    edges += [(a[i], b[(i + 1) % k]) for i in range(k)]
    if k > 2 and rng.random() < 0.5:
        edges.remove((a[-1], b[0]))  # an open zig-zag: still crossings after reordering
        edges.append((a[-1], b[k // 2]))
    sink = 2 * k + 1
    if sink < n:
        edges += [(x, sink) for x in b]
        for j in range(sink + 1, n):
            edges.append((j - 1, j))
    return edges


def _back_edges(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    m = min(n - 1, int(rng.integers(5, 8)))
    edges = [(i, i + 1) for i in range(m - 1)]
    edges.append((m - 1, int(rng.integers(0, m - 2))))  # closes a loop
    if m >= 6:
        edges.append((m - 2, 1) if (m - 2, 1) not in edges else (m - 3, 0))
    _attach(rng, edges, list(range(m)), m, n)
    return edges


_SHAPERS = {
    "chain": _chain,
    "fan_out": _fan_out,
    "fan_in": _fan_in,
    "diamond": _diamond,
    "crossing": _crossing,
    "back_edges": _back_edges,
}


# ------------------------------------------------------------------------------------------


def _hex(rgb: RGB) -> str:
    return "{:02X}{:02X}{:02X}".format(*rgb)


def _node_shapes(main: NodeShape, n: int, edges: list[tuple[int, int]]) -> list[NodeShape]:
    """``main`` for every node; box tasks draw their first branching node as a diamond and
    their last sink as a cylinder (a decision and a store)."""
    shapes: list[NodeShape] = [main] * n
    if main != "box":
        return shapes
    out = [sum(1 for s, _ in edges if s == i) for i in range(n)]
    branching = [i for i in range(n) if out[i] >= 2]
    sinks = [i for i in range(n) if out[i] == 0]
    if branching:
        shapes[branching[0]] = "diamond"
    if sinks and sinks[-1] not in branching[:1]:
        shapes[sinks[-1]] = "cylinder"
    return shapes


def make_spec(task_id: str, index: int, seed: int) -> GvSpec:
    """The spec of task ``index`` of the benchmark with ``seed``."""
    rng = np.random.default_rng([seed, index, 7])
    kind = KINDS[index % len(KINDS)]
    n = int(rng.integers(MIN_NODES, MAX_NODES + 1))
    pairs = _SHAPERS[kind](rng, n)
    n = 1 + max(max(p) for p in pairs)
    splines = SPLINES[index % len(SPLINES)]
    engine: Engine = "dot"
    if index % 3 == 2 and splines != "ortho":
        engine = "neato" if (index // 3) % 2 == 0 else "fdp"
    main = NODE_SHAPES[index % len(NODE_SHAPES)]
    filled = main == "plainfill" or rng.random() < 0.7
    fill, stroke, text = PALETTE[int(rng.integers(len(PALETTE)))]
    labels = [LABELS[int(k)] for k in rng.permutation(len(LABELS))[:n]]
    shapes = _node_shapes(main, n, pairs)
    nodes = tuple(
        GvNode(
            key=f"n{i}",
            label=labels[i],
            shape=shapes[i],
            fill=_hex(fill) if filled else None,
            stroke=_hex(stroke) if filled else "000000",
            text=_hex(text) if filled else "000000",
        )
        for i in range(n)
    )
    words = [EDGE_WORDS[int(k)] for k in rng.permutation(len(EDGE_WORDS))]
    n_labels = 0 if splines == "ortho" or index % 3 == 1 else int(rng.integers(1, 4))
    labelled = sorted(int(k) for k in rng.permutation(len(pairs))[:n_labels])
    edges = tuple(
        GvEdge(f"n{s}", f"n{d}", words[labelled.index(j)] if j in labelled else "")
        for j, (s, d) in enumerate(pairs)
    )
    style = GvStyle(
        engine=engine,
        splines=splines,
        arrowhead=ARROWHEADS[index % len(ARROWHEADS)],
        rankdir="TB" if (index // 2) % 2 == 0 else "LR",
        font=FONTS[int(rng.integers(len(FONTS)))],
        fontsize=float(rng.integers(11, 17)),
        penwidth=round(float(rng.uniform(1.0, 2.0)), 1),
        edge_colour=EDGE_COLOURS[int(rng.integers(len(EDGE_COLOURS)))],
        target_width_px=int(rng.integers(TARGET_WIDTH_PX[0], TARGET_WIDTH_PX[1] + 1)),
    )
    return GvSpec(task_id, kind, nodes, edges, style)


# ------------------------------------------------------------------------------------------

PAD_IN = 0.25
"""Graphviz ``pad`` (inches) around the drawing."""

_DOT_SHAPE = {
    "box": ("box", ""),
    "rounded": ("box", "rounded"),
    "ellipse": ("ellipse", ""),
    "cylinder": ("cylinder", ""),
    "diamond": ("diamond", ""),
    "plainfill": ("plaintext", ""),
}


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(spec: GvSpec, dpi: float) -> str:
    """The DOT source of ``spec``, drawn at ``dpi``."""
    st = spec.style
    g = [
        f"pad={PAD_IN}",
        f"dpi={dpi:.2f}",
        "bgcolor=white",
        f"splines={st.splines}",
        f"rankdir={st.rankdir}",
        "nodesep=0.45",
        "ranksep=0.55",
    ]
    if st.engine != "dot":
        g += ["overlap=false", 'sep="+14"', "start=1"]
        if st.engine == "neato":
            g.append("mode=major")
    lines = [f"digraph {_q(spec.task_id)} {{", "  graph [" + ", ".join(g) + "];"]
    lines.append(
        f"  node [fontname={_q(st.font)}, fontsize={st.fontsize:g}, penwidth={st.penwidth:g}, "
        'margin="0.18,0.08"];'
    )
    lines.append(
        f"  edge [fontname={_q(st.font)}, fontsize={st.fontsize - 1:g}, "
        f'penwidth={st.penwidth:g}, color="#{st.edge_colour}", arrowhead={st.arrowhead}];'
    )
    for nd in spec.nodes:
        shape, extra = _DOT_SHAPE[nd.shape]
        styles = [extra] if extra else []
        attrs = [f"label={_q(nd.label)}", f"shape={shape}", f'fontcolor="#{nd.text}"']
        if nd.fill is not None:
            styles.append("filled")
            attrs.append(f'fillcolor="#{nd.fill}"')
        attrs.append(f'color="#{nd.stroke}"')
        if styles:
            attrs.append(f"style={_q(','.join(styles))}")
        lines.append(f"  {nd.key} [{', '.join(attrs)}];")
    for e in spec.edges:
        attr = f" [label={_q(' ' + e.label + ' ')}]" if e.label else ""
        lines.append(f"  {e.src} -> {e.dst}{attr};")
    lines.append("}")
    return "\n".join(lines) + "\n"
