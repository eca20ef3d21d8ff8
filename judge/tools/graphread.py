"""Diagram graphs: read from a raster (reference or render) or from the candidate's object tree,
and matched node-to-node and edge-to-edge.

A :class:`Graph` is in the image frame of the image it describes (pixels of the full-resolution
reference or render). Matching first aligns each graph to its own node extent (so outer
whitespace, centring and scale never count), then pairs nodes by label similarity (normalised
edit distance) with position as a tie-breaker, then pairs what is left by position alone (a
changed label keeps its place).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from judge.tools.bridges import bridged_lines
from judge.tools.colour import ciede2000_bgr
from judge.tools.icons import is_icon, labelled_holders
from judge.tools.thresholds import (
    GLYPH_COVER_FRAC,
    GLYPH_MAX_EXTENT,
    GLYPH_MAX_LINE_HEIGHTS,
    INK_DIFF,
    LABEL_CHANGED_MIN_DISTANCE,
    LABEL_MATCH_MAX_DISTANCE,
    OCR_CONFIDENT,
    PILL_COVER_FRAC,
    PILL_HOLDS_LINE_FRAC,
    PILL_MAX_LINE_HEIGHTS,
    PILL_MIN_DE,
    POSITION_WEIGHT,
    SLAB_MIN_OTHER_FRAC,
    STRADDLE_TEXT_MIN_OUTSIDE_FRAC,
    TEXT_ALIGN_MAX_HEIGHTS,
    TEXT_INK_DIFF,
    UNLABELLED_LABEL_COST,
    UNLABELLED_MATCH_MAX_POSITION,
)

if TYPE_CHECKING:  # the tools package imports this module; keep the import one-way at runtime
    from judge.tools.arrows import LineComp
    from judge.tools.nodes import Blob
    from judge.tools.ocr import OcrLine


@dataclass
class GNode:
    """One node. ``box`` = (x, y, w, h) in pixels of the graph's image."""

    id: str
    label: str
    confidence: float
    """1.0 for object-tree text; the OCR score for raster labels (0 when unlabelled)."""
    box: tuple[float, float, float, float]
    fill: str | None = None
    interior: str | None = None
    """Colour seen inside the node (its fill, or the background through an unfilled box)."""
    stroke: str | None = None
    corner_radius_frac: float | None = None
    text_height_px: float | None = None
    """Ink height of the label's first text line (or its OCR box), pixels of the graph's image."""
    lines: int = 0
    """Text lines the label occupies (OCR) or paragraphs (object tree)."""
    bold: bool | None = None
    text_rgb: str | None = None
    text_stroke_px: float | None = None
    """Measured glyph stroke width of the label (pixels of the graph's image; bold is ~1.5x)."""
    font_size_pt: float | None = None
    source: list[str] = field(default_factory=list)
    """Where it came from: ``blob:3``, ``shape:12`` (object-tree shape id)."""

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return (x + w / 2, y + h / 2)


@dataclass
class GEdge:
    """A directed edge ``src -> dst`` (node ids); ``direction`` says how sure that is."""

    src: str
    dst: str
    direction: str
    """``high`` / ``medium`` (an arrowhead was seen or declared), ``low``, ``undirected``."""
    dashed: bool | None = None
    thickness_px: float | None = None
    head: str | None = None
    """Arrowhead style when known (object tree), e.g. ``triangle``."""
    source: str = ""
    ends: tuple[tuple[float, float], tuple[float, float]] | None = None
    """Where the drawn line ends at ``src`` and at ``dst`` (object tree; graph frame)."""
    wedge: bool = False
    """Raster: the head at ``dst`` is where two or more lines meet or leave one point, whose
    wedge may pass for a head: a ``medium`` direction read there is no evidence."""
    crossed: bool = False
    """Raster: read from a line component whose strokes cross (``LineComp.crossed``): a
    crossing's strokes may pair wrongly, so a ``medium`` direction read there is no evidence
    either (seed-5656 matplotlib figure 4: two back arcs crossing)."""
    lines: int = 1
    """Object tree: how many of the deck's lines lead ``src -> dst`` this sure."""
    simple: bool = False
    """Raster: a drawn line touching these two nodes and no other (no merge, crossing or
    bridge over a label): the line is surely there, whatever its direction."""

    @property
    def directed(self) -> bool:
        return self.direction in ("high", "medium")


@dataclass
class Graph:
    """A diagram graph in one image's pixel frame."""

    source: str
    """``reference``, ``render`` (raster reading of the candidate) or ``tree``."""
    width: int
    height: int
    nodes: list[GNode] = field(default_factory=list)
    edges: list[GEdge] = field(default_factory=list)
    panels: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    icons: list[tuple[float, float, float, float]] = field(default_factory=list)
    """Boxes of the pictures and logos the raster reading left out of the nodes."""

    def node(self, nid: str) -> GNode:
        for n in self.nodes:
            if n.id == nid:
                return n
        raise KeyError(nid)

    def extent(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the union of node boxes (the whole image when no nodes)."""
        if not self.nodes:
            return (0.0, 0.0, float(self.width), float(self.height))
        x0 = min(n.box[0] for n in self.nodes)
        y0 = min(n.box[1] for n in self.nodes)
        x1 = max(n.box[0] + n.box[2] for n in self.nodes)
        y1 = max(n.box[1] + n.box[3] for n in self.nodes)
        return (x0, y0, max(x1, x0 + 1), max(y1, y0 + 1))

    def normalised_centre(self, n: GNode) -> tuple[float, float]:
        """Node centre as 0-1 fractions of the node extent (whitespace and scale removed)."""
        x0, y0, x1, y1 = self.extent()
        cx, cy = n.centre
        return ((cx - x0) / (x1 - x0), (cy - y0) / (y1 - y0))

    def to_dict(self, zoom: int = 1) -> dict[str, Any]:
        """JSON view; a graph read at ``zoom`` (:meth:`ToolContext.zoom`) is given in the
        image's own pixels."""

        def px(v: Any) -> Any:
            if v is None or zoom == 1:
                return v
            if isinstance(v, (list, tuple)):
                return [px(x) for x in v]
            return round(v / zoom, 2)

        def node(n: GNode) -> dict[str, Any]:
            d = asdict(n)
            for key in ("box", "text_height_px", "text_stroke_px"):
                d[key] = px(d[key])
            return {k: v for k, v in d.items() if v not in (None, [], "")}

        def edge(e: GEdge) -> dict[str, Any]:
            d = asdict(e)
            for key in ("thickness_px", "ends"):
                d[key] = px(d[key])
            return {k: v for k, v in d.items() if v is not None}

        return {
            "source": self.source,
            "image_size": [self.width // zoom, self.height // zoom],
            "nodes": [node(n) for n in self.nodes],
            "edges": [edge(e) for e in self.edges],
            "panels": [{**p, "box": px(p["box"])} if "box" in p else p for p in self.panels],
            "notes": self.notes,
        }


# ------------------------------------------------------------------------------------------
# Labels


def normalise_label(text: str) -> str:
    """Lowercase, NFKC, punctuation to spaces, whitespace collapsed."""
    t = unicodedata.normalize("NFKC", text).lower()
    t = re.sub(r"[^\w]+", " ", t)
    return " ".join(t.split())


TEXT_CACHE_PAIRS = 1 << 16
"""How many string pairs each memoised edit distance keeps (``label_distance`` here,
``evidence.substring_distance``): pure functions of two strings, asked again and again for the
same labels while graphs are matched."""


@lru_cache(maxsize=TEXT_CACHE_PAIRS)
def label_distance(a: str, b: str) -> float:
    """Normalised edit distance (0 = same, 1 = nothing shared) of two normalised labels."""
    a, b = normalise_label(a), normalise_label(b)
    if a == b:
        return 0.0
    if not a or not b:
        return 1.0
    a_, b_ = a.replace(" ", ""), b.replace(" ", "")
    if a_ == b_:
        return 0.0  # OCR often drops or adds spaces
    prev = list(range(len(b_) + 1))
    for i, ca in enumerate(a_, 1):
        cur = [i]
        for j, cb in enumerate(b_, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1] / max(len(a_), len(b_))


# ------------------------------------------------------------------------------------------
# Raster reading


def inside_box(pt: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    x, y, w, h = box
    return x <= pt[0] <= x + w and y <= pt[1] <= y + h


def text_style(
    img: np.ndarray, box: tuple[float, float, float, float], interior: tuple[int, int, int]
) -> tuple[str | None, float | None, float | None]:
    """(text colour RRGGBB, glyph stroke width px, glyph ink height px) of the text in an
    image-frame box; the ink height ignores the OCR box's padding."""

    from judge.tools.nodes import dominant_bgr, hex_of

    x, y, w, h = (int(round(v)) for v in box)
    crop = img[max(0, y) : y + h, max(0, x) : x + w]
    if crop.size == 0:
        return None, None, None
    diff = np.abs(crop.astype(np.int16) - np.asarray(interior, np.int16)).max(axis=2)
    if int(diff.max()) <= TEXT_INK_DIFF:
        return None, None, None
    core = diff > TEXT_INK_DIFF
    # glyph centres (the pixels farthest from the fill) carry the pure text colour; edges are
    # blends, and small text has more of them
    pure = core & (diff >= np.percentile(diff[core], 70))
    colour = hex_of(dominant_bgr(crop[pure]))
    # glyph coverage at half contrast, so the measure does not depend on the resolution's
    # anti-aliasing; stroke width = 2 x area / perimeter (perimeter ~ twice the stroke length)
    mask = (diff > diff.max() / 2).astype(np.uint8)
    rows = np.flatnonzero(mask.any(axis=1))
    height = float(rows[-1] - rows[0] + 1) if rows.size else None
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    perimeter = sum(cv2.arcLength(c, True) for c in contours)
    if perimeter <= 0:
        return colour, None, height
    return colour, round(2.0 * float(mask.sum()) / perimeter, 2), height


def node_blobs(
    blobs: list[Blob],
    ocr: list[OcrLine],
    img: np.ndarray | None,
    nodes_too: Collection[int] = (),
) -> tuple[list[int], dict[int, list[int]], set[int], set[int]]:
    """(node blobs, children of each blob that are not text, text blobs, icon blobs).

    Nodes are the blobs holding no other (non-text) blob, minus text blobs (glyph clusters)
    and, given the image, pictures and logos; blobs holding others are panels. ``nodes_too``:
    label pills the lines showed to be nodes (:func:`pill_blobs`, ``arrows.read_lines``)."""
    glyphs = _glyph_blobs(blobs, ocr, img) - set(nodes_too)
    kids = {i: [c for c in b.children if c not in glyphs] for i, b in enumerate(blobs)}
    leaves = [i for i in range(len(blobs)) if not kids[i] and i not in glyphs]
    icons: set[int] = set()
    if img is not None:
        icons = {i for i in leaves if is_icon(img, blobs[i], ocr)}
        leaves = [i for i in leaves if i not in icons]
        for i in labelled_holders(blobs, kids, glyphs, icons, ocr):
            kids[i] = []  # a node with an icon
            leaves.append(i)
    return leaves, kids, glyphs, icons


def _glyph_blobs(blobs: list[Blob], ocr: list[OcrLine], img: np.ndarray | None) -> set[int]:
    """Blobs that are text: most of the blob lies inside one OCR line's box and the blob is
    no taller than that line (solid glyph clusters of small or bold text pass the node-size
    test on small images), unless it is a filled, outlined box filling its bounding box
    (``GLYPH_MAX_EXTENT``: a box drawn tight round its label is a node) that, given the image,
    is mostly its fill (``SLAB_MIN_OTHER_FRAC``: not a JPEG block of glyphs), or an unfilled
    one round the line (:func:`_outline_round`)."""
    out = set()
    for i, b in enumerate(blobs):
        tight = b.extent >= GLYPH_MAX_EXTENT and b.fill_bgr is not None
        if tight and b.stroke_bgr is not None and (img is None or not _glyph_block(img, b)):
            continue
        x, y, w, h = b.box
        # a pill (a fill of its own, no outline): the lines decide later (arrows.read_lines),
        # so OCR's jittery boxes are given slack here
        pill = b.stroke_bgr is None and _own_colour(b)
        cover, tall = (
            (PILL_COVER_FRAC, PILL_MAX_LINE_HEIGHTS)
            if pill
            else (GLYPH_COVER_FRAC, GLYPH_MAX_LINE_HEIGHTS)
        )
        for ln in ocr:
            lx, ly, lw, lh = ln.box
            ix = max(0.0, min(x + w, lx + lw) - max(x, lx))
            iy = max(0.0, min(y + h, ly + lh) - max(y, ly))
            if ix * iy >= cover * w * h and h <= tall * lh:
                if not _outline_round(b, ln):
                    out.add(i)
                break
    return out


def _outline_round(b: Blob, ln: OcrLine) -> bool:
    """Whether blob ``b`` is an outlined, unfilled box (the background inside its outline)
    filling its bounding box (``GLYPH_MAX_EXTENT``) round text line ``ln``: holding the line's
    centre and at least as wide as the line. OCR's box round a label with descenders covers
    such a tight box's whole height (seed-7373 matplotlib figure 2: "Memory"); a letter's
    closed loop ("e", "a") is a blob far narrower than its line."""
    if b.fill_bgr is not None or b.stroke_bgr is None or b.extent < GLYPH_MAX_EXTENT:
        return False
    x, y, w, h = b.box
    cx, cy = ln.centre
    return w >= ln.box[2] and x <= cx <= x + w and y <= cy <= y + h


def _outside_frac(
    box: tuple[float, float, float, float], node: tuple[float, float, float, float]
) -> float:
    """The share of ``box``'s area lying outside ``node``'s box."""
    x, y, w, h = box
    nx, ny, nw, nh = node
    ix = max(0.0, min(x + w, nx + nw) - max(x, nx))
    iy = max(0.0, min(y + h, ny + nh) - max(y, ny))
    return 1.0 - ix * iy / max(1.0, w * h)


def node_text(ocr: list[OcrLine], box: tuple[float, float, float, float]) -> list[OcrLine]:
    """The OCR lines that are a node's text: centred in its ``box``, less edge labels laid
    over its border (:func:`_straddles`)."""
    inside = [ln for ln in ocr if inside_box(ln.centre, box)]
    return [ln for ln in inside if not _straddles(ln, inside, box)]


def _straddles(ln: OcrLine, texts: list[OcrLine], node: tuple[float, float, float, float]) -> bool:
    """Whether OCR line ``ln``, centred in a node's box, runs out across its outline
    (``STRADDLE_TEXT_MIN_OUTSIDE_FRAC`` of its box outside) beside the node's own text: a
    line of ``texts`` lying within the box that it is not aligned with (centres, left or right
    edges apart by over ``TEXT_ALIGN_MAX_HEIGHTS`` of that line's height). Such a line is an
    edge label laid over the node's border (seed-4141 matplotlib figure 8: "tokens" above
    "Assembler" read as part of its label, so a deck leaving the node out passed). An
    overflowing label's own lines stay: they are aligned with the ones inside."""
    if _outside_frac(ln.box, node) < STRADDLE_TEXT_MIN_OUTSIDE_FRAC:
        return False
    for t in texts:
        if t is ln or _outside_frac(t.box, node) >= STRADDLE_TEXT_MIN_OUTSIDE_FRAC:
            continue
        tol = TEXT_ALIGN_MAX_HEIGHTS * t.box[3]
        (ax, _ay, aw, _ah), (bx, _by, bw, _bh) = ln.box, t.box
        if min(abs(ax - bx), abs(ax + aw - bx - bw), abs(ax + aw / 2 - bx - bw / 2)) > tol:
            return True
    return False


def pill_blobs(
    blobs: list[Blob], glyphs: set[int], leaves: list[int], ocr: list[OcrLine]
) -> list[int]:
    """Text blobs that are boxes round their label (a fill of their own, ``PILL_MIN_DE`` from
    the colour round them; glyph clusters are the colour round them) outside any node: a
    label pill on a line, or a node drawn tight round its label in a light fill. Only the
    lines can tell which (``arrows.read_lines``). A box round its label holds most of that
    label's OCR line (``PILL_HOLDS_LINE_FRAC``): an arrowhead fused with the letters laid over
    it is a dark blob over part of the label only (seed-6767 matplotlib figure 3: "update")."""
    out = []
    for i in sorted(glyphs):
        b = blobs[i]
        if b.parent is not None and b.parent in leaves:
            continue
        if b.parent is not None and blobs[b.parent].children == [i]:
            continue  # the only thing in its box: that box's label
        if _own_colour(b) and any(
            _overlap(ln.box, b.box) >= PILL_HOLDS_LINE_FRAC * ln.box[2] * ln.box[3] for ln in ocr
        ):
            out.append(i)
    return out


def _overlap(a: Sequence[float], b: Sequence[float]) -> float:
    """The area two boxes (x, y, w, h) share."""
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return ix * iy


def _own_colour(b: Blob) -> bool:
    """Whether a blob has a colour of its own (``PILL_MIN_DE`` from the colour round it), as a
    box round its label has and a cluster of glyphs has not."""
    return ciede2000_bgr(b.interior_bgr, b.background_bgr) >= PILL_MIN_DE


def _glyph_block(img: np.ndarray, b: Blob) -> bool:
    """Whether a solid blob is glyphs rather than a box: less than half of it is its own colour
    (``SLAB_MIN_OTHER_FRAC``; a box is mostly its fill, glyphs are not)."""
    x, y, w, h = b.box
    px = img[y : y + h, x : x + w][b.mask].astype(np.int16)
    if px.shape[0] == 0:
        return False
    other = np.abs(px - np.asarray(b.interior_bgr, np.int16)).max(axis=1) > INK_DIFF
    return float(other.mean()) >= SLAB_MIN_OTHER_FRAC


def read_raster_graph(
    source: str,
    size: tuple[int, int],
    blobs: list[Blob],
    lines: list[LineComp],
    ocr: list[OcrLine],
    img: np.ndarray | None = None,
    nodes_too: Collection[int] = (),
) -> Graph:
    """The graph of a raster from its blobs, line components and OCR (all image frame).

    With ``img`` (BGR), each label's text colour and stroke width are measured too.

    Nodes are blobs holding no other blob (leaves); their labels are the OCR lines centred in
    them. Blobs holding others are panels, titled by their own OCR lines. Edges come from line
    components touching two or more nodes (``arrows.detect_lines`` with the leaves as endpoints).
    """
    from judge.tools.nodes import hex_of

    w, h = size
    g = Graph(source=source, width=w, height=h)
    leaves, kids, glyphs, icons = node_blobs(blobs, ocr, img, nodes_too)
    g.notes += [f"blob {i} at {list(blobs[i].box)} is text, not a node" for i in sorted(glyphs)]
    g.notes += [f"blob {i} at {list(blobs[i].box)} is an icon, not a node" for i in sorted(icons)]
    # a box holding nothing but pictures is part of the picture (a chip with its maker's mark)
    holders = {
        p for i in icons if (p := blobs[i].parent) is not None and kids[p] and set(kids[p]) <= icons
    }
    for i in sorted(icons | holders):
        x, y, bw, bh = blobs[i].box
        g.icons.append((float(x), float(y), float(bw), float(bh)))
    used: set[int] = set()
    ids: dict[int, str] = {}
    for i in leaves:
        b = blobs[i]
        box = tuple(float(v) for v in b.box)
        free = [ln for k, ln in enumerate(ocr) if k not in used]
        texts = node_text(free, box)  # type: ignore[arg-type]
        used.update(k for k, ln in enumerate(ocr) if any(ln is t for t in texts))
        label = " ".join(t.text for t in texts)
        conf = min((t.confidence for t in texts), default=0.0)
        text_rgb, stroke, ink_h = None, None, None
        if img is not None and texts:
            text_rgb, stroke, ink_h = text_style(img, texts[0].box, b.interior_bgr)
        nid = f"n{len(g.nodes)}"
        ids[i] = nid
        g.nodes.append(
            GNode(
                id=nid,
                label=label,
                confidence=round(conf, 3),
                box=box,  # type: ignore[arg-type]
                fill=hex_of(b.fill_bgr),
                interior=hex_of(b.interior_bgr),
                stroke=hex_of(b.stroke_bgr),
                corner_radius_frac=round(b.corner_radius_frac, 3),
                text_height_px=ink_h if ink_h else (round(texts[0].box[3], 1) if texts else None),
                lines=len(texts),
                text_rgb=text_rgb,
                text_stroke_px=stroke,
                source=[f"blob:{i}"],
            )
        )
    for i, b in enumerate(blobs):
        if not kids[i] or i in glyphs:
            continue
        box = tuple(float(v) for v in b.box)
        title = [
            ocr[k].text
            for k in range(len(ocr))
            if k not in used and inside_box(ocr[k].centre, box)  # type: ignore[arg-type]
        ]
        g.panels.append({"box": list(box), "title": " ".join(title[:1]), "blob": i})
    seen: set[tuple[str, str]] = set()
    for ln, sure in [*((ln, True) for ln in lines), *bridged_lines(lines)]:
        for ea, eb, how in ln.edges():
            how = how if sure or how != "high" else "medium"
            if ea not in ids or eb not in ids:
                continue
            key = (ids[ea], ids[eb])
            if key in seen:
                continue
            seen.add(key)
            g.edges.append(
                GEdge(
                    src=ids[ea],
                    dst=ids[eb],
                    direction=how,
                    dashed=ln.dashed,
                    thickness_px=ln.thickness_px,
                    source=f"line@{ln.box[0]},{ln.box[1]}",
                    wedge=any(c.node == eb and c.head and c.lines_behind >= 2 for c in ln.contacts),
                    crossed=ln.crossed,
                    simple=sure and len(ln.contacts) == 2,
                )
            )
    # a two-way undirected duplicate of a directed edge adds nothing
    directed = {(e.src, e.dst) for e in g.edges if e.directed}
    g.edges = [
        e
        for e in g.edges
        if e.directed or ((e.src, e.dst) not in directed and (e.dst, e.src) not in directed)
    ]
    return g


# ------------------------------------------------------------------------------------------
# Matching and comparison


@dataclass
class Match:
    """Node pairs between graph ``a`` and graph ``b``."""

    pairs: dict[str, str]
    """a node id -> b node id."""
    unmatched_a: list[str]
    unmatched_b: list[str]
    distances: dict[str, float]
    """a node id -> label distance to its partner."""


def match_nodes(a: Graph, b: Graph) -> Match:
    """Pair nodes by label (normalised edit distance) and aligned position, then leftovers by
    position alone. Deterministic (Hungarian assignment on a fixed cost matrix)."""
    na, nb = a.nodes, b.nodes
    pairs: dict[str, str] = {}
    dist: dict[str, float] = {}
    if na and nb:
        pa = np.array([a.normalised_centre(n) for n in na])
        pb = np.array([b.normalised_centre(n) for n in nb])
        pos = np.sqrt(((pa[:, None, :] - pb[None, :, :]) ** 2).sum(axis=2)) / np.sqrt(2)
        lab = np.array([[label_distance(x.label, y.label) for y in nb] for x in na])
        unl = np.array([[not x.label or not y.label for y in nb] for x in na])
        lab_eff = np.where(unl, UNLABELLED_LABEL_COST, lab)
        cost = lab_eff + POSITION_WEIGHT * pos
        ok = np.where(unl, pos <= UNLABELLED_MATCH_MAX_POSITION, lab <= LABEL_MATCH_MAX_DISTANCE)
        big = 1e6
        r, c = linear_sum_assignment(np.where(ok, cost, big))
        for i, j in zip(r, c, strict=True):
            if ok[i, j]:
                pairs[na[i].id] = nb[j].id
                dist[na[i].id] = float(lab[i, j]) if not unl[i, j] else 0.0
        # leftovers by position alone (a changed label keeps its place)
        la = [i for i, n in enumerate(na) if n.id not in pairs]
        lb = [j for j, n in enumerate(nb) if n.id not in set(pairs.values())]
        if la and lb:
            sub = pos[np.ix_(la, lb)]
            r2, c2 = linear_sum_assignment(sub)
            for i, j in zip(r2, c2, strict=True):
                if sub[i, j] <= UNLABELLED_MATCH_MAX_POSITION:
                    pairs[na[la[i]].id] = nb[lb[j]].id
                    dist[na[la[i]].id] = float(lab[la[i], lb[j]])
    matched_b = set(pairs.values())
    return Match(
        pairs=pairs,
        unmatched_a=[n.id for n in na if n.id not in pairs],
        unmatched_b=[n.id for n in nb if n.id not in matched_b],
        distances=dist,
    )


@dataclass
class Discrepancy:
    """One semantic difference between the reference graph and a candidate graph."""

    kind: str
    """``missing_node``, ``extra_node``, ``changed_label``, ``missing_edge``, ``extra_edge``,
    ``reversed_edge`` or ``rewired_edge``."""
    target: str
    """What, in reference terms, e.g. ``edge "Encoder" -> "Decoder"``."""
    evidence: str
    key: str
    """Label-based key, comparable across candidate readings."""
    confident: bool
    ref_nodes: tuple[str, ...] = ()
    """Reference node ids it is about, where known: a rewire's source, old target and new
    target (the node the candidate's line reaches, as the reference reads it), or for a moved
    tail (``tail_moved``) its new source."""
    tail_moved: bool = False
    """A rewire whose line keeps its target and starts at another node."""


def _q(label: str) -> str:
    return f'"{label}"' if label else "(unlabelled)"


def readings_agree(ref: Graph, cand: Graph, m: Match) -> bool:
    """Whether two readings agree on every node: each matched, and labelled alike (both
    unlabelled, or labels within ``LABEL_CHANGED_MIN_DISTANCE``)."""
    return (
        not m.unmatched_a
        and not m.unmatched_b
        and all(
            bool(ref.node(a).label) == bool(cand.node(b).label)
            and m.distances.get(a, 1.0) <= LABEL_CHANGED_MIN_DISTANCE
            for a, b in m.pairs.items()
        )
    )


def _plain(e: GEdge) -> bool:
    """A line joining two nodes only, its direction read from its head."""
    return e.simple and e.direction == "high"


def compare_graphs(ref: Graph, cand: Graph) -> tuple[Match, list[Discrepancy]]:
    """Node and edge discrepancies of ``cand`` against ``ref``."""
    m = match_nodes(ref, cand)
    out: list[Discrepancy] = []
    rl = {n.id: n for n in ref.nodes}
    cl = {n.id: n for n in cand.nodes}
    for rid in m.unmatched_a:
        n = rl[rid]
        if not n.label:
            continue
        out.append(
            Discrepancy(
                "missing_node",
                f"node {_q(n.label)}",
                f"no {cand.source} node reads like {_q(n.label)} or sits at its place",
                f"node:{normalise_label(n.label)}",
                n.confidence >= OCR_CONFIDENT,
            )
        )
    for cid in m.unmatched_b:
        n = cl[cid]
        if not n.label:
            continue
        out.append(
            Discrepancy(
                "extra_node",
                f"node {_q(n.label)}",
                f"the {cand.source} has node {_q(n.label)} that the reference lacks",
                f"node:{normalise_label(n.label)}",
                n.confidence >= OCR_CONFIDENT,
            )
        )
    for rid, cid in m.pairs.items():
        dist = m.distances.get(rid, 0.0)
        r, c = rl[rid], cl[cid]
        if r.label and c.label and dist > LABEL_CHANGED_MIN_DISTANCE:
            out.append(
                Discrepancy(
                    "changed_label",
                    f"node {_q(r.label)}",
                    f"the {cand.source} reads {_q(c.label)} at its place "
                    f"(edit distance {dist:.2f})",
                    f"label:{normalise_label(r.label)}",
                    min(r.confidence, c.confidence) >= OCR_CONFIDENT,
                )
            )
    inv = {v: k for k, v in m.pairs.items()}
    cedges = {(e.src, e.dst): e for e in cand.edges}
    redges = {(e.src, e.dst): e for e in ref.edges}

    def lab(g: Graph, nid: str) -> str:
        return g.node(nid).label

    # the two readings agree on every node: a branching line's direction (``medium``) is then
    # evidence enough, in either reading, against a line drawn the other way
    agreed = readings_agree(ref, cand, m)
    sure_ref = ("high", "medium") if agreed else ("high",)

    def sure(e: GEdge) -> bool:
        """A direction that is evidence: ``high``, or ``medium`` (when the readings agree on
        every node) unless its head is a point several lines meet at (``GEdge.wedge``) or
        its strokes cross (``GEdge.crossed``)."""
        return e.direction in sure_ref and not (e.direction == "medium" and (e.wedge or e.crossed))

    missing: list[tuple[str, str]] = []
    for (s, d), e in redges.items():
        if s not in m.pairs or d not in m.pairs:
            continue
        cs, cd = m.pairs[s], m.pairs[d]
        target = f"edge {_q(lab(ref, s))} -> {_q(lab(ref, d))}"
        key = f"edge:{normalise_label(lab(ref, s))}>{normalise_label(lab(ref, d))}"
        fwd, back = cedges.get((cs, cd)), cedges.get((cd, cs))
        if fwd is not None:
            continue
        if back is not None:
            if e.directed and back.directed and (d, s) not in redges:
                out.append(
                    Discrepancy(
                        "reversed_edge",
                        target,
                        f"the {cand.source} draws it {_q(lab(cand, cd))} -> {_q(lab(cand, cs))}",
                        key,
                        sure(e) and sure(back),
                    )
                )
            continue
        missing.append((s, d))
    extra: list[tuple[str, str]] = []
    for (cs, cd), e in cedges.items():
        if cs not in inv or cd not in inv:
            continue
        s, d = inv[cs], inv[cd]
        if (s, d) in redges or (d, s) in redges:
            continue
        if e.direction == "undirected" and (cd, cs) in cedges:
            continue
        extra.append((cs, cd))
    used_extra: set[tuple[str, str]] = set()
    for s, d in missing:
        e = redges[(s, d)]
        target = f"edge {_q(lab(ref, s))} -> {_q(lab(ref, d))}"
        key = f"edge:{normalise_label(lab(ref, s))}>{normalise_label(lab(ref, d))}"
        cs, cd = m.pairs[s], m.pairs[d]
        partner = next((x for x in extra if x[0] == cs and x not in used_extra), None)
        # or its tail moved: a line into the same target from another node, drawn with its head
        tail = partner is None
        if tail:
            partner = next(
                (x for x in extra if x[1] == cd and x not in used_extra and cedges[x].directed),
                None,
            )
        if partner is not None:
            used_extra.add(partner)
            moved = partner[0] if tail else partner[1]
            how = "starts it at" if tail else "leads it to"
            out.append(
                Discrepancy(
                    "rewired_edge",
                    target,
                    f"the {cand.source} {how} {_q(lab(cand, moved))} instead",
                    key,
                    # a line leaving the source for another node is a rewire whatever way the
                    # old one pointed, once the old line surely joined the two; or once a
                    # branching line's strokes paired them (``medium``, no wedge) and the new
                    # line is a plain one with its head read (the object tree must agree, and
                    # the old line must not reach the new target: ``semantic._judge_edge``)
                    e.direction == "high"
                    or e.simple
                    or (e.direction == "medium" and not e.wedge and _plain(cedges[partner])),
                    (s, d, inv[moved]) if moved in inv else (s, d),
                    tail,
                )
            )
        else:
            out.append(
                Discrepancy(
                    "missing_edge",
                    target,
                    f"no {cand.source} line joins these nodes",
                    key,
                    e.direction == "high",
                )
            )
    for cs, cd in extra:
        if (cs, cd) in used_extra:
            continue
        e = cedges[(cs, cd)]
        ls, ld = lab(cand, cs), lab(cand, cd)
        out.append(
            Discrepancy(
                "extra_edge",
                f"edge {_q(lab(ref, inv[cs]))} -> {_q(lab(ref, inv[cd]))}",
                f"the {cand.source} draws {_q(ls)} -> {_q(ld)}, which the reference lacks",
                f"edge:{normalise_label(lab(ref, inv[cs]))}>{normalise_label(lab(ref, inv[cd]))}",
                # never confident alone: the raster reader misses some reference edges, so an
                # edge the reference reading lacks is no proof (rewiring pairs it with a
                # confidently read missing edge instead)
                False,
            )
        )
    return m, out


def discrepancy_dict(d: Discrepancy) -> dict[str, Any]:
    """The discrepancy as tools report it (node ids are the reading's own: left out)."""
    out = asdict(d)
    out.pop("ref_nodes")
    return out
