"""The graphs read from a case's images and object tree, memoised per case in ``ctx.cache``.

One reading serves every tool, stage and round: :mod:`judge.tools.graphs` (the graph tools),
:mod:`judge.tools.semantic` (Stage 1 evidence), :mod:`judge.tools.details` (Stage 3) and
:mod:`judge.tools.textfit` all read through here, so none of them imports another for it.
"""

from __future__ import annotations

from judge.tools.arrows import lines_cached
from judge.tools.base import ToolContext, memo
from judge.tools.graphread import Graph, read_raster_graph, read_tree_graph
from judge.tools.nodes import blobs_cached
from judge.tools.ocr import ocr_full


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
