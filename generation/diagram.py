"""The synthetic flow-diagram model and its seeded grid layout.

A :class:`Diagram` is what the generator draws (the raster reference) and rebuilds (the candidate
decks). Every coordinate is in **pixels of the reference image** (1600x900 by default); the deck
builder converts to EMU in one place. Layout, step by step:

* 1 or 2 panels side by side, each with a title band and a grid of ``rows x cols`` cells;
* a main chain of nodes along one row of each panel, left to right (straight edges);
* motifs hung on the rows next to the chain, placed greedily without crossing anything:
  ``branch_merge`` (chain[i] -> B -> chain[i+2], two elbow edges: a branch and a merge),
  ``feedback_loop`` (chain[j] -> X -> chain[j-1], a cycle closed by an elbow edge),
  ``side_output`` (chain[j] -> S) and ``side_input`` (I -> chain[j], a merge), straight edges;
* with two panels, a cross-panel edge from the last chain node of panel 0 to the first of panel 1.

Each motif claims the cells it occupies and the cells its elbow corners pass through; claims
never overlap and no two edges share a glue point, so no edge crosses a node or another edge.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from PIL import ImageFont

from judge.errors import BenchmarkError
from judge.schema import Box, TruthEdge, TruthGraph, TruthNode, TruthPanel

RGB = tuple[int, int, int]
Side = Literal["top", "left", "bottom", "right"]
Route = Literal["straight", "elbow"]

CANVAS_W, CANVAS_H = 1600, 900
"""Reference image size in pixels: 16:9, like the candidate slide (13.333 x 7.5 in at 120 px/in)."""
OUTER_MARGIN = 40
"""Pixels between the image edge and the panels."""
PANEL_SPACING = 40
"""Pixels between two panels."""
PANEL_PAD = 20
"""Pixels between a panel frame and its grid."""
TITLE_BAND = 60
"""Pixels at the top of a panel kept for its title."""
TITLE_PX = 26
"""Panel title font size (em), pixels."""
NODE_WIDTH_MAX = 0.8
"""Largest node width as a fraction of the cell width (leaves >= 20% for arrows between)."""
NODE_WIDTH_MIN = 0.5
TEXT_PAD_EM = 0.9
"""Horizontal room on each side of a label inside its node, in ems of the label font, so
LibreOffice never wraps a faithful label even if its text is a little wider than Pillow's."""
PANEL_STROKE: RGB = (176, 176, 176)
PANEL_STROKE_PX = 2.0
PANEL_RADIUS_PX = 12.0
TEXT_DARK: RGB = (20, 20, 20)
TEXT_LIGHT: RGB = (255, 255, 255)

FONT_FILES: dict[str, tuple[str, str]] = {
    "DejaVu Sans": (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    ),
    "Liberation Sans": (
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    ),
}
"""Font families used, with their Debian TTF files (regular, bold): the same files LibreOffice
uses for the deck, so reference and render share glyph shapes and widths."""

PALETTE: list[tuple[RGB, RGB, RGB]] = [
    ((207, 226, 243), (43, 87, 151), TEXT_DARK),
    ((217, 234, 211), (56, 118, 29), TEXT_DARK),
    ((252, 229, 205), (180, 95, 6), TEXT_DARK),
    ((230, 223, 242), (103, 78, 167), TEXT_DARK),
    ((255, 242, 204), (191, 144, 0), TEXT_DARK),
    ((244, 204, 204), (153, 0, 0), TEXT_DARK),
    ((238, 238, 238), (85, 85, 85), TEXT_DARK),
    ((43, 87, 151), (27, 58, 102), TEXT_LIGHT),
    ((31, 111, 120), (18, 64, 72), TEXT_LIGHT),
]
"""(fill, stroke, text) colour sets for nodes."""

EDGE_COLOURS: list[RGB] = [(34, 34, 34), (51, 51, 51), (68, 68, 68)]

LABELS = [
    "Input",
    "Encoder",
    "Decoder",
    "Loss",
    "Tokenizer",
    "Attention",
    "Pooling",
    "Classifier",
    "Dataset",
    "Augment",
    "Normalize",
    "Embedding",
    "Sampler",
    "Optimizer",
    "Output",
    "Preprocess",
    "Filter",
    "Segment",
    "Cluster",
    "Align",
    "Validate",
    "Report",
    "Annotate",
    "Train",
    "Evaluate",
    "Deploy",
    "Feature Map",
    "Backbone",
    "Projector",
    "Memory",
    "Router",
    "Planner",
    "Critic",
    "Retriever",
    "Ranker",
    "Scorer",
    "Parser",
    "Indexer",
    "Cache",
    "Monitor",
    "Scheduler",
    "Simulator",
    "Detector",
    "Tracker",
    "Fusion",
    "Mask",
    "Upsample",
    "Downsample",
    "Residual",
    "Softmax",
    "Gradient",
    "Update",
    "Labeler",
    "Reviewer",
    "Sequencer",
    "Assembler",
    "Mapper",
    "Reducer",
    "Splitter",
    "Merger",
]
"""Node label vocabulary (unique per diagram). Short enough to fit on one line."""

PANEL_TITLES = [
    "Training",
    "Inference",
    "Data pipeline",
    "Evaluation",
    "Pre-training",
    "Fine-tuning",
    "Analysis",
    "Acquisition",
    "Processing",
    "Deployment",
]

SIDE_INDEX: dict[str, int] = {"top": 0, "left": 1, "bottom": 2, "right": 3}
"""Connection-point index of each side of a rectangle (PowerPoint's and python-pptx's order)."""


@dataclass
class Node:
    """A box with a label. Geometry in pixels of the reference image."""

    id: int
    label: str
    panel: int
    row: int
    col: int
    x: float
    y: float
    w: float
    h: float
    fill: RGB
    stroke: RGB
    stroke_px: float
    radius_px: float
    """Corner radius, 0 = square corners."""
    font_px: float
    text_color: RGB
    bold: bool = False
    italic: bool = False
    wrap: bool = True
    """Candidate decks only: word wrap of the label's text frame."""
    text_side_inset_px: float | None = None
    """Candidate decks only: left/right text inset of the label, pixels (None = the default).
    The reference ignores it (it centres labels)."""

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def side_point(self, side: str) -> tuple[float, float]:
        """Middle of one side: where a connector glues (connection points 0-3)."""
        return {
            "top": (self.cx, self.y),
            "left": (self.x, self.cy),
            "bottom": (self.cx, self.y + self.h),
            "right": (self.x + self.w, self.cy),
        }[side]


@dataclass
class Edge:
    """A directed edge from ``src`` to ``dst`` (arrowhead at ``dst``)."""

    id: int
    src: int
    dst: int
    src_side: Side
    dst_side: Side
    route: Route
    dashed: bool
    width_px: float
    color: RGB
    head: str = "triangle"
    """OOXML arrowhead type at the dst end (``triangle``, ``arrow``, ...)."""
    head_px: float = 0.0
    """Arrowhead length and base width, pixels (0 = derived from the width)."""
    end_gap_px: float = 0.0
    """Candidate decks only, unglued lines: both ends stop this many pixels short of the nodes."""


@dataclass
class Panel:
    index: int
    title: str
    x: float
    y: float
    w: float
    h: float


@dataclass
class Diagram:
    """A generated flow diagram; everything in pixels of the reference image."""

    task_id: str
    seed: int
    width: int
    height: int
    font_family: str
    nodes: list[Node]
    edges: list[Edge]
    panels: list[Panel]
    free_cells: list[tuple[int, int, int]] = field(default_factory=list)
    """(panel, row, col) cells no node or route uses, next to a chain node (for extra nodes)."""
    grid: dict[int, tuple[float, float, float, float, int, int]] = field(default_factory=dict)
    """Per panel: (grid x, grid y, cell w, cell h, rows, cols)."""
    chain_row: int = 0

    def node(self, node_id: int) -> Node:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def copy(self) -> Diagram:
        return copy.deepcopy(self)

    def route_points(self, edge: Edge) -> list[tuple[float, float]]:
        """The polyline of an edge from its src side to its dst side (pixels)."""
        p0 = self.node(edge.src).side_point(edge.src_side)
        p1 = self.node(edge.dst).side_point(edge.dst_side)
        if edge.route == "straight":
            return [p0, p1]
        if edge.src_side in ("top", "bottom"):
            return [p0, (p0[0], p1[1]), p1]
        return [p0, (p1[0], p0[1]), p1]

    def font_files(self) -> tuple[str, str]:
        return FONT_FILES[self.font_family]

    def to_truth(self) -> TruthGraph:
        return TruthGraph(
            task_id=self.task_id,
            seed=self.seed,
            width=self.width,
            height=self.height,
            font_family=self.font_family,
            nodes=[
                TruthNode(
                    id=n.id,
                    label=n.label,
                    box=Box(x=n.x, y=n.y, w=n.w, h=n.h),
                    panel=n.panel,
                    fill=hex_colour(n.fill),
                    stroke=hex_colour(n.stroke),
                    stroke_width_px=n.stroke_px,
                    corner_radius_px=n.radius_px,
                    font_px=n.font_px,
                    text_color=hex_colour(n.text_color),
                )
                for n in self.nodes
            ],
            edges=[
                TruthEdge(
                    id=e.id,
                    src=e.src,
                    dst=e.dst,
                    points=self.route_points(e),
                    dashed=e.dashed,
                    width_px=e.width_px,
                    color=hex_colour(e.color),
                    route=e.route,
                )
                for e in self.edges
            ],
            panels=[
                TruthPanel(index=p.index, title=p.title, box=Box(x=p.x, y=p.y, w=p.w, h=p.h))
                for p in self.panels
            ],
        )


def hex_colour(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


HEAD_PER_WIDTH = 6.5
"""Arrowhead length and base width in shaft widths: what LibreOffice 7.4 draws for an OOXML
``lg``/``lg`` triangle (measured: ~16 px heads on 2.5 px lines at 120 dpi). The head's inscribed
circle is then ~3x the shaft width."""


def head_size(edge: Edge) -> float:
    """Arrowhead length = base width, pixels (see :data:`HEAD_PER_WIDTH`)."""
    return edge.head_px if edge.head_px > 0 else HEAD_PER_WIDTH * edge.width_px


def text_width(label: str, font_file: str, font_px: float) -> float:
    """Advance width of ``label`` in pixels at ``font_px`` (Pillow, the reference renderer)."""
    return float(ImageFont.truetype(font_file, round(font_px)).getlength(label))


# ----------------------------------------------------------------------------------------------
# Layout


@dataclass
class _Motif:
    kind: str
    cells: list[tuple[int, int]]
    """(row, col) cells claimed: occupied by the new node or crossed by a route."""
    node_cell: tuple[int, int]
    glue: list[tuple[str, str]]
    """(node key, side) glue points used: node key is "chain<k>" or "new"."""


def _motif_options(rows: int, cols: int, chain_row: int) -> list[_Motif]:
    options: list[_Motif] = []
    for rb in (chain_row - 1, chain_row + 1):
        if not 0 <= rb < rows:
            continue
        toward = "bottom" if rb > chain_row else "top"
        for i in range(cols - 2):
            options.append(
                _Motif(
                    "branch_merge",
                    [(rb, i), (rb, i + 1), (rb, i + 2)],
                    (rb, i + 1),
                    [(f"chain{i}", toward), (f"chain{i + 2}", toward)],
                )
            )
        for j in range(1, cols):
            options.append(
                _Motif(
                    "feedback_loop",
                    [(rb, j - 1), (rb, j)],
                    (rb, j),
                    [(f"chain{j}", toward), (f"chain{j - 1}", toward)],
                )
            )
        for j in range(cols):
            options.append(_Motif("side_output", [(rb, j)], (rb, j), [(f"chain{j}", toward)]))
            options.append(_Motif("side_input", [(rb, j)], (rb, j), [(f"chain{j}", toward)]))
    return options


def make_diagram(task_id: str, seed: int) -> Diagram:
    """Generate one diagram from ``seed`` (same seed, same diagram, on any machine)."""
    rng = np.random.default_rng(seed)
    family = list(FONT_FILES)[int(rng.integers(len(FONT_FILES)))]
    regular, _ = FONT_FILES[family]
    for path in FONT_FILES[family]:
        try:
            ImageFont.truetype(path, 12)
        except OSError as exc:
            raise BenchmarkError(
                f"{path}: font file missing (install fonts-dejavu and fonts-liberation)"
            ) from exc

    n_panels = 2 if rng.random() < 0.4 else 1
    rows = int(rng.integers(2, 4))
    cols = 3 if n_panels == 2 else int(rng.integers(4, 6))
    chain_row = int(rng.integers(rows))
    label_pool = [LABELS[int(k)] for k in rng.permutation(len(LABELS))]
    titles = [PANEL_TITLES[int(k)] for k in rng.permutation(len(PANEL_TITLES))]

    palette_idx = [int(k) for k in rng.permutation(len(PALETTE))[:3]]
    edge_color = EDGE_COLOURS[int(rng.integers(len(EDGE_COLOURS)))]
    edge_w = float(rng.choice([2.5, 3.0, 3.5]))
    stroke_px = float(rng.choice([2.0, 2.5, 3.0]))
    rounded = rng.random() < 0.6
    radius_frac = float(rng.uniform(0.15, 0.3)) if rounded else 0.0
    node_h = float(rng.integers(70, 97))
    base_font = float(rng.integers(20, 27))

    panel_w = (CANVAS_W - 2 * OUTER_MARGIN - (n_panels - 1) * PANEL_SPACING) / n_panels
    panel_h = CANVAS_H - 2 * OUTER_MARGIN
    grid_w = panel_w - 2 * PANEL_PAD
    grid_h = panel_h - TITLE_BAND - PANEL_PAD
    cell_w, cell_h = grid_w / cols, grid_h / rows
    node_h = min(node_h, 0.45 * cell_h)

    # Decide the motifs first (labels are drawn per node afterwards).
    plans: list[list[_Motif]] = []
    for _ in range(n_panels):
        options = _motif_options(rows, cols, chain_row)
        order = [options[int(k)] for k in rng.permutation(len(options))]
        want = int(rng.integers(1, 3 if cols == 3 else 4))
        claimed: set[tuple[int, int]] = set()
        glued: set[tuple[str, str]] = set()
        chosen: list[_Motif] = []
        for m in order:
            if len(chosen) >= want:
                break
            if claimed & set(m.cells) or glued & set(m.glue):
                continue
            trial = claimed | set(m.cells)
            if not _has_free_neighbour(trial, rows, cols, chain_row):
                continue
            chosen.append(m)
            claimed = trial
            glued |= set(m.glue)
        plans.append(chosen)

    # Count nodes so the font fits the longest label.
    n_nodes = n_panels * cols + sum(len(p) for p in plans)
    labels = label_pool[:n_nodes]
    font_px = base_font
    max_w = NODE_WIDTH_MAX * cell_w
    while (
        font_px > 12
        and max(text_width(lb, regular, font_px) + 2 * TEXT_PAD_EM * font_px for lb in labels)
        > max_w
    ):
        font_px -= 1

    nodes: list[Node] = []
    edges: list[Edge] = []
    panels: list[Panel] = []
    free_cells: list[tuple[int, int, int]] = []
    grid: dict[int, tuple[float, float, float, float, int, int]] = {}
    label_iter = iter(labels)

    def colours() -> tuple[RGB, RGB, RGB]:
        return PALETTE[palette_idx[int(rng.integers(len(palette_idx)))]]

    def add_node(panel: int, row: int, col: int, colour: tuple[RGB, RGB, RGB]) -> Node:
        gx, gy = grid[panel][0], grid[panel][1]
        label = next(label_iter)
        tw = text_width(label, regular, font_px) + 2 * TEXT_PAD_EM * font_px
        w = float(round(min(max_w, max(NODE_WIDTH_MIN * cell_w, tw))))
        h = float(round(node_h))
        cx = gx + (col + 0.5) * cell_w
        cy = gy + (row + 0.5) * cell_h
        fill, stroke, text = colour
        node = Node(
            id=len(nodes) + 1,
            label=label,
            panel=panel,
            row=row,
            col=col,
            x=float(round(cx - w / 2)),
            y=float(round(cy - h / 2)),
            w=w,
            h=h,
            fill=fill,
            stroke=stroke,
            stroke_px=stroke_px,
            radius_px=round(radius_frac * min(w, h), 1),
            font_px=font_px,
            text_color=text,
        )
        nodes.append(node)
        return node

    def add_edge(src: Node, dst: Node, s_side: Side, d_side: Side, route: Route) -> Edge:
        edge = Edge(
            id=len(edges) + 1,
            src=src.id,
            dst=dst.id,
            src_side=s_side,
            dst_side=d_side,
            route=route,
            dashed=False,
            width_px=edge_w,
            color=edge_color,
        )
        edges.append(edge)
        return edge

    chains: list[list[Node]] = []
    motif_edges: list[Edge] = []
    for p in range(n_panels):
        px = OUTER_MARGIN + p * (panel_w + PANEL_SPACING)
        py = OUTER_MARGIN
        panels.append(Panel(p, titles[p], round(px), py, round(panel_w), panel_h))
        grid[p] = (px + PANEL_PAD, py + TITLE_BAND, cell_w, cell_h, rows, cols)
        chain_colour = colours()
        chain = [add_node(p, chain_row, c, chain_colour) for c in range(cols)]
        chains.append(chain)
        for a, b in itertools.pairwise(chain):
            add_edge(a, b, "right", "left", "straight")
        used: set[tuple[int, int]] = set()
        for m in plans[p]:
            used |= set(m.cells)
            row, col = m.node_cell
            toward: Side = "bottom" if row > chain_row else "top"
            away: Side = "top" if row > chain_row else "bottom"
            new = add_node(p, row, col, colours())
            if m.kind == "branch_merge":
                motif_edges.append(add_edge(chain[col - 1], new, toward, "left", "elbow"))
                motif_edges.append(add_edge(new, chain[col + 1], "right", toward, "elbow"))
            elif m.kind == "feedback_loop":
                motif_edges.append(add_edge(chain[col], new, toward, away, "straight"))
                motif_edges.append(add_edge(new, chain[col - 1], "left", toward, "elbow"))
            elif m.kind == "side_output":
                motif_edges.append(add_edge(chain[col], new, toward, away, "straight"))
            else:  # side_input
                motif_edges.append(add_edge(new, chain[col], away, toward, "straight"))
        for rb in (chain_row - 1, chain_row + 1):
            for c in range(cols):
                if 0 <= rb < rows and (rb, c) not in used:
                    free_cells.append((p, rb, c))
    if n_panels == 2:
        add_edge(chains[0][-1], chains[1][0], "right", "left", "straight")

    for e in motif_edges:
        e.dashed = bool(rng.random() < 0.35)
    if motif_edges and not any(e.dashed for e in motif_edges):
        motif_edges[int(rng.integers(len(motif_edges)))].dashed = True

    return Diagram(
        task_id=task_id,
        seed=seed,
        width=CANVAS_W,
        height=CANVAS_H,
        font_family=family,
        nodes=nodes,
        edges=edges,
        panels=panels,
        free_cells=free_cells,
        grid=grid,
        chain_row=chain_row,
    )


def _has_free_neighbour(
    claimed: set[tuple[int, int]], rows: int, cols: int, chain_row: int
) -> bool:
    """At least one cell next to the chain row stays free (room for an ``extra_node`` defect)."""
    return any(
        (rb, c) not in claimed
        for rb in (chain_row - 1, chain_row + 1)
        if 0 <= rb < rows
        for c in range(cols)
    )


def cell_centre(d: Diagram, panel: int, row: int, col: int) -> tuple[float, float]:
    gx, gy, cw, ch, _, _ = d.grid[panel]
    return gx + (col + 0.5) * cw, gy + (row + 0.5) * ch
