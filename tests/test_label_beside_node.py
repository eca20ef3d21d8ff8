"""An edge label OCR reads as one line with a node's label is still erased from the line ink
(issue 10, session 45: matplotlib seed 6868, figure 3, measured first in this session)."""

from __future__ import annotations

from pathlib import Path

from tests.test_overlapping_heads import _read_seeded


def test_a_label_laid_over_a_head_beside_its_node_is_no_line(tmp_path: Path) -> None:
    """Seed 6868, figure 3: the label "tokens" of "Segment" -> "Embedding" sits on that
    arrow's head, right against "Embedding"; OCR reads "tokens Embedding" as one line, centred
    in the node, so it was no free label and stayed in the line ink. The dash closing filled
    its letters and the tails of "Segment"'s arrows into one blob, read as a head on
    "Segment": "Evaluate" -> "Segment" at ``high``, and every faithful deck failed on it. A
    word of such a line centred outside every node's own pixels is erased as a label."""
    _truth, _nodes, edges = _read_seeded(tmp_path, 3, seed=6868)
    assert ("Segment", "Evaluate", "high") in edges, edges
    assert not any(e[:2] == ("Evaluate", "Segment") for e in edges), edges


def test_a_label_beside_a_node_leaves_the_head_under_it(tmp_path: Path) -> None:
    """Seed 6464, figure 3 (the same layout, another seed): "tokens" on "Classifier" ->
    "Preprocess" beside "Classifier" hid that arrow's tail; it was read backwards."""
    _truth, _nodes, edges = _read_seeded(tmp_path, 3, seed=6464)
    assert ("Classifier", "Preprocess", "high") in edges, edges
    assert not any(e[:2] == ("Preprocess", "Classifier") for e in edges), edges
