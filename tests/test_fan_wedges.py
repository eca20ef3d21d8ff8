"""The dash closing's wedge between separate lines leaving a node close together is no part of
either line (issue 10, session 39: seed 6464, drawn fresh and measured before this change)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.test_overlapping_heads import _read_seeded


def test_fill_joining_two_lines_is_kept_only_as_a_bridge() -> None:
    """Two 4 px lines leaving one point 10 px apart and parting: a 19 px closing fills the
    wedge between them (hundreds of pixels, joining the two pieces). As drawn, that wedge is
    dropped, unless a head lies by it (a head and another line's tail glued to one point,
    as connectors sharing a connection site render); the bridge across a dash gap of one
    line is kept."""
    from judge.tools.lineink import own_ink

    ink = np.zeros((120, 200), np.uint8)
    cv2.line(ink, (10, 60), (190, 10), 1, 4)
    cv2.line(ink, (10, 70), (190, 110), 1, 4)
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((19, 19), np.uint8))
    wedge = (closed > 0) & (ink == 0)
    wedge[:, 40:] = False  # the closing's fill by the shared end only
    assert wedge.sum() > 200
    drawn = own_ink(closed > 0, ink > 0, 19)
    assert drawn[wedge].mean() < 0.2, "the wedge was kept"

    headed = ink.copy()  # one line's head at the shared end: the wedge stays whole
    cv2.fillPoly(headed, [np.array([[8, 61], [30, 62], [26, 48]], np.int32)], 1)
    closed = cv2.morphologyEx(headed, cv2.MORPH_CLOSE, np.ones((19, 19), np.uint8))
    drawn = own_ink(closed > 0, headed > 0, 19)
    wedge = (closed > 0) & (headed == 0)
    wedge[:, 40:] = False  # the closing's fill by the shared end only
    assert wedge.sum() > 200 and drawn[wedge].all(), "the wedge by a head was dropped"

    dashes = np.zeros((40, 200), np.uint8)
    cv2.line(dashes, (10, 20), (90, 20), 1, 4)
    cv2.line(dashes, (104, 20), (190, 20), 1, 4)  # a 14 px gap
    closed = cv2.morphologyEx(dashes, cv2.MORPH_CLOSE, np.ones((19, 19), np.uint8))
    drawn = own_ink(closed > 0, dashes > 0, 19)
    assert drawn[18:23, 92:102].all(), "the gap's bridge was dropped"


def test_arrows_fanning_out_of_a_corner_are_not_read_into_it(tmp_path: Path) -> None:
    """Seed 6464, figure 3 (matplotlib, 1000 px): four arrows leave "Filter", two from its
    top-right corner and two from its bottom-right corner, each pair about 10 px apart where
    they start. The dash closing joins each pair and fills the wedge between them; kept as a
    "bridge" in the ink the heads are measured on, the wedge read as a head at "Filter" and
    swallowed the heads at "Embedding", "Indexer" and "Critic": three edges read backwards
    with high confidence, and all six passing decks were rejected."""
    truth, nodes, edges = _read_seeded(tmp_path, 3, seed=6464)
    # "Embedding" (a pill: a light box tight round its label) is lost since session 41: see
    # the strict xfail below
    assert nodes - {"Embedding"} == truth - {"Embedding"}, nodes
    for src in ("Embedding", "Indexer", "Critic"):
        assert not any(e[:2] == (src, "Filter") for e in edges), edges
    # "Cluster"'s arrow leaves beside the lost pill's: since session 45 (the edge label
    # "tokens" by "Classifier" is erased from the line ink, and the dash closing, sized on
    # that ink's line widths, is a pixel wider) their wedge reads both ways at ``medium``:
    # undecided, never backwards at ``high`` (the figure's 11 decks did not move)
    assert ("Cluster", "Filter", "high") not in edges, edges
    assert any(e[:2] == ("Filter", "Cluster") and e[2] in ("high", "medium") for e in edges)


@pytest.mark.xfail(strict=True, reason="known regression of session 41 (issue 10)")
def test_a_pill_whose_lines_another_line_joined_stays_a_node(tmp_path: Path) -> None:
    """Seed 6464, figure 3: "Embedding" is a pill (a light box drawn tight round its label,
    no outline), a node only when its lines show it (a head ends there, or they join it to
    three or more nodes). Its arrows to "Classifier" and "Train" and "Cluster"'s two arrows
    leave their nodes side by side; the dash closing used to join all four into one
    component whose strokes happened to pair "Embedding" with three nodes. Since session 41
    two tails a line width or more apart are not bridged (``BRIDGE_APART_WIDTHS``):
    "Cluster" -> "Input" parts from the rest, the rest's strokes no longer pair "Embedding"
    with "Classifier", the head "Filter" -> "Embedding" ends in reads undecided, and the
    pill is read as a label. The gates of this figure's 11 decks did not move (re-judged
    in process); the reading did."""
    _truth, nodes, _edges = _read_seeded(tmp_path, 3, seed=6464)
    assert "Embedding" in nodes, nodes
