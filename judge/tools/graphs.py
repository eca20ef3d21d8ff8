"""Tools that read and compare diagram graphs (reference raster, candidate tree and render).

All graph readings are memoised per case in ``ctx.cache``, so the three stages and every round
share one measurement.
"""

from __future__ import annotations

from judge.tools.arrows import read_lines_cached
from judge.tools.base import Tool, ToolContext, ToolOutput, memo
from judge.tools.graphread import Graph, read_raster_graph
from judge.tools.nodes import blobs_cached
from judge.tools.nodetext import text_cached
from judge.tools.treeread import read_tree_graph


def raster_graph(ctx: ToolContext, which: str) -> Graph:
    """The graph read from the reference image or the candidate render, once per case."""

    def compute() -> Graph:
        img = ctx.image(which)
        lines, pills = read_lines_cached(ctx, which)
        return read_raster_graph(
            "reference" if which == "reference" else "render",
            (img.shape[1], img.shape[0]),
            blobs_cached(ctx, which),
            lines,
            text_cached(ctx, which),
            img,
            pills,
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


# ------------------------------------------------------------------------------------------
# Tools


def reference_graph(ctx: ToolContext) -> ToolOutput:
    """Read the reference diagram as a graph: labelled nodes (OCR inside detected boxes, with
    boxes in reference image pixels, fill/stroke colours, corner radius), directed
    edges (lines joining nodes; direction from the arrowhead end, with a confidence) and panels.
    """
    return ToolOutput(raster_graph(ctx, "reference").to_dict(ctx.zoom("reference")))


def candidate_graph(ctx: ToolContext) -> ToolOutput:
    """Read the candidate as a graph twice: from its object tree (shapes, connectors with their
    glued ends, free lines whose ends land on shapes; pixels of the render) and from its render
    with the same raster reader used for the reference. Returns both graphs.
    """
    tree = tree_graph(ctx)
    return ToolOutput(
        {
            "tree": None if tree is None else tree.to_dict(ctx.zoom("candidate")),
            "render": raster_graph(ctx, "candidate").to_dict(ctx.zoom("candidate")),
        }
    )


TOOLS = [
    Tool.from_function(reference_graph),
    Tool.from_function(candidate_graph),
]
"""``compare_graphs`` is in :mod:`judge.tools.semantic`, ``measure_details`` in
:mod:`judge.tools.details` (both read the graphs memoised here)."""
