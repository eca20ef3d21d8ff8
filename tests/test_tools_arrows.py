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
    apex. Nor is a thin line's junction with a bus by the other diamond's tip a head."""
    from judge.tools.graphread import node_blobs
    from judge.tools.nodetext import _inside_any, glyph_box
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
    # the thin line from "Create "Artifact B deletion Pod"" joins the bus by the lower
    # diamond's bottom tip: thick only at the window's far rim, no head there, however thin
    # the shaft right behind that junction (a head's neck, measured since session 32)
    d4, r7 = at(0.74, 0.39), at(0.92, 0.38)
    assert (r7, d4) not in directed


def _hand_drawn_figure() -> np.ndarray:
    """dev04's look (Excalidraw): "Client" outside a dashed rounded panel holding "Backend"
    and "Store"; arrows that stop 40-50 px short of their boxes, two crossing the panel's
    dashed border, one with a circled step number "6" just under it."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (1600, 1000), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", 34)
    boxes = {"Client": (60, 420, 340, 620), "Backend": (900, 420, 1200, 620),
             "Store": (900, 80, 1200, 260)}  # fmt: skip
    for label, (x0, y0, x1, y1) in boxes.items():
        d.rounded_rectangle((x0, y0, x1, y1), radius=28, outline="black", width=4)
        w = d.textlength(label, font=font)
        d.text(((x0 + x1 - w) / 2, (y0 + y1) / 2 - 18), label, fill="black", font=font)
    # the dashed panel round Backend and Store: 18 px dashes, 12 px gaps
    x0, y0, x1, y1 = 560, 40, 1400, 900
    for a, b, horizontal, at in ((x0, x1, True, y0), (x0, x1, True, y1), (y0, y1, False, x0),
                                 (y0, y1, False, x1)):  # fmt: skip
        for s in range(a, b, 30):
            e = min(s + 18, b)
            d.line((s, at, e, at) if horizontal else (at, s, at, e), fill="black", width=3)

    def arrow(p: tuple[int, int], q: tuple[int, int]) -> None:
        d.line((p, q), fill="black", width=5)
        ux, uy = q[0] - p[0], q[1] - p[1]
        n = (ux * ux + uy * uy) ** 0.5
        ux, uy = ux / n, uy / n
        for side in (1, -1):
            d.line((q, (q[0] - 34 * ux + side * 16 * uy, q[1] - 34 * uy - side * 16 * ux)),
                   fill="black", width=5)  # fmt: skip

    d.ellipse((440, 585, 500, 645), outline="black", width=3)  # a step number under a line
    d.text((460, 595), "6", fill="black", font=font)
    arrow((380, 480), (850, 480))  # Client -> Backend, across the border, 40/50 px short
    arrow((860, 570), (390, 570))  # Backend -> Client
    arrow((1050, 390), (1050, 300))  # Backend -> Store, inside the panel
    return cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)


def _small_flow_figure(font_px: int) -> np.ndarray:
    """dev01's look at 640 px: thin-outlined boxes, small dark labels, elbow arrows; drawn at
    twice the size and scaled down by area averaging (each label's glyphs merge into grey
    blobs with a dark rim), then enlarged by repeating pixels as the reader does
    (``read_zoom``)."""
    from PIL import Image, ImageDraw, ImageFont

    from judge.tools.base import read_zoom

    img = Image.new("RGB", (1280, 340), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", font_px
    )
    boxes = {"input": (0, 134, 204, 204), "pre-processing": (268, 134, 474, 204),
             "en-2-de": (538, 0, 742, 70), "aggregate": (806, 134, 1012, 204),
             "output": (1076, 134, 1278, 204)}  # fmt: skip
    for label, (x0, y0, x1, y1) in boxes.items():
        d.rectangle((x0, y0, x1, y1), outline=(34, 34, 34), width=2)
        w = d.textlength(label, font=font)
        d.text(((x0 + x1 - w) / 2, (y0 + y1) / 2 - 14), label, fill="black", font=font)

    def arrow(p: tuple[int, int], q: tuple[int, int]) -> None:
        d.line((p, q), fill="black", width=2)
        ux, uy = (q[0] - p[0]) / abs(q[0] - p[0] or 1), (q[1] - p[1]) / abs(q[1] - p[1] or 1)
        d.polygon([q, (q[0] - 16 * ux + 7 * uy, q[1] - 16 * uy - 7 * ux),
                   (q[0] - 16 * ux - 7 * uy, q[1] - 16 * uy + 7 * ux)], fill="black")  # fmt: skip

    arrow((204, 169), (266, 169))
    arrow((1012, 169), (1074, 169))
    d.line(((370, 134), (370, 35)), fill="black", width=2)
    arrow((370, 35), (536, 35))
    d.line(((742, 35), (908, 35)), fill="black", width=2)
    arrow((908, 35), (908, 132))
    small = cv2.resize(cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR), (640, 170),
                       interpolation=cv2.INTER_AREA)  # fmt: skip
    k = read_zoom(640, 170)
    return cv2.resize(small, (640 * k, 170 * k), interpolation=cv2.INTER_NEAREST)


@pytest.mark.parametrize("font_px", [26, 27])
def test_small_labels_are_text_and_their_boxes_nodes(font_px: int) -> None:
    """At 640 px a label's anti-aliased glyphs merge into blobs that are mostly grey with a dark
    rim, like a box drawn tight round its label: they are text, so the boxes round them are
    the nodes and the arrows join them. Before, a word's blob was a node and its box a panel
    (dev01 at 640 px read no edge)."""
    from judge.tools.base import read_zoom
    from judge.tools.graphread import node_blobs, read_raster_graph
    from judge.tools.ocr import ocr_zoomed

    img = _small_flow_figure(font_px)
    blobs = detect_blobs(img)
    ocr = ocr_zoomed(img, read_zoom(640, 170))
    leaves = node_blobs(blobs, ocr, img)[0]
    g = read_raster_graph("reference", (img.shape[1], img.shape[0]), blobs,
                          detect_lines(img, blobs, leaves), ocr, img)  # fmt: skip
    lab = {n.id: n.label for n in g.nodes}
    assert sorted(lab.values()) == ["aggregate", "en-2-de", "input", "output", "pre-processing"]
    edges = {(lab[e.src], lab[e.dst], e.direction) for e in g.edges}
    assert edges == {
        ("input", "pre-processing", "high"), ("pre-processing", "en-2-de", "high"),
        ("en-2-de", "aggregate", "high"), ("aggregate", "output", "high"),
    }  # fmt: skip


def test_hand_drawn_arrows_reach_the_boxes_they_point_at_across_a_dashed_panel() -> None:
    """Arrows stopping short of their boxes join the boxes they point at, and the dashes of a
    panel's border are no line: before, the border's dashes joined every arrow crossing it
    into one line, and arrows touching no box were no edges. The step number an arrow passes
    is no end of it."""
    from judge.tools.graphread import node_blobs, read_raster_graph
    from judge.tools.ocr import ocr_image

    img = _hand_drawn_figure()
    blobs = detect_blobs(img)
    ocr = ocr_image(img)
    leaves = node_blobs(blobs, ocr, img)[0]
    g = read_raster_graph("reference", (1600, 1000), blobs, detect_lines(img, blobs, leaves),
                          ocr, img)  # fmt: skip
    lab = {n.id: n.label for n in g.nodes}
    assert sorted(lab.values()) == ["6", "Backend", "Client", "Store"]
    edges = {(lab[e.src], lab[e.dst], e.direction) for e in g.edges}
    assert edges == {
        ("Client", "Backend", "high"), ("Backend", "Client", "high"), ("Backend", "Store", "high")
    }  # fmt: skip
