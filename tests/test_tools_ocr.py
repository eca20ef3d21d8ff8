"""Offline OCR of generated references: labels read with boxes and confidence."""

from __future__ import annotations

import cv2
import numpy as np

from generation.diagram import make_diagram
from generation.draw import draw_reference
from judge.tools.graphread import label_distance
from judge.tools.ocr import ocr_image


def test_ocr_reads_every_node_label_inside_its_node() -> None:
    d = make_diagram("ocr", 41)
    img = cv2.cvtColor(np.asarray(draw_reference(d)), cv2.COLOR_RGB2BGR)
    lines = ocr_image(img)
    for n in d.nodes:
        inside = [
            ln
            for ln in lines
            if n.x <= ln.centre[0] <= n.x + n.w and n.y <= ln.centre[1] <= n.y + n.h
        ]
        assert inside, n.label
        assert label_distance(" ".join(ln.text for ln in inside), n.label) <= 0.15
        assert all(0.5 <= ln.confidence <= 1.0 for ln in inside)


def test_ocr_of_blank_image_is_empty() -> None:
    assert ocr_image(np.full((200, 300, 3), 255, np.uint8)) == []
