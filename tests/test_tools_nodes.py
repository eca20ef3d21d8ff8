"""Node detection on generated raster references (Pillow-drawn, like exported figures)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from generation.diagram import make_diagram
from generation.draw import draw_reference
from judge.tools.nodes import detect_blobs, hex_of


@pytest.fixture(scope="module")
def drawn() -> tuple[object, np.ndarray]:
    d = make_diagram("nodes", 31)
    img = cv2.cvtColor(np.asarray(draw_reference(d)), cv2.COLOR_RGB2BGR)
    return d, img


def _leaf_for(blobs: list, node: Any) -> Any:
    for b in blobs:
        x, y, w, h = b.box
        if not b.children and x <= node.cx <= x + w and y <= node.cy <= y + h:
            return b
    return None


def test_every_drawn_node_is_found_as_one_leaf_blob(drawn: tuple) -> None:
    d, img = drawn
    blobs = detect_blobs(img)
    leaves = [b for b in blobs if not b.children]
    assert len(leaves) == len(d.nodes)
    for n in d.nodes:
        b = _leaf_for(blobs, n)
        assert b is not None, n.label
        _, _, w, h = b.box
        assert abs(w - n.w) <= 8 and abs(h - n.h) <= 8


def test_node_fill_colour_is_measured(drawn: tuple) -> None:
    d, img = drawn
    blobs = detect_blobs(img)
    n = d.nodes[0]
    b = _leaf_for(blobs, n)
    assert b is not None
    r, g, bl = (int(hex_of(b.fill_bgr)[i : i + 2], 16) for i in (0, 2, 4))  # type: ignore[index]
    assert max(abs(r - n.fill[0]), abs(g - n.fill[1]), abs(bl - n.fill[2])) <= 6


def test_panels_hold_their_nodes(drawn: tuple) -> None:
    d, img = drawn
    blobs = detect_blobs(img)
    containers = [b for b in blobs if b.children]
    assert len(containers) == len(d.panels)


def test_blank_image_has_no_blobs() -> None:
    assert detect_blobs(np.full((300, 400, 3), 255, np.uint8)) == []


def _cylinder(img: np.ndarray, x: int, y: int, w: int, h: int, cap: int, gap: bool) -> None:
    """An outlined cylinder as drawing tools export it: a whole top ellipse, two sides and a
    whole bottom ellipse (its upper half hidden in a real drawing, drawn here as hand-drawn
    tools do); ``gap``: the left side is drawn a little left of the caps, missing them by a
    pixel (hand-drawn)."""
    black = (30, 30, 30)
    cv2.ellipse(img, (x + w // 2, y + cap // 2), (w // 2, cap // 2), 0, 0, 360, black, 3)
    cv2.ellipse(img, (x + w // 2, y + h - cap // 2), (w // 2, cap // 2), 0, 0, 360, black, 3)
    left = x - 6 if gap else x
    cv2.line(img, (left, y + cap // 2), (left, y + h - cap // 2), black, 3)
    cv2.line(img, (x + w, y + cap // 2), (x + w, y + h - cap // 2), black, 3)


@pytest.mark.parametrize("gap", [False, True])
def test_an_outlined_cylinder_is_one_node_not_two_caps(gap: bool) -> None:
    """The caps are holes straddling the body's hole; they are the body's ends (as wide as it),
    not nodes sitting on a loop of lines, so the whole cylinder fills into one leaf blob."""
    img = np.full((600, 900, 3), 255, np.uint8)
    _cylinder(img, 500, 100, 260, 360, 100, gap)
    cv2.putText(img, "Storage", (540, 300), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (30, 30, 30), 2)
    cv2.rectangle(img, (80, 220), (330, 340), (30, 30, 30), 3)  # an ordinary box beside it
    boxes = [b.box for b in detect_blobs(img) if b.box[0] > 400]  # the glyphs are text blobs
    whole = [(x, y, w, h) for x, y, w, h in boxes if h > 300]
    assert len(whole) == 1, boxes
    x, y, w, h = whole[0]
    assert abs(x - 500) <= 9 and abs(y - 100) <= 6 and abs(w - 260) <= 14 and abs(h - 360) <= 8
    assert not [b for b in boxes if abs(b[2] - 260) <= 12 and b[3] < 150], boxes  # no lone cap


def test_a_cylinder_lying_down_is_one_node_too() -> None:
    """The same cylinder turned a quarter: its caps straddle the body's left and right ends."""
    img = np.full((900, 600, 3), 255, np.uint8)
    _cylinder(img, 100, 100, 260, 360, 100, False)
    img = np.ascontiguousarray(np.rot90(img))  # now 600 tall, 900 wide; caps left and right
    boxes = [b.box for b in detect_blobs(img)]
    whole = [(x, y, w, h) for x, y, w, h in boxes if w > 300]
    assert len(whole) == 1, boxes
    assert abs(whole[0][2] - 360) <= 8 and abs(whole[0][3] - 260) <= 8


def test_a_loop_of_lines_through_outlined_boxes_is_not_filled() -> None:
    """Four outlined boxes on a rectangle of lines: the loop's hole is straddled by boxes
    narrower than it (not caps), so it stays a loop and the boxes stay four nodes."""
    img = np.full((700, 900, 3), 255, np.uint8)
    black = (30, 30, 30)
    cv2.rectangle(img, (150, 150), (750, 550), black, 3)  # the loop of lines
    for cx, cy in ((150, 350), (750, 350), (450, 150), (450, 550)):
        cv2.rectangle(img, (cx - 70, cy - 45), (cx + 70, cy + 45), (255, 255, 255), -1)
        cv2.rectangle(img, (cx - 70, cy - 45), (cx + 70, cy + 45), black, 3)
    leaves = [b for b in detect_blobs(img) if not b.children]
    assert len(leaves) == 4, sorted(b.box for b in leaves)
    assert all(b.box[2] < 200 for b in leaves)


def test_a_cylinders_thin_cap_fills_with_its_body() -> None:
    """A cap thinner than a node (16 px on a 600 px image: the node side is 17 px) is no hole
    of its own node; it fills with the body, so the blob's top is the cap's top and no arc of
    it is left to read as a line (seed-2525 matplotlib figure 10)."""
    img = np.full((600, 900, 3), 255, np.uint8)
    _cylinder(img, 500, 100, 260, 200, 16, False)
    cv2.putText(img, "Store", (560, 220), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (30, 30, 30), 2)
    whole = [b.box for b in detect_blobs(img) if b.box[3] > 150]
    assert len(whole) == 1, whole
    _x, y, _w, h = whole[0]
    assert abs(y - 100) <= 3 and abs(h - 200) <= 6, whole


def _filled_box(img: np.ndarray, x: int, y: int, w: int, h: int, label: str) -> None:
    cv2.rectangle(img, (x, y), (x + w, y + h), (240, 220, 200), -1)
    cv2.putText(
        img, label, (x + 12, y + h // 2 + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (20, 20, 20), 2
    )


def test_two_filled_boxes_a_labelled_fat_arrow_bridges_stay_two() -> None:
    """A short 9 px arrow between two filled boxes, its label over it: the label and the
    arrow fill into a patch the opening keeps, joining the boxes. Two side-by-side patches of
    one fill with the page showing between them are two nodes."""
    img = np.full((500, 900, 3), 255, np.uint8)
    _filled_box(img, 200, 200, 140, 60, "Mapper")
    _filled_box(img, 420, 200, 160, 60, "Tokenizer")
    cv2.arrowedLine(img, (341, 236), (419, 236), (50, 50, 50), 9, tipLength=0.3)
    cv2.putText(img, "update", (344, 232), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 2)
    boxes = sorted(b.box for b in detect_blobs(img) if b.box[3] > 40)
    assert len(boxes) == 2 and boxes[0][0] + boxes[0][2] < boxes[1][0], boxes


def test_a_panel_split_into_lanes_keeps_its_nodes() -> None:
    """A grey panel split into two lanes by a dark band with a white mark, blue nodes with
    white labels in each lane: the lanes are two patches of one fill a node's side apart with
    the page's white (the mark, the labels) between them, but each lane surrounds its nodes,
    so the panel is not parted and holds them."""
    img = np.full((600, 900, 3), 255, np.uint8)
    cv2.rectangle(img, (100, 100), (800, 500), (210, 210, 210), -1)
    cv2.rectangle(img, (100, 100), (800, 500), (60, 60, 60), 2)
    cv2.rectangle(img, (438, 100), (462, 500), (60, 60, 60), -1)  # a band between the lanes
    cv2.putText(img, "II", (441, 300), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2)
    for x in (160, 510):
        for y in (160, 340):
            cv2.rectangle(img, (x, y), (x + 200, y + 90), (250, 230, 200), -1)
            cv2.rectangle(img, (x, y), (x + 200, y + 90), (60, 60, 60), 2)
            cv2.putText(
                img, "Step", (x + 60, y + 55), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2
            )
    blobs = detect_blobs(img)
    panels = [b for b in blobs if b.box[2] > 600]
    assert len(panels) == 1, [b.box for b in blobs]
    leaves = [b for b in blobs if not b.children and b.box[2] > 150]
    assert len(leaves) == 4, [b.box for b in blobs]
