"""Image preparation: the fixed normalisation of DESIGN.md, so whitespace, centring and scale never
affect a score.

The recipe, for each full-resolution image (the reference PNG and the LibreOffice render):

1. **Background** -- the per-channel median of the image's border pixels (the outermost row and
   column on each side), as RGB.
2. **Content** -- pixels whose largest absolute channel difference from the background exceeds
   :data:`CONTENT_THRESHOLD` (10 intensity levels, 0-255 scale).
3. **Crop** -- the tight box around the content, grown on each side by a margin and clipped to the
   image. *Interpretation of "2% margin":* the margin is computed per axis from the content box
   itself -- ``ceil(0.02 x content width)`` pixels left and right, ``ceil(0.02 x content height)``
   pixels above and below -- and never less than :data:`MIN_MARGIN_PX` (4 px of the image). Tying
   the margin to the content box (not the image) keeps it independent of outer whitespace.
   An image with no content (blank) keeps the whole image and is marked ``empty``.
4. **Fit** -- scale the crop, preserving its aspect ratio, to the largest size that fits a
   :data:`PANEL_WIDTH` x :data:`PANEL_HEIGHT` (1200x900) panel, and centre it on white.
5. **Pair** -- reference panel left, candidate panel right, :data:`PANEL_GAP` (4) white pixels
   apart: a 2404x900 image.

Images with transparency are composited on white first. Every image is size-checked from its
header before any pixel is decoded (:data:`MAX_IMAGE_PIXELS`).

The full-resolution images stay where they are; :class:`judge.schema.PanelMapping` records the
crop box (image frame), the scale (panel pixels per image pixel) and the offsets, so tools can map
panel coordinates back to each image.
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from judge.errors import ImagePrepError
from judge.rundir import atomic_write_bytes
from judge.schema import Box, PairGeometry, PanelMapping

CONTENT_THRESHOLD = 10
"""A pixel is content when some channel differs from the background by more than this (0-255).
DESIGN.md fixes it: above JPEG/antialiasing noise, below the faintest drawn strokes."""

MARGIN_FRACTION = 0.02
"""Crop margin as a fraction of the content box size, per axis (DESIGN.md: 2%)."""

MIN_MARGIN_PX = 4
"""Smallest crop margin, in pixels of the full-resolution image (DESIGN.md: 4 px)."""

PANEL_WIDTH = 1200
PANEL_HEIGHT = 900
"""Size of one normalised panel, in panel pixels (DESIGN.md)."""

PANEL_GAP = 4
"""White pixels between the reference and the candidate panel in the pair image (DESIGN.md)."""

PANEL_FILL = (255, 255, 255)
"""Colour of the panel around the fitted crop and of the gap: white (DESIGN.md)."""

MAX_IMAGE_PIXELS = 64_000_000
"""Largest image we decode (width x height). A 300-dpi A3 page is ~17.4 Mpx; anything far above
is a mistake or a decompression bomb and would cost gigabytes to decode."""

PAIR_WIDTH = 2 * PANEL_WIDTH + PANEL_GAP
PAIR_HEIGHT = PANEL_HEIGHT


def load_rgb(path: Path | bytes) -> Image.Image:
    """Read an image file (or an image's bytes) as RGB, compositing any transparency on white.

    The pixel count is checked from the header before decoding; unreadable files, images over
    :data:`MAX_IMAGE_PIXELS` and decoder errors raise :class:`ImagePrepError` naming the file.
    """
    source: Path | io.BytesIO
    if isinstance(path, bytes):
        source, path = io.BytesIO(path), Path("<image bytes>")
    else:
        source = path = Path(path)
    try:
        with warnings.catch_warnings():
            # Pillow warns (then errors) on decompression bombs; we bound size ourselves.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(source) as im:
                width, height = im.size
                if width <= 0 or height <= 0:
                    raise ImagePrepError(f"{path}: image has no pixels ({width}x{height})")
                if width * height > MAX_IMAGE_PIXELS:
                    raise ImagePrepError(
                        f"{path}: image is {width}x{height} = {width * height} pixels, over the "
                        f"limit of {MAX_IMAGE_PIXELS} (not decoded)"
                    )
                im.load()
                return _to_rgb_on_white(im)
    except ImagePrepError:
        raise
    except FileNotFoundError as exc:
        raise ImagePrepError(f"{path}: no such file") from exc
    except (OSError, ValueError, Image.DecompressionBombError, SyntaxError) as exc:
        raise ImagePrepError(f"{path}: not a readable image ({exc})") from exc


def _to_rgb_on_white(im: Image.Image) -> Image.Image:
    if im.mode.startswith("I"):  # 16/32-bit greyscale: Pillow's convert() would clip at 255
        arr = np.asarray(im).astype(np.float64)
        top = 65535.0 if im.mode.startswith("I;16") or arr.max() > 255 else 255.0
        im = Image.fromarray(np.clip(arr * (255.0 / top) + 0.5, 0, 255).astype(np.uint8), "L")
    has_alpha = im.mode in ("RGBA", "LA", "PA") or (
        im.mode in ("P", "L", "RGB") and "transparency" in im.info
    )
    if has_alpha:
        rgba = im.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (*PANEL_FILL, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return im.convert("RGB")


def border_background(rgb: np.ndarray) -> tuple[int, int, int]:
    """Per-channel median of the outermost rows and columns of an HxWx3 uint8 array (RGB)."""
    border = np.concatenate([rgb[0, :, :], rgb[-1, :, :], rgb[:, 0, :], rgb[:, -1, :]], axis=0)
    med = np.median(border, axis=0)
    return (int(round(med[0])), int(round(med[1])), int(round(med[2])))


def content_box(rgb: np.ndarray, background: tuple[int, int, int]) -> Box | None:
    """Tight box (image frame, pixel edges) of pixels differing from ``background`` by more than
    :data:`CONTENT_THRESHOLD` in some channel; None when there are none."""
    diff = cv2.absdiff(rgb, np.full_like(rgb, background, dtype=np.uint8))  # uint8, fast
    mask = np.maximum(np.maximum(diff[..., 0], diff[..., 1]), diff[..., 2]) > CONTENT_THRESHOLD
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    x0, x1 = int(cols[0]), int(cols[-1]) + 1
    y0, y1 = int(rows[0]), int(rows[-1]) + 1
    return Box(x=x0, y=y0, w=x1 - x0, h=y1 - y0)


def crop_box_for(content: Box, width: int, height: int) -> Box:
    """The content box grown by the margin (see module docstring), clipped to the image."""
    mx = max(MIN_MARGIN_PX, math.ceil(MARGIN_FRACTION * content.w))
    my = max(MIN_MARGIN_PX, math.ceil(MARGIN_FRACTION * content.h))
    x0 = max(0, int(content.x) - mx)
    y0 = max(0, int(content.y) - my)
    x1 = min(width, int(content.x2) + mx)
    y1 = min(height, int(content.y2) + my)
    return Box(x=x0, y=y0, w=x1 - x0, h=y1 - y0)


def locate(geometry: PairGeometry, x: float, y: float) -> tuple[str, float, float] | None:
    """Which image a pixel of the pair image shows: ``("reference" | "candidate", x, y)`` in
    that image's frame (pixels of the full-resolution image), or None in the gap."""
    for name, m in (("reference", geometry.reference), ("candidate", geometry.candidate)):
        if m.panel_left <= x < m.panel_left + geometry.panel_width:
            ix, iy = m.panel_to_image(x - m.panel_left, y)
            return name, ix, iy
    return None


def normalise(img: Image.Image, panel_left: int = 0) -> tuple[Image.Image, PanelMapping]:
    """Crop ``img`` to its content (plus margin) and fit it centred in a white 1200x900 panel.

    ``img`` is any Pillow image (transparency is composited on white). ``panel_left`` is the x of
    this panel in the pair image, recorded in the mapping. Returns the RGB panel and the mapping
    between the image frame (pixels of ``img``) and the panel frame (pixels of the panel).
    """
    rgb_img = _to_rgb_on_white(img)
    arr = np.asarray(rgb_img)
    height, width = arr.shape[:2]
    if width == 0 or height == 0:
        raise ImagePrepError("image has no pixels")
    background = border_background(arr)
    content = content_box(arr, background)
    empty = content is None
    crop = (
        Box(x=0, y=0, w=width, h=height)
        if content is None
        else crop_box_for(content, width, height)
    )

    scale = min(PANEL_WIDTH / crop.w, PANEL_HEIGHT / crop.h)
    fit_w = min(PANEL_WIDTH, max(1, round(crop.w * scale)))
    fit_h = min(PANEL_HEIGHT, max(1, round(crop.h * scale)))
    offset_x = (PANEL_WIDTH - fit_w) // 2
    offset_y = (PANEL_HEIGHT - fit_h) // 2

    region = rgb_img.crop((int(crop.x), int(crop.y), int(crop.x2), int(crop.y2)))
    if region.size != (fit_w, fit_h):
        region = region.resize((fit_w, fit_h), Image.Resampling.LANCZOS)
    panel = Image.new("RGB", (PANEL_WIDTH, PANEL_HEIGHT), PANEL_FILL)
    panel.paste(region, (offset_x, offset_y))
    mapping = PanelMapping(
        image_width=width,
        image_height=height,
        crop_box=crop,
        background_rgb=background,
        scale=scale,
        offset_x=float(offset_x),
        offset_y=float(offset_y),
        panel_left=panel_left,
        empty=empty,
    )
    return panel, mapping


def compose_pair(reference_panel: Image.Image, candidate_panel: Image.Image) -> Image.Image:
    """Reference panel left, candidate panel right, :data:`PANEL_GAP` white pixels apart."""
    pair = Image.new("RGB", (PAIR_WIDTH, PAIR_HEIGHT), PANEL_FILL)
    pair.paste(reference_panel, (0, 0))
    pair.paste(candidate_panel, (PANEL_WIDTH + PANEL_GAP, 0))
    return pair


def prepare_pair(reference_png: Path, render_png: Path, out_png: Path) -> PairGeometry:
    """Normalise the reference and the candidate render and write the 2404x900 pair to ``out_png``.

    The full-resolution images are not copied or changed; the returned geometry stores their
    paths (as given) and each panel's mapping. The caller decides where to write the geometry
    (``judge pair`` writes it beside the PNG). Raises :class:`ImagePrepError` naming the file.
    """
    ref_panel, ref_map = normalise(load_rgb(reference_png), panel_left=0)
    cand_panel, cand_map = normalise(load_rgb(render_png), panel_left=PANEL_WIDTH + PANEL_GAP)
    pair = compose_pair(ref_panel, cand_panel)
    buf = io.BytesIO()
    pair.save(buf, format="PNG")
    try:
        atomic_write_bytes(Path(out_png), buf.getvalue())
    except OSError as exc:
        raise ImagePrepError(f"{out_png}: cannot write the pair image ({exc})") from exc
    return PairGeometry(
        panel_width=PANEL_WIDTH,
        panel_height=PANEL_HEIGHT,
        gap=PANEL_GAP,
        reference=ref_map,
        candidate=cand_map,
        reference_image=str(reference_png),
        candidate_image=str(render_png),
        pair_image=str(out_png),
    )


def geometry_path(out_png: Path) -> Path:
    """Where ``judge pair`` writes the geometry of ``out_png``: same name, ``.json`` suffix."""
    return Path(out_png).with_suffix(".json")
