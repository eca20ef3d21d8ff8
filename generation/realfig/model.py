"""The truth-spec format of a real figure (every coordinate in pixels of its reference image).

A spec says what the figure depicts, as a careful reader sees it: its nodes, directed edges,
containers (panels), the text that is not a node (titles, captions, legends, edge labels,
annotations) and the icons and logos (never nodes). The deck builder reconstructs a figure from
its spec, so the spec also carries the visual style a faithful reconstruction copies (shape kind,
fill, outline, text colour, font size, dash).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

BoxT = tuple[float, float, float, float]
"""(x, y, w, h) in pixels of the reference image."""

Shape = Literal["rect", "round", "ellipse", "diamond", "can", "hexagon", "doc", "plain"]
"""How a node is drawn; ``plain`` = text with no fill and no outline (Graphviz plaintext)."""
Route = Literal["straight", "hv", "vh", "vhv", "curved"]
"""Straight line; elbows: horizontal then vertical, vertical then horizontal, or vertical -
horizontal - vertical through ``via`` (a bus drop); or a curve. ``points`` overrides them all."""
TextRole = Literal["title", "heading", "caption", "legend", "edge_label", "annotation", "code"]

SHARED_ENV = "PPTJUDGE_SHARED"
"""Environment variable naming the shared folder (default: ``shared/`` beside the checkout)."""
DEFAULT_SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def shared_figures_dir() -> Path:
    """The folder holding ``devNN/reference.png`` (``$PPTJUDGE_SHARED/real-figures``)."""
    return Path(os.environ.get(SHARED_ENV, str(DEFAULT_SHARED))) / "real-figures"


@dataclass(frozen=True)
class N:
    """A node."""

    key: str
    label: str
    box: BoxT
    shape: Shape = "rect"
    fill: str | None = "FFFFFF"
    """RRGGBB or None (no fill)."""
    stroke: str | None = "000000"
    text: str = "000000"
    font_px: float | None = None
    """Label font size in reference pixels (None: the figure's default)."""
    bold: bool = False
    dashed: bool = False
    top: bool = False
    """Label anchored at the top of the box (a node that holds other boxes)."""


@dataclass(frozen=True)
class E:
    """A directed edge ``src -> dst`` (arrowhead at dst); ``both``: heads at both ends.

    ``src`` may be None for an arrow that starts in empty space (then ``start`` says where);
    either end may name a panel."""

    src: str | None
    dst: str
    route: Route = "straight"
    both: bool = False
    dashed: bool = False
    colour: str = "000000"
    width_px: float = 1.5
    start: tuple[float, float] | None = None
    bend: float = 0.25
    """Curves only: sideways bulge as a fraction of the chord."""
    offset: float = 0.0
    """Straight edges: sideways shift in pixels (parallel edges between the same nodes)."""
    via: float | None = None
    """``vhv`` routes: the y of the horizontal run (default halfway)."""
    points: tuple[tuple[float, float], ...] = ()
    """Waypoints between the two ends (an orthogonal route drawn as a polyline)."""


@dataclass(frozen=True)
class P:
    """A panel (container): a box that holds nodes; its title is text, not a node."""

    key: str
    title: str
    box: BoxT
    fill: str | None = None
    stroke: str | None = "888888"
    dashed: bool = False
    round: bool = False
    title_box: BoxT | None = None


@dataclass(frozen=True)
class T:
    """Text that is not a node."""

    text: str
    box: BoxT
    role: TextRole = "annotation"
    colour: str = "000000"
    font_px: float | None = None
    bold: bool = False
    fill: str | None = None
    """A label pill or callout with a fill (still text, not a node)."""
    circled: bool = False
    """A step marker: the text in a small circle (not a node)."""


@dataclass(frozen=True)
class L:
    """A line that joins no nodes: a divider, a legend sample, a leader."""

    points: tuple[tuple[float, float], ...]
    dashed: bool = False
    head: bool = False
    colour: str = "000000"
    width_px: float = 1.5


@dataclass(frozen=True)
class Icon:
    """An icon or logo: never a node; a candidate may approximate it with a shape or omit it."""

    box: BoxT
    colour: str = "888888"


@dataclass(frozen=True)
class Fig:
    """The truth spec of one real figure."""

    id: str
    size: tuple[int, int]
    """Reference image (width, height), pixels."""
    nodes: tuple[N, ...]
    edges: tuple[E, ...]
    panels: tuple[P, ...] = ()
    texts: tuple[T, ...] = ()
    icons: tuple[Icon, ...] = ()
    lines: tuple[L, ...] = ()
    font_px: float = 14.0
    font: str = "Liberation Sans"
    edge_colour: str = "000000"
    notes: str = ""
    """How the spec models what the truth notes call ambiguous."""

    def node(self, key: str) -> N:
        for n in self.nodes:
            if n.key == key:
                return n
        raise KeyError(f"{self.id}: no node {key!r}")

    def box_of(self, key: str) -> BoxT:
        """Box of a node or a panel."""
        for n in self.nodes:
            if n.key == key:
                return n.box
        for p in self.panels:
            if p.key == key:
                return p.box
        raise KeyError(f"{self.id}: no node or panel {key!r}")

    def with_nodes(self, nodes: tuple[N, ...]) -> Fig:
        return replace(self, nodes=nodes)

    def check(self) -> list[str]:
        """Problems of the spec itself (unknown edge ends, boxes off the image)."""
        out = []
        keys = {n.key for n in self.nodes} | {p.key for p in self.panels}
        if len(keys) != len(self.nodes) + len(self.panels):
            out.append("duplicate node/panel keys")
        for e in self.edges:
            for end in (e.src, e.dst):
                if end is not None and end not in keys:
                    out.append(f"edge end {end!r} is not a node or panel")
            if e.src is None and e.start is None:
                out.append(f"source-less edge to {e.dst!r} needs a start point")
        w, h = self.size
        for n in self.nodes:
            x, y, bw, bh = n.box
            if x < -1 or y < -1 or x + bw > w + 1 or y + bh > h + 1 or bw <= 0 or bh <= 0:
                out.append(f"node {n.key!r} box {n.box} is off the {w}x{h} image")
        return out
