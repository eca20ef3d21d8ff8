"""Small tapered (``fancy``) arrows read one way (issue 10, session 47: matplotlib seed 8686,
figure 13, measured first in session 46).

Seed 8686, figure 13: ``fancy`` arrows 3.6 px wide narrowing from a 6 px tail to a 4 px shaft
behind heads too small to read. Two of them leave "Output" side by side: the dash closing
filled the wedge between their tails into one blob read as a head, so "Align" and "Deploy"
read as pointing into "Output" (and the six pass decks failed on it). The others read with no
direction: their taper is one distance-transform step, under ``thick_end``'s ridge medians."""

from __future__ import annotations

from pathlib import Path

from tests.test_overlapping_heads import _read_seeded


def test_tails_leaving_side_by_side_are_no_head(tmp_path: Path) -> None:
    _truth, _nodes, edges = _read_seeded(tmp_path, 13, seed=8686)
    for src in ("Align", "Deploy"):
        assert not any(e[:2] == (src, "Output") for e in edges), edges
        assert ("Output", src, "high") in edges, edges


def test_slight_taper_points_to_the_thin_end(tmp_path: Path) -> None:
    _truth, _nodes, edges = _read_seeded(tmp_path, 13, seed=8686)
    for src, dst in (("Output", "Evaluate"), ("Deploy", "Augment"), ("Fusion", "Validate")):
        assert (src, dst, "high") in edges, edges
