"""Specks and short solid arrows make no dashed line; a line of several pieces is not aimed
from its skeleton's ends; a star with every end headed has its fan's hub at the centre (issue
10, session 38: seed 7272, drawn fresh and measured before these changes)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tests.test_overlapping_heads import _read_seeded


def test_tapered_tails_leaving_a_node_side_by_side_stay_apart(tmp_path: Path) -> None:
    """Seed 7272, figure 13 (matplotlib, 1100 px): five tapered (``fancy``) arrows leave the
    ellipse "Normalize", two pairs of them side by side a dash closing apart. The closing
    joined each pair, the 2-7 px specks of anti-aliasing beside them made each joined pair
    "dashed", and dashed runs are joined further: all five read as one line touching six
    nodes, two edges read, one backwards. Specks are no dashes, and a 60 x 90 px arrow is
    no dash either where no dashed line holds it."""
    truth, nodes, edges = _read_seeded(tmp_path, 13, seed=7272)
    assert nodes == truth, nodes
    for dst in ("Evaluate", "Scorer", "Fusion", "Tokenizer"):
        assert ("Normalize", dst, "high") in edges, edges
    assert ("Evaluate", "Monitor", "high") in edges, edges


def test_dash_pieces_count_no_specks() -> None:
    """A solid 10 px line with three slivers beside it is not dashed; five dashes are."""
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


def test_two_short_solid_strokes_side_by_side_are_not_bridged() -> None:
    """Two 80 px strokes 10 px wide, side by side 25 px apart (a 35 px dash closing bridges
    them), are two lines: short as dashes, but no dashed line holds them. A dashed line of
    the same width stays one."""
    from judge.tools.aim import dash_closing

    ink = np.zeros((200, 300), np.uint8)
    cv2.line(ink, (100, 40), (100, 120), 255, 10)
    cv2.line(ink, (135, 40), (135, 120), 255, 10)
    closed = dash_closing(ink, 35, 9)
    assert cv2.connectedComponents(closed, connectivity=8)[0] - 1 == 2
    dashed = np.zeros((200, 400), np.uint8)
    for x in range(20, 360, 60):
        cv2.line(dashed, (x, 100), (x + 35, 100), 255, 10)
    cv2.line(dashed, (100, 150), (100, 190), 255, 10)  # a short solid stroke too
    closed = dash_closing(dashed, 35, 9)
    assert cv2.connectedComponents(closed, connectivity=8)[0] - 1 == 2


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
    """Seed 3737, figure 13 (matplotlib): two tapered arrows leave "Softmax" side by side
    and their thick tails, touching, read as a head there, so every end of the line was
    headed and each edge read both ways (the reversed deck then passed). In a star whose
    every end reads headed, the centre's head is the fan's wedge."""
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
    _truth, _nodes, edges = _read_seeded(tmp_path, 13, seed=3737)
    for dst in ("Detector", "Mapper"):
        assert any(e[:2] == ("Softmax", dst) and e[2] in ("high", "medium") for e in edges), edges
        assert not any(e[:2] == (dst, "Softmax") for e in edges), edges
