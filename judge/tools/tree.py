"""The candidate's object tree as the model sees it: shapes, text, styles and connections.

Boxes are given in two frames: ``bbox`` in the slide frame (0-1 fractions of the slide) and
``panel_box`` in the candidate panel frame (pixels of the 1200x900 panel; add the candidate
panel's left edge, 1204, for the pair image). The render is the slide rasterised edge to edge,
so slide fractions times the render size are render (image frame) pixels.
"""

from __future__ import annotations

from typing import Any

from judge.schema import ObjectType, SlideObject
from judge.tools.base import Tool, ToolContext, ToolOutput, ToolUsageError

MAX_OBJECTS = 300
"""Most objects one call returns (a slide with more is filtered by type, text or ids)."""
DROP_WHEN: tuple[object, ...] = (None, "", [], False, 0.0)
"""Field values left out of the answer to keep it short (absent = default)."""
KEEP_ALWAYS = ("id", "type", "name", "bbox", "panel_box")


def panel_box(ctx: ToolContext, obj: SlideObject) -> dict[str, float]:
    """The object's box in the candidate panel frame (pixels)."""
    m = ctx.pair.candidate
    x0, y0 = m.image_to_panel(obj.bbox.x * m.image_width, obj.bbox.y * m.image_height)
    x1, y1 = m.image_to_panel(obj.bbox.x2 * m.image_width, obj.bbox.y2 * m.image_height)
    return {"x": round(x0, 1), "y": round(y0, 1), "w": round(x1 - x0, 1), "h": round(y1 - y0, 1)}


def describe(ctx: ToolContext, obj: SlideObject) -> dict[str, Any]:
    data = obj.model_dump(mode="json")
    data["bbox"] = {k: round(v, 4) for k, v in data["bbox"].items()}
    data["panel_box"] = panel_box(ctx, obj)
    return {k: v for k, v in data.items() if k in KEEP_ALWAYS or v not in DROP_WHEN}


def object_tree(
    ctx: ToolContext,
    types: list[ObjectType] | None = None,
    text_contains: str | None = None,
    ids: list[int] | None = None,
) -> ToolOutput:
    """The candidate slide's objects in z-order: id, type, name, boxes, text, font sizes,
    fill/line colours, dash, arrowheads (head_end at the start, tail_end at the end), connector
    begin_id/end_id (glued shape ids), group membership (parent_id). bbox: slide frame (0-1);
    panel_box: candidate panel frame (pixels). Filter by types (e.g. ["connector", "line"]),
    by text (case-insensitive substring) or by shape ids; all filters combine.
    """
    tree = ctx.object_tree
    if tree is None:
        raise ToolUsageError("the candidate's object tree could not be read")
    needle = text_contains.lower() if text_contains else None
    chosen = [
        o
        for o in tree.objects
        if (not types or o.type in types)
        and (needle is None or needle in o.text.lower())
        and (not ids or o.id in ids)
    ]
    counts: dict[str, int] = {}
    for o in tree.objects:
        counts[o.type] = counts.get(o.type, 0) + 1
    return ToolOutput(
        {
            "slide_size_pt": [tree.slide_width_pt, tree.slide_height_pt],
            "counts_by_type": counts,
            "matched": len(chosen),
            "truncated": len(chosen) > MAX_OBJECTS,
            "objects": [describe(ctx, o) for o in chosen[:MAX_OBJECTS]],
        }
    )


TOOLS = [Tool.from_function(object_tree)]
