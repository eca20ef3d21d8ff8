"""Nodes that fat tapered tails leave are still nodes (issue 10, session 50: matplotlib seed
4343, measured first, and seed 2525)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from tests.test_overlapping_heads import _read_seeded


def test_a_filled_ellipse_fat_tails_leave_is_a_node(tmp_path: Path) -> None:
    """Seed 4343, figure 13: five arrows leave the filled ellipse "Indexer", each starting as
    a tail fatter than the wide opening that parts 10-14 px lines from their nodes, so the
    ellipse stayed one sprawling blob with them and no node: the decks that dropped it,
    reversed one of its lines or moved one passed. What still sprawls is opened again with
    growing discs; and a box holding only a picture (here the tails' ink over its rim) and a
    label of its own is a node."""
    _labels, nodes, edges = _read_seeded(tmp_path, 13, seed=4343)
    assert "Indexer" in nodes
    out = {b for a, b, how in edges if a == "Indexer" and how != "undirected"}
    assert {"Filter", "Output", "Evaluate", "Softmax"} <= out, edges
    assert not {(a, b) for a, b, _ in edges if "Indexer" not in (a, b)}, edges


def test_an_outlined_ellipse_fat_tails_leave_is_filled(tmp_path: Path) -> None:
    """Seed 2525, figure 13: four fat tails leave the outlined ellipse "Splitter" on a slant.
    What is node-thick of the leftmost tail's stub straddled the ellipse's interior as if a
    node sat on a loop of lines, so the interior stayed unfilled; a node's core matches its
    own mirror image, a slanted stub's does not."""
    _labels, nodes, edges = _read_seeded(tmp_path, 13, seed=2525)
    assert "Splitter" in nodes
    assert {b for a, b, _ in edges if a == "Splitter"} == {
        "Detector",
        "Sampler",
        "Parser",
        "Backbone",
    }, edges
