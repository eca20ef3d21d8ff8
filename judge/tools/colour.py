"""Colour primitives: CIEDE2000 colour difference (Sharma, Wu and Dalal 2005) and RRGGBB parsing.

Colours are BGR triples of 0-255 (OpenCV's order); L*a*b* is CIE D65 as OpenCV computes it for
float images. Shared by the colour-difference tool, the node reader and the Stage 3 rules.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from judge.tools.base import ToolUsageError


def channel_off(img: np.ndarray, bgr: Any) -> np.ndarray:
    """How far each pixel of a uint8 BGR image lies from colour ``bgr``: the largest of its
    channels' absolute differences (uint8), as ``np.abs(img.astype(np.int16) - bgr).max(axis=2)``
    gives it, computed by OpenCV (several times faster on whole images)."""
    b, g, r = cv2.split(cv2.absdiff(img, np.full(img.shape, bgr, np.uint8)))
    out: np.ndarray = cv2.max(cv2.max(b, g), r)
    return out


def _lab(bgr: np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) of an (N, 3) uint8 BGR array."""
    arr = np.asarray(bgr, dtype=np.float32).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(arr, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float64)


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """CIEDE2000 colour difference of two (N, 3) arrays of L*a*b* colours."""
    L1, a1, b1 = lab1[:, 0], lab1[:, 1], lab1[:, 2]
    L2, a2, b2 = lab2[:, 0], lab2[:, 1], lab2[:, 2]
    C1 = np.hypot(a1, b1)
    C2 = np.hypot(a2, b2)
    Cb = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cb**7 / (Cb**7 + 25.0**7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp = L2 - L1
    dCp = C2p - C1p
    dhp = h2p - h1p
    dhp = np.where(dhp > 180, dhp - 360, dhp)
    dhp = np.where(dhp < -180, dhp + 360, dhp)
    dhp = np.where(C1p * C2p == 0, 0, dhp)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dhp) / 2)
    Lbp = (L1 + L2) / 2
    Cbp = (C1p + C2p) / 2
    hsum = h1p + h2p
    hbp = np.where(
        np.abs(h1p - h2p) > 180, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2), hsum / 2
    )
    hbp = np.where(C1p * C2p == 0, hsum, hbp)
    T = (
        1
        - 0.17 * np.cos(np.radians(hbp - 30))
        + 0.24 * np.cos(np.radians(2 * hbp))
        + 0.32 * np.cos(np.radians(3 * hbp + 6))
        - 0.20 * np.cos(np.radians(4 * hbp - 63))
    )
    dtheta = 30 * np.exp(-(((hbp - 275) / 25) ** 2))
    Rc = 2 * np.sqrt(Cbp**7 / (Cbp**7 + 25.0**7))
    Sl = 1 + 0.015 * (Lbp - 50) ** 2 / np.sqrt(20 + (Lbp - 50) ** 2)
    Sc = 1 + 0.045 * Cbp
    Sh = 1 + 0.015 * Cbp * T
    Rt = -np.sin(np.radians(2 * dtheta)) * Rc
    delta: np.ndarray = np.sqrt(
        (dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh)
    )
    return delta


def ciede2000_bgr(c1: Any, c2: Any) -> float:
    """CIEDE2000 of two BGR triples (0-255)."""
    lab = _lab(np.array([c1, c2], dtype=np.uint8))
    return float(ciede2000(lab[:1], lab[1:])[0])


def rgb_hex_to_bgr(value: str) -> tuple[int, int, int]:
    """``RRGGBB`` (optionally with ``#``) as a BGR triple; ToolUsageError when malformed."""
    v = value.strip().lstrip("#")
    if len(v) != 6:
        raise ToolUsageError(f"colour {value!r} is not RRGGBB")
    try:
        r, g, b = int(v[0:2], 16), int(v[2:4], 16), int(v[4:6], 16)
    except ValueError as exc:
        raise ToolUsageError(f"colour {value!r} is not RRGGBB") from exc
    return (b, g, r)
