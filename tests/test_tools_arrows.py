"""Lines and arrowheads on generated raster references: every edge with its direction."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from generation.diagram import make_diagram
from generation.draw import draw_reference
from judge.tools.arrows import detect_lines, node_endpoints
from judge.tools.nodes import detect_blobs


def _edges(seed: int, reverse_first: bool = False) -> tuple[set, set]:
    d = make_diagram("arrows", seed)
    if reverse_first:
        e = d.edges[0]
        e.src, e.dst, e.src_side, e.dst_side = e.dst, e.src, e.dst_side, e.src_side
    img = cv2.cvtColor(np.asarray(draw_reference(d)), cv2.COLOR_RGB2BGR)
    blobs = detect_blobs(img)
    eps = node_endpoints(blobs)

    def node_at(i: int) -> int:
        x, y, w, h = blobs[i].box
        return next(n.id for n in d.nodes if x <= n.cx <= x + w and y <= n.cy <= y + h)

    found = set()
    for ln in detect_lines(img, blobs, eps):
        for a, b, conf in ln.edges():
            if conf in ("high", "medium"):
                found.add((node_at(a), node_at(b)))
    return found, {(e.src, e.dst) for e in d.edges}


@pytest.mark.parametrize("seed", [31, 32, 33, 34])
def test_every_edge_is_read_with_its_direction(seed: int) -> None:
    found, truth = _edges(seed)
    assert found == truth


def test_reversed_edge_is_read_reversed() -> None:
    found, truth = _edges(32, reverse_first=True)
    assert found == truth


def test_no_edge_is_read_in_the_wrong_direction() -> None:
    found, truth = _edges(31)
    assert not {(b, a) for a, b in found} & truth - found
    assert found <= truth
