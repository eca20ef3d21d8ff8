"""Reference looks: the real-figure benchmark with its reference images drawn another way.

The real figures in the shared folder are all dark ink on a light page and most are 700 to
2000 px wide. Figures in the wild are also light on dark and small. A *look* transforms a
figure's reference image and, where a faithful reconstruction of the transformed image would
differ, every candidate deck with it, so that every variant keeps its label:

* ``dark``  -- light on dark: the lightness of every colour inverted with its hue and
  saturation kept (HLS ``L -> 1 - L``), in the image pixel by pixel and in the decks colour by
  colour, with the slide background set to the page colour's inverse;
* ``small`` -- the reference image scaled down so that its longer side is ``SMALL_SIDE_PX``
  (area averaging); the decks are unchanged (a slide has no pixel size); ``tiny`` the same
  at ``TINY_SIDE_PX``;
* ``jpeg``  -- the reference image saved as a JPEG at ``JPEG_QUALITY`` and decoded again, so
  it carries the ringing and 8x8 block artefacts of a figure screenshotted or re-saved for the
  web (stored as PNG, so the artefacts are exactly those of one JPEG pass); decks unchanged.

``write_realfig_benchmark(..., look=...)`` writes the benchmark in a look (or in looks joined by
``+``: ``small+jpeg``); ``bench/builtin_accuracy.py --bench real --look dark`` judges it.
"""

from __future__ import annotations

import colorsys
import io
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.oxml.ns import qn

from generation.deck import _fixed_zip
from judge.errors import BenchmarkError, ImagePrepError
from judge.render.prepare import load_rgb

SMALL_SIDE_PX = 640
"""``small``: the longer side of a scaled-down reference image, in pixels."""
TINY_SIDE_PX = 400
"""``tiny``: the same, at the low end of the sizes figures come in (issue 10: 400-2000 px)."""
JPEG_QUALITY = 60
"""``jpeg``: the JPEG quality (0-100) of the one lossy pass; 60 is a typical web re-save."""
PAGE = "FFFFFF"
"""The page colour of the decks' slides (white), whose inverse is the ``dark`` background."""


def invert_lightness_hex(rgb: str) -> str:
    """``RRGGBB`` with its HLS lightness inverted (hue and saturation kept)."""
    r, g, b = (int(rgb[i : i + 2], 16) / 255 for i in (0, 2, 4))
    h, l_, s = colorsys.rgb_to_hls(r, g, b)
    out = colorsys.hls_to_rgb(h, 1 - l_, s)
    return "".join(f"{round(c * 255):02X}" for c in out)


def invert_lightness_image(png: bytes) -> bytes:
    """PNG bytes with every pixel's HLS lightness inverted (alpha flattened on white first)."""
    img = _decode(png)
    hls = cv2.cvtColor(img, cv2.COLOR_BGR2HLS)
    hls[:, :, 1] = 255 - hls[:, :, 1]
    return _encode(cv2.cvtColor(hls, cv2.COLOR_HLS2BGR))


def shrink_image(png: bytes, side: int = SMALL_SIDE_PX) -> bytes:
    """PNG bytes scaled down (area averaging) so the longer side is ``side`` px; never up."""
    img = _decode(png)
    h, w = img.shape[:2]
    scale = side / max(h, w)
    if scale >= 1:
        return _encode(img)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return _encode(cv2.resize(img, size, interpolation=cv2.INTER_AREA))


def jpeg_image(png: bytes, quality: int = JPEG_QUALITY) -> bytes:
    """PNG bytes of the image after one JPEG pass at ``quality`` (4:2:0 chroma, as browsers
    and screenshot tools save)."""
    ok, buf = cv2.imencode(".jpg", _decode(png), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise BenchmarkError("reference image does not encode as JPEG")
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if out is None:
        raise BenchmarkError("reference image does not decode after its JPEG pass")
    return _encode(out)


def _decode(png: bytes) -> np.ndarray:
    """BGR pixels of an image, transparency flattened on white as the judge reads it."""
    try:
        rgb = np.asarray(load_rgb(png))
    except ImagePrepError as exc:
        raise BenchmarkError(f"reference image does not decode: {exc}") from exc
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def _encode(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise BenchmarkError("reference image does not encode")
    return buf.tobytes()


def dark_deck(deck: bytes) -> bytes:
    """``deck`` with every explicit colour's lightness inverted and each slide's background
    set to the inverse of ``PAGE`` (deterministic bytes)."""
    prs = Presentation(io.BytesIO(deck))
    for slide in prs.slides:
        for el in slide._element.iter(qn("a:srgbClr")):
            el.set("val", invert_lightness_hex(el.get("val")))
        fill = slide.background.fill
        fill.solid()
        fill.fore_color.rgb = RGBColor.from_string(invert_lightness_hex(PAGE))
    buf = io.BytesIO()
    prs.save(buf)
    return _fixed_zip(buf.getvalue())


@dataclass(frozen=True)
class Look:
    """How one look draws a reference image and changes a deck (``None``: unchanged)."""

    reference: Callable[[bytes], bytes]
    deck: Callable[[bytes], bytes] | None


LOOKS: dict[str, Look] = {
    "dark": Look(invert_lightness_image, dark_deck),
    "small": Look(shrink_image, None),
    "tiny": Look(lambda png: shrink_image(png, TINY_SIDE_PX), None),
    "jpeg": Look(jpeg_image, None),
}
"""Each reference look, by name."""


def look(name: str) -> Look:
    """The look called ``name``, or looks joined by ``+`` applied left to right
    (``small+jpeg``: scaled down, then saved as JPEG, as figures on web pages are); a clear
    error lists the known ones."""
    parts = name.split("+")
    unknown = [p for p in parts if p not in LOOKS]
    if unknown or len(set(parts)) != len(parts):
        raise BenchmarkError(
            f"unknown look {name!r} (known: {sorted(LOOKS)}, or several joined by '+', "
            "each once, e.g. small+jpeg)"
        )
    if len(parts) == 1:
        return LOOKS[name]
    steps = [LOOKS[p] for p in parts]

    def reference(png: bytes) -> bytes:
        for step in steps:
            png = step.reference(png)
        return png

    decks = [s.deck for s in steps if s.deck is not None]

    def deck(data: bytes) -> bytes:
        for d in decks:
            data = d(data)
        return data

    return Look(reference, deck if len(decks) > 1 else (decks[0] if decks else None))


__all__ = [
    "LOOKS",
    "Look",
    "dark_deck",
    "invert_lightness_hex",
    "invert_lightness_image",
    "jpeg_image",
    "look",
    "shrink_image",
]
