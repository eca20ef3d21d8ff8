"""FigCodeBench pixel-fidelity diagnostics of the normalised pair (never points).

On the two 1200x900 panels of a case's normalised pair (reference left, candidate right):

* **PSNR** of the 8-bit RGB panels, mapped to ``1 - 10^(-PSNR/20)`` (0-1; identical panels give
  PSNR capped at :data:`PSNR_CAP_DB`);
* **SSIM** of the grey panels with scikit-image's defaults (7x7 uniform window, sample
  covariance, K1 0.01, K2 0.03, data range 255), the mean over the window-valid interior;
* **CIEDE2000**: the mean difference over the pixels that are ink (more than
  :data:`INK_LEVELS` levels from white) in either panel, mapped through a just-noticeable-
  difference curve. FigCodeBench does not publish its curve; **ours** is
  ``1 / (1 + (dE / DE_HALF)^2)`` with ``DE_HALF = 10``: one JND (dE 2.3, Sharma 2003) keeps
  0.95, dE 10 (the edge of "perceptible at a glance", Mokrzycki and Tatol 2011) halves it,
  opposite colours (dE ~ 50) give 0.04;
* **LPIPS** only when a local weights file is given (nothing is downloaded): the file is a
  ``torch`` state dict of the whole ``lpips.LPIPS(net="alex")`` module (backbone and linear
  heads); it needs the ``lpips`` and ``torch`` packages. Its term is ``1 - min(1, LPIPS)``;
* **combined**: the equally weighted geometric mean of the terms present (SSIM clipped at 0);
  the result names them in ``terms``.

PSNR and SSIM reward a pasted reference (a screenshot scores near 1): they are diagnostics,
read beside the gates, never instead of them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from judge.errors import PptJudgeError
from judge.schema import FidelityMetrics, PairGeometry

PSNR_CAP_DB = 100.0
"""PSNR reported for identical panels (infinite otherwise)."""
SSIM_WINDOW = 7
SSIM_K1 = 0.01
SSIM_K2 = 0.03
DATA_RANGE = 255.0
INK_LEVELS = 10
"""A pixel is ink when a channel differs from white by more than this (as image preparation)."""
DE_HALF = 10.0
"""CIEDE2000 mean at which the colour term is 0.5 (our JND curve, see the module docstring)."""
JND_DE = 2.3
"""One just-noticeable difference in CIE Lab units (Sharma 2003); documents the curve."""

Image = NDArray[Any]
"""An 8-bit image (BGR, or grey for :func:`ssim`)."""


def psnr(a: Image, b: Image) -> float:
    """PSNR in dB of two equally shaped 8-bit images (all channels); capped at 100."""
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} vs {b.shape}")
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    if mse == 0.0:
        return PSNR_CAP_DB
    return min(PSNR_CAP_DB, 10.0 * math.log10(DATA_RANGE**2 / mse))


def psnr_term(psnr_db: float) -> float:
    """1 - 10^(-PSNR/20): 0 at 0 dB, 0.9 at 20 dB, 0.99 at 40 dB."""
    return float(1.0 - 10.0 ** (-psnr_db / 20.0))


def ssim(a: Image, b: Image) -> float:
    """SSIM of two grey 8-bit images, as ``skimage.metrics.structural_similarity`` computes it
    with its defaults (``data_range=255``)."""
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"need two grey images of one shape, got {a.shape} and {b.shape}")
    x, y = a.astype(np.float64), b.astype(np.float64)
    w = SSIM_WINDOW
    n = w * w
    cov_norm = n / (n - 1.0)

    def box(v: NDArray[np.float64]) -> NDArray[np.float64]:
        # a 7x7 mean (scipy's uniform_filter, as scikit-image; OpenCV's is ~5x faster and the
        # pixels kept below never see the border)
        return np.asarray(cv2.boxFilter(v, -1, (w, w), borderType=cv2.BORDER_REFLECT))

    ux, uy = box(x), box(y)
    uxx, uyy, uxy = box(x * x), box(y * y), box(x * y)
    vx, vy, vxy = cov_norm * (uxx - ux * ux), cov_norm * (uyy - uy * uy), cov_norm * (uxy - ux * uy)
    c1, c2 = (SSIM_K1 * DATA_RANGE) ** 2, (SSIM_K2 * DATA_RANGE) ** 2
    s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux**2 + uy**2 + c1) * (vx + vy + c2))
    pad = (w - 1) // 2
    return float(s[pad:-pad, pad:-pad].mean())


def lab(bgr: Image) -> NDArray[np.float64]:
    """CIE L*a*b* (D65) of an 8-bit BGR image, shape (..., 3)."""
    arr = np.asarray(bgr, dtype=np.float32) / 255.0
    shape = arr.shape
    out = cv2.cvtColor(arr.reshape(-1, 1, 3), cv2.COLOR_BGR2Lab)
    return out.reshape(shape).astype(np.float64)


def ciede2000(lab1: NDArray[np.float64], lab2: NDArray[np.float64]) -> NDArray[np.float64]:
    """CIEDE2000 difference of two (N, 3) arrays of L*a*b* colours (Sharma, Wu, Dalal 2005)."""
    from judge.tools.colour import ciede2000 as _de2000

    return np.asarray(_de2000(np.asarray(lab1, float), np.asarray(lab2, float)), np.float64)


def ciede2000_term(mean_de: float) -> float:
    """Our JND curve: 1 / (1 + (dE / DE_HALF)^2)."""
    return 1.0 / (1.0 + (mean_de / DE_HALF) ** 2)


def ink_mask(bgr: Image) -> NDArray[np.bool_]:
    return np.asarray(np.abs(bgr.astype(np.int16) - 255).max(axis=2) > INK_LEVELS)


def mean_ciede2000(ref: Image, cand: Image) -> float:
    """Mean CIEDE2000 over the pixels that are ink in either panel (0 when neither has ink).

    Computed once per distinct (reference colour, candidate colour) pair, weighted by its pixel
    count: the same mean as per pixel, and diagrams have few distinct pairs."""
    mask = ink_mask(ref) | ink_mask(cand)
    if not mask.any():
        return 0.0
    weights = np.array([1 << 16, 1 << 8, 1], dtype=np.int64)
    pairs = (ref[mask].astype(np.int64) @ weights) << 24 | (cand[mask].astype(np.int64) @ weights)
    unique, counts = np.unique(pairs, return_counts=True)

    def unpack(codes: NDArray[np.int64]) -> Image:
        return np.stack([(codes >> 16) & 255, (codes >> 8) & 255, codes & 255], axis=1).astype(
            np.uint8
        )

    de = ciede2000(lab(unpack(unique >> 24)), lab(unpack(unique & 0xFFFFFF)))
    return float((de * counts).sum() / counts.sum())


def lpips_distance(ref: Image, cand: Image, weights: Path) -> float:
    """LPIPS (AlexNet) distance with the state dict in ``weights``; nothing is downloaded.

    Raises :class:`PptJudgeError` when the file is missing or torch/lpips are not installed.
    """
    if not Path(weights).is_file():
        raise PptJudgeError(f"{weights}: no LPIPS weights file there (--lpips-weights)")
    try:
        import lpips
        import torch
    except ImportError as exc:
        raise PptJudgeError(
            f"LPIPS needs the lpips and torch packages ({exc.name} is not installed); "
            "drop --lpips-weights to combine PSNR, SSIM and CIEDE2000 only"
        ) from None
    net: Any = lpips.LPIPS(net="alex", pretrained=False, pnet_rand=True, verbose=False)
    try:
        net.load_state_dict(torch.load(str(weights), map_location="cpu"), strict=True)
    except (RuntimeError, OSError, ValueError) as exc:
        raise PptJudgeError(f"{weights}: not LPIPS(alex) weights: {exc}") from None
    net.eval()

    def tensor(img: Image) -> Any:
        rgb = img[:, :, ::-1].astype(np.float32) / 127.5 - 1.0
        return torch.from_numpy(np.ascontiguousarray(rgb.transpose(2, 0, 1)))[None]

    with torch.no_grad():
        return float(net(tensor(ref), tensor(cand)).item())


def geometric_mean(values: list[float]) -> float:
    if not values:
        return 0.0
    if min(values) <= 0.0:
        return 0.0
    return float(math.exp(sum(math.log(v) for v in values) / len(values)))


def fidelity(ref: Image, cand: Image, lpips_weights: Path | None = None) -> FidelityMetrics:
    """Every fidelity diagnostic of two equally sized BGR panels."""
    p = psnr(ref, cand)
    grey_r = cv2.cvtColor(ref, cv2.COLOR_BGR2GRAY)
    grey_c = cv2.cvtColor(cand, cv2.COLOR_BGR2GRAY)
    s = ssim(grey_r, grey_c)
    de = mean_ciede2000(ref, cand)
    terms = {"psnr": psnr_term(p), "ssim": max(0.0, s), "ciede2000": ciede2000_term(de)}
    lp = None
    if lpips_weights is not None:
        lp = lpips_distance(ref, cand, lpips_weights)
        terms["lpips"] = 1.0 - min(1.0, lp)
    return FidelityMetrics(
        psnr_db=round(p, 4),
        psnr_term=round(terms["psnr"], 6),
        ssim=round(s, 6),
        ciede2000_mean=round(de, 4),
        ciede2000_term=round(terms["ciede2000"], 6),
        lpips=None if lp is None else round(lp, 6),
        combined=round(geometric_mean(list(terms.values())), 6),
        terms=list(terms),
    )


def pair_panels(pair_png: Path, pair: PairGeometry) -> tuple[Image, Image]:
    """The reference and candidate panels (BGR) cut from a case's ``pair.png``."""
    img = cv2.imread(str(pair_png), cv2.IMREAD_COLOR)
    if img is None:
        raise PptJudgeError(f"{pair_png}: cannot read the normalised pair image")
    w, h = pair.panel_width, pair.panel_height

    def cut(left: int) -> Image:
        panel = img[:h, left : left + w]
        if panel.shape[:2] != (h, w):
            raise PptJudgeError(f"{pair_png}: smaller than pair.json's panels say")
        return np.ascontiguousarray(panel)

    return cut(pair.reference.panel_left), cut(pair.candidate.panel_left)


def case_fidelity(
    pair_png: Path, pair: PairGeometry, lpips_weights: Path | None = None
) -> FidelityMetrics:
    """The fidelity diagnostics of a case from its normalised pair."""
    ref, cand = pair_panels(pair_png, pair)
    return fidelity(ref, cand, lpips_weights)
