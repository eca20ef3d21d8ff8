"""Outlined boxes chained by fat lines stay nodes (issue 10, session 43: Graphviz seed 4646,
drawn fresh and measured before this change)."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.test_fat_loops import assert_boxes_found

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) not installed")


def _chain() -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """Drawn with OpenCV (not our generators): four white boxes with 10 px black outlines in a
    column, each joined to the next by a 10 px line whose solid head (48 px long, 40 px wide)
    ends on the next box's outline."""
    img = np.full((1500, 560, 3), 255, np.uint8)
    boxes = [(90, 60 + 360 * i, 380, 160) for i in range(4)]
    for x, y, w, h in boxes:
        cv2.rectangle(img, (x, y), (x + w, y + h), (0, 0, 0), 10)
    for (x, y, w, h), (_, y2, _, _) in itertools.pairwise(boxes):
        cx, base = x + w // 2, y2 - 3 - 48
        cv2.line(img, (cx, y + h + 5), (cx, base), (50, 50, 50), 10)
        tri = np.array([(cx, y2 - 3), (cx - 20, base), (cx + 20, base)], np.int32)
        cv2.fillConvexPoly(img, tri, (50, 50, 50), cv2.LINE_AA)
    return img, boxes


def test_outlined_boxes_chained_by_fat_lines_are_found() -> None:
    """The outlines, lines and heads are one solid whose box holds every box's interior: it
    straddled them all as a node sitting on a loop of lines would, and three of the four
    interiors were left unfilled (no node). A solid straddles by what of it is node-thick:
    here the heads, which stop at the boxes' outlines."""
    from judge.tools.nodes import detect_blobs

    img, boxes = _chain()
    assert_boxes_found(boxes, [b.box for b in detect_blobs(img)], 12)


@needs_dot
def test_a_graphviz_chain_of_thick_outlined_boxes_is_read(tmp_path: Path) -> None:
    """Graphviz seed 4646, figure 0 (600 x 1952 px): "Annotate" -> "Memory" -> "Report" ->
    "Deploy" -> "Reviewer", boxes with 10 px outlines joined by 10 px lines with 48 px heads.
    No node was read at all, and the decks dropping "Memory" or moving an edge's head passed.
    The four boxes and the edges between them are read now (the cylinder "Reviewer" at the
    end is not: its body is found inside the chain's solid as its cap's band only)."""
    from bench.reading_diff import read_reference
    from generation.gvbench.bench import task_id_for
    from generation.gvbench.layout import draw
    from generation.gvbench.spec import make_spec

    drawn = draw(make_spec(task_id_for(4646, 0), 0, 4646))
    png = tmp_path / "reference.png"
    png.write_bytes(drawn.png)
    got = read_reference(png)
    assert {"Annotate", "Memory", "Report", "Deploy"} <= set(got["nodes"]), got["nodes"]
    for src, dst in (("Annotate", "Memory"), ("Memory", "Report"), ("Report", "Deploy")):
        assert f"{src} -> {dst} high" in got["edges"], got["edges"]
