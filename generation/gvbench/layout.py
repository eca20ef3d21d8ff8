"""Lay out and draw a spec with Graphviz, and read the layout back as a truth spec.

One Graphviz run (``-Tpng`` and ``-Tjson`` together) gives the reference image and the geometry
it was drawn from: node centres and sizes, and each edge's spline (cubic Bezier control points
plus the arrowhead's tip). Graphviz coordinates are points with y upwards inside a bounding box;
the image is that box plus ``pad`` on every side at ``dpi``, so a point maps to pixels as
``((x - x0 + pad) * dpi / 72, (y1 - y + pad) * dpi / 72)``.

The geometry becomes a :class:`generation.realfig.model.Fig` (reference pixels), the format
the real-figure deck builder and variants already read: nodes with their boxes, shapes and
colours; edges with the spline sampled into waypoints (``points``, from the tail's outline to
the arrowhead's tip), or none when the spline is a straight line the builder's own
centre-to-centre segment reproduces (then the ``shapes``
construction draws it as a connector, glued where it ends at a side's middle); edge labels as
free text.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import shutil
import subprocess
from dataclasses import dataclass, replace
from typing import Any

from PIL import Image

from generation.gvbench.spec import PAD_IN, GvSpec, to_dot
from generation.realfig.geometry import route
from generation.realfig.model import E, Fig, Icon, N, Shape, T
from judge.errors import BenchmarkError

TIMEOUT_S = 60.0
"""A Graphviz run that takes longer than this is stopped (layouts here take well under 1 s)."""
BEZIER_STEPS = 8
"""Points each cubic Bezier segment of a spline is sampled at."""
SIMPLIFY_PX = 0.6
"""Sampled points closer than this to the line through their neighbours are dropped."""
STRAIGHT_PX = 2.0
"""A spline whose points all lie this close to its chord counts as straight."""
STRAIGHT_END_PX = 4.0
"""... and is drawn centre to centre only when those ends land this close to Graphviz's."""
MAX_HEIGHT_PX = 2000
MIN_WIDTH_PX = 600
MAX_DPI = 200.0
"""A small graph is drawn no larger than this (fonts stay near what real figures use)."""
IDEAL_ASPECT = 4 / 3
MAX_ASPECT = 2.4
"""A ``dot`` layout whose width:height is this far from 4:3 (either way) is also tried in the
other rank direction."""
EDGE_LABEL_EM = 0.62
"""Average glyph advance of an edge label, in ems (sizes its text box)."""

SHAPE_OF: dict[str, Shape] = {
    "box": "rect",
    "rounded": "round",
    "ellipse": "ellipse",
    "cylinder": "can",
    "diamond": "diamond",
    "plainfill": "rect",
}
"""Real-figure shape of each Graphviz-benchmark node shape (``plainfill``: a filled rect)."""

XY = tuple[float, float]


class GraphvizError(BenchmarkError):
    """Graphviz is not installed, failed, timed out, or wrote output we cannot read."""


@dataclass(frozen=True)
class Drawn:
    """One Graphviz run: the reference PNG, the DOT it came from, its JSON and the truth spec."""

    png: bytes
    dot: str
    layout: dict[str, Any]
    fig: Fig
    dpi: float


def dot_binary(engine: str = "dot") -> str:
    """Path of a Graphviz layout program; :class:`GraphvizError` when it is not installed."""
    path = shutil.which(engine)
    if path is None:
        raise GraphvizError(
            f"Graphviz program {engine!r} not found on PATH (install it: apt-get install graphviz)"
        )
    return path


def run_graphviz(source: str, engine: str, formats: tuple[str, ...]) -> dict[str, bytes]:
    """Output bytes of one run of ``engine`` on ``source``, per format (``png``, ``json``)."""
    import tempfile
    from pathlib import Path

    exe = dot_binary(engine)
    with tempfile.TemporaryDirectory(prefix="pptjudge-gv-") as tmp:
        cmd = [exe]
        for f in formats:
            cmd += [f"-T{f}", "-o", str(Path(tmp) / f"out.{f}")]
        try:
            proc = subprocess.run(
                cmd, input=source.encode(), capture_output=True, timeout=TIMEOUT_S, check=False
            )
        except subprocess.TimeoutExpired as exc:
            raise GraphvizError(f"{engine} timed out after {TIMEOUT_S:.0f} s") from exc
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip()[:400]
            raise GraphvizError(f"{engine} failed (exit {proc.returncode}): {err}")
        out = {}
        for f in formats:
            p = Path(tmp) / f"out.{f}"
            if not p.is_file():
                raise GraphvizError(f"{engine} wrote no {f} output")
            out[f] = p.read_bytes()
    return out


def _bb(layout: dict[str, Any]) -> tuple[float, float, float, float]:
    try:
        x0, y0, x1, y1 = (float(v) for v in str(layout["bb"]).split(","))
    except (KeyError, ValueError) as exc:
        raise GraphvizError(f"Graphviz JSON has no readable bb: {exc}") from exc
    return x0, y0, x1, y1


def _layout(spec: GvSpec) -> dict[str, Any]:
    raw = run_graphviz(to_dot(spec, 72.0), spec.style.engine, ("json",))["json"]
    try:
        return dict(json.loads(raw))
    except ValueError as exc:
        raise GraphvizError(f"{spec.task_id}: Graphviz JSON unreadable: {exc}") from exc


def _aspect_cost(layout: dict[str, Any]) -> float:
    """How far the layout's aspect ratio is from 4:3 (either way), as a log ratio."""
    x0, y0, x1, y1 = _bb(layout)
    w, h = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
    return abs(math.log((w / h) / IDEAL_ASPECT))


def _oriented(spec: GvSpec) -> tuple[GvSpec, dict[str, Any]]:
    """``spec`` and its layout; a ``dot`` layout more elongated than ``MAX_ASPECT`` is redone
    in the other rank direction, and the less elongated of the two kept."""
    layout = _layout(spec)
    if spec.style.engine != "dot" or _aspect_cost(layout) <= math.log(MAX_ASPECT / IDEAL_ASPECT):
        return spec, layout
    turned = spec.with_rankdir("LR" if spec.style.rankdir == "TB" else "TB")
    other = _layout(turned)
    return (turned, other) if _aspect_cost(other) < _aspect_cost(layout) else (spec, layout)


def choose_dpi(spec: GvSpec, layout: dict[str, Any]) -> float:
    """The dpi that makes the image ``target_width_px`` wide, at most ``MAX_DPI`` and kept
    under ``MAX_HEIGHT_PX`` tall, as long as it stays at least ``MIN_WIDTH_PX`` wide."""
    x0, y0, x1, y1 = _bb(layout)
    w_in, h_in = (x1 - x0) / 72 + 2 * PAD_IN, (y1 - y0) / 72 + 2 * PAD_IN
    dpi = min(spec.style.target_width_px / w_in, MAX_DPI, MAX_HEIGHT_PX / h_in)
    return round(max(dpi, MIN_WIDTH_PX / w_in), 2)


def draw(spec: GvSpec) -> Drawn:
    """Lay ``spec`` out and draw it: the reference PNG and its truth spec from the same run."""
    spec, first = _oriented(spec)
    dpi = choose_dpi(spec, first)
    source = to_dot(spec, dpi)
    out = run_graphviz(source, spec.style.engine, ("png", "json"))
    try:
        layout = dict(json.loads(out["json"]))
    except ValueError as exc:
        raise GraphvizError(f"{spec.task_id}: Graphviz JSON unreadable: {exc}") from exc
    with Image.open(io.BytesIO(out["png"])) as im:
        size = im.size
    fig = to_fig(spec, layout, dpi, size)
    problems = fig.check()
    if problems:
        raise GraphvizError(f"{spec.task_id}: layout read back wrong: " + "; ".join(problems))
    return Drawn(out["png"], source, layout, fig, dpi)


# ------------------------------------------------------------------------------------------


class _Map:
    def __init__(self, layout: dict[str, Any], dpi: float):
        self.x0, _, _, self.y1 = _bb(layout)
        self.k = dpi / 72
        self.pad = PAD_IN * 72

    def pt(self, x: float, y: float) -> XY:
        return ((x - self.x0 + self.pad) * self.k, (self.y1 - y + self.pad) * self.k)

    def parse(self, s: str) -> XY:
        x, y = s.split(",")[-2:]
        return self.pt(float(x), float(y))


def _cubic(p: list[XY], steps: int) -> list[XY]:
    out = []
    for i in range(1, steps + 1):
        t = i / steps
        a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3
        out.append(
            (
                a * p[0][0] + b * p[1][0] + c * p[2][0] + d * p[3][0],
                a * p[0][1] + b * p[1][1] + c * p[2][1] + d * p[3][1],
            )
        )
    return out


def _off_line(p: XY, a: XY, b: XY) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    if n < 1e-9:
        return math.hypot(p[0] - a[0], p[1] - a[1])
    return abs(dx * (a[1] - p[1]) - dy * (a[0] - p[0])) / n


def _simplify(pts: list[XY]) -> list[XY]:
    out = [pts[0]]
    for i in range(1, len(pts) - 1):
        if _off_line(pts[i], out[-1], pts[i + 1]) > SIMPLIFY_PX:
            out.append(pts[i])
    out.append(pts[-1])
    return out


def spline_points(pos: str, m: _Map) -> list[XY]:
    """The polyline of a Graphviz edge ``pos`` from tail to head tip (pixels)."""
    tokens = pos.split(";")[0].split()
    start = end = None
    ctrl: list[XY] = []
    for tok in tokens:
        if tok.startswith("e,"):
            end = m.parse(tok)
        elif tok.startswith("s,"):
            start = m.parse(tok)
        else:
            ctrl.append(m.parse(tok))
    if len(ctrl) < 4 or (len(ctrl) - 1) % 3:
        raise GraphvizError(f"edge pos {pos[:60]!r} is not a cubic B-spline")
    pts = [ctrl[0]]
    for i in range(0, len(ctrl) - 1, 3):
        pts += _cubic(ctrl[i : i + 4], BEZIER_STEPS)
    if start is not None:
        pts.insert(0, start)
    if end is not None:
        pts.append(end)
    return _simplify(pts)


def _node(spec_node: Any, obj: dict[str, Any], m: _Map) -> N:
    cx, cy = m.parse(str(obj["pos"]))
    w = float(obj["width"]) * 72 * m.k
    h = float(obj["height"]) * 72 * m.k
    return N(
        key=spec_node.key,
        label=spec_node.label,
        box=(cx - w / 2, cy - h / 2, w, h),
        shape=SHAPE_OF[spec_node.shape],
        fill=spec_node.fill,
        stroke=None if spec_node.shape == "plainfill" else spec_node.stroke,
        text=spec_node.text,
    )


def _edge(fig: Fig, src: str, dst: str, pts: list[XY], colour: str, width_px: float) -> E:
    """The edge along ``pts``; without waypoints when the builder's own straight segment
    between the two nodes lands on the same ends."""
    plain = E(src, dst, colour=colour, width_px=width_px)
    a, b = pts[0], pts[-1]
    if all(_off_line(p, a, b) <= STRAIGHT_PX for p in pts):
        mine = route(fig, plain)
        ends = (
            math.hypot(mine[0][0] - a[0], mine[0][1] - a[1]),
            math.hypot(mine[-1][0] - b[0], mine[-1][1] - b[1]),
        )
        if max(ends) <= STRAIGHT_END_PX:
            return plain
    return E(src, dst, colour=colour, width_px=width_px, points=tuple(pts))


def to_fig(spec: GvSpec, layout: dict[str, Any], dpi: float, size: tuple[int, int]) -> Fig:
    """The truth spec (reference pixels) of ``spec`` as Graphviz laid it out."""
    m = _Map(layout, dpi)
    objects = layout.get("objects", [])
    by_name = {str(o.get("name")): o for o in objects}
    gvid = {int(o["_gvid"]): str(o["name"]) for o in objects}
    nodes = []
    for nd in spec.nodes:
        if nd.key not in by_name:
            raise GraphvizError(f"{spec.task_id}: node {nd.key} missing from the layout")
        nodes.append(_node(nd, by_name[nd.key], m))
    st = spec.style
    font_px = st.fontsize * m.k
    fig = Fig(id=spec.task_id, size=size, nodes=tuple(nodes), edges=(), font_px=font_px,
              font=st.font, edge_colour=st.edge_colour)  # fmt: skip
    edges, texts = [], []
    width_px = st.penwidth * m.k
    for rec in layout.get("edges", []):
        src, dst = gvid[int(rec["tail"])], gvid[int(rec["head"])]
        pts = spline_points(str(rec["pos"]), m)
        edges.append(_edge(fig, src, dst, pts, st.edge_colour, width_px))
        label = str(rec.get("label", "")).strip()
        if label and "lp" in rec:
            fs = (st.fontsize - 1) * m.k
            cx, cy = m.parse(str(rec["lp"]))
            w, h = EDGE_LABEL_EM * fs * len(label) + fs, 1.5 * fs
            texts.append(T(label, (cx - w / 2, cy - h / 2, w, h), "edge_label", "000000", fs))
    want = {(e.src, e.dst) for e in spec.edges}
    got = {(e.src, e.dst) for e in edges}
    if want != got:
        raise GraphvizError(f"{spec.task_id}: layout edges {sorted(got)} != spec {sorted(want)}")
    notes = f"{spec.kind}; {st.engine} splines={st.splines}"
    return replace(fig, edges=tuple(edges), texts=tuple(texts), notes=notes)


EDGE_MARK_STEP = 0.01
"""``edges_as_icons`` marks an edge every this share of the figure's larger side."""


def edges_as_icons(fig: Fig) -> Fig:
    """``fig`` with a point-sized icon every ``EDGE_MARK_STEP`` along each edge, so a search
    for free space (:func:`generation.realfig.geometry.free_box`) keeps off the lines too."""
    step = EDGE_MARK_STEP * max(fig.size)
    marks = []
    for e in fig.edges:
        pts = route(fig, e)
        for p, q in itertools.pairwise(pts):
            n = max(1, math.ceil(math.dist(p, q) / step))
            for i in range(n + 1):
                t = i / n
                x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
                marks.append(Icon((x - 1, y - 1, 2, 2)))
    return replace(fig, icons=(*fig.icons, *marks))
