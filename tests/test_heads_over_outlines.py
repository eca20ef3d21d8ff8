"""Readings of matplotlib figures (issue 10, session 29): a head drawn over a node's outline in
another colour is read whole on a line joining two nodes; lines crowding at a node keep the
first reading."""

from __future__ import annotations

import cv2
import numpy as np

from tests.test_mpl_reading import _read_graph, _seeded_reference


def _box_with_lines(line_bgr: tuple[int, int, int]) -> np.ndarray:
    """A grey-outlined, lightly filled box with lines drawn in ``line_bgr`` over its outline:
    two from below meeting at one point of its bottom side, one ending on its left side."""
    img = np.full((400, 600, 3), 255, np.uint8)
    cv2.rectangle(img, (200, 100), (400, 200), (238, 238, 238), -1)
    cv2.rectangle(img, (200, 100), (400, 200), (85, 85, 85), 3)
    for end in ((150, 340), (450, 340)):
        cv2.line(img, (300, 201), end, line_bgr, 3, cv2.LINE_AA)
    cv2.line(img, (60, 150), (200, 150), line_bgr, 3, cv2.LINE_AA)
    return img


def test_ink_in_another_colour_over_an_outline_is_kept_but_joins_no_two_lines() -> None:
    """A black line drawn over a grey outline is kept where it crosses it (the ink is not the
    node's), yet two lines meeting at one point of the node are not joined through it
    (dev06: an arrow arriving where another line leaves); lines in the outline's own colour
    are erased with it as before."""
    from judge.tools.arrows import background_map
    from judge.tools.lineink import node_erase
    from judge.tools.nodes import detect_blobs, ink_mask

    for colour, any_kept in (((0, 0, 0), True), ((85, 85, 85), False)):
        img = _box_with_lines(colour)
        blobs = detect_blobs(img)
        box = [i for i, b in enumerate(blobs) if abs(b.box[0] - 200) <= 4]
        assert len(box) == 1, [b.box for b in blobs]
        ink = ink_mask(img, background_map(img, blobs), strong=True)
        erase, kept = node_erase(img, blobs, set(box), ink)
        assert bool(kept.any()) is any_kept
        left = ink.copy()
        left[erase > 0] = 0
        n, _lab = cv2.connectedComponents(left, connectivity=8)
        assert n - 1 == 3  # the two lines meeting below stay two


def test_a_head_whose_barb_lies_on_an_ellipse_in_another_colour_is_read() -> None:
    """Seed 7474, figure 1: black open heads land on grey ellipses, one barb lying along the
    outline. Erased with the outline, half of "Sequencer" -> "Detector"'s head went and the
    line read with no direction, so its reversed deck passed. The black ink over the grey
    outline is the line's, kept and measured."""
    img, _labels = _seeded_reference(1, seed=7474)
    _nodes, edges, _lines = _read_graph(img)
    assert ("Sequencer", "Detector", "high") in edges, edges
    assert ("Preprocess", "Dataset", "high") in edges, edges


def test_lines_crowding_at_a_node_keep_the_first_reading() -> None:
    """Seed 3737, figure 4: a long arc's head lands on "Detector" where the line to
    "Upsample" leaves. With the ink over the outlines kept, the junction of the two moved out
    of the node's reach and the strokes paired the arc with "Upsample" ("Train" ->
    "Upsample"): lines touching three or more nodes keep the first reading."""
    img, _labels = _seeded_reference(4, seed=3737)
    _nodes, edges, _lines = _read_graph(img)
    assert not {e for e in edges if {e[0], e[1]} == {"Train", "Upsample"}}, edges
    assert ("Train", "Detector", "high") in edges, edges
