"""Screening a candidate's pictures against the reference image (Stage 0, no_reference_copy).

A candidate must rebuild the diagram from native objects; pasting the reference (or part of
it) as a raster is a copy. Each image the slide draws is compared with the reference PNG:

* **exact** -- the same bytes;
* **whole** -- the whole reference, resized (also stretched a little) and/or recompressed;
* **crop** -- a region of the reference (then possibly resized/recompressed), found by
  multi-scale normalised cross-correlation (OpenCV ``TM_CCOEFF_NORMED``) of blurred grey images
  and re-checked at a higher resolution;
* **contains** -- the whole reference pasted inside a larger picture (margins, a frame);
* **tiles** -- the reference cut into tiles placed side by side: all pictures are pasted onto a
  slide-sized canvas at their positions, and the covered region is screened like a crop.

Approved task assets are exempt when byte- or pixel-identical to a file in the assets folder.
Images are bounded before decoding (header dimensions checked with Pillow).

Units: images are compared in a *work frame*, the reference scaled so its longer side is
:data:`WORK_SIDE_PX` pixels; regions are reported as 0-1 fractions of the reference image.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from PIL import Image

from judge.artifact.pictures import PictureBlob
from judge.errors import ImagePrepError
from judge.schema import Box

# --------------------------------------------------------------------------------------------
# Thresholds (named once, with their reasons)

MAX_DECODE_PIXELS = 40_000_000
"""Largest picture decoded (width x height from the header). 40 MP is a large photo; a
decompression bomb declares far more. Bigger pictures are reported as unscreenable."""
MAX_ASSET_FILES = 200
"""Most files read from an assets folder."""
MAX_ASSET_BYTES = 32 * 1024 * 1024
"""Largest asset file read (bytes)."""
WORK_SIDE_PX = 320
"""Longer side of the reference in the work frame: enough detail for correlation, fast."""
BLUR_SIGMA = 1.2
"""Gaussian blur (work-frame pixels) applied to both sides: tolerates resampling, JPEG noise
and a few percent of scale error."""
MATCH_NCC = 0.88
"""Correlation at or above which a picture (or the tile canvas) is a copy. Genuine copies score
0.95+; different diagrams, icons and photos stay below 0.7 in our tests."""
WHOLE_ASPECT_TOLERANCE = 0.12
"""A picture whose aspect ratio is within 12% of the reference's is also compared as a whole
(stretched) copy."""
MIN_CROP_AREA_FRACTION = 0.08
"""Smallest region of the reference (area fraction) a single picture is screened as a crop of.
Smaller tiles are caught on the tile canvas; tiny crops are too ambiguous (a plain box or an
arrowhead looks like many others)."""
MIN_TEMPLATE_SIDE_PX = 16
"""Shortest template side (work-frame pixels) worth correlating."""
MIN_TEXTURE_STD = 2.0
"""Grey-level standard deviation below which a template is flat (blank or one colour) and is
not correlated: it cannot copy anything, and correlation of flat patches is unstable. (A
mostly white crop with a few thin lines is ~5-7: still screened.)"""
SCALE_STEP = 1.07
"""Geometric step between template widths tried in the coarse crop search."""
REFINE_STEPS = (0.965, 0.975, 0.985, 0.995, 1.005, 1.015, 1.025, 1.035)
"""Width factors tried around the best coarse width (the coarse step leaves up to 3.5% error)."""
REFINE_MIN_NCC = 0.6
"""Coarse correlation below which refining cannot reach :data:`MATCH_NCC` (scale error of a
few percent costs far less than that), so the search stops early."""
MIN_CORNERS = 8
"""Fewest corner features (OpenCV ``goodFeaturesToTrack`` at verify resolution) a single
picture needs to be screened as a crop. A lone line or a box corner (2-4 corners) matches many
places of any diagram and copies nothing worth the name; text and node shapes give dozens.
Such pieces are still screened together on the tile canvas."""
CORNER_QUALITY = 0.05
"""``goodFeaturesToTrack`` quality level (fraction of the strongest corner's response)."""
CORNER_MIN_DISTANCE_PX = 4
"""Minimum distance between counted corners, verify-resolution pixels."""
VERIFY_SIDE_PX = 400
"""Longer side (pixels) at which a candidate match is re-checked against the full-resolution
image: coarse structure matches many places at work resolution; a real copy still matches in
its text and fine detail."""
MIN_VERIFY_SIDE_PX = 96
"""Smallest longer side (pixels) a verification is done at, even for a tiny picture."""
VERIFY_PAD = 0.06
"""Slack (fraction of the matched region) searched around a match when verifying."""
VERIFY_SCALES = (0.96, 0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03, 1.04)
"""Scale factors tried when verifying (the work-frame match leaves ~1-2% scale error)."""
VERIFY_BLUR_SIGMA = 0.8
"""Light blur (verify pixels) against sub-pixel misalignment."""
VERIFY_NCC = 0.90
"""Aligned grey-level correlation a match must keep at verify resolution. Measured on crops,
tiles and JPEG copies of six diagrams vs crops/tiles of the others: copies >= 0.945, informative
look-alikes <= 0.93."""
VERIFY_GRADIENT_NCC = 0.80
"""Correlation of gradient magnitudes (edges: text strokes, outlines) at the aligned position.
Copies >= 0.877; look-alikes of the same drawing style (same boxes, other text) <= 0.71."""
CONTAIN_SIDE_PX = 480
"""Longer side (pixels) of a picture searched for the whole reference inside it."""
MIN_CONTAIN_FRACTION = 0.25
"""Smallest width of the reference inside a picture, as a fraction of the picture's width."""
CANVAS_SIDE_PX = 640
"""Longer side of the slide canvas on which all pictures are pasted for the tile screen."""
KEEP_SIDE_PX = 800
"""Longer side (pixels) at which a decoded picture is kept, in grey: every comparison works at
or below this size (verification at :data:`VERIFY_SIDE_PX`), so a 40-megapixel picture costs
0.6 MB once decoded, not 120 MB."""
MAX_PACKAGE_DECODE_PIXELS = 160_000_000
"""Decoded-pixel budget of one package (sum of the header sizes of its distinct pictures). Past
it the remaining pictures are not decoded and the deck fails ``fully_screened``."""

MAX_OWNERS_NAMED = 8
"""Most pictures named in one tile finding."""

_BYTESIO_REPR = re.compile(r"<_io\.BytesIO object at 0x[0-9a-fA-F]+>")

CopyKind = Literal["exact", "whole", "crop", "contains", "tiles"]


@dataclass(frozen=True)
class CopyFinding:
    """One picture (or the set of pictures) found to copy the reference."""

    owner: str
    """Which picture(s): ``"Picture 3" (id 4)``, ``slide background``, ``pictures ... (tiles)``."""
    kind: CopyKind
    score: float
    """Normalised correlation (1.0 for exact bytes)."""
    region: Box | None = None
    """Matched region, 0-1 fractions of the reference image."""
    how: str = ""
    """The transform under which it matched: ``""`` as stored, ``mirrored``, ``rotated 90``,
    ``inverted`` (colours), ..."""

    def describe(self) -> str:
        where = ""
        if self.region is not None:
            r = self.region
            where = f" of region x={r.x:.2f} y={r.y:.2f} w={r.w:.2f} h={r.h:.2f} of the reference"
        what = {
            "exact": "is a byte-identical copy of the reference",
            "whole": "is the reference, resized or recompressed",
            "crop": "is a crop",
            "contains": "contains the whole reference (pasted inside a larger image)",
            "tiles": "reassemble a crop",
        }[self.kind]
        how = f", {self.how}" if self.how else ""
        return f"{self.owner} {what}{where} (correlation {self.score:.2f}{how})"


@dataclass
class ScreenResult:
    findings: list[CopyFinding] = field(default_factory=list)
    approved: list[str] = field(default_factory=list)
    """Owners whose image is an approved task asset (exempt)."""
    approved_members: list[str] = field(default_factory=list)
    """Package members holding approved assets (masked out of the picture-only render)."""
    unscreened: list[str] = field(default_factory=list)
    """Raster images that could not be decoded (corrupt, over the pixel bound or the package's
    decode budget), with why: the deck fails ``fully_screened``."""
    vector: list[str] = field(default_factory=list)
    """Vector images (SVG/EMF/WMF): screened by the picture-only render, not here."""


class BudgetExceeded(ImagePrepError):
    """The package's decoded-pixel budget is spent (:data:`MAX_PACKAGE_DECODE_PIXELS`)."""


@dataclass
class DecodeBudget:
    """Pixels one package may still decode."""

    pixels: int = MAX_PACKAGE_DECODE_PIXELS
    deadline: float | None = None
    """``time.monotonic()`` after which nothing more is decoded (Stage 0's time limit)."""

    def take(self, n: int, where: str) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise BudgetExceeded(f"{where}: Stage 0's time limit passed before it was screened")
        if n > self.pixels:
            raise BudgetExceeded(
                f"{where}: decoding {n} more pixels would pass the package's "
                f"{MAX_PACKAGE_DECODE_PIXELS}-pixel budget"
            )
        self.pixels -= n


def decode_work_grey(
    data: bytes, where: str, budget: DecodeBudget | None = None
) -> tuple[np.ndarray, tuple[int, int]]:
    """Decode image bytes to grey (alpha composited on white) at most :data:`KEEP_SIDE_PX` on
    the longer side; also the original (width, height). The header's size is checked against
    :data:`MAX_DECODE_PIXELS` and ``budget`` before any pixel is decoded. Raises ImagePrepError
    (BudgetExceeded when the budget is spent)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                w, h = im.size
                if w <= 0 or h <= 0 or w * h > MAX_DECODE_PIXELS:
                    raise ImagePrepError(
                        f"{where}: {w}x{h} pixels exceed the {MAX_DECODE_PIXELS}-pixel bound"
                    )
                if budget is not None:
                    budget.take(w * h, where)
                if im.format == "JPEG":
                    im.draft("L", (KEEP_SIDE_PX, KEEP_SIDE_PX))
                has_alpha = im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info
                work = im.convert("LA" if has_alpha else "L")
                if max(work.size) > KEEP_SIDE_PX:
                    work.thumbnail((KEEP_SIDE_PX, KEEP_SIDE_PX), Image.Resampling.BOX)
                arr = np.asarray(work)
                if has_alpha:
                    grey = arr[..., 0].astype(np.float32)
                    alpha = arr[..., 1].astype(np.float32) / 255.0
                    arr = (grey * alpha + 255.0 * (1.0 - alpha)).round().astype(np.uint8)
                return np.ascontiguousarray(arr), (w, h)
    except ImagePrepError:
        raise
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise ImagePrepError(f"{where}: decompression bomb ({exc})") from None
    except (OSError, ValueError, SyntaxError, EOFError, MemoryError) as exc:
        why = _BYTESIO_REPR.sub("the image bytes", str(exc))
        raise ImagePrepError(f"{where}: not a decodable raster image ({why})") from None


def orientations(grey: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """The eight flips/rotations of an image and their colour inversions (16 variants)."""
    base = [
        ("", grey),
        ("mirrored", grey[:, ::-1]),
        ("flipped", grey[::-1, :]),
        ("rotated 180", grey[::-1, ::-1]),
        ("rotated 90", np.rot90(grey, -1)),
        ("rotated 270", np.rot90(grey, 1)),
        ("transposed", grey.T),
        ("anti-transposed", np.rot90(grey, 2).T),
    ]
    out = [(n, np.ascontiguousarray(g)) for n, g in base]
    out += [((n + " " if n else "") + "inverted", 255 - g) for n, g in out]
    return out


# --------------------------------------------------------------------------------------------
# Decoding


def decode_rgb(data: bytes, where: str) -> np.ndarray:
    """Decode image bytes to an RGB uint8 array (alpha composited on white).

    The header's dimensions are checked against :data:`MAX_DECODE_PIXELS` before any pixel is
    decoded. Raises ImagePrepError when the image is unreadable or too large.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                w, h = im.size
                if w <= 0 or h <= 0 or w * h > MAX_DECODE_PIXELS:
                    raise ImagePrepError(
                        f"{where}: {w}x{h} pixels exceed the {MAX_DECODE_PIXELS}-pixel bound"
                    )
                if im.format == "JPEG":
                    # Decode at reduced size when far larger than needed (fast, bounded).
                    im.draft("RGB", (CANVAS_SIDE_PX * 2, CANVAS_SIDE_PX * 2))
                if im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info:
                    rgba = im.convert("RGBA")
                    bg = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
                    bg.alpha_composite(rgba)
                    return np.asarray(bg.convert("RGB"))
                return np.asarray(im.convert("RGB"))
    except ImagePrepError:
        raise
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise ImagePrepError(f"{where}: decompression bomb ({exc})") from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise ImagePrepError(f"{where}: not a decodable raster image ({exc})") from None


def _grey(rgb: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)


def _prep(grey: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Resize (width, height) with area averaging, blur, as float32."""
    w, h = size
    interp = cv2.INTER_AREA if w < grey.shape[1] else cv2.INTER_LINEAR
    out = cv2.resize(grey, (max(w, 1), max(h, 1)), interpolation=interp)
    out = cv2.GaussianBlur(out, (0, 0), BLUR_SIGMA)
    return out.astype(np.float32)


def _to_verify_size(grey: np.ndarray) -> tuple[np.ndarray, float]:
    """``grey`` scaled so its longer side is :data:`VERIFY_SIDE_PX` (at most 4x up), and k."""
    h, w = grey.shape
    k = min(VERIFY_SIDE_PX / max(h, w), 4.0)
    size = (max(round(w * k), 2), max(round(h * k), 2))
    interp = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
    return cv2.resize(grey, size, interpolation=interp), k


def _corner_count(grey: np.ndarray) -> int:
    """Corner features of a picture at verify resolution: a measure of how much it shows."""
    img, _ = _to_verify_size(grey)
    found = cv2.goodFeaturesToTrack(img, 500, CORNER_QUALITY, CORNER_MIN_DISTANCE_PX)
    return 0 if found is None else len(found)


def _gradient(img: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a = a - float(a.mean())
    b = b - float(b.mean())
    den = math.sqrt(float((a * a).sum()) * float((b * b).sum()))
    return float((a * b).sum()) / den if den > 0 else 0.0


def _pixels_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


# --------------------------------------------------------------------------------------------
# Correlation


def _match_at(
    hay: np.ndarray, needle: np.ndarray, tw_f: float, aspect: float
) -> tuple[float, Box | None, bool]:
    """(correlation, region as fractions of ``hay``, needle is flat) for ``needle`` resized to
    ``tw_f`` pixels wide and correlated over the prepared image ``hay``."""
    H, W = hay.shape
    tw = max(round(tw_f), 2)
    th = max(round(tw_f / aspect), 2)
    if tw > W or th > H:
        return 0.0, None, False
    tpl = _prep(needle, (tw, th))
    if float(tpl.std()) < MIN_TEXTURE_STD:
        return 0.0, None, True
    res = cv2.matchTemplate(hay, tpl, cv2.TM_CCOEFF_NORMED)
    _, max_val, _, loc = cv2.minMaxLoc(res)
    if not math.isfinite(max_val):
        return 0.0, None, False
    return float(max_val), Box(x=loc[0] / W, y=loc[1] / H, w=tw / W, h=th / H), False


def _search(
    hay: np.ndarray, needle: np.ndarray, w_min: float, w_max: float
) -> tuple[float, Box | None]:
    """Best correlation of ``needle`` (raw grey) at widths ``w_min``..``w_max`` (pixels of the
    prepared ``hay``): a coarse geometric sweep, then a refinement around the best width."""
    nh, nw = needle.shape
    if nh < 2 or nw < 2 or w_min > w_max:
        return 0.0, None
    aspect = nw / nh
    limit = max(hay.shape)
    if max(nw, nh) > 2 * limit:
        # Shrink a large needle once (area averaging), not at every scale.
        k = limit / max(nw, nh)
        size = (max(round(nw * k), 2), max(round(nh * k), 2))
        needle = cv2.resize(needle, size, interpolation=cv2.INTER_AREA)
    widths = []
    w = w_max
    while w >= w_min:
        widths.append(w)
        w /= SCALE_STEP
    best, best_box, best_w = 0.0, None, 0.0
    for tw_f in widths:
        score, box, flat = _match_at(hay, needle, tw_f, aspect)
        if flat:
            return 0.0, None  # flat at every scale
        if score > best:
            best, best_box, best_w = score, box, tw_f
            if best >= 0.99:
                return best, best_box
    if best_box is not None and best >= REFINE_MIN_NCC:
        for factor in REFINE_STEPS:
            score, box, _ = _match_at(hay, needle, best_w * factor, aspect)
            if score > best:
                best, best_box = score, box
    return best, best_box


@dataclass(frozen=True)
class Verification:
    """How well a match holds at verify resolution."""

    ncc: float
    """Aligned grey-level correlation (best over the small scale/position search)."""
    gradient_ncc: float
    """Correlation of gradient magnitudes at that alignment."""

    @property
    def confirmed(self) -> bool:
        return self.ncc >= VERIFY_NCC and self.gradient_ncc >= VERIFY_GRADIENT_NCC

    @property
    def score(self) -> float:
        return min(self.ncc, self.gradient_ncc)


def _verify_region(big: np.ndarray, box: Box, small: np.ndarray) -> Verification:
    """Check ``small`` against the region ``box`` (fractions) of ``big`` (both raw grey) at up
    to :data:`VERIFY_SIDE_PX`: search a little scale and slack for the best aligned, lightly
    blurred correlation, then correlate gradient magnitudes there."""
    none = Verification(0.0, 0.0)
    bh_px, bw_px = big.shape
    x0, y0 = box.x * bw_px, box.y * bh_px
    bw, bh = box.w * bw_px, box.h * bh_px
    if bw < 2 or bh < 2:
        return none
    # Compare at the coarser of the two resolutions: never sharpen one side by upsampling.
    side = min(float(VERIFY_SIDE_PX), max(float(max(small.shape)), MIN_VERIFY_SIDE_PX))
    k = min(side / max(bw, bh), 4.0)
    pad_x, pad_y = bw * VERIFY_PAD, bh * VERIFY_PAD
    rx0, ry0 = max(int(x0 - pad_x), 0), max(int(y0 - pad_y), 0)
    rx1 = min(math.ceil(x0 + bw + pad_x), bw_px)
    ry1 = min(math.ceil(y0 + bh + pad_y), bh_px)
    region = big[ry0:ry1, rx0:rx1]
    if region.size == 0:
        return none
    rsz = (max(round((rx1 - rx0) * k), 2), max(round((ry1 - ry0) * k), 2))
    interp_r = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
    reg = cv2.resize(region, rsz, interpolation=interp_r).astype(np.float32)
    reg_blur = cv2.GaussianBlur(reg, (0, 0), VERIFY_BLUR_SIGMA)
    best = -1.0
    best_at: tuple[int, int, np.ndarray] | None = None
    for factor in VERIFY_SCALES:
        tw, th = max(round(bw * k * factor), 2), max(round(bh * k * factor), 2)
        if tw > reg.shape[1] or th > reg.shape[0]:
            continue
        interp_t = cv2.INTER_AREA if tw < small.shape[1] else cv2.INTER_LINEAR
        sized = cv2.resize(small, (tw, th), interpolation=interp_t).astype(np.float32)
        tpl = cv2.GaussianBlur(sized, (0, 0), VERIFY_BLUR_SIGMA)
        if float(tpl.std()) < MIN_TEXTURE_STD:
            continue
        res = cv2.matchTemplate(reg_blur, tpl, cv2.TM_CCOEFF_NORMED)
        _, max_val, _, loc = cv2.minMaxLoc(res)
        if math.isfinite(max_val) and max_val > best:
            best, best_at = float(max_val), (loc[0], loc[1], tpl)
    if best_at is None:
        return none
    lx, ly, tpl = best_at
    th, tw = tpl.shape
    window = reg_blur[ly : ly + th, lx : lx + tw]
    return Verification(best, _ncc(_gradient(window), _gradient(tpl)))


# --------------------------------------------------------------------------------------------
# The screen


class ReferenceScreen:
    """The reference prepared once; :meth:`screen` checks a slide's pictures against it."""

    def __init__(self, reference: Path, assets_dir: Path | None = None) -> None:
        try:
            self._ref_bytes = reference.read_bytes()
        except OSError as exc:
            raise ImagePrepError(f"{reference}: cannot read reference ({exc})") from None
        self._ref_sha = hashlib.sha256(self._ref_bytes).hexdigest()
        ref_rgb = decode_rgb(self._ref_bytes, str(reference))
        self._ref_grey = _grey(ref_rgb)
        rh, rw = self._ref_grey.shape
        k = WORK_SIDE_PX / max(rw, rh)
        self.work_w = max(round(rw * k), 1)
        self.work_h = max(round(rh * k), 1)
        self._work = _prep(self._ref_grey, (self.work_w, self.work_h))
        self._assets_sha: set[str] = set()
        self._assets_px: list[tuple[tuple[int, int], np.ndarray]] = []
        if assets_dir is not None:
            self._load_assets(assets_dir)

    def _load_assets(self, assets_dir: Path) -> None:
        if not assets_dir.is_dir():
            raise ImagePrepError(f"{assets_dir}: assets folder does not exist")
        files = sorted(p for p in assets_dir.rglob("*") if p.is_file())[:MAX_ASSET_FILES]
        for p in files:
            if p.stat().st_size > MAX_ASSET_BYTES:
                continue
            data = p.read_bytes()
            self._assets_sha.add(hashlib.sha256(data).hexdigest())
            try:
                grey, size = decode_work_grey(data, str(p))
            except ImagePrepError:
                continue  # a non-image asset can still be approved by its bytes
            self._assets_px.append((size, grey))

    def _approved(self, sha: str, decoded: tuple[np.ndarray, tuple[int, int]] | None) -> bool:
        if sha in self._assets_sha:
            return True
        if decoded is None:
            return False
        grey, size = decoded
        return any(size == s and _pixels_equal(grey, a) for s, a in self._assets_px)

    # ---- correlation

    def _best_match(self, grey: np.ndarray, *, min_area: float) -> tuple[float, Box | None]:
        """Best correlation of ``grey`` with any region of the reference, over scales; the
        region is in fractions of the reference."""
        ph, pw = grey.shape
        if ph < 2 or pw < 2:
            return 0.0, None
        aspect = pw / ph
        W, H = self.work_w, self.work_h
        w_max = min(float(W), H * aspect)
        w_min = max(
            MIN_TEMPLATE_SIDE_PX,
            MIN_TEMPLATE_SIDE_PX * aspect,
            math.sqrt(min_area * W * H * aspect),
        )
        return _search(self._work, grey, w_min, w_max)

    def _contains_match(self, grey: np.ndarray) -> tuple[float, Box | None]:
        """Best correlation of the whole reference with a region of the picture ``grey`` (the
        reference pasted inside a larger image); the region is in fractions of the picture."""
        ph, pw = grey.shape
        k = min(CONTAIN_SIDE_PX / max(pw, ph), 1.0)
        hw, hh = max(round(pw * k), 2), max(round(ph * k), 2)
        hay = _prep(grey, (hw, hh))
        ref_aspect = self.work_w / self.work_h
        w_max = min(float(hw), hh * ref_aspect)
        w_min = max(MIN_TEMPLATE_SIDE_PX * max(ref_aspect, 1.0), MIN_CONTAIN_FRACTION * hw)
        return _search(hay, self._ref_grey, w_min, w_max)

    def _verify(self, grey: np.ndarray, box: Box) -> Verification:
        """The crop ``grey`` against the reference region ``box``, at verify resolution."""
        return _verify_region(self._ref_grey, box, grey)

    def _whole_match(self, grey: np.ndarray) -> float:
        ph, pw = grey.shape
        ref_aspect = self.work_w / self.work_h
        if ph < 2 or pw < 2 or abs((pw / ph) / ref_aspect - 1.0) > WHOLE_ASPECT_TOLERANCE:
            return 0.0
        tpl = _prep(grey, (self.work_w, self.work_h))
        if float(tpl.std()) < MIN_TEXTURE_STD:
            return 0.0
        res = cv2.matchTemplate(self._work, tpl, cv2.TM_CCOEFF_NORMED)
        value = float(res.max())
        return value if math.isfinite(value) else 0.0

    # ---- public

    def screen(
        self,
        pictures: Sequence[PictureBlob],
        slide_aspect: float = 4 / 3,
        budget: DecodeBudget | None = None,
    ) -> ScreenResult:
        """Screen every image the slide draws; see the module docstring for what is caught.

        ``slide_aspect`` is the slide's width / height, used to lay pictures out on the tile
        canvas (their boxes are in slide-frame fractions). ``budget`` bounds the pixels decoded
        (default: a fresh :data:`MAX_PACKAGE_DECODE_PIXELS` budget).
        """
        budget = budget if budget is not None else DecodeBudget()
        result = ScreenResult()
        decoded: dict[str, tuple[np.ndarray, tuple[int, int]] | None] = {}
        verdicts: dict[str, CopyFinding | None] = {}
        canvas_items: list[tuple[PictureBlob, np.ndarray]] = []
        for pic in pictures:
            sha = hashlib.sha256(pic.blob).hexdigest()
            if sha == self._ref_sha and sha not in self._assets_sha:
                result.findings.append(CopyFinding(pic.owner, "exact", 1.0))
                continue
            if pic.kind in ("svg", "emf", "wmf"):
                result.vector.append(f"{pic.owner} [{pic.member}]")
                continue
            if sha not in decoded:
                try:
                    decoded[sha] = decode_work_grey(pic.blob, pic.member, budget)
                except ImagePrepError as exc:
                    decoded[sha] = None
                    reason = str(exc).split(": ", 1)[-1]
                    result.unscreened.append(f"{pic.owner} [{pic.member}]: {reason}")
            got = decoded[sha]
            if self._approved(sha, got):
                result.approved.append(pic.owner)
                result.approved_members.append(pic.member)
                continue
            if got is None:
                continue
            grey = got[0]
            if pic.placed:
                canvas_items.append((pic, grey))
            if sha not in verdicts:
                verdicts[sha] = self.screen_image(grey, pic.owner)
            found = verdicts[sha]
            if found is not None:
                result.findings.append(
                    CopyFinding(pic.owner, found.kind, found.score, found.region, found.how)
                )
        flagged = {f.owner for f in result.findings}
        rest = [(p, g) for p, g in canvas_items if p.owner not in flagged]
        if len(rest) >= 2:
            tiled = self._screen_tiles(rest, slide_aspect)
            if tiled is not None:
                result.findings.append(tiled)
        return result

    def screen_image(self, grey: np.ndarray, owner: str) -> CopyFinding | None:
        """Is the grey image a copy of the reference: the whole reference under any flip,
        rotation or colour inversion (cheap: one same-size correlation each), a crop of it, or
        containing it (as stored: the multi-scale searches cost the most, and a transformed
        crop is caught by the picture-only render)? The first confirmed finding, or None."""
        for how, g in orientations(grey):
            if self._whole_match(g) >= MATCH_NCC:
                checked = self._verify(g, Box(x=0, y=0, w=1, h=1))
                if checked.confirmed:
                    return CopyFinding(owner, "whole", checked.score, None, how)
        for how, g in (("", grey),):
            if _corner_count(g) >= MIN_CORNERS:
                score, box = self._best_match(g, min_area=MIN_CROP_AREA_FRACTION)
                if score >= MATCH_NCC and box is not None:
                    checked = self._verify(g, box)
                    if checked.confirmed:
                        return CopyFinding(owner, "crop", checked.score, box, how)
            score, box = self._contains_match(g)
            if score >= MATCH_NCC and box is not None:
                checked = _verify_region(g, box, self._ref_grey)
                if checked.confirmed:
                    return CopyFinding(owner, "contains", checked.score, None, how)
        return None

    def _screen_tiles(
        self, items: list[tuple[PictureBlob, np.ndarray]], slide_aspect: float
    ) -> CopyFinding | None:
        """Paste the pictures onto a white slide canvas where they are drawn, then screen the
        covered region as one crop (catches the reference cut into tiles)."""
        xs0 = min(p.bbox.x for p, _ in items)
        ys0 = min(p.bbox.y for p, _ in items)
        xs1 = max(p.bbox.x2 for p, _ in items)
        ys1 = max(p.bbox.y2 for p, _ in items)
        if xs1 - xs0 <= 0 or ys1 - ys0 <= 0:
            return None
        # Canvas pixels per slide-frame unit: k vertically, k * slide_aspect horizontally.
        span_w = (xs1 - xs0) * slide_aspect
        span_h = ys1 - ys0
        k = CANVAS_SIDE_PX / max(span_w, span_h)
        unit_aspect = slide_aspect
        cw, ch = max(round(span_w * k), 2), max(round(span_h * k), 2)
        canvas = np.full((ch, cw), 255, dtype=np.uint8)
        for pic, grey in items:
            x0 = round((pic.bbox.x - xs0) * unit_aspect * k)
            y0 = round((pic.bbox.y - ys0) * k)
            w = round(pic.bbox.w * unit_aspect * k)
            h = round(pic.bbox.h * k)
            if w < 1 or h < 1:
                continue
            x1, y1 = min(x0 + w, cw), min(y0 + h, ch)
            if x1 <= max(x0, 0) or y1 <= max(y0, 0):
                continue
            patch = cv2.resize(grey, (w, h), interpolation=cv2.INTER_AREA)
            canvas[max(y0, 0) : y1, max(x0, 0) : x1] = patch[
                max(-y0, 0) : y1 - y0, max(-x0, 0) : x1 - x0
            ]
        owners = ", ".join(p.owner for p, _ in items[:MAX_OWNERS_NAMED])
        if len(items) > MAX_OWNERS_NAMED:
            owners += f" and {len(items) - MAX_OWNERS_NAMED} more"
        whole = self._whole_match(canvas)
        full = Box(x=0, y=0, w=1, h=1)
        if whole >= MATCH_NCC:
            checked = self._verify(canvas, full)
            if checked.confirmed:
                return CopyFinding(f"pictures {owners} (tiles)", "tiles", checked.score, full)
        score, box = self._best_match(canvas, min_area=MIN_CROP_AREA_FRACTION)
        if score >= MATCH_NCC and box is not None:
            checked = self._verify(canvas, box)
            if checked.confirmed:
                return CopyFinding(f"pictures {owners} (tiles)", "tiles", checked.score, box)
        return None
