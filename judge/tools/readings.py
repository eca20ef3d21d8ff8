"""The three readings of one Stage 1 case (reference raster, render raster, object tree), their
node matchings and text corpora, and :class:`Judged`, a discrepancy with its evidence: what
``semantic`` and ``edgepasses`` both build on."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from judge.tools.arrows import LineComp, lines_cached
from judge.tools.base import ToolContext
from judge.tools.evidence import Corpus
from judge.tools.graphread import Discrepancy, Graph, Match, normalise_label
from judge.tools.graphread import compare_graphs as compare_readings
from judge.tools.nodetext import text_cached
from judge.tools.ocr import OcrLine


@dataclass
class Judged:
    """A discrepancy with the evidence for and against it."""

    d: Discrepancy
    confirmed: bool
    confidence: float
    checks: list[str] = field(default_factory=list)
    """What was checked, in words (e.g. ``the deck holds "Agent" in a text box``)."""
    ref_box: tuple[float, float, float, float] | None = None
    """Reference image frame."""
    cand_box: tuple[float, float, float, float] | None = None
    """Render image frame."""


@dataclass
class Readings:
    """The three readings of one case and the text corpora the checks search."""

    ref: Graph
    ren: Graph
    tree: Graph | None
    m_ren: Match
    m_tree: Match | None
    ref_text: Corpus
    ren_text: Corpus
    tree_text: Corpus | None
    tree_kinds: list[tuple[str, str]]
    ref_lines: list[LineComp] = field(default_factory=list)
    ren_lines: list[LineComp] = field(default_factory=list)
    """The line components each raster reading came from (their contacts carry the heads)."""
    tree_moves: dict[str, str] = field(default_factory=dict)
    """Per rewired-edge key of the reference-to-tree comparison, the reference node the deck's
    line reaches instead."""
    ref_img: np.ndarray | None = None
    """The reference image (BGR, reading frame), to read again where a check needs a closer
    look."""
    ref_zoom: int = 1
    """How many times ``ref_img`` is enlarged (:meth:`ToolContext.zoom`)."""
    ref_ocr: list[OcrLine] = field(default_factory=list)
    """The reference's text lines (reading frame), where a check needs to know what is where."""
    px_per_pt: float | None = None
    """Render (and tree) pixels per point of the slide, where a check needs a font size's
    height; None without an object tree."""
    candidate_words: list[str] = field(default_factory=list)
    """The candidate's texts (the deck's shapes', the render's lines) as normalised words
    (:func:`judge.tools.graphread.normalise_label`), where a check needs whole words."""


def _tree_texts(ctx: ToolContext) -> list[str]:
    if ctx.object_tree is None:
        return []
    return [o.text for o in ctx.object_tree.objects if o.text.strip()]


def readings(ctx: ToolContext) -> Readings:
    from judge.tools.graphs import raster_graph, tree_graph

    ref = raster_graph(ctx, "reference")
    ren = raster_graph(ctx, "candidate")
    tree = tree_graph(ctx)
    m_ren, _ = compare_readings(ref, ren)
    tree_ok = tree is not None and len(tree.nodes) >= 2
    ref_ocr, ren_ocr = text_cached(ctx, "reference"), text_cached(ctx, "candidate")
    m_tree, tree_kinds, tree_moves = None, [], {}
    if tree_ok and tree is not None:
        m_tree, d_tree = compare_readings(ref, tree)
        tree_kinds = [(d.kind, d.key) for d in d_tree]
        tree_moves = {d.key: d.ref_nodes[2] for d in d_tree if len(d.ref_nodes) == 3}
    return Readings(
        ref=ref,
        ren=ren,
        tree=tree if tree_ok else None,
        m_ren=m_ren,
        m_tree=m_tree,
        ref_text=Corpus.of(ln.text for ln in ref_ocr),
        ref_ocr=ref_ocr,
        candidate_words=[
            normalise_label(t) for t in [*_tree_texts(ctx), *(ln.text for ln in ren_ocr)]
        ],
        ren_text=Corpus.of(ln.text for ln in ren_ocr),
        tree_text=Corpus.of(_tree_texts(ctx)) if tree_ok else None,
        tree_kinds=tree_kinds,
        tree_moves=tree_moves,
        ref_lines=lines_cached(ctx, "reference"),
        ren_lines=lines_cached(ctx, "candidate"),
        ref_img=ctx.image("reference"),
        ref_zoom=ctx.zoom("reference"),
        px_per_pt=(
            ren.height / ctx.object_tree.slide_height_pt
            if ctx.object_tree is not None and ctx.object_tree.slide_height_pt > 0
            else None
        ),
    )
