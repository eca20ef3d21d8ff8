"""The candidate's graph from its object tree (the shapes python-pptx reads), in the render's
pixel frame: the counterpart of ``graphread.read_raster_graph`` for the deck itself."""

from __future__ import annotations

import math
from dataclasses import dataclass

from judge.schema import ObjectTree, SlideObject
from judge.tools.aim import first_box_ahead
from judge.tools.graphread import GEdge, GNode, Graph, inside_box
from judge.tools.thresholds import (
    AIM_GAP_PER_KPX,
    DEFAULT_LINE_WIDTH_PT,
    ENDPOINT_TOLERANCE_FRAC,
    PANEL_AREA_RATIO,
    ROUNDRECT_DEFAULT_RADIUS,
    TEXT_MASK_MAX_CHANNEL_DIFF,
    TREE_MIN_SIDE_FRAC,
    scaled_px,
)

LINE_TYPES = ("connector", "line")
"""Object types that draw edges."""

STRAIGHT = ("line", "straightConnector1")
"""Preset geometries of a straight line (its course is the segment between its ends)."""

NODE_TYPES = ("autoshape", "text_box", "placeholder", "freeform", "table", "picture")
"""Object types that may be nodes (a freeform with a closed outline can be a box)."""


BLOCK_ARROWS: dict[str, tuple[tuple[float, float], tuple[float, float], bool]] = {
    "rightArrow": ((0.0, 0.5), (1.0, 0.5), False),
    "notchedRightArrow": ((0.0, 0.5), (1.0, 0.5), False),
    "stripedRightArrow": ((0.0, 0.5), (1.0, 0.5), False),
    "leftArrow": ((1.0, 0.5), (0.0, 0.5), False),
    "upArrow": ((0.5, 1.0), (0.5, 0.0), False),
    "downArrow": ((0.5, 0.0), (0.5, 1.0), False),
    "leftRightArrow": ((0.0, 0.5), (1.0, 0.5), True),
    "upDownArrow": ((0.5, 0.0), (0.5, 1.0), True),
}
"""Block-arrow presets drawn as a wide arrow: (tail, tip) in the shape's own unit box before
flips and rotation, and whether both ends are tips."""


def _block_arrow_ends(
    o: SlideObject, box: tuple[float, float, float, float]
) -> tuple[tuple[float, float], tuple[float, float], bool] | None:
    """A block arrow's tail and tip in pixels (flips, then rotation about the box centre) and
    whether it is two-headed; None for any other shape."""
    spec = BLOCK_ARROWS.get(o.geometry or "")
    if spec is None:
        return None
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    t = math.radians(o.rotation)

    def place(u: float, v: float) -> tuple[float, float]:
        u, v = (1.0 - u if o.flip_h else u), (1.0 - v if o.flip_v else v)
        dx, dy = (u - 0.5) * w, (v - 0.5) * h
        return (cx + dx * math.cos(t) - dy * math.sin(t), cy + dx * math.sin(t) + dy * math.cos(t))

    return place(*spec[0]), place(*spec[1]), spec[2]


@dataclass(frozen=True)
class _BlockEdge:
    """A block arrow joining two node shapes: ``a`` at its tail, ``b`` at its tip."""

    arrow: int
    a: int
    b: int
    both: bool
    tail: tuple[float, float]
    tip: tuple[float, float]
    thickness_px: float

    def edges(self, node_of: dict[int, str]) -> list[GEdge]:
        a, b = node_of[self.a], node_of[self.b]
        ways = [(a, b, (self.tail, self.tip)), (b, a, (self.tip, self.tail))]
        return [
            GEdge(
                src=s,
                dst=d,
                direction="medium" if self.both else "high",
                dashed=False,
                thickness_px=self.thickness_px,
                head="block",
                source=f"shape:{self.arrow}",
                ends=ends,
            )
            for s, d, ends in ways[: 2 if self.both else 1]
        ]


def _block_arrow_edges(
    objs: list[SlideObject], boxes: dict[int, tuple[float, float, float, float]], tol: float
) -> list[_BlockEdge]:
    """The block arrows among ``objs`` whose two ends come within ``tol`` of two different
    other shapes (not block arrows): edges between those, not nodes."""
    ends = {o.id: e for o in objs if (e := _block_arrow_ends(o, boxes[o.id])) is not None}
    others = [o for o in objs if o.id not in ends]

    out = []
    for oid, (tail, tip, both) in ends.items():
        a, b = _nearest_id(tail, others, boxes, tol), _nearest_id(tip, others, boxes, tol)
        if a is not None and b is not None and a != b:
            thick = min(boxes[oid][2], boxes[oid][3])
            out.append(_BlockEdge(oid, a, b, both, tail, tip, thick))
    return out


def _masks_text(o: SlideObject, page: str) -> bool:
    """Text on a body of the page's colour (``page``, RRGGBB) with no outline: a label hiding
    the line under it, not a node."""
    if not o.text.strip() or o.line_rgb is not None or o.fill_rgb is None:
        return False
    try:
        fill, bg = _channels(o.fill_rgb), _channels(page)
    except ValueError:  # not RRGGBB: not a mask
        return False
    return max(abs(a - b) for a, b in zip(fill, bg, strict=True)) <= TEXT_MASK_MAX_CHANNEL_DIFF


def _channels(rgb: str) -> tuple[int, int, int]:
    """(r, g, b) of an ``RRGGBB`` string (ValueError when it is not one)."""
    rgb = rgb.lstrip("#")
    if len(rgb) != 6:
        raise ValueError(rgb)
    return int(rgb[0:2], 16), int(rgb[2:4], 16), int(rgb[4:6], 16)


def _px_box(o: SlideObject, w: int, h: int) -> tuple[float, float, float, float]:
    return (o.bbox.x * w, o.bbox.y * h, o.bbox.w * w, o.bbox.h * h)


def _contains(outer: tuple[float, ...], inner: tuple[float, ...]) -> bool:
    cx, cy = inner[0] + inner[2] / 2, inner[1] + inner[3] / 2
    return inside_box((cx, cy), outer)  # type: ignore[arg-type]


def _dist_to_box(p: tuple[float, float], box: tuple[float, float, float, float]) -> float:
    x, y, w, h = box
    dx = max(x - p[0], 0.0, p[0] - (x + w))
    dy = max(y - p[1], 0.0, p[1] - (y + h))
    return math.hypot(dx, dy)


def _nearest_id(
    p: tuple[float, float],
    objs: list[SlideObject],
    boxes: dict[int, tuple[float, float, float, float]],
    tol: float,
) -> int | None:
    """The id of the object whose box is nearest ``p``, within ``tol`` (None: none that near)."""
    best, bd = None, tol
    for o in objs:
        d = _dist_to_box(p, boxes[o.id])
        if d <= bd:
            best, bd = o.id, d
    return best


def _line_like(o: SlideObject) -> bool:
    """A freeform drawn as an open polyline (no fill, or an arrowhead): an edge, not a node."""
    return o.type == "freeform" and (
        o.head_end is not None or o.tail_end is not None or (o.fill_rgb is None and not o.text)
    )


def _line_ends(
    o: SlideObject, w: int, h: int
) -> tuple[tuple[float, float], tuple[float, float], bool]:
    """A line's start and end in pixels, and whether the tree says which is which (a
    connector, an open freeform's path) rather than only its box."""
    x, y, bw, bh = _px_box(o, w, h)
    start = (x + bw if o.flip_h else x, y + bh if o.flip_v else y)
    end = (x if o.flip_h else x + bw, y if o.flip_v else y + bh)
    if o.path_ends is not None:  # an open freeform: its path says where it starts and ends
        (sx, sy), (ex, ey) = o.path_ends
        return (sx * w, sy * h), (ex * w, ey * h), True
    return start, end, o.type in LINE_TYPES


def _directions(a: str, b: str, o: SlideObject, known_order: bool) -> list[tuple[str, str, str]]:
    """The edges a line from node ``a`` (its start) to ``b`` (its end) makes, with how sure
    their direction is, from its arrowhead ends (tail = at the end point)."""
    tail, head = o.tail_end, o.head_end
    if not known_order:
        return [(a, b, "low"), (b, a, "low")]
    if tail and not head:
        return [(a, b, "high")]
    if head and not tail:
        return [(b, a, "high")]
    if head and tail:
        return [(a, b, "medium"), (b, a, "medium")]
    return [(a, b, "undirected")]


def _count_line(g: Graph, s: str, d: str, conf: str) -> None:
    """One more deck line ``s -> d`` as sure as the edge already read (``GEdge.lines``)."""
    for e in g.edges:
        if (e.src, e.dst) == (s, d) and e.direction == conf:
            e.lines += 1


def _text_nodes(
    line_objs: list[SlideObject],
    node_objs: list[SlideObject],
    texts: list[SlideObject],
    boxes: dict[int, tuple[float, float, float, float]],
    size: tuple[int, int],
    tol: float,
) -> list[SlideObject]:
    """Free texts an arrow ends at, whose other end is on a node shape (glued to the text, or
    landing on it with no shape that near): text drawn as a node with no body (Graphviz's
    plaintext "input" and "output"). A line with no head is a divider or a leader to a note,
    not an edge: it makes no node of a title or a code listing."""
    free = [t for t in texts if not any(_contains(boxes[o.id], boxes[t.id]) for o in node_objs)]
    ids = {t.id for t in free}
    found: set[int] = set()
    for o in line_objs:
        if not (o.head_end or o.tail_end):
            continue
        start, end, _ = _line_ends(o, *size)
        ends = ((o.begin_id, start), (o.end_id, end))
        on_node = [
            glued not in ids
            if glued is not None
            else _nearest_id(p, node_objs, boxes, tol) is not None
            for glued, p in ends
        ]
        for k, (glued, p) in enumerate(ends):
            if on_node[k] or not on_node[1 - k]:
                continue
            t = glued if glued is not None else _nearest_id(p, free, boxes, tol)
            if t is not None:
                found.add(t)
    return [t for t in free if t.id in found]


def read_tree_graph(tree: ObjectTree, size: tuple[int, int]) -> Graph:
    """The candidate's graph from its object tree, in the render's pixel frame (``size``).

    Nodes: shapes with a body (not lines, connectors or groups); a text box whose centre lies in
    an unlabelled shape becomes that shape's label; shapes holding two or more other nodes are
    panels; a free text box an arrow from a node ends at is a node with no body
    (``_text_nodes``). Edges: connectors glued at both ends, or lines/connectors whose ends
    land on node boxes; direction from the arrowhead ends (tail = at the end point).
    """
    w, h = size
    g = Graph(source="tree", width=w, height=h)
    objs = [
        o
        for o in tree.objects
        if o.type in NODE_TYPES and o.bbox.w > 0 and o.bbox.h > 0 and not _line_like(o)
    ]
    boxes = {o.id: _px_box(o, w, h) for o in objs}
    page = tree.background_rgb or "FFFFFF"
    min_side = TREE_MIN_SIDE_FRAC * min(w, h)
    shapes = [
        o
        for o in objs
        if (o.type != "text_box" or o.fill_rgb is not None or o.line_rgb is not None)
        and not _masks_text(o, page)
    ]
    shapes = [o for o in shapes if min(boxes[o.id][2], boxes[o.id][3]) >= min_side]
    texts = [
        o
        for o in objs
        if (o.type == "text_box" or _masks_text(o, page)) and o not in shapes and o.text.strip()
    ]
    # panels: shapes holding 2+ other shapes
    panel_ids = set()
    for o in shapes:
        inner = [q for q in shapes if q.id != o.id and _contains(boxes[o.id], boxes[q.id])]
        if len(inner) >= 2 and boxes[o.id][2] * boxes[o.id][3] > PANEL_AREA_RATIO * max(
            boxes[q.id][2] * boxes[q.id][3] for q in inner
        ):
            panel_ids.add(o.id)
    node_objs = [o for o in shapes if o.id not in panel_ids and o.type != "picture"]
    tol = ENDPOINT_TOLERANCE_FRAC * max(w, h)
    blocks = _block_arrow_edges(node_objs, boxes, tol)
    node_objs = [o for o in node_objs if o.id not in {e.arrow for e in blocks}]
    alias: dict[int, int] = {}
    labels: dict[int, list[str]] = {
        o.id: [o.text.strip()] if o.text.strip() else [] for o in node_objs
    }
    extra: dict[int, SlideObject] = {}
    line_objs = [o for o in tree.objects if o.type in LINE_TYPES or _line_like(o)]
    text_nodes = _text_nodes(line_objs, node_objs, texts, boxes, (w, h), tol)
    text_ids = {t.id for t in text_nodes}
    for t in texts:
        host = [o for o in node_objs if _contains(boxes[o.id], boxes[t.id])]
        if t.id in text_ids:  # free by construction: no shape holds it
            labels[t.id] = [t.text.strip()]
        elif host:
            # the smallest shape holding the text's centre
            o = min(host, key=lambda q: boxes[q.id][2] * boxes[q.id][3])
            labels[o.id].append(t.text.strip())
            alias[t.id] = o.id
            extra.setdefault(o.id, t)
        else:
            panel_host = [p for p in panel_ids if _contains(boxes[p], boxes[t.id])]
            g.panels.append(
                {"title": t.text.strip(), "box": list(boxes[t.id]), "shape": t.id, "in": panel_host}
            )
    node_objs += text_nodes
    for o in node_objs:
        src = extra.get(o.id, o)
        label = " ".join(labels[o.id])
        g.nodes.append(
            GNode(
                id=f"s{o.id}",
                label=label,
                confidence=1.0 if label else 0.0,
                box=boxes[o.id],
                fill=o.fill_rgb,
                stroke=o.line_rgb,
                corner_radius_frac=(
                    o.adjustments[0]
                    if o.geometry == "roundRect" and o.adjustments
                    else (ROUNDRECT_DEFAULT_RADIUS if o.geometry == "roundRect" else 0.0)
                ),
                lines=len([p for p in label.split("\n") if p.strip()]) if label else 0,
                bold=src.bold if src.text.strip() else o.bold,
                text_rgb=src.text_rgb if src.text.strip() else o.text_rgb,
                font_size_pt=next(iter(src.font_sizes_pt or o.font_sizes_pt), None),
                source=[f"shape:{o.id}"] + ([f"shape:{extra[o.id].id}"] if o.id in extra else []),
            )
        )
    for p in panel_ids:
        g.panels.append({"box": list(boxes[p]), "shape": p})
    node_of = {o.id: f"s{o.id}" for o in node_objs}
    node_of.update({t: f"s{o}" for t, o in alias.items()})
    seen: set[tuple[str, str]] = set()

    def nearest(p: tuple[float, float]) -> str | None:
        oid = _nearest_id(p, node_objs, boxes, tol)
        return None if oid is None else node_of[oid]

    gap = float(scaled_px(AIM_GAP_PER_KPX, (h, w), 8))

    def aimed(p: tuple[float, float], q: tuple[float, float]) -> str | None:
        """The node a straight line's end ``p`` points at, coming from ``q``, across a gap
        (the raster reader's rule for a hand-drawn arrow stopping short of its box)."""
        norm = math.dist(p, q)
        if norm == 0:
            return None
        u = ((p[0] - q[0]) / norm, (p[1] - q[1]) / norm)
        oid = first_box_ahead(p, u, [(n.id, boxes[n.id]) for n in node_objs], tol, gap)
        return None if oid is None else node_of[oid]

    for o in line_objs:
        start, end, known_order = _line_ends(o, w, h)
        a = node_of.get(o.begin_id) if o.begin_id is not None else None
        b = node_of.get(o.end_id) if o.end_id is not None else None
        a = a or nearest(start)
        b = b or nearest(end)
        if (a is None or b is None) and o.geometry in STRAIGHT:
            a, b = a or aimed(start, end), b or aimed(end, start)
        if (a is None or b is None) and not (a or b):
            # a polyline's ends are two opposite corners of its box, in an order the tree
            # does not give: direction is left to the raster reading
            a2, b2 = nearest((start[0], end[1])), nearest((end[0], start[1]))
            if a2 and b2 and a2 != b2:
                a, b = a2, b2
                known_order = False
        if a is None or b is None or a == b:
            continue
        tail, head = o.tail_end, o.head_end
        for s, d, conf in _directions(a, b, o, known_order):
            if (s, d) in seen:
                _count_line(g, s, d, conf)
                continue
            seen.add((s, d))
            g.edges.append(
                GEdge(
                    src=s,
                    dst=d,
                    direction=conf,
                    dashed=o.dash is not None and o.dash != "solid",
                    thickness_px=(o.line_width_pt or DEFAULT_LINE_WIDTH_PT)
                    * h
                    / tree.slide_height_pt,
                    head=tail if s == a else head,
                    source=f"shape:{o.id}",
                    ends=(start, end) if s == a else (end, start),
                )
            )
    for e in blocks:
        for pair in e.edges(node_of):
            if (pair.src, pair.dst) not in seen:
                seen.add((pair.src, pair.dst))
                g.edges.append(pair)
    return g
