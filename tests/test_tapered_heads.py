"""Small heads at the thin end of tapered arrows (issue 10, session 40: matplotlib seed 1717,
drawn fresh and measured before this change)."""

from __future__ import annotations

from pathlib import Path

from tests.test_overlapping_heads import _read_seeded


def test_the_thin_end_of_a_tapered_arrow_is_its_head(tmp_path: Path) -> None:
    """Seed 1717, figure 13 (matplotlib): a `fancy` arrow narrows from a 16 px tail at
    "Reducer" to an 8 px shaft into a 19 px head at "Dataset" (enlarged frame). Its halves'
    ridges counted 51 and 115 pixels (the ridge runs sparse along the thick slanted half), so
    the taper went unmeasured; measured by ink over width (121 and 146 px) it tapers, and its
    head stands twice out of the thin half's shaft."""
    truth, nodes, edges = _read_seeded(tmp_path, 13, seed=1717)
    assert nodes == truth, nodes
    assert ("Reducer", "Dataset", "high") in edges, edges
    assert not any(e[:2] == ("Dataset", "Reducer") for e in edges), edges
