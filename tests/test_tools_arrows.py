"""Lines and arrowheads on generated raster references: every edge with its direction."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from generation.diagram import make_diagram
from generation.draw import draw_reference
from generation.realfig.model import shared_figures_dir
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


FIGURES = shared_figures_dir()


@pytest.mark.skipif(
    not (FIGURES / "dev10" / "reference.png").is_file(),
    reason=f"{FIGURES} is absent (set PPTJUDGE_SHARED to the shared folder)",
)
def test_a_diamonds_cut_tip_is_not_read_as_an_arrowhead() -> None:
    """dev10 (a Lucidchart flowchart): the body opening cuts each diamond's tips, leaving a V of
    its outline round the line that leaves it. Read as a head, it turned the line out of
    "Does "Artifact A deletion Pod" already exist?"'s bottom tip into an edge from "Create
    "Artifact A deletion Pod"" into the diamond; the V is skipped, the head sought past its
    apex."""
    from judge.tools.arrows import _inside_any, glyph_box
    from judge.tools.graphread import node_blobs
    from judge.tools.ocr import ocr_image

    img = cv2.imread(str(FIGURES / "dev10" / "reference.png"))
    assert img is not None
    blobs = detect_blobs(img)
    ocr = ocr_image(img)
    eps = node_blobs(blobs, ocr, img)[0]
    free = [glyph_box(t.text, t.box) for t in ocr if t.wordy and not _inside_any(t.box, blobs, eps)]
    h, w = img.shape[:2]

    def at(fx: float, fy: float) -> int:
        """The endpoint blob holding a point given as a share of the figure's size."""
        for i in eps:
            x, y, bw, bh = blobs[i].box
            if x <= fx * w <= x + bw and y <= fy * h <= y + bh:
                return i
        raise AssertionError(f"no node at {fx}, {fy}")

    d2, r4 = at(0.74, 0.13), at(0.92, 0.13)  # the diamond and the box right of it
    lines = detect_lines(img, blobs, eps, free)
    directed = {(a, b) for ln in lines for a, b, k in ln.edges() if k in ("high", "medium")}
    assert (r4, d2) not in directed
    # and the arrow into the diamond's left tip, whose head sits at the V's apex, still is
    r3 = at(0.57, 0.13)
    assert (r3, d2) in directed
