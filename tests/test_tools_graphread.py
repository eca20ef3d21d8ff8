"""Graph reading from a raster and matching against another reading."""

from __future__ import annotations

import cv2
import numpy as np

from generation.diagram import make_diagram
from generation.draw import draw_reference
from judge.tools.arrows import detect_lines, node_endpoints
from judge.tools.graphread import (
    GEdge,
    GNode,
    Graph,
    compare_graphs,
    label_distance,
    read_raster_graph,
)
from judge.tools.nodes import detect_blobs
from judge.tools.ocr import ocr_image


def _graph(d: object) -> object:
    img = cv2.cvtColor(np.asarray(draw_reference(d)), cv2.COLOR_RGB2BGR)  # type: ignore[arg-type]
    blobs = detect_blobs(img)
    lines = detect_lines(img, blobs, node_endpoints(blobs))
    return read_raster_graph(
        "reference", (img.shape[1], img.shape[0]), blobs, lines, ocr_image(img)
    )


def test_label_distance_ignores_case_spacing_and_punctuation() -> None:
    assert label_distance("Encoder", "en coder.") == 0.0
    assert label_distance("Encoder", "Decoder") > 0.2


def test_identical_drawings_have_no_discrepancy() -> None:
    d = make_diagram("same", 32)
    g = _graph(d)
    _, ds = compare_graphs(g, _graph(d))  # type: ignore[arg-type]
    assert ds == []


def test_reversed_edge_is_a_confident_reversed_edge_discrepancy() -> None:
    d = make_diagram("rev", 32)
    ref = _graph(d)
    d2 = d.copy()
    e = d2.edges[0]
    e.src, e.dst, e.src_side, e.dst_side = e.dst, e.src, e.dst_side, e.src_side
    _, ds = compare_graphs(ref, _graph(d2))  # type: ignore[arg-type]
    kinds = [(x.kind, x.confident) for x in ds]
    assert kinds == [("reversed_edge", True)]
    src, dst = d.node(d.edges[0].src).label, d.node(d.edges[0].dst).label
    assert src in ds[0].target and dst in ds[0].target


def test_changed_label_keeps_its_place_and_is_reported() -> None:
    d = make_diagram("lab", 33)
    ref = _graph(d)
    d2 = d.copy()
    d2.nodes[0].label = "Zebra"
    _, ds = compare_graphs(ref, _graph(d2))  # type: ignore[arg-type]
    assert [x.kind for x in ds] == ["changed_label"]


def _fan(labels: list[str], edges: list[tuple[int, int, str]]) -> Graph:
    """A reading of a fan: node 0 left, the others stacked on the right."""
    nodes = [GNode(f"n{i}", t, 0.95, (0.0 if i == 0 else 300.0, 40.0 * i, 100.0, 30.0))
             for i, t in enumerate(labels)]  # fmt: skip
    return Graph("x", 400, 200, nodes, [GEdge(f"n{a}", f"n{b}", d) for a, b, d in edges])


def test_a_branching_line_read_backwards_is_confident_only_when_every_node_agrees() -> None:
    """The reference's fan (one line branching to two heads) reads ``medium``; the candidate
    draws one branch back, as a plain line or as a branch again. With every node read alike in
    both, the reversal is confident (our matplotlib figure 8, Graphviz figure 3); with a node
    one reading lacks, it is not."""
    labels = ["Feature Map", "Softmax", "Pooling"]
    ref = _fan(labels, [(0, 1, "medium"), (0, 2, "medium")])
    cand = _fan(labels, [(0, 1, "high"), (2, 0, "high")])
    _, ds = compare_graphs(ref, cand)
    assert [(d.kind, d.confident) for d in ds] == [("reversed_edge", True)]
    ref_more = _fan([*labels, "Tracker"], [(0, 1, "medium"), (0, 2, "medium")])
    _, ds = compare_graphs(ref_more, cand)
    assert ("reversed_edge", False) in [(d.kind, d.confident) for d in ds]
    # the candidate's reversed branch still leaves the fan's point with the other one (a
    # branching line in its render too, our Graphviz figure 3): as sure, with every node alike
    cand_fan = _fan(labels, [(0, 1, "medium"), (2, 0, "medium")])
    _, ds = compare_graphs(ref, cand_fan)
    assert [(d.kind, d.confident) for d in ds] == [("reversed_edge", True)]
    _, ds = compare_graphs(ref_more, cand_fan)
    assert ("reversed_edge", False) in [(d.kind, d.confident) for d in ds]
