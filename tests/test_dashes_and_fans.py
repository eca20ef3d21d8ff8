"""Specks make no dashed line; a line of several pieces is not aimed from its skeleton's ends;
a star with every end headed has its fan's hub at the centre (issue 10, session 38: seed 7272,
drawn fresh and measured before these changes)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tests.test_overlapping_heads import _read_seeded


def test_tapered_arrows_with_specks_beside_them_are_not_one_dashed_line(tmp_path: Path) -> None:
    """Seed 7272, figure 13 (matplotlib, 1100 px): five tapered (``fancy``) arrows leave the
    ellipse "Normalize", two pairs of them side by side a dash closing apart. The closing
    joined each pair, the 2-7 px specks of anti-aliasing beside them made each joined pair
    "dashed", and dashed runs are joined further: all five arrows and the one from
    "Evaluate" to "Monitor" read as one line touching six nodes, two edges read, one of them
    backwards. Specks are no dashes: the pairs stay apart from each other and from the arrow
    below (the pair "Fusion" / "Tokenizer" stays one line, see the CHANGELOG)."""
    truth, nodes, edges = _read_seeded(tmp_path, 13, seed=7272)
    assert nodes == truth, nodes
    for dst in ("Evaluate", "Scorer"):
        assert any(e[:2] == ("Normalize", dst) and e[2] in ("high", "medium") for e in edges)
    assert ("Evaluate", "Monitor", "high") in edges, edges
    assert not any("Monitor" in e[:2] and "Normalize" in e[:2] for e in edges), edges


def test_dash_pieces_count_no_specks() -> None:
    """A solid 10 px line with three slivers beside it is not dashed; six dashes are."""
    from judge.tools.aim import dash_pieces

    solid = np.zeros((60, 400), np.uint8)
    cv2.line(solid, (20, 30), (380, 30), 1, 10)
    for x in (100, 200, 300):
        solid[42:44, x : x + 3] = 1  # 6 px slivers
    assert dash_pieces(solid, 10.0) == (1, False)
    dashed = np.zeros((60, 400), np.uint8)
    for x in range(20, 380, 70):
        cv2.line(dashed, (x, 30), (x + 40, 30), 1, 10)
    assert dash_pieces(dashed, 10.0) == (6, True)


def test_a_stub_joined_to_letters_is_not_aimed_across_nodes(tmp_path: Path) -> None:
    """Seed 1313, figure 12 (matplotlib, 1320 px): what the label "update" leaves of its
    letters ("upd", a 337 px stub beside 110, 85 and 35 px letters) joins by the dash closing
    to the shaft of the arrow under it. With specks no longer counted as dashes it is no
    dashed line, and a solid line touching one node is aimed from its skeleton's far ends:
    "Deploy" -> "Augment" read as a high-confidence edge, and six passing decks were
    rejected. A line of several pieces of ink is aimed along its main axis only."""
    _truth, _nodes, edges = _read_seeded(tmp_path, 12, seed=1313)
    assert not any({src, dst} == {"Deploy", "Augment"} for src, dst, _c in edges), edges
    assert ("Decoder", "Deploy", "high") in edges, edges


def test_a_star_with_every_end_headed_has_its_hub_at_the_centre(tmp_path: Path) -> None:
    """Seed 5858, figure 13 (matplotlib): two tapered arrows leave "Gradient" side by side
    for "Decoder" and "Reducer", and their touching tails read as a head there, so every end
    of the line was headed and both edges read both ways (the reversed deck then passed). In
    a star whose every end reads headed, the centre's head is the fan's wedge."""
    from judge.tools.arrows import Contact, LineComp
    from judge.tools.headtests import unhead_star_centre

    line = LineComp((0, 0, 10, 10), 2.0, False, 10.0)
    line.contacts = [Contact(n, (0.0, 0.0), True, 6.0) for n in (2, 7, 8)]
    line.joins = {frozenset((2, 7)), frozenset((2, 8))}
    unhead_star_centre(line)
    assert [c.head for c in line.contacts] == [False, True, True]
    chain = LineComp((0, 0, 10, 10), 2.0, False, 10.0)  # no star: left alone
    chain.contacts = [Contact(n, (0.0, 0.0), True, 6.0) for n in (2, 7, 8)]
    chain.joins = {frozenset((2, 7)), frozenset((2, 8)), frozenset((7, 8))}
    unhead_star_centre(chain)
    assert all(c.head for c in chain.contacts)
    _truth, _nodes, edges = _read_seeded(tmp_path, 13, seed=5858)
    for dst in ("Decoder", "Reducer"):
        assert any(e[:2] == ("Gradient", dst) and e[2] in ("high", "medium") for e in edges), edges
        assert not any(e[:2] == (dst, "Gradient") for e in edges), edges
