"""Tools that read and compare diagram graphs (reference raster, candidate tree and render).

All graph readings are memoised per case in ``ctx.cache``, so the three stages and every round
share one measurement.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judge.tools.arrows import lines_cached
from judge.tools.base import Tool, ToolContext, ToolOutput, memo
from judge.tools.colour import ciede2000_bgr, rgb_hex_to_bgr
from judge.tools.graphread import (
    Discrepancy,
    Graph,
    discrepancy_dict,
    label_distance,
    match_nodes,
    normalise_label,
    read_raster_graph,
    read_tree_graph,
)
from judge.tools.graphread import (
    compare_graphs as _compare,
)
from judge.tools.nodes import blobs_cached
from judge.tools.ocr import ocr_full
from judge.tools.thresholds import (
    ALIGN_TOLERANCE_FRAC,
    COLOUR_DE,
    CORNER_RADIUS_FRAC,
    DISPLACEMENT_FRAC,
    FONT_SIZE_RATIO,
    FONT_STYLE_RATIO,
    INLIER_FRAC,
    LINE_WIDTH_RATIO,
    MIN_ALIGN_NODES,
    PROPORTION_CHANGE_FRAC,
    SPACING_CHANGE_FRAC,
)


def raster_graph(ctx: ToolContext, which: str) -> Graph:
    """The graph read from the reference image or the candidate render, once per case."""

    def compute() -> Graph:
        img = ctx.image(which)
        return read_raster_graph(
            "reference" if which == "reference" else "render",
            (img.shape[1], img.shape[0]),
            blobs_cached(ctx, which),
            lines_cached(ctx, which),
            ocr_full(ctx, which),
            img,
        )

    return memo(ctx, f"graph:{which}", compute)


def tree_graph(ctx: ToolContext) -> Graph | None:
    """The graph of the candidate's object tree in the render's pixel frame (None: no tree)."""

    def compute() -> Graph | None:
        if ctx.object_tree is None:
            return None
        img = ctx.image("candidate")
        return read_tree_graph(ctx.object_tree, (img.shape[1], img.shape[0]))

    return memo(ctx, "graph:tree", compute)


def semantic_comparison(ctx: ToolContext) -> dict[str, Any]:
    """Discrepancies of the candidate against the reference, by both candidate readings.

    A discrepancy is ``confirmed`` when it is confident in the render reading (raster against
    raster: the same reader on both sides, so reading slips cancel) and the object tree agrees
    (the tree shows the same difference, or cannot tell, e.g. a polyline whose direction the tree
    does not record). An invented node the tree holds with the same text is confirmed even when
    OCR read its label with low confidence. Without a usable tree, only the render reading's
    confident ones count.
    """

    def compute() -> dict[str, Any]:
        ref = raster_graph(ctx, "reference")
        ren = raster_graph(ctx, "candidate")
        tree = tree_graph(ctx)
        _, d_ren = _compare(ref, ren)
        d_tree: list[Discrepancy] = []
        tree_ok = tree is not None and len(tree.nodes) >= 2
        if tree_ok and tree is not None:
            _, d_tree = _compare(ref, tree)
        tree_keys = [(d.kind, d.key) for d in d_tree]

        def in_tree(d: Discrepancy) -> bool:
            kinds = {d.kind}
            if d.kind in ("missing_edge", "rewired_edge"):
                kinds = {"missing_edge", "rewired_edge"}
            for k, key in tree_keys:
                if k in kinds and (key == d.key or _key_close(key, d.key)):
                    return True
            if d.kind == "reversed_edge" and tree is not None:
                # the tree cannot tell the direction of this pair (a polyline): defer to raster
                return _tree_pair_undirected(ref, tree, d)
            return False

        confirmed = []
        for d in d_ren:
            if tree_ok:
                # an invented node the tree holds with the same text needs no OCR confidence:
                # the tree gives the text, the render shows the node is really drawn
                ok = in_tree(d) and (d.confident or d.kind == "extra_node")
            else:
                ok = d.confident
            confirmed.append(ok)
        return {
            "reference": {"nodes": len(ref.nodes), "edges": len(ref.edges)},
            "render": {"nodes": len(ren.nodes), "edges": len(ren.edges)},
            "tree": None if tree is None else {"nodes": len(tree.nodes), "edges": len(tree.edges)},
            "discrepancies": [
                dict(discrepancy_dict(d), confirmed=c)
                for d, c in zip(d_ren, confirmed, strict=True)
            ],
            "tree_only": [discrepancy_dict(d) for d in d_tree],
        }

    return memo(ctx, "semantic_comparison", compute)


def _key_close(a: str, b: str) -> bool:
    if a.split(":", 1)[0] != b.split(":", 1)[0]:
        return False
    ta, tb = a.split(":", 1)[1], b.split(":", 1)[1]
    pa, pb = ta.split(">"), tb.split(">")
    if len(pa) != len(pb):
        return False
    return all(label_distance(x, y) <= 0.25 for x, y in zip(pa, pb, strict=True))


def _tree_pair_undirected(ref: Graph, tree: Graph, d: Discrepancy) -> bool:
    m = match_nodes(ref, tree)
    body = d.key.split(":", 1)[1]
    src_l, _, dst_l = body.partition(">")
    ids: dict[str, str] = {}
    for n in ref.nodes:
        ids.setdefault(normalise_label(n.label), n.id)
    s, t = ids.get(src_l), ids.get(dst_l)
    if s is None or t is None or s not in m.pairs or t not in m.pairs:
        return False
    cs, ct = m.pairs[s], m.pairs[t]
    for e in tree.edges:
        if {e.src, e.dst} == {cs, ct}:
            return not e.directed
    return False


# ------------------------------------------------------------------------------------------
# Stage 3 measurements


def _similarity_fit(src: np.ndarray, dst: np.ndarray) -> tuple[float, np.ndarray]:
    """Least-squares uniform scale + translation mapping src points onto dst points."""
    ms, md = src.mean(axis=0), dst.mean(axis=0)
    s0, d0 = src - ms, dst - md
    denom = float((s0**2).sum())
    scale = float((s0 * d0).sum()) / denom if denom > 0 else 1.0
    return scale, md - scale * ms


def detail_measurements(ctx: ToolContext) -> dict[str, Any]:
    """Per matched node and edge: aligned displacement, spacing, alignment, colours, corner
    radius, text height, dash, line width and arrowheads (reference raster vs candidate)."""

    def compute() -> dict[str, Any]:
        ref = raster_graph(ctx, "reference")
        ren = raster_graph(ctx, "candidate")
        tree = tree_graph(ctx)
        m = match_nodes(ref, ren)
        out: dict[str, Any] = {"nodes": len(ref.nodes), "edges": len(ref.edges)}
        pairs = [(ref.node(a), ren.node(b)) for a, b in m.pairs.items()]
        out["matched_nodes"] = len(pairs)
        extent = ref.extent()
        span = max(extent[2] - extent[0], extent[3] - extent[1])
        findings: list[dict[str, Any]] = []

        def add(subtype: str, location: str, description: str, count: int = 1) -> None:
            findings.append(
                {
                    "subtype": subtype,
                    "location": location,
                    "description": description,
                    "count": count,
                }
            )

        if len(pairs) >= MIN_ALIGN_NODES:
            src = np.array([c.centre for _, c in pairs], float)
            dst = np.array([r.centre for r, _ in pairs], float)
            scale, shift = _similarity_fit(src, dst)
            # robust: refit on the nodes that follow the global placement (a few moved nodes
            # must not drag the alignment and hide their own displacement)
            res = np.sqrt(((src * scale + shift - dst) ** 2).sum(axis=1))
            inl = res <= max(2 * float(np.median(res)), INLIER_FRAC * span)
            if inl.sum() >= MIN_ALIGN_NODES:
                scale, shift = _similarity_fit(src[inl], dst[inl])
            mapped = src * scale + shift
            off = np.sqrt(((mapped - dst) ** 2).sum(axis=1)) / span
            moved = [
                (r, float(o)) for (r, _), o in zip(pairs, off, strict=True) if o > DISPLACEMENT_FRAC
            ]
            for r, o in moved:
                add(
                    "node_position",
                    f'node "{r.label}"',
                    f"centre off by {o:.1%} of the diagram after global alignment",
                )
            # aspect ratio of the node extent
            re_ = ref.extent()
            cext = ren.extent()
            ra = (re_[2] - re_[0]) / max(1.0, re_[3] - re_[1])
            ca = (cext[2] - cext[0]) / max(1.0, cext[3] - cext[1])
            if abs(ca / ra - 1) > PROPORTION_CHANGE_FRAC and len(moved) == 0:
                add("panel_proportion", "diagram", f"aspect ratio {ca:.2f} vs {ra:.2f}")
            # alignments: pairs aligned in the reference that are no longer aligned
            tol = ALIGN_TOLERANCE_FRAC * span
            lost = 0
            for i in range(len(pairs)):
                for j in range(i + 1, len(pairs)):
                    for ax in (0, 1):
                        if (
                            abs(dst[i, ax] - dst[j, ax]) <= tol
                            and abs(mapped[i, ax] - mapped[j, ax]) > 3 * tol
                        ):
                            lost += 1
            if lost and not moved:
                add("alignment", "diagram", f"{lost} reference alignments lost", lost)
            # spacing: neighbour gaps
            changed = 0
            for i in range(len(pairs)):
                for j in range(i + 1, len(pairs)):
                    gr = float(np.linalg.norm(dst[i] - dst[j]))
                    gc = float(np.linalg.norm(mapped[i] - mapped[j]))
                    if gr < 0.35 * span and gr > 0 and abs(gc / gr - 1) > SPACING_CHANGE_FRAC:
                        changed += 1
            if changed and not moved:
                add(
                    "node_spacing",
                    "diagram",
                    f"{changed} node gaps changed by over {SPACING_CHANGE_FRAC:.0%}",
                    changed,
                )
            text_scale = scale
        else:
            text_scale = None
        fill_bad, stroke_bad, radius_bad, font_bad = [], [], [], []
        colour_bad, style_bad = [], []
        for r, c in pairs:
            if r.interior and c.interior:
                de = ciede2000_bgr(rgb_hex_to_bgr(r.interior), rgb_hex_to_bgr(c.interior))
                if de > COLOUR_DE:
                    fill_bad.append((r, c, de))
            if r.stroke and c.stroke:
                de = ciede2000_bgr(rgb_hex_to_bgr(r.stroke), rgb_hex_to_bgr(c.stroke))
                if de > COLOUR_DE:
                    stroke_bad.append((r, c, de))
            if r.corner_radius_frac is not None and c.corner_radius_frac is not None:
                if abs(r.corner_radius_frac - c.corner_radius_frac) > CORNER_RADIUS_FRAC:
                    radius_bad.append((r, c))
            if r.text_rgb and c.text_rgb:
                de = ciede2000_bgr(rgb_hex_to_bgr(r.text_rgb), rgb_hex_to_bgr(c.text_rgb))
                if de > COLOUR_DE:
                    colour_bad.append((r, c, de))
            if text_scale and r.text_stroke_px and c.text_stroke_px:
                ratio = c.text_stroke_px * text_scale / r.text_stroke_px
                if r.text_height_px and c.text_height_px:
                    # strokes relative to glyph height: a bigger font is not a bolder one
                    ratio = (c.text_stroke_px / c.text_height_px) / (
                        r.text_stroke_px / r.text_height_px
                    )
                if ratio > FONT_STYLE_RATIO or ratio < 1 / FONT_STYLE_RATIO:
                    style_bad.append((r, ratio))
            if text_scale and r.text_height_px and c.text_height_px and r.lines == c.lines:
                ratio = c.text_height_px * text_scale / r.text_height_px
                if ratio > FONT_SIZE_RATIO or ratio < 1 / FONT_SIZE_RATIO:
                    font_bad.append((r, ratio))
        for r, c, de in fill_bad:
            add(
                "node_fill",
                f'node "{r.label}"',
                f"fill {c.interior} vs {r.interior} (dE2000 {de:.1f})",
            )
        for r, c, de in stroke_bad:
            add(
                "node_stroke",
                f'node "{r.label}"',
                f"outline {c.stroke} vs {r.stroke} (dE2000 {de:.1f})",
            )
        for r, c in radius_bad:
            add(
                "corner_radius",
                f'node "{r.label}"',
                f"corner radius {c.corner_radius_frac:.2f} vs {r.corner_radius_frac:.2f} of the "
                "short side",
            )
        for r, c, de in colour_bad:
            add(
                "text_color",
                f'node "{r.label}"',
                f"text colour {c.text_rgb} vs {r.text_rgb} (dE2000 {de:.1f})",
            )
        for r, ratio in style_bad:
            add("font_style", f'node "{r.label}"', f"glyph strokes x{ratio:.2f} of the reference")
        for r, ratio in font_bad:
            add("font_size", f'node "{r.label}"', f"text height x{ratio:.2f} of the reference")
        # edges: dash, width, heads
        edge_pairs = []
        for redge in ref.edges:
            if redge.src in m.pairs and redge.dst in m.pairs:
                match = next(
                    (
                        x
                        for x in ren.edges
                        if x.src == m.pairs[redge.src] and x.dst == m.pairs[redge.dst]
                    ),
                    None,
                )
                if match is not None:
                    edge_pairs.append((redge, match))
        out["matched_edges"] = len(edge_pairs)
        for e, ce in edge_pairs:
            loc = f'edge "{ref.node(e.src).label}" -> "{ref.node(e.dst).label}"'
            if e.dashed is not None and ce.dashed is not None and e.dashed != ce.dashed:
                add(
                    "dash_style",
                    loc,
                    f"{'dashed' if ce.dashed else 'solid'} vs "
                    f"{'dashed' if e.dashed else 'solid'} in the reference",
                )
            if e.thickness_px and ce.thickness_px and text_scale:
                ratio = ce.thickness_px * text_scale / e.thickness_px
                if ratio > LINE_WIDTH_RATIO or ratio < 1 / LINE_WIDTH_RATIO:
                    add("line_width", loc, f"line width x{ratio:.2f} of the reference")
        if tree is not None:
            heads = {e.head for e in tree.edges if e.head}
            if len(heads) > 1 or heads - {"triangle"}:
                kinds = sorted(h for h in heads if h != "triangle")
                if kinds:
                    n = sum(1 for e in tree.edges if e.head in kinds)
                    add(
                        "arrowhead_style",
                        "edges",
                        f"arrowheads {', '.join(kinds)} (reference: filled triangles)",
                        n,
                    )
        out["findings"] = findings
        return out

    return memo(ctx, "detail_measurements", compute)


# ------------------------------------------------------------------------------------------
# Tools


def reference_graph(ctx: ToolContext) -> ToolOutput:
    """Read the reference diagram as a graph: labelled nodes (OCR inside detected boxes, with
    boxes in full-resolution reference pixels, fill/stroke colours, corner radius), directed
    edges (lines joining nodes; direction from the arrowhead end, with a confidence) and panels.
    """
    return ToolOutput(raster_graph(ctx, "reference").to_dict())


def candidate_graph(ctx: ToolContext) -> ToolOutput:
    """Read the candidate as a graph twice: from its object tree (shapes, connectors with their
    glued ends, free lines whose ends land on shapes; pixels of the render) and from its render
    with the same raster reader used for the reference. Returns both graphs.
    """
    tree = tree_graph(ctx)
    return ToolOutput(
        {
            "tree": None if tree is None else tree.to_dict(),
            "render": raster_graph(ctx, "candidate").to_dict(),
        }
    )


def compare_graphs(ctx: ToolContext) -> ToolOutput:
    """Compare the candidate's graph with the reference's: nodes matched by label similarity and
    position after global alignment, edges compared with direction. Lists each discrepancy
    (missing/extra node, changed label, missing/extra/reversed/rewired edge) with evidence and
    whether it is confirmed (confident in the render reading and not contradicted by the object
    tree). Unconfirmed ones may be reading errors.
    """
    return ToolOutput(semantic_comparison(ctx))


def measure_details(ctx: ToolContext) -> ToolOutput:
    """Measure local differences of matched nodes and edges after global alignment (scale and
    translation fitted on node centres): displaced nodes, changed spacing, lost alignments,
    fill/outline colour (CIEDE2000), corner radius, text height, dash style, line width and
    arrowhead style. Each finding names a taxonomy subtype, a location and the measured value.
    """
    return ToolOutput(detail_measurements(ctx))


TOOLS = [
    Tool.from_function(reference_graph),
    Tool.from_function(candidate_graph),
    Tool.from_function(compare_graphs),
    Tool.from_function(measure_details),
]
