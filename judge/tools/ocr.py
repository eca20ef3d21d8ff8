"""OCR of an image or a region, offline (rapidocr with the ONNX models shipped in its wheel).

The engine is built once per process from the model files inside the installed package, so it
never looks for a download; its logging is silenced. Calls are serialised by a lock (the
pipeline runs rounds on threads). Results are in the image frame (pixels of the full-resolution
image) unless a tool caller asks for the panel frame.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from judge.tools.base import Tool, ToolContext, ToolOutput, ToolUsageError, memo
from judge.tools.thresholds import (
    CHAR_WIDTH_EMS,
    DET_MAX_SIDE,
    MIN_WORD_CHARS,
    OCR_MIN_CONFIDENCE,
    OCR_SMOOTH_MAX_SIDE_PX,
    ROTATED_BOX_MIN_RATIO,
)
from judge.tools.view import mapping, to_image_box

_ENGINE: Any = None
_ENGINE_LOCK = threading.Lock()
_RUN_LOCK = threading.Lock()
_READ: OrderedDict[tuple[str, float], list[OcrLine]] = OrderedDict()
_READ_LOCK = threading.Lock()
READ_CACHE_IMAGES = 16
"""How many images' readings a process keeps: every candidate of a task is judged against the
same reference, so its OCR (deterministic, ~1 s for a 2000 px figure) is done once, not once
per candidate."""


_MODEL_FILES = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}


@dataclass
class OcrWord:
    """One recognised word. ``box`` = (x, y, w, h) in pixels of the image that was read."""

    text: str
    confidence: float
    box: tuple[float, float, float, float]


@dataclass
class OcrLine:
    """One recognised text line with its words; ``box`` in pixels of the image that was read."""

    text: str
    confidence: float
    box: tuple[float, float, float, float]
    words: list[OcrWord] = field(default_factory=list)

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return (x + w / 2, y + h / 2)

    @property
    def text_height(self) -> float:
        """The letters' height: the box's, or for text set at an angle (a box much taller than
        its characters make a level line, ``ROTATED_BOX_MIN_RATIO``) the height that fits
        the box's width plus height to the run of characters."""
        _x, _y, w, h = self.box
        n = len(self.text.strip())
        est = (w + h) / (1.0 + CHAR_WIDTH_EMS * max(1, n))
        return est if h > ROTATED_BOX_MIN_RATIO * est else h

    @property
    def wordy(self) -> bool:
        """Whether the line holds a word: arrowheads, line ends and logos OCR reads as ``V``,
        ``>``, ``|``, ``-`` or ``0`` do not (``MIN_WORD_CHARS``)."""
        return sum(ch.isalnum() for ch in self.text) >= MIN_WORD_CHARS


def _engine() -> Any:
    """The process-wide rapidocr engine, built from the wheel's own model files."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            import rapidocr

            for name in ("RapidOCR", "rapidocr", "onnxruntime"):
                logging.getLogger(name).setLevel(logging.ERROR)
            models = Path(rapidocr.__file__).parent / "models"
            params: dict[str, Any] = {
                "Global.log_level": "error",
                "Global.use_cls": False,
                "Det.limit_type": "max",
                "Det.limit_side_len": DET_MAX_SIDE,
                # onnxruntime's memory arena (rapidocr turns it off): the same readings, about
                # a fifth less time on 2000 px figures, ~140 MB more held per process
                "EngineConfig.onnxruntime.enable_cpu_mem_arena": True,
            }
            for key, fname in _MODEL_FILES.items():
                path = models / fname
                if not path.is_file():
                    raise RuntimeError(f"rapidocr model missing from the installed wheel: {path}")
                params[key] = str(path)
            _ENGINE = rapidocr.RapidOCR(params=params)
            for name in ("RapidOCR", "rapidocr"):
                logging.getLogger(name).setLevel(logging.ERROR)
        return _ENGINE


def _quad_box(quad: Any) -> tuple[float, float, float, float]:
    pts = np.asarray(quad, dtype=float).reshape(-1, 2)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return (float(x0), float(y0), float(x1 - x0), float(y1 - y0))


def ocr_image(img: np.ndarray, min_confidence: float = OCR_MIN_CONFIDENCE) -> list[OcrLine]:
    """Read every text line of a BGR uint8 image; boxes in pixels of ``img``, reading order.

    The last ``READ_CACHE_IMAGES`` images' readings are kept (by content hash): the same image
    is read once per process."""
    if img.ndim != 3 or img.shape[0] < 4 or img.shape[1] < 4:
        return []
    img = np.ascontiguousarray(img)
    head = f"{img.shape}{img.dtype.str}".encode()
    key = (hashlib.sha256(head + img.tobytes()).hexdigest(), min_confidence)
    with _READ_LOCK:
        if key in _READ:
            _READ.move_to_end(key)
            return copy.deepcopy(_READ[key])
    lines = _read(img, min_confidence)
    with _READ_LOCK:
        _READ[key] = copy.deepcopy(lines)
        while len(_READ) > READ_CACHE_IMAGES:
            _READ.popitem(last=False)
    return lines


def _read(img: np.ndarray, min_confidence: float) -> list[OcrLine]:
    """rapidocr's reading of ``img`` (C-contiguous), lines under ``min_confidence`` dropped."""
    eng = _engine()
    with _RUN_LOCK:
        res = eng(img, return_word_box=True)
    txts = res.txts or ()
    if not txts:
        return []
    words_all = getattr(res, "word_results", None) or ()
    lines: list[OcrLine] = []
    for i, text in enumerate(txts):
        conf = float(res.scores[i])
        if conf < min_confidence or not str(text).strip():
            continue
        words: list[OcrWord] = []
        if i < len(words_all):
            for w in words_all[i]:
                if len(w) >= 3 and str(w[0]).strip():
                    words.append(OcrWord(str(w[0]), float(w[1]), _quad_box(w[2])))
        lines.append(OcrLine(str(text).strip(), conf, _quad_box(res.boxes[i]), words))
    lines.sort(key=lambda ln: (round(ln.box[1] / 8), ln.box[0]))
    return lines


def ocr_zoomed(
    img: np.ndarray, zoom: int, min_confidence: float = OCR_MIN_CONFIDENCE
) -> list[OcrLine]:
    """:func:`ocr_image` of a reading-frame image (or crop) enlarged ``zoom`` times by repeating
    pixels: the text is read on the image's own pixels (every ``zoom``-th row and column, which
    is the image itself; the recogniser does not know blocky glyphs) and the boxes are given in
    the reading frame. An image whose own longer side is at most ``OCR_SMOOTH_MAX_SIDE_PX`` is
    read enlarged smoothly (bicubic) instead: at its own size OCR misses most of its small
    print (our real figures drawn 400 px wide)."""
    if zoom == 1:
        return ocr_image(img, min_confidence)
    own = np.ascontiguousarray(img[::zoom, ::zoom])
    if max(own.shape[:2]) <= OCR_SMOOTH_MAX_SIDE_PX:
        smooth = cv2.resize(own, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_CUBIC)
        return ocr_image(smooth, min_confidence)

    def up(b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        return (b[0] * zoom, b[1] * zoom, b[2] * zoom, b[3] * zoom)

    lines = ocr_image(own, min_confidence)
    for ln in lines:
        ln.box = up(ln.box)
        for wd in ln.words:
            wd.box = up(wd.box)
    return lines


def ocr_full(ctx: ToolContext, which: str) -> list[OcrLine]:
    """OCR of the whole ``reference`` or ``candidate`` image (reading frame), once per case."""
    return memo(ctx, f"ocr:{which}", lambda: ocr_zoomed(ctx.image(which), ctx.zoom(which)))


region_to_image = to_image_box
"""A region in ``frame`` as clipped (x0, y0, x1, y1) image pixels (one implementation, in view)."""


def box_to_frame(
    ctx: ToolContext, which: str, box: tuple[float, float, float, float], frame: str
) -> list[float]:
    """A reading-frame (x, y, w, h) box (:meth:`ToolContext.image`) in ``frame`` (``panel``, or
    ``image``: the image's own pixels), rounded to 0.1 px."""
    x, y, w, h = box
    if frame == "panel":
        m = mapping(ctx, which)
        px, py = m.image_to_panel(x, y)
        return [round(px, 1), round(py, 1), round(w * m.scale, 1), round(h * m.scale, 1)]
    k = ctx.zoom(which)
    return [round(x / k, 1), round(y / k, 1), round(w / k, 1), round(h / k, 1)]


def ocr(
    ctx: ToolContext,
    image: Literal["reference", "candidate"],
    x: float | None = None,
    y: float | None = None,
    w: float | None = None,
    h: float | None = None,
    frame: Literal["panel", "image"] = "panel",
    min_confidence: float = OCR_MIN_CONFIDENCE,
) -> ToolOutput:
    """Read the text of the reference or candidate image, or of one region of it (offline OCR).

    Give x, y, w, h to read only that region (in the `frame` you name: "panel" = pixels of the
    1200x900 panel you see, "image" = pixels of the full-resolution image); omit them for the
    whole image. Returns text lines, each with its confidence (0-1), box [x, y, w, h] in the same
    frame, and its words with boxes. Lines below `min_confidence` are left out.
    """
    region = (x, y, w, h)
    if any(v is not None for v in region) and any(v is None for v in region):
        raise ToolUsageError("give all of x, y, w, h for a region, or none for the whole image")
    if x is None or y is None or w is None or h is None:
        lines = [ln for ln in ocr_full(ctx, image) if ln.confidence >= min_confidence]
        ox, oy = 0, 0
    else:
        x0, y0, x1, y1 = region_to_image(ctx, image, x, y, w, h, frame)
        lines = ocr_zoomed(ctx.image(image)[y0:y1, x0:x1], ctx.zoom(image), min_confidence)
        ox, oy = x0, y0
    out = []
    for ln in lines:
        b = (ln.box[0] + ox, ln.box[1] + oy, ln.box[2], ln.box[3])
        out.append(
            {
                "text": ln.text,
                "confidence": round(ln.confidence, 3),
                "box": box_to_frame(ctx, image, b, frame),
                "words": [
                    {
                        "text": wd.text,
                        "confidence": round(wd.confidence, 3),
                        "box": box_to_frame(
                            ctx,
                            image,
                            (wd.box[0] + ox, wd.box[1] + oy, wd.box[2], wd.box[3]),
                            frame,
                        ),
                    }
                    for wd in ln.words
                ],
            }
        )
    return ToolOutput({"image": image, "frame": frame, "lines": out})


def line_dict(line: OcrLine) -> dict[str, Any]:
    """A plain-dict view of an OcrLine (image frame)."""
    return asdict(line)


TOOLS = [Tool.from_function(ocr)]
