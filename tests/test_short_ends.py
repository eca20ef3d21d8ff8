"""A line that stops a little short of a node ends there (issue 10, session 45)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tests.test_overlapping_heads import _read_seeded
from tests.test_touch_places import _arrow, _bezier, _named_blobs


def test_a_stroke_stopping_short_of_a_node_joins_it_in_a_line_of_several() -> None:
    """Drawn with OpenCV (not our generators): boxes S, T and D. D -> S arcs over T, its
    head on S's right side; S -> T leaves S right beside that head (one component with the
    arc) and its head stops 12 px short of T, a little over the contact margin. The line
    touched S and D only: S -> T was lost. A skeleton end that stops within two margins of a
    box it points at (the ray along its last stretch enters that box first) touches it."""
    from judge.tools.arrows import detect_lines

    img = np.full((480, 1000, 3), 255, np.uint8)
    boxes = {"S": (100, 300), "T": (420, 220), "D": (750, 300)}
    for x, y in boxes.values():
        cv2.rectangle(img, (x, y), (x + 120, y + 40), (0, 0, 0), 2, cv2.LINE_AA)
    _arrow(img, _bezier((790, 298), (520, 40), (223, 318)))
    _arrow(img, _bezier((222, 326), (320, 330), (408, 244)))
    blobs, eps, name = _named_blobs(img, boxes)
    edges = {
        (name[a], name[b], conf)
        for ln in detect_lines(img, blobs, eps)
        for a, b, conf in ln.edges()
    }
    assert ("S", "T", "high") in edges, edges
    assert ("D", "S", "high") in edges, edges
    assert not any(e[:2] in (("T", "S"), ("S", "D")) for e in edges), edges


def test_elbow_lines_stopping_short_of_ellipses_join_them(tmp_path: Path) -> None:
    """Seed 6464, figure 11 (matplotlib): four elbow lines from ellipses on the left merge in
    pairs into two heads on "Labeler". "Gradient"'s and "Evaluate"'s lines stop 6-8 px short
    of their ellipses (matplotlib's 2 pt, beyond the contact margin); each pair is one
    component touching the other ellipse and "Labeler" only, so both edges were lost."""
    truth, nodes, edges = _read_seeded(tmp_path, 11, seed=6464)
    assert nodes == truth, nodes
    for src in ("Normalize", "Gradient", "Retriever", "Evaluate"):
        assert (src, "Labeler", "high") in edges, edges
