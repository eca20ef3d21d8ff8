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

import dataclasses

import numpy as np

from judge.tools.base import ToolContext, memo
from judge.tools.nodes import Blob, blobs_cached, own_mask
from judge.tools.ocr import OcrLine, ocr_full, ocr_zoomed
from judge.tools.thresholds import (
    MIN_WORD_CHARS,
    OCR_CONFIDENT,
    REREAD_MARGIN_FRAC,
    REREAD_MIN_MARGIN_PX,
)


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


def free_text(
    ocr: list[OcrLine], blobs: list[Blob], eps: list[int], img: np.ndarray
) -> tuple[list[tuple[float, float, float, float]], list[float]]:
    """The boxes of the text a line reader erases (free labels, not the nodes' own text) and
    their letters' heights: each line holding a word whose centre lies in no endpoint blob
    (``eps``), without the arrowheads OCR read as characters (:func:`glyph_box`); and of a
    line centred in a node's box, each word centred in no endpoint's own pixels' box
    (``nodes.own_mask``: a head and letters touching a node's rim are no part of it). OCR
    reads an edge label laid beside a node as one line with the node's label: seed-6868
    matplotlib figure 3's "tokens", over the head of the arrow into "Embedding", was left in
    the line ink, and the dash closing filled it and two arrows' tails into one blob read as
    a head on "Segment"."""
    boxes: list[tuple[float, float, float, float]] = []
    heights: list[float] = []
    owned: list[Blob] | None = None
    for ln in ocr:
        if not ln.wordy:
            continue
        if not _inside_any(ln.box, blobs, eps):
            boxes.append(glyph_box(ln.text, ln.box))
            heights.append(ln.text_height)
            continue
        if owned is None:
            owned = [_own(img, b) if i in eps else b for i, b in enumerate(blobs)]
        for w in ln.words:
            if sum(ch.isalnum() for ch in w.text) >= MIN_WORD_CHARS and not _inside_any(
                w.box, owned, eps
            ):
                boxes.append(glyph_box(w.text, w.box))
                heights.append(ln.text_height)
    return boxes, heights


def _own(img: np.ndarray, b: Blob) -> Blob:
    """``b`` with its box cut to its own pixels' (``nodes.own_mask``)."""
    ys, xs = np.nonzero(own_mask(img, b))
    if xs.size == 0:
        return b
    x, y = b.box[0] + int(xs.min()), b.box[1] + int(ys.min())
    box = (x, y, int(xs.max() - xs.min()) + 1, int(ys.max() - ys.min()) + 1)
    return dataclasses.replace(b, box=box)


LINE_GLYPHS = frozenset("→←↑↓⟶⟵↔><-–—=~|·.")
"""Characters OCR reads a line end or an arrowhead as ("Yes→", "-No-")."""


def glyph_box(
    text: str, box: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    """The part of an OCR line box that holds its word, without the arrowheads and line ends
    OCR read as leading or trailing characters (they stay line ink)."""
    t = text.strip()
    n = len(t)
    lead = n - len(t.lstrip("".join(LINE_GLYPHS)))
    trail = n - len(t.rstrip("".join(LINE_GLYPHS)))
    if n == 0 or lead + trail == 0 or lead + trail >= n:
        return box
    x, y, w, h = box
    per = w / n
    return (x + lead * per, y, w - (lead + trail) * per, h)


def _inside_any(box: tuple[float, float, float, float], blobs: list[Blob], idx: list[int]) -> bool:
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    for i in idx:
        x, y, w, h = blobs[i].box
        if x <= cx <= x + w and y <= cy <= y + h:
            return True
    return False
