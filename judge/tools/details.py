"""Stage 3 measurements: local differences of matched nodes and edges, rule by rule.

The reference reading and the render reading are matched node to node; a robust global fit
(uniform scale and translation on node centres) removes outer whitespace, centring and scale.
The rules, one function per aspect:

* layout -- displaced nodes, aspect ratio, lost alignments, changed gaps;
* node style -- fill and outline colour (CIEDE2000), corner radius;
* text -- text colour, glyph stroke weight (bold), text height (font size);
* edges -- dash, line width, arrowhead style (from the object tree).

Each finding names a taxonomy subtype, a location, the measured value and its place in both
images (panel frames of the reference and the candidate).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judge.tools.base import Tool, ToolContext, ToolOutput, memo
from judge.tools.colour import ciede2000_bgr, rgb_hex_to_bgr
from judge.tools.graphread import GEdge, GNode, Graph, match_nodes
from judge.tools.ocr import box_to_frame
from judge.tools.thresholds import (
    ALIGN_LOST_FACTOR,
    ALIGN_TOLERANCE_FRAC,
    COLOUR_DE,
    CORNER_RADIUS_FRAC,
    DISPLACEMENT_FRAC,
    FONT_SIZE_RATIO,
    FONT_STYLE_RATIO,
    INLIER_FRAC,
    INLIER_MEDIAN_FACTOR,
    LINE_WIDTH_RATIO,
    MIN_ALIGN_NODES,
    NEIGHBOUR_GAP_FRAC,
    PROPORTION_CHANGE_FRAC,
    SPACING_CHANGE_FRAC,
)

Pair = tuple[GNode, GNode]


@dataclass
class Findings:
    """Findings being collected for one case, with the boxes of what each concerns."""

    ctx: ToolContext
    items: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        subtype: str,
        location: str,
        description: str,
        count: int = 1,
        pair: Pair | None = None,
    ) -> None:
        item: dict[str, Any] = {
            "subtype": subtype,
            "location": location,
            "description": description,
            "count": count,
        }
        if pair is not None:
            r, c = pair
            item["reference_bbox"] = box_to_frame(self.ctx, "reference", r.box, "panel")
            item["bbox"] = box_to_frame(self.ctx, "candidate", c.box, "panel")
        self.items.append(item)


@dataclass
class Fit:
    """The global placement of the render's matched nodes onto the reference's."""

    scale: float
    src: np.ndarray
    """Render node centres."""
    dst: np.ndarray
    """Reference node centres."""
    mapped: np.ndarray
    """Render centres after the fit (reference pixels)."""
    span: float
    """The reference diagram's larger extent, pixels."""


def similarity_fit(src: np.ndarray, dst: np.ndarray) -> tuple[float, np.ndarray]:
    """Least-squares uniform scale + translation mapping src points onto dst points."""
    ms, md = src.mean(axis=0), dst.mean(axis=0)
    s0, d0 = src - ms, dst - md
    denom = float((s0**2).sum())
    scale = float((s0 * d0).sum()) / denom if denom > 0 else 1.0
    return scale, md - scale * ms


def robust_fit(pairs: list[Pair], span: float) -> Fit | None:
    """Fit, then refit on the nodes that follow the global placement (a few moved nodes must
    not drag the alignment and hide their own displacement). None with too few pairs."""
    if len(pairs) < MIN_ALIGN_NODES:
        return None
    src = np.array([c.centre for _, c in pairs], float)
    dst = np.array([r.centre for r, _ in pairs], float)
    scale, shift = similarity_fit(src, dst)
    res = np.sqrt(((src * scale + shift - dst) ** 2).sum(axis=1))
    inl = res <= max(INLIER_MEDIAN_FACTOR * float(np.median(res)), INLIER_FRAC * span)
    if inl.sum() >= MIN_ALIGN_NODES:
        scale, shift = similarity_fit(src[inl], dst[inl])
    return Fit(scale, src, dst, src * scale + shift, span)


# ------------------------------------------------------------------------------------------
# Layout


def layout_findings(f: Findings, pairs: list[Pair], fit: Fit, ref: Graph, ren: Graph) -> None:
    off = np.sqrt(((fit.mapped - fit.dst) ** 2).sum(axis=1)) / fit.span
    moved = [(p, float(o)) for p, o in zip(pairs, off, strict=True) if o > DISPLACEMENT_FRAC]
    for p, o in moved:
        f.add(
            "node_position",
            f'node "{p[0].label}"',
            f"centre off by {o:.1%} of the diagram after global alignment",
            pair=p,
        )
    if moved:
        return  # a moved node also changes gaps, alignments and proportions: said once
    re_, ce = ref.extent(), ren.extent()
    ra = (re_[2] - re_[0]) / max(1.0, re_[3] - re_[1])
    ca = (ce[2] - ce[0]) / max(1.0, ce[3] - ce[1])
    if abs(ca / ra - 1) > PROPORTION_CHANGE_FRAC:
        f.add("panel_proportion", "diagram", f"aspect ratio {ca:.2f} vs {ra:.2f}")
    lost = _lost_alignments(fit)
    if lost:
        f.add("alignment", "diagram", f"{lost} reference alignments lost", lost)
    changed = _changed_gaps(fit)
    if changed:
        f.add(
            "node_spacing",
            "diagram",
            f"{changed} node gaps changed by over {SPACING_CHANGE_FRAC:.0%}",
            changed,
        )


def _lost_alignments(fit: Fit) -> int:
    """Pairs aligned (same row or column) in the reference that no longer are."""
    tol = ALIGN_TOLERANCE_FRAC * fit.span
    n = len(fit.dst)
    lost = 0
    for i in range(n):
        for j in range(i + 1, n):
            for ax in (0, 1):
                if (
                    abs(fit.dst[i, ax] - fit.dst[j, ax]) <= tol
                    and abs(fit.mapped[i, ax] - fit.mapped[j, ax]) > ALIGN_LOST_FACTOR * tol
                ):
                    lost += 1
    return lost


def _changed_gaps(fit: Fit) -> int:
    """Neighbouring node gaps that changed by more than SPACING_CHANGE_FRAC."""
    n = len(fit.dst)
    changed = 0
    for i in range(n):
        for j in range(i + 1, n):
            gr = float(np.linalg.norm(fit.dst[i] - fit.dst[j]))
            gc = float(np.linalg.norm(fit.mapped[i] - fit.mapped[j]))
            near = 0 < gr < NEIGHBOUR_GAP_FRAC * fit.span
            if near and abs(gc / gr - 1) > SPACING_CHANGE_FRAC:
                changed += 1
    return changed


# ------------------------------------------------------------------------------------------
# Node style


def _de(a: str | None, b: str | None) -> float | None:
    if not a or not b:
        return None
    return ciede2000_bgr(rgb_hex_to_bgr(a), rgb_hex_to_bgr(b))


def node_style_findings(f: Findings, pairs: list[Pair]) -> None:
    """Fill, then outline colour, then corner radius (each over every pair)."""
    for r, c in pairs:
        de = _de(r.interior, c.interior)
        if de is not None and de > COLOUR_DE:
            desc = f"fill {c.interior} vs {r.interior} (dE2000 {de:.1f})"
            f.add("node_fill", f'node "{r.label}"', desc, pair=(r, c))
    for r, c in pairs:
        de = _de(r.stroke, c.stroke)
        if de is not None and de > COLOUR_DE:
            desc = f"outline {c.stroke} vs {r.stroke} (dE2000 {de:.1f})"
            f.add("node_stroke", f'node "{r.label}"', desc, pair=(r, c))
    for r, c in pairs:
        if r.corner_radius_frac is None or c.corner_radius_frac is None:
            continue
        if abs(r.corner_radius_frac - c.corner_radius_frac) > CORNER_RADIUS_FRAC:
            desc = (
                f"corner radius {c.corner_radius_frac:.2f} vs {r.corner_radius_frac:.2f} of "
                "the short side"
            )
            f.add("corner_radius", f'node "{r.label}"', desc, pair=(r, c))


# ------------------------------------------------------------------------------------------
# Text


def _outside(ratio: float, limit: float) -> bool:
    return ratio > limit or ratio < 1 / limit


def _stroke_ratio(r: GNode, c: GNode, scale: float) -> float | None:
    """Glyph stroke weight of the render's label over the reference's (None: unmeasured)."""
    if not r.text_stroke_px or not c.text_stroke_px:
        return None
    if r.text_height_px and c.text_height_px:
        # strokes relative to glyph height: a bigger font is not a bolder one
        return (c.text_stroke_px / c.text_height_px) / (r.text_stroke_px / r.text_height_px)
    return c.text_stroke_px * scale / r.text_stroke_px


def text_findings(f: Findings, pairs: list[Pair], fit: Fit | None) -> None:
    """Text colour, then glyph weight, then text height (the last two need the global fit)."""
    for r, c in pairs:
        de = _de(r.text_rgb, c.text_rgb)
        if de is not None and de > COLOUR_DE:
            desc = f"text colour {c.text_rgb} vs {r.text_rgb} (dE2000 {de:.1f})"
            f.add("text_color", f'node "{r.label}"', desc, pair=(r, c))
    if fit is None:
        return
    for r, c in pairs:
        ratio = _stroke_ratio(r, c, fit.scale)
        if ratio is not None and _outside(ratio, FONT_STYLE_RATIO):
            desc = f"glyph strokes x{ratio:.2f} of the reference"
            f.add("font_style", f'node "{r.label}"', desc, pair=(r, c))
    for r, c in pairs:
        if r.text_height_px and c.text_height_px and r.lines == c.lines:
            ratio = c.text_height_px * fit.scale / r.text_height_px
            if _outside(ratio, FONT_SIZE_RATIO):
                desc = f"text height x{ratio:.2f} of the reference"
                f.add("font_size", f'node "{r.label}"', desc, pair=(r, c))


# ------------------------------------------------------------------------------------------
# Edges


def edge_pairs(ref: Graph, ren: Graph, pairs: dict[str, str]) -> list[tuple[GEdge, GEdge]]:
    out = []
    for e in ref.edges:
        if e.src in pairs and e.dst in pairs:
            s, d = pairs[e.src], pairs[e.dst]
            match = next((x for x in ren.edges if x.src == s and x.dst == d), None)
            if match is not None:
                out.append((e, match))
    return out


def edge_findings(
    f: Findings, ref: Graph, matched: list[tuple[GEdge, GEdge]], fit: Fit | None, tree: Graph | None
) -> None:
    for e, ce in matched:
        loc = f'edge "{ref.node(e.src).label}" -> "{ref.node(e.dst).label}"'
        if e.dashed is not None and ce.dashed is not None and e.dashed != ce.dashed:
            f.add(
                "dash_style",
                loc,
                f"{'dashed' if ce.dashed else 'solid'} vs "
                f"{'dashed' if e.dashed else 'solid'} in the reference",
            )
        if e.thickness_px and ce.thickness_px and fit is not None:
            ratio = ce.thickness_px * fit.scale / e.thickness_px
            if _outside(ratio, LINE_WIDTH_RATIO):
                f.add("line_width", loc, f"line width x{ratio:.2f} of the reference")
    if tree is None:
        return
    heads = {e.head for e in tree.edges if e.head}
    kinds = sorted(h for h in heads if h != "triangle")
    if kinds:
        n = sum(1 for e in tree.edges if e.head in kinds)
        desc = f"arrowheads {', '.join(kinds)} (reference: filled triangles)"
        f.add("arrowhead_style", "edges", desc, n)


# ------------------------------------------------------------------------------------------


def detail_measurements(ctx: ToolContext) -> dict[str, Any]:
    """Per matched node and edge: aligned displacement, spacing, alignment, colours, corner
    radius, text height, dash, line width and arrowheads (reference raster vs candidate)."""
    from judge.tools.graphs import raster_graph, tree_graph

    def compute() -> dict[str, Any]:
        ref = raster_graph(ctx, "reference")
        ren = raster_graph(ctx, "candidate")
        m = match_nodes(ref, ren)
        pairs = [(ref.node(a), ren.node(b)) for a, b in m.pairs.items()]
        extent = ref.extent()
        fit = robust_fit(pairs, max(extent[2] - extent[0], extent[3] - extent[1]))
        f = Findings(ctx)
        if fit is not None:
            layout_findings(f, pairs, fit, ref, ren)
        node_style_findings(f, pairs)
        text_findings(f, pairs, fit)
        matched = edge_pairs(ref, ren, m.pairs)
        edge_findings(f, ref, matched, fit, tree_graph(ctx))
        return {
            "nodes": len(ref.nodes),
            "edges": len(ref.edges),
            "matched_nodes": len(pairs),
            "matched_edges": len(matched),
            "findings": f.items,
        }

    return memo(ctx, "detail_measurements", compute)


def measure_details(ctx: ToolContext) -> ToolOutput:
    """Measure local differences of matched nodes and edges after global alignment (scale and
    translation fitted on node centres): displaced nodes, changed spacing, lost alignments,
    fill/outline colour (CIEDE2000), corner radius, text height, dash style, line width and
    arrowhead style. Each finding names a taxonomy subtype, a location and the measured value.
    """
    return ToolOutput(detail_measurements(ctx))


TOOLS = [Tool.from_function(measure_details)]
