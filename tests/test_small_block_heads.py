"""Small solid heads on 2.5-4 px shafts are heads (issue 10, session 50)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from tests.test_overlapping_heads import _read_seeded


def test_small_heads_on_thin_shafts_give_their_lines_a_direction(tmp_path: Path) -> None:
    """Seed 1919, figure 3 (matplotlib, 832 px): 3.4-4 px lines end in solid heads about 2.2
    shafts wide and as long, whose thickness is 1.4-1.6 times the shaft's, under the
    thickness test's ratio; the block-head test, which reads such a head by its shape, only
    ran on shafts of 4 px or more. Six of the figure's seventeen edges read with no
    direction, and the pill "Splitter", reached by one such head, was no node."""
    _labels, nodes, edges = _read_seeded(tmp_path, 3, seed=1919)
    assert "Splitter" in nodes
    for src, dst in [
        ("Train", "Normalize"),
        ("Train", "Filter"),
        ("Backbone", "Assembler"),
        ("Cluster", "Detector"),
        ("Assembler", "Splitter"),
    ]:
        assert (src, dst, "high") in edges, (src, dst, edges)


def test_a_thin_slanted_line_or_a_tapered_tail_is_no_block_head(tmp_path: Path) -> None:
    """Seed 4141, figure 4: a 3 px slanted line's staircase makes single slices of it twice
    its width; seed 2424, figure 13: a tapered tail leaving an ellipse beside another line's
    tail. Both passed for block heads on thin shafts: a thin shaft's head must stand alone."""
    _labels, _nodes, edges = _read_seeded(tmp_path, 4, seed=4141)
    assert ("Labeler", "Loss", "high") in edges, edges
    _labels, _nodes, edges = _read_seeded(tmp_path, 13, seed=2424)
    assert ("Cache", "Labeler") not in {(a, b) for a, b, _ in edges}, edges
