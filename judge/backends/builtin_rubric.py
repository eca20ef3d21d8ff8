"""The built-in judge's measured version of the ReFigBench rubric axes.

From the measurements the built-in judge already makes (``compare_graphs``,
``measure_details``, the candidate's object tree) each axis gets a quality q in 0-1 and
``points = q x max_points``:

* ``text_accuracy``: 1 - (changed labels + missing nodes) / reference nodes;
* ``structure``: 1 - (missing, added, reversed or rewired nodes and edges) / (nodes + edges);
* ``geometry``: matched share of the reference nodes x (1 - layout findings / matched nodes),
  the layout findings being the rubric's ``builtin.layout_findings`` subtypes;
* ``editability``: 1 - the picture area share of the slide, times
  ``builtin.no_connector_factor`` when the reference has edges and the slide no connector;
* ``visual_detail``: 1 - styling findings (``builtin.detail_findings``) / (nodes + edges).

Discrepancies count when the comparison confirms them (as Stage 1 does). Every figure used is
returned in ``measurements`` and named in the rationale.
"""

from __future__ import annotations

from typing import Any

from judge.schema import ObjectTree, Rubric

TEXT_KINDS = ("changed_label", "missing_node")
STRUCTURE_KINDS = (
    "missing_node",
    "extra_node",
    "missing_edge",
    "extra_edge",
    "reversed_edge",
    "rewired_edge",
)
NATIVE_TYPES = ("text_box", "autoshape", "connector", "line", "freeform", "table")


def tree_counts(tree: ObjectTree | None) -> tuple[int, int, float]:
    """(native editable objects, connectors, picture area share of the slide 0-1)."""
    if tree is None:
        return 0, 0, 0.0
    native = sum(o.type in NATIVE_TYPES for o in tree.objects)
    connectors = sum(o.type == "connector" for o in tree.objects)
    area = 0.0
    for o in tree.objects:
        if o.type == "picture":
            w = max(0.0, min(1.0, o.bbox.x2) - max(0.0, o.bbox.x))
            h = max(0.0, min(1.0, o.bbox.y2) - max(0.0, o.bbox.y))
            area += w * h
    return native, connectors, min(1.0, area)


def _clip(q: float) -> float:
    return max(0.0, min(1.0, q))


def rubric_verdict(
    results: dict[str, dict[str, Any]], tree: ObjectTree | None, rubric: Rubric
) -> dict[str, Any]:
    """The rubric verdict from the measurement tools' results and the object tree."""
    cmp = results.get("compare_graphs", {})
    md = results.get("measure_details", {})
    ref = cmp.get("reference", {})
    n_nodes, n_edges = int(ref.get("nodes", 0)), int(ref.get("edges", 0))
    confirmed = [d for d in cmp.get("discrepancies", []) if d.get("confirmed")]
    text_errs = sum(d.get("kind") in TEXT_KINDS for d in confirmed)
    struct_errs = sum(d.get("kind") in STRUCTURE_KINDS for d in confirmed)
    matched = int(md.get("matched_nodes", 0))
    findings = md.get("findings", [])
    layout = sum(
        int(f.get("count", 1)) for f in findings if f["subtype"] in rubric.builtin.layout_findings
    )
    styling = sum(
        int(f.get("count", 1)) for f in findings if f["subtype"] in rubric.builtin.detail_findings
    )
    native, connectors, picture = tree_counts(tree)
    measured = "error" not in cmp and "error" not in md
    q: dict[str, float] = {}
    why: dict[str, str] = {}
    q["text_accuracy"] = _clip(1 - text_errs / max(1, n_nodes)) if measured else 0.0
    why["text_accuracy"] = f"{text_errs} changed or missing labels of {n_nodes} reference nodes"
    q["structure"] = _clip(1 - struct_errs / max(1, n_nodes + n_edges)) if measured else 0.0
    why["structure"] = (
        f"{struct_errs} confirmed node/edge discrepancies of {n_nodes} nodes + {n_edges} edges"
    )
    q["geometry"] = (
        _clip(matched / max(1, n_nodes)) * _clip(1 - layout / max(1, matched)) if measured else 0.0
    )
    why["geometry"] = f"{matched} of {n_nodes} nodes matched, {layout} layout findings"
    editable = _clip(1 - picture) if native else 0.0
    if n_edges and not connectors:
        editable *= rubric.builtin.no_connector_factor
    q["editability"] = editable
    why["editability"] = (
        f"{native} native objects, {connectors} connectors, pictures cover {picture:.0%}"
    )
    q["visual_detail"] = _clip(1 - styling / max(1, n_nodes + n_edges)) if measured else 0.0
    why["visual_detail"] = f"{styling} styling findings over {n_nodes + n_edges} elements"
    if not measured:
        for name in ("text_accuracy", "structure", "geometry", "visual_detail"):
            why[name] = "could not be measured: " + str(cmp.get("error") or md.get("error"))
    axes = []
    for axis in rubric.axes:
        quality = q.get(axis.name, 0.0)
        reason = why.get(axis.name, "no measured version of this axis")
        axes.append(
            {
                "axis": axis.name,
                "points": round(quality * axis.max_points, 2),
                "rationale": reason,
            }
        )
    meas = {
        "reference_nodes": float(n_nodes),
        "reference_edges": float(n_edges),
        "matched_nodes": float(matched),
        "native_objects": float(native),
        "connectors": float(connectors),
        "picture_area_ratio": round(picture, 4),
    }
    return {"axes": axes, "measurements": meas}
