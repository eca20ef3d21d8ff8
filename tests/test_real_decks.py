"""Stage 0 over real-world decks (python-pptx and Apache POI test files, some fuzzer outputs).

The decks live outside the repository (``../shared/real-decks``); the tests skip without them.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from judge.artifact.gate import validate
from judge.artifact.ooxml import read_object_tree, requested_fonts
from judge.errors import PackageError
from judge.render.pool import RenderPool
from judge.schema import CHECK_NAMES, ArtifactReport

REAL_DECKS = Path(__file__).resolve().parents[2] / "shared" / "real-decks"
DECKS = sorted(p for p in REAL_DECKS.glob("*.ppt*")) if REAL_DECKS.is_dir() else []
TOTAL_SECONDS = 60.0
"""Generous bound for all ~60 decks without rendering (a hang guard, not a speed target:
bench/stage0_bench.py measures speed)."""

pytestmark = pytest.mark.skipif(not DECKS, reason=f"no real decks in {REAL_DECKS}")


def _report(path: Path) -> ArtifactReport | PackageError:
    try:
        return validate(path, render=None)
    except PackageError as exc:
        return exc


def test_every_real_deck_gives_a_report_or_a_package_error_quickly() -> None:
    t0 = time.perf_counter()
    outcomes = {p.name: _report(p) for p in DECKS}
    assert time.perf_counter() - t0 < TOTAL_SECONDS
    for name, out in outcomes.items():
        if isinstance(out, ArtifactReport):
            assert [c.name for c in out.checks] == list(CHECK_NAMES), name
            assert out.valid == all(c.passed for c in out.checks), name


def test_object_tree_and_fonts_raise_only_package_errors() -> None:
    for path in DECKS:
        try:
            tree = read_object_tree(path)
            requested_fonts(path)
        except PackageError:
            continue
        for obj in tree.objects:
            assert obj.bbox.w >= 0 and obj.bbox.h >= 0


@pytest.mark.parametrize(
    ("deck", "check"),
    [
        ("poi_SimpleMacro.pptm", "no_macros"),
        ("pptx_ext-rels.pptx", "no_external_relationships"),
        ("pptx_shp-access-ole-object.pptx", "no_embedded_objects"),
        ("poi_bug65551.pptx", "no_embedded_objects"),
        ("pptx_dml-line.pptx", "one_slide"),
        ("pptx_sld-blank.pptx", "editable_components"),
        ("poi_clusterfuzz-testcase-minimized-POIXSLFFuzzer-6254434927378432.pptx", "opens"),
    ],
)
def test_known_faults_of_real_decks_are_reported(deck: str, check: str) -> None:
    path = REAL_DECKS / deck
    if not path.exists():
        pytest.skip(f"{deck} not present")
    report = validate(path, render=None)
    assert check in report.failures


@pytest.mark.slow
@pytest.mark.parametrize("deck", ["pptx_shp-groupshape.pptx", "poi_highlight-test-case.pptx"])
def test_real_valid_decks_render(deck: str, tmp_path: Path, render_pool: RenderPool) -> None:
    path = REAL_DECKS / deck
    if not path.exists():
        pytest.skip(f"{deck} not present")
    report = validate(path, render=lambda p: render_pool.render(p, tmp_path / "r.png"))
    assert report.valid, [(c.name, c.detail) for c in report.checks if not c.passed]
