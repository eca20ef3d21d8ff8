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
