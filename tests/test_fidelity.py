"""Fidelity diagnostics and visual complexity against reference values."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

from scoring.complexity import assign_tiers, complexity, complexity_scores
from scoring.fidelity import (
    ciede2000,
    ciede2000_term,
    fidelity,
    geometric_mean,
    psnr,
    psnr_term,
    ssim,
)
from tests.decks import decode, diagram_image

# Sharma, Wu and Dalal (2005), "The CIEDE2000 colour-difference formula", Table 1.
SHARMA_PAIRS = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 2.8361, -74.0200), (50.0, 0.0, -82.7485), 3.4412),
    ((50.0, -1.3802, -84.2814), (50.0, 0.0, -82.7485), 1.0000),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.4900, -0.0010), (50.0, -2.4900, 0.0009), 7.1792),
    ((50.0, 2.4900, -0.0010), (50.0, -2.4900, 0.0011), 7.2195),
    ((50.0, -0.0010, 2.4900), (50.0, 0.0009, -2.4900), 4.8045),
    ((50.0, 2.5, 0.0), (50.0, 0.0, -2.5), 4.3065),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
    ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
    ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0000),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((63.0109, -31.0961, -5.8663), (62.8187, -29.7946, -4.0864), 1.2630),
    ((61.2901, 3.7196, -5.3901), (61.4292, 2.2480, -4.9620), 1.8731),
    ((35.0831, -44.1164, 3.7933), (35.0232, -40.0716, 1.5901), 1.8645),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ((36.4612, 47.8580, 18.3852), (36.2715, 50.5065, 21.2231), 1.4146),
    ((90.8027, -2.0831, 1.4410), (91.1528, -1.6435, 0.0447), 1.4441),
    ((90.9257, -0.5406, -0.9208), (88.6381, -0.8985, -0.7239), 1.5381),
    ((6.7747, -0.2908, -2.4247), (5.8714, -0.0985, -2.2286), 0.6377),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]


def _pair() -> tuple[np.ndarray, np.ndarray]:
    ref = decode(diagram_image(seed=3, size=(320, 240)))
    cand = ref.copy()
    cand[40:90, 60:150] = (30, 160, 220)  # a recoloured block
    cand = cv2.GaussianBlur(cand, (3, 3), 0)
    return np.ascontiguousarray(ref[:, :, ::-1]), np.ascontiguousarray(cand[:, :, ::-1])


def test_psnr_matches_scikit_image() -> None:
    ref, cand = _pair()
    assert psnr(ref, cand) == pytest.approx(peak_signal_noise_ratio(ref, cand, data_range=255))


def test_ssim_matches_scikit_image() -> None:
    ref, cand = _pair()
    a, b = cv2.cvtColor(ref, cv2.COLOR_BGR2GRAY), cv2.cvtColor(cand, cv2.COLOR_BGR2GRAY)
    expected = structural_similarity(a, b, data_range=255)
    assert ssim(a, b) == pytest.approx(expected, abs=1e-9)


def test_psnr_term_is_one_minus_ten_to_minus_psnr_over_20() -> None:
    assert psnr_term(20.0) == pytest.approx(0.9)
    assert psnr_term(40.0) == pytest.approx(0.99)


@pytest.mark.parametrize(("lab1", "lab2", "expected"), SHARMA_PAIRS)
def test_ciede2000_matches_sharma_test_pairs(lab1, lab2, expected) -> None:
    got = ciede2000(np.array([lab1]), np.array([lab2]))[0]
    assert got == pytest.approx(expected, abs=1e-4)
    assert ciede2000(np.array([lab2]), np.array([lab1]))[0] == pytest.approx(expected, abs=1e-4)


def test_jnd_curve_halves_at_de_10_and_keeps_095_at_one_jnd() -> None:
    assert ciede2000_term(10.0) == pytest.approx(0.5)
    assert ciede2000_term(2.3) == pytest.approx(1 / (1 + 0.023**2 * 100), rel=1e-9)
    assert ciede2000_term(2.3) > 0.94


def test_identical_panels_score_one_and_name_their_terms() -> None:
    ref, _ = _pair()
    m = fidelity(ref, ref.copy())
    assert m.psnr_db == 100.0 and m.ssim == pytest.approx(1.0) and m.ciede2000_mean == 0.0
    assert m.terms == ["psnr", "ssim", "ciede2000"] and m.lpips is None
    assert m.combined == pytest.approx(1.0, abs=1e-4)


def test_combined_is_the_geometric_mean_of_the_present_terms() -> None:
    ref, cand = _pair()
    m = fidelity(ref, cand)
    expected = geometric_mean([m.psnr_term, max(0.0, m.ssim), m.ciede2000_term])
    assert m.combined == pytest.approx(expected, abs=1e-6)
    assert m.combined < 1.0
    assert math.prod([0.25, 1.0]) ** 0.5 == geometric_mean([0.25, 1.0])


def test_lpips_without_a_weights_file_is_a_clear_error(tmp_path) -> None:
    from judge.errors import PptJudgeError

    ref, cand = _pair()
    with pytest.raises(PptJudgeError, match="no LPIPS weights file"):
        fidelity(ref, cand, lpips_weights=tmp_path / "alex.pth")


def _boxes(n: int, diagonal: bool) -> np.ndarray:
    img = np.full((600, 800, 3), 255, np.uint8)
    for i in range(n):
        x, y = 40 + (i % 4) * 190, 40 + (i // 4) * 180
        colour = (40 * i % 255, 90, 200 - 15 * i)
        cv2.rectangle(img, (x, y), (x + 120, y + 80), colour, -1)
        if diagonal:
            cv2.line(img, (x + 130, y + 90), (x + 175, y + 170), (0, 0, 0), 2)
    return img


def test_busier_diagram_is_more_complex() -> None:
    busy, sparse = complexity(_boxes(12, True)), complexity(_boxes(2, False))
    assert busy.components > sparse.components
    assert busy.orientation_entropy > sparse.orientation_entropy
    assert busy.colour_diversity > sparse.colour_diversity
    # two filled 121x81 boxes, 69 px apart: content box 311x81
    assert sparse.occupancy == pytest.approx(2 * 121 * 81 / (311 * 81), abs=1e-6)


def test_blank_image_has_zero_complexity() -> None:
    m = complexity(np.full((100, 100, 3), 255, np.uint8))
    assert (m.edge_density, m.components, m.occupancy) == (0.0, 0, 0.0)


def test_tiers_are_tertiles_of_the_benchmarks_own_scores() -> None:
    from judge.schema import ComplexityMetrics

    def m(v: float) -> ComplexityMetrics:
        return ComplexityMetrics(
            edge_density=v,
            orientation_entropy=v,
            colour_diversity=v,
            components=int(v * 10),
            occupancy=v,
        )

    metrics = {f"t{i}": m(i / 10) for i in range(6)}
    scores = complexity_scores(metrics)
    assert scores["t0"] == 0.0 and scores["t5"] == 1.0
    tiers = assign_tiers(metrics)
    assert [tiers[f"t{i}"] for i in range(6)] == ["easy"] * 2 + ["medium"] * 2 + ["hard"] * 2
    fixed = assign_tiers(metrics, cuts=(0.1, 0.9))
    assert [fixed[f"t{i}"] for i in range(6)] == ["easy"] + ["medium"] * 4 + ["hard"]
