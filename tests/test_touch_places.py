"""A line component touching one node at two places far apart ends there twice (issue 10,
session 44: matplotlib seed 4646, figure 4, measured in session 43)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tests.test_overlapping_heads import _read_seeded


def test_a_line_leaving_the_far_side_of_a_node_starts_there(tmp_path: Path) -> None:
    """Seed 4646, figure 4 (matplotlib): "Align" -> "Pooling" leaves the right side of
    "Align", and is one line component with the back arc leaving its left side beside
    "Mapper" -> "Align"'s head. The component touched "Align" once, at the left, by a head:
    "Align" -> "Pooling" was read backwards, and the faithful and style decks failed on it."""
    truth, nodes, edges = _read_seeded(tmp_path, 4, seed=4646)
    assert nodes == truth, nodes
    assert ("Align", "Pooling", "high") in edges, edges
    assert not any(e[:2] == ("Pooling", "Align") for e in edges), edges
    for src, dst in (("Align", "Critic"), ("Pooling", "Critic"), ("Mapper", "Align")):
        assert any(e[:2] == (src, dst) and e[2] in ("high", "medium") for e in edges), edges


Point = tuple[float, float]


def _bezier(p0: Point, p1: Point, p2: Point) -> np.ndarray:
    t = np.linspace(0.0, 1.0, 80)[:, None]
    return (1 - t) ** 2 * np.array(p0) + 2 * (1 - t) * t * np.array(p1) + t**2 * np.array(p2)


def _arrow(img: np.ndarray, pts: np.ndarray, length: float = 20.0, half: float = 8.0) -> None:
    """A 2 px polyline ending in a solid head ``length`` px long, its tip at the last point."""
    tip = pts[-1]
    k = int(np.nonzero(np.hypot(*(pts - tip).T) >= length)[0].max())
    u = (tip - pts[k]) / np.hypot(*(tip - pts[k]))
    base, across = tip - u * length, np.array([-u[1], u[0]]) * half
    shaft = np.round(np.vstack([pts[: k + 1], base])).astype(np.int32)
    cv2.polylines(img, [shaft], False, (60, 60, 60), 2, cv2.LINE_AA)
    tri = np.round(np.array([tip, base + across, base - across])).astype(np.int32)
    cv2.fillConvexPoly(img, tri, (60, 60, 60), cv2.LINE_AA)


def _named_blobs(
    img: np.ndarray, boxes: dict[str, tuple[int, int]]
) -> tuple[list[Any], list[int], dict[int, str]]:
    """The blobs of an image drawn with OpenCV, its endpoints, and each endpoint's name by
    the corner (``boxes``) its box starts at; asserts every box was found."""
    from judge.tools.arrows import node_endpoints
    from judge.tools.nodes import detect_blobs

    blobs = detect_blobs(img)
    eps = node_endpoints(blobs)
    name = {
        i: k
        for i in eps
        for k, (x, y) in boxes.items()
        if abs(blobs[i].box[0] - x) < 12 and abs(blobs[i].box[1] - y) < 12
    }
    assert sorted(name.values()) == sorted(boxes), [blobs[i].box for i in eps]
    return blobs, eps, name


def test_a_component_touching_a_node_on_two_sides_ends_there_twice() -> None:
    """Drawn with OpenCV (not our generators): boxes A, B, C in a row and D above A. A -> B
    and B -> C are straight; B -> D leaves B's left side beside A -> B's head, and an arc from
    C's left side, beside B -> C's head, merges into it. One component touches B on its left
    and on its right: B -> C leaves B's right side as a stroke of its own (its edge was read
    from one touch between the two, ``medium``), and B's two places are two contacts."""
    from judge.tools.arrows import detect_lines

    img = np.full((480, 1000, 3), 255, np.uint8)
    boxes = {"A": (100, 300), "B": (400, 300), "C": (700, 300), "D": (100, 120)}
    for x, y in boxes.values():
        cv2.rectangle(img, (x, y), (x + 110, y + 40), (0, 0, 0), 2, cv2.LINE_AA)
    _arrow(img, np.array([(212.0, 320.0), (397.0, 320.0)]))
    _arrow(img, np.array([(512.0, 320.0), (697.0, 320.0)]))
    bd = _bezier((391, 316), (330, 120), (214, 140))
    _arrow(img, bd)
    cd = np.round(_bezier((691, 316), (520, 60), (bd[50][0], bd[50][1]))).astype(np.int32)
    cv2.polylines(img, [cd], False, (60, 60, 60), 2, cv2.LINE_AA)

    blobs, eps, name = _named_blobs(img, boxes)
    lines = detect_lines(img, blobs, eps)
    big = [ln for ln in lines if len(ln.contacts) >= 4]
    assert len(big) == 1, [[name.get(c.node) for c in ln.contacts] for ln in lines]
    at_b = sorted(c.point[0] for c in big[0].contacts if name.get(c.node) == "B")
    assert len(at_b) == 2 and at_b[0] < 400 < 510 < at_b[1], at_b
    edges = {(name.get(a), name.get(b), how) for a, b, how in big[0].edges()}
    assert ("B", "C", "high") in edges, edges
    assert {e[:2] for e in edges} >= {("B", "D"), ("C", "D")}, edges
    assert not {e[:2] for e in edges} & {("C", "B"), ("D", "B"), ("D", "C")}, edges
