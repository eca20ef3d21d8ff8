"""Tools that read and compare diagram graphs (reference raster, candidate tree and render).

All graph readings are memoised per case in ``ctx.cache``, so the three stages and every round
share one measurement.
"""

from __future__ import annotations

from judge.tools.base import Tool, ToolContext, ToolOutput
from judge.tools.details import detail_measurements
from judge.tools.readings import raster_graph, tree_graph

# ------------------------------------------------------------------------------------------
# Tools (the readings are in judge.tools.readings, the Stage 3 measurements in
# judge.tools.details)


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
    from judge.tools.semantic import semantic_comparison

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
