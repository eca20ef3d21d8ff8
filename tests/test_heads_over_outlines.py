"""Readings of matplotlib figures (issue 10, session 29): a head drawn over a node's outline in
another colour is read whole on a line joining two nodes; lines crowding at a node keep the
first reading."""

from __future__ import annotations

import math

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


def test_a_dark_head_on_a_dark_ellipses_rim_is_line_ink() -> None:
    """Seed 2929, figure 7: dark grey heads land on dark teal ellipses at a grazing angle. The
    ellipse's mask took the heads in, and line ink there was measured against the teal fill,
    from which the grey differs by less than line ink does: "Deploy" -> "Decoder" and
    "Scorer" -> "Deploy" read with no direction, so their reversed decks passed."""
    img, _labels = _seeded_reference(7, seed=2929)
    _nodes, edges, _lines = _read_graph(img)
    assert ("Deploy", "Decoder", "high") in edges, edges
    assert ("Scorer", "Deploy", "high") in edges, edges
    assert ("Deploy", "Mapper", "high") in edges, edges


def test_hidden_head_ink_is_added_but_not_the_outline() -> None:
    """OpenCV-drawn: a grey head whose tip reaches 3 px past a dark-filled ellipse's rim is
    fused into the ellipse's mask; measured against the teal fill it is no line ink. Its body
    is added, nothing outside the head is, and nothing is taken away."""
    from judge.tools.arrows import background_map
    from judge.tools.lineink import heads_in_masks
    from judge.tools.nodes import detect_blobs, ink_mask, own_mask

    img = np.full((300, 400, 3), 255, np.uint8)
    cv2.ellipse(img, (220, 150), (120, 60), 0, 0, 360, (120, 111, 31), -1, cv2.LINE_AA)
    cv2.ellipse(img, (220, 150), (120, 60), 0, 0, 360, (72, 64, 18), 3, cv2.LINE_AA)
    t, a = math.radians(225), math.radians(20)  # the rim point, the line's heading
    d = np.array([math.cos(a), math.sin(a)])
    tip = np.array([220 + 120 * math.cos(t), 150 + 60 * math.sin(t)]) + 3 * d
    base, across = tip - 24 * d, 11 * np.array([-d[1], d[0]])
    head = np.array([tip, base + across, base - across]).round().astype(np.int32)
    cv2.fillPoly(img, [head], (68, 68, 68), cv2.LINE_AA)
    tail = tuple(int(v) for v in (base - 80 * d).round())
    cv2.line(img, tail, tuple(int(v) for v in base.round()), (68, 68, 68), 3, cv2.LINE_AA)
    blobs = detect_blobs(img)
    assert len(blobs) == 1, [b.box for b in blobs]
    ink = ink_mask(img, background_map(img, blobs), strong=True)
    more = heads_in_masks(img, blobs, {0: own_mask(img, blobs[0])}, ink)
    added = (more > 0) & (ink == 0)
    near_head = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(near_head, [head], 1)
    near_head = cv2.dilate(near_head, np.ones((3, 3), np.uint8))
    assert added.sum() >= 50, int(added.sum())  # the head's body (~260 px), part hidden
    assert not (added & (near_head == 0)).any()  # nothing of the outline or the fill
    assert ((more > 0) | (ink == 0)).all()  # nothing taken away


def test_a_small_head_on_a_tapered_shafts_thin_end_is_a_head() -> None:
    """Seed 3737, figure 6: "Monitor" -> "Attention" tapers from 13 px to 6 px, its head
    19 px wide: against the shaft a window back (13 px) the head measured 1.5 shafts and the
    line read with no direction, so its reversed deck passed. Against its neck, the shaft
    right behind the head, it is a head; the thick tail stays no head."""
    img, _labels = _seeded_reference(6, seed=3737)
    _nodes, edges, _lines = _read_graph(img)
    assert ("Monitor", "Attention", "high") in edges, edges
    assert ("Sequencer", "Attention", "high") in edges, edges
    assert not {e for e in edges if e[:2] == ("Attention", "Monitor")}, edges
