"""Two lines crossing over a label keep their arms inside the label's box (issue 10, session 44:
matplotlib seed 5353, drawn fresh and measured before this change)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tests.test_overlapping_heads import _read_seeded


def test_lines_crossing_over_a_label_are_both_read(tmp_path: Path) -> None:
    """Seed 5353, figure 3 (matplotlib): "Softmax" -> "Filter" and "Attention" -> "Decoder"
    cross right above the edge label "update", whose OCR box (61 px tall for 25 px letters)
    holds the crossing's two lower arms and the head at "Filter". The label's erasing took
    the component for one line through the box (its two sides: the crossing above, the head
    at "Filter") and dropped the ink off the straight segment between them as letters: the
    arm and head to "Filter" went, both edges were lost, and the deck reversing "Attention"
    -> "Decoder" passed."""
    truth, nodes, edges = _read_seeded(tmp_path, 3, seed=5353)
    assert nodes == truth, nodes
    assert ("Softmax", "Filter", "high") in edges, edges
    assert ("Attention", "Decoder", "high") in edges, edges
    assert not any(e[:2] in {("Filter", "Softmax"), ("Decoder", "Attention")} for e in edges)


def _arrow(img: np.ndarray, p: tuple[int, int], q: tuple[int, int]) -> None:
    """A 6 px line from ``p`` with a solid head (26 px long, 24 px wide) whose tip is ``q``."""
    a, b = np.array(p, float), np.array(q, float)
    u = (b - a) / np.hypot(*(b - a))
    base = b - u * 26.0
    cv2.line(img, p, (int(round(base[0])), int(round(base[1]))), (50, 50, 50), 6, cv2.LINE_AA)
    n = np.array([-u[1], u[0]]) * 12.0
    tri = np.round([b, base + n, base - n]).astype(np.int32)
    cv2.fillConvexPoly(img, tri, (50, 50, 50), cv2.LINE_AA)


def test_an_arm_and_head_inside_a_labels_box_stay_drawn_with_opencv() -> None:
    """Drawn with OpenCV (not our generators): filled boxes S, D over A, F; S -> F and A -> D
    cross above the label "update" (letters 4 px thick, lines 6 px), whose box (as loose as
    an OCR box) reaches from A's corner to F's. S -> F's last stretch and head lie in the
    box, off the segment from the crossing to the head's tip; they stay, and F is reached."""
    from judge.tools.arrows import detect_lines, node_endpoints
    from judge.tools.nodes import detect_blobs

    img = np.full((700, 1200, 3), 255, np.uint8)
    boxes = {"S": (200, 180, 190, 70), "D": (720, 180, 190, 70)}
    boxes |= {"A": (190, 330, 230, 70), "F": (730, 330, 170, 70)}
    for x, y, w, h in boxes.values():
        cv2.rectangle(img, (x, y), (x + w, y + h), (230, 220, 225), -1)
    _arrow(img, (395, 245), (728, 331))
    _arrow(img, (412, 326), (717, 254))
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, 1.2
    (_, th), _ = cv2.getTextSize("update", font, scale, 4)
    cv2.putText(img, "update", (500, 350), font, scale, (0, 0, 0), 4, cv2.LINE_AA)
    label = (480.0, float(350 - th - 20), 248.0, float(th + 40))

    blobs = detect_blobs(img)
    eps = node_endpoints(blobs)
    name = {
        i: k
        for i in eps
        for k, (x, y, _, _) in boxes.items()
        if abs(blobs[i].box[0] - x) < 12 and abs(blobs[i].box[1] - y) < 12
    }
    assert sorted(name.values()) == ["A", "D", "F", "S"], [blobs[i].box for i in eps]
    lines = detect_lines(img, blobs, eps, [label], text_heights=[float(th)])
    edges = {(name.get(a), name.get(b), how) for ln in lines for a, b, how in ln.edges()}
    assert ("S", "F", "high") in edges, edges
    assert ("A", "D", "high") in edges, edges
