"""Offline OCR of generated references: labels read with boxes and confidence."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

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


def test_an_image_read_before_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every candidate of a task is judged against one reference: its reading is kept (by the
    image's content) and handed out as a copy, so one case's changes do not leak into the
    next. A different image, or a different confidence floor, is read afresh."""
    import judge.tools.ocr as ocr_mod

    d = make_diagram("ocr-cache", 7)
    img = cv2.cvtColor(np.asarray(draw_reference(d)), cv2.COLOR_RGB2BGR)
    calls: list[tuple[int, ...]] = []
    plain = ocr_mod._read

    def counting(im: np.ndarray, conf: float) -> list[ocr_mod.OcrLine]:
        calls.append(im.shape)
        return plain(im, conf)

    monkeypatch.setattr(ocr_mod, "_read", counting)
    monkeypatch.setattr(ocr_mod, "_READ", type(ocr_mod._READ)())
    first = ocr_image(img)
    first[0].text = "changed by a caller"
    again = ocr_image(img.copy())
    assert len(calls) == 1, calls
    assert again and again[0].text != "changed by a caller"
    assert [ln.text for ln in again[1:]] == [ln.text for ln in first[1:]]
    ocr_image(img, 0.99)
    ocr_image(img[:, : img.shape[1] // 2])
    assert len(calls) == 3, calls


@pytest.mark.parametrize("index", [3, 5])
def test_small_print_of_a_400_px_figure_is_read(index: int) -> None:
    """A matplotlib figure (seed 4242) scaled down to 400 px, as figures come at the low end:
    read on its own pixels, OCR missed "Merger" and "Update" (figure 3) and "Cache" (figure 5);
    read enlarged smoothly, it reads every node label."""
    from generation.gvbench.spec import make_spec
    from generation.mplbench.bench import task_id_for
    from generation.mplbench.draw import draw_png
    from generation.mplbench.layout import layout, make_style
    from generation.realfig.looks import TINY_SIDE_PX, shrink_image
    from judge.tools.base import read_zoom
    from judge.tools.evidence import Corpus
    from judge.tools.ocr import ocr_zoomed

    spec = make_spec(task_id_for(4242, index), index, 4242)
    fig, st = layout(spec, make_style(spec, index, 4242))
    png = shrink_image(draw_png(fig, st), TINY_SIDE_PX)
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None
    zoom = read_zoom(img.shape[1], img.shape[0])
    assert zoom > 1
    frame = np.repeat(np.repeat(img, zoom, axis=0), zoom, axis=1)  # the reading frame
    read = Corpus.of(ln.text for ln in ocr_zoomed(frame, zoom))
    assert [n.label for n in fig.nodes if not read.has(n.label)] == []
