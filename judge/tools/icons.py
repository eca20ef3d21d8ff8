"""Pictures and logos are not nodes: telling a blob that holds a picture from a flat node.

A node is a flat fill with text (and maybe an outline, a shaded cap or a title band, which are
the shape's own drawing); a picture or logo is busy inside, or holds one graphic bigger than a
glyph. :func:`is_icon` decides; :mod:`judge.tools.graphread` leaves icons out of the nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from judge.tools.colour import channel_off
from judge.tools.thresholds import (
    ICON_ATTACHED_MAX_FRAC,
    ICON_BAND_MAX_STD,
    ICON_BAND_SPAN_FRAC,
    ICON_GRAPHIC_FRAC,
    ICON_GRAPHIC_SIDE_FRAC,
    ICON_MIN_BUSY_FRAC,
    ICON_MIN_PIXELS,
    INK_DIFF,
)

if TYPE_CHECKING:  # the tools package imports this module; keep the import one-way at runtime
    from judge.tools.nodes import Blob
    from judge.tools.ocr import OcrLine


def is_icon(img: np.ndarray, b: Blob, ocr: list[OcrLine]) -> bool:
    """True when a blob's inside is not a flat fill: over ``ICON_MIN_BUSY_FRAC`` of its pixels,
    away from its text and its rim, differ from its interior colour, or they hold one graphic
    (``ICON_GRAPHIC_*``) bigger than a glyph (nodes are flat fills with text; pictures and
    logos are busy). Flat bands across the blob (:func:`flat_bands`) are left out of both."""
    from judge.tools.blobtests import erode

    x, y, w, h = b.box
    sub = img[y : y + h, x : x + w].astype(np.float32)
    off = _without_attached(img, b, off_fill(sub, b) & b.mask)
    near_rim = erode(b.mask.astype(np.uint8), max(3, min(w, h) // 20)) > 0
    bands = flat_bands(sub, near_rim & off)
    texts = text_mask(b, ocr)
    inner = (erode(b.mask.astype(np.uint8), max(2, min(w, h) // 10)) > 0) & ~texts & ~bands
    if int(inner.sum()) < ICON_MIN_PIXELS:
        return False
    if float(off[inner].mean()) > ICON_MIN_BUSY_FRAC:
        return True
    # one graphic bigger than a glyph (a logo) in an otherwise flat blob: a picture too; it
    # may sit near the rim, so only the outline's blend is left out
    # (OCR reads a logo as "0" or "S": only words are text)
    near_rim &= ~text_mask(b, [ln for ln in ocr if ln.wordy]) & ~bands
    graphic = (near_rim & off).astype(np.uint8)
    n, _lab, stats, _c = cv2.connectedComponentsWithStats(graphic, connectivity=8)
    side = ICON_GRAPHIC_SIDE_FRAC * min(w, h)
    return any(
        stats[c, cv2.CC_STAT_AREA] >= ICON_GRAPHIC_FRAC * int(near_rim.sum())
        and min(stats[c, cv2.CC_STAT_WIDTH], stats[c, cv2.CC_STAT_HEIGHT]) >= side
        for c in range(1, n)
    )


def labelled_holders(
    blobs: list[Blob],
    kids: dict[int, list[int]],
    glyphs: set[int],
    icons: set[int],
    ocr: list[OcrLine],
) -> list[int]:
    """Blobs (not text) whose children ``kids`` are all ``icons`` and that hold an OCR line
    centred in their box outside every one of those: a node with a picture and a label of its
    own, not a panel (seed-4343 matplotlib figure 13: fat tails drawn over a filled ellipse's
    rim were read inside it as a picture, and "Indexer" was no node)."""

    def inside(pt: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
        return box[0] <= pt[0] <= box[0] + box[2] and box[1] <= pt[1] <= box[1] + box[3]

    return [
        i
        for i, b in enumerate(blobs)
        if kids[i]
        and i not in glyphs
        and set(kids[i]) <= icons
        and any(
            inside(ln.centre, b.box) and not any(inside(ln.centre, blobs[c].box) for c in kids[i])
            for ln in ocr
        )
    ]


def _without_attached(img: np.ndarray, b: Blob, off: np.ndarray) -> np.ndarray:
    """``off`` without its small pieces (each under ``ICON_ATTACHED_MAX_FRAC`` of the blob, inside
    the rim ``is_icon`` leaves out) that reach the blob's edge and go on outside it as ink:
    arrowheads and lines glued to its rim, not a picture's content. A logo's pieces stop at the
    blob's edge; a photo is one big piece."""
    from judge.tools.blobtests import erode

    m8 = b.mask.astype(np.uint8)
    edge = (m8 > 0) & ~(erode(m8, 1) > 0)
    n, lab = cv2.connectedComponents(off.astype(np.uint8), connectivity=8)
    if n <= 1:
        return off
    x, y, w, h = b.box
    p = 3
    X0, Y0 = max(0, x - p), max(0, y - p)
    X1, Y1 = min(img.shape[1], x + w + p), min(img.shape[0], y + h + p)
    ink_out = channel_off(img[Y0:Y1, X0:X1], b.background_bgr) > INK_DIFF
    ink_out[y - Y0 : y - Y0 + h, x - X0 : x - X0 + w] &= m8 == 0
    # within p px of ink outside the blob, as a mask over the blob's box
    grown = cv2.dilate(ink_out.astype(np.uint8), np.ones((2 * p + 1, 2 * p + 1), np.uint8))
    near_out = grown[y - Y0 : y - Y0 + h, x - X0 : x - X0 + w] > 0
    limit = ICON_ATTACHED_MAX_FRAC * float(m8.sum())
    going_on = set(np.unique(lab[off & near_out]).tolist())
    # a piece's size inside the rim: a head glued to the rim widens the blob's mask past its
    # outline, and the outline's blend with the background then joins the head's piece
    # (seed-7171 matplotlib figure 4: an arc's head on "Monitor" made a 422 px piece, 125 px
    # of it head, and the node read as a picture)
    inside = erode(m8, max(2, min(w, h) // 10)) > 0
    sizes = np.bincount(lab[inside], minlength=n)
    drop = [
        c
        for c in np.unique(lab[edge & off]).tolist()
        if c > 0 and c in going_on and sizes[c] < limit
    ]
    return off & ~np.isin(lab, drop) if drop else off


def flat_bands(sub: np.ndarray, off: np.ndarray) -> np.ndarray:
    """The pixels of ``off`` (a mask over ``sub``: the blob's pixels off its fill) in one flat
    colour across most of the blob's width or height (``ICON_BAND_*``): a cylinder's shaded
    cap, a card's title band. They are the shape's own drawing, not a picture on it (a photo
    is never flat)."""
    n, lab, stats, _c = cv2.connectedComponentsWithStats(off.astype(np.uint8), connectivity=8)
    out = np.zeros(off.shape, bool)
    h, w = off.shape
    for c in range(1, n):
        cw, ch = int(stats[c, cv2.CC_STAT_WIDTH]), int(stats[c, cv2.CC_STAT_HEIGHT])
        if cw < ICON_BAND_SPAN_FRAC * w and ch < ICON_BAND_SPAN_FRAC * h:
            continue
        part = lab == c
        if float(sub[part].std(axis=0).max()) <= ICON_BAND_MAX_STD:
            out |= part
    return out


def text_mask(b: Blob, ocr: list[OcrLine]) -> np.ndarray:
    """The OCR line boxes inside a blob's box, as a mask over it."""
    x, y = b.box[0], b.box[1]
    out = np.zeros(b.mask.shape, bool)
    for ln in ocr:
        tx, ty, tw, th = (int(round(v)) for v in ln.box)
        out[max(0, ty - y) : max(0, ty - y + th), max(0, tx - x) : max(0, tx - x + tw)] = True
    return out


def off_fill(px: np.ndarray, b: Blob) -> np.ndarray:
    """Which pixels (float BGR, any shape) differ from a blob's interior colour, not counting
    lines in its outline's colour and their blends with the fill (a cylinder's rim, a divider:
    the shape's own drawing, not a picture's content)."""
    fill = np.asarray(b.interior_bgr, np.float32)
    away: np.ndarray = np.abs(px - fill).max(axis=-1) > INK_DIFF
    if b.stroke_bgr is not None:
        axis = np.asarray(b.stroke_bgr, np.float32) - fill
        t = np.clip((px - fill) @ axis / max(1.0, float(axis @ axis)), 0.0, 1.0)
        off = np.abs(px - (fill + t[..., None] * axis)).max(axis=-1)
        away &= off > INK_DIFF
    return away
