"""The text of an image as the readers use it: the whole image's OCR, and each box-like blob's
own place read again where that reading found no text in it.

Text detection over a whole image now and then misses a label that a crop of it reads plainly
(white "Validate" on a dark fill among crowded arrowheads, seed-6767 matplotlib figure 9: read
in a crop, at 1.5 times the size, and by every other label's reading; the node read unlabelled
let its missing-node deck pass). The crop of a blob holding no text line is read again; lines
centred in the blob that hold a word (``OcrLine.wordy``: not an arrowhead read as ">"), read
with ``OCR_CONFIDENT`` confidence (a guess at letters stacked one per line, "HT P" at 0.67 in
dev09's render, would be a node the other image reads nowhere), are added, in the reading
frame. Blobs a line read whole overlaps (the
glyph blobs of a title) are not read again: their crops hold pieces of that line.
"""

from __future__ import annotations

import numpy as np

from judge.tools.base import ToolContext, memo
from judge.tools.nodes import Blob, blobs_cached
from judge.tools.ocr import OcrLine, ocr_full, ocr_zoomed
from judge.tools.thresholds import OCR_CONFIDENT, REREAD_MARGIN_FRAC, REREAD_MIN_MARGIN_PX


def _inside(point: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h


def _touches(line: tuple[float, float, float, float], box: tuple[int, int, int, int]) -> bool:
    """Whether a text line's box overlaps a blob's box (a glyph blob of a line read whole)."""
    lx, ly, lw, lh = line
    x, y, w, h = box
    return lx < x + w and x < lx + lw and ly < y + h and y < ly + lh


def with_node_text(
    img: np.ndarray, blobs: list[Blob], lines: list[OcrLine], zoom: int = 1
) -> list[OcrLine]:
    """``lines`` (the whole image's reading, reading frame) and the lines read again in the
    crops of ``blobs`` holding no other blob that no line's box overlaps: each crop is the
    blob's box grown by ``REREAD_MARGIN_FRAC`` of its shorter side (``REREAD_MIN_MARGIN_PX`` at
    least, of the image's own pixels), read as :func:`ocr_zoomed` reads the image
    (``zoom``)."""
    out = list(lines)
    h_img, w_img = img.shape[:2]
    for b in blobs:
        if b.children or any(_touches(ln.box, b.box) for ln in out):
            continue
        x, y, w, h = b.box
        m = max(REREAD_MIN_MARGIN_PX * zoom, int(REREAD_MARGIN_FRAC * min(w, h)))
        x0, y0 = max(0, x - m), max(0, y - m)
        x1, y1 = min(w_img, x + w + m), min(h_img, y + h + m)
        crop = np.ascontiguousarray(img[y0:y1, x0:x1])
        for ln in ocr_zoomed(crop, zoom):
            ln.box = (ln.box[0] + x0, ln.box[1] + y0, ln.box[2], ln.box[3])
            for wd in ln.words:
                wd.box = (wd.box[0] + x0, wd.box[1] + y0, wd.box[2], wd.box[3])
            if ln.wordy and ln.confidence >= OCR_CONFIDENT and _inside(ln.centre, b.box):
                out.append(ln)
    return out


def text_cached(ctx: ToolContext, which: str) -> list[OcrLine]:
    """:func:`with_node_text` of the ``reference`` or ``candidate`` image, once per case."""

    def compute() -> list[OcrLine]:
        img = ctx.image(which)
        return with_node_text(img, blobs_cached(ctx, which), ocr_full(ctx, which), ctx.zoom(which))

    return memo(ctx, f"text:{which}", compute)
