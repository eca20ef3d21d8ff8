"""Stage 0 over real-world decks (python-pptx and Apache POI test files, some fuzzer outputs).

The decks live outside the repository (``<shared>/real-decks``, see ``shared_folder`` in
tests/conftest.py: ``$PPTJUDGE_SHARED`` or ``../shared``); the tests skip without them, saying
where they looked.
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
from tests.conftest import needs_shared, shared_path

REAL_DECKS = shared_path("real-decks")
DECKS = sorted(p for p in REAL_DECKS.glob("*.ppt*")) if REAL_DECKS.is_dir() else []
TOTAL_SECONDS = 60.0
"""Generous bound for all ~60 decks without rendering (a hang guard, not a speed target:
bench/stage0_bench.py measures speed)."""

pytestmark = needs_shared("real-decks")

UNREADABLE = (
    "poi_clusterfuzz-testcase-minimized-POIFuzzer-5205835528404992.pptx",
    "poi_clusterfuzz-testcase-minimized-POIXSLFFuzzer-5463285576892416.pptx",
    "poi_clusterfuzz-testcase-minimized-POIXSLFFuzzer-5471515212382208.pptx",
    "poi_clusterfuzz-testcase-minimized-POIXSLFFuzzer-6254434927378432.pptx",
)
"""Fuzzer outputs that are not a readable package: a clear PackageError, or a report whose
``opens`` check fails (never a traceback, never a pass)."""

VALID = (
    "poi_54542_cropped_bitmap.pptx",
    "poi_highlight-test-case.pptx",
    "poi_minimal-gradient-fill-issue.pptx",
    "poi_sample_pptx_grouping_issues.pptx",
    "pptx_shp-groupshape.pptx",
    "pptx_test_slides.pptx",
    "pptx_txt-font-typeface.pptx",
)
"""Single-slide decks of editable shapes that pass every check (render aside)."""

BROKEN = {
    "poi_SimpleMacro.pptm": "no_macros",
    "poi_testPPT.pptm": "no_macros",
    "pptx_act-props.pptm": "no_macros",
    "poi_PPTWithAttachments.pptm": "no_embedded_objects",
    "pptx_shp-access-ole-object.pptx": "no_embedded_objects",
    "poi_bug65551.pptx": "no_embedded_objects",
    "pptx_ext-rels.pptx": "no_external_relationships",
    "poi_with_japanese.pptx": "no_external_relationships",
    "poi_shapes.pptx": "no_external_relationships",
    "pptx_no-slides.pptx": "one_slide",
    "pptx_dml-line.pptx": "one_slide",
    "pptx_sld-blank.pptx": "editable_components",
}
"""Obviously broken decks and the check that must fail for each (others may fail too)."""


def _report(path: Path) -> ArtifactReport | PackageError:
    try:
        return validate(path, render=None)
    except PackageError as exc:
        return exc


@pytest.fixture(scope="module")
def outcomes() -> dict[str, ArtifactReport | PackageError]:
    """Stage 0 (no render) of every real deck, computed once for the module."""
    return {p.name: _report(p) for p in DECKS}


def test_every_expected_deck_is_present() -> None:
    names = {p.name for p in DECKS}
    missing = [d for d in (*UNREADABLE, *VALID, *BROKEN) if d not in names]
    assert not missing, f"{REAL_DECKS} lacks {missing}"
    assert len(DECKS) >= 50


def test_unreadable_decks_give_a_clear_error_or_fail_opens(outcomes) -> None:
    for name in UNREADABLE:
        out = outcomes[name]
        if isinstance(out, PackageError):
            assert str(out), name
        else:
            assert "opens" in out.failures and not out.valid, name


def test_valid_real_decks_pass_stage0(outcomes) -> None:
    for name in VALID:
        out = outcomes[name]
        assert isinstance(out, ArtifactReport), (name, out)
        assert out.valid, (name, out.failures)


def test_broken_real_decks_fail_their_check(outcomes) -> None:
    for name, check in BROKEN.items():
        out = outcomes[name]
        assert isinstance(out, ArtifactReport), (name, out)
        assert not out.valid and check in out.failures, (name, out.failures)


def test_every_readable_deck_gives_a_report_that_opened(outcomes) -> None:
    reports = 0
    for name, out in outcomes.items():
        if name in UNREADABLE:
            continue
        assert isinstance(out, ArtifactReport), (name, out)
        assert "opens" not in out.failures, name
        reports += 1
    assert reports == len(DECKS) - len(UNREADABLE)


def test_every_real_deck_gives_a_report_or_a_package_error_quickly() -> None:
    t0 = time.perf_counter()
    outcomes = {p.name: _report(p) for p in DECKS}
    assert time.perf_counter() - t0 < TOTAL_SECONDS
    reports = [out for out in outcomes.values() if isinstance(out, ArtifactReport)]
    assert len(reports) >= len(DECKS) - len(UNREADABLE)
    for out in reports:
        assert [c.name for c in out.checks] == list(CHECK_NAMES)
        assert out.valid == all(c.passed for c in out.checks)


def test_object_tree_and_fonts_raise_only_package_errors() -> None:
    trees = 0
    for path in DECKS:
        try:
            tree = read_object_tree(path)
            requested_fonts(path)
        except PackageError:
            assert path.name in UNREADABLE, path.name
            continue
        trees += 1
        for obj in tree.objects:
            assert obj.bbox.w >= 0 and obj.bbox.h >= 0
    assert trees >= len(DECKS) - len(UNREADABLE)


@pytest.mark.slow
@pytest.mark.parametrize("deck", ["pptx_shp-groupshape.pptx", "poi_highlight-test-case.pptx"])
def test_real_valid_decks_render(deck: str, tmp_path: Path, render_pool: RenderPool) -> None:
    path = REAL_DECKS / deck
    assert path.is_file(), f"{path} missing"
    report = validate(path, render=lambda p: render_pool.render(p, tmp_path / "r.png"))
    assert report.valid, [(c.name, c.detail) for c in report.checks if not c.passed]
