"""Issue 15: no pasted reference passes Stage 0, no crash zeroes or excuses a candidate, no
bound is left open. Each hostile deck comes from a small generator in tests/hostile_decks.py."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from judge.artifact.gate import validate
from judge.artifact.ooxml import load_slide, requested_fonts
from judge.artifact.renderscreen import SCREEN_DPI
from judge.errors import RenderError
from judge.render.pool import RenderPool
from tests import hostile_decks as hd
from tests.decks import Pic, diagram_image, icon_image, make_deck

runner = CliRunner()

EXPECTED = {
    "flipped": {"no_reference_copy", "no_rendered_copy"},
    "rotated": {"no_reference_copy", "no_rendered_copy"},
    "inverted": {"no_reference_copy", "no_rendered_copy"},
    "cropped_canvas": {"no_reference_copy", "no_rendered_copy"},
    "mirrored_tiles": {"no_reference_copy", "no_rendered_copy"},
    "layout": {"no_reference_copy", "no_rendered_copy"},
    "choice_branch": {"no_reference_copy", "no_rendered_copy"},
    "theme_background": {"no_reference_copy", "no_rendered_copy"},
    "deep_group": {"fully_screened"},
    "strict_namespace": {"no_reference_copy", "no_rendered_copy"},
    "emf": {"fully_screened"},
    "svg_data_uri": {"fully_screened"},
    "decoy_slide": {"no_reference_copy", "no_embedded_objects"},
    "invisible_rectangles": {"editable_components"},
}
"""The checks that may name why each copy is invalid (one of them must fail)."""
RENDER_SCREEN_ONLY = ("mirrored_tiles", "cropped_canvas")
"""Copies the package-level screen cannot see (each tile or the crop is stored mirrored)."""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("integrity")


@pytest.fixture(scope="module")
def ref_bytes() -> bytes:
    return diagram_image(seed=1)


@pytest.fixture(scope="module")
def reference(work: Path, ref_bytes: bytes) -> Path:
    path = work / "reference.png"
    path.write_bytes(ref_bytes)
    return path


def _pictures(pool: RenderPool):  # type: ignore[no-untyped-def]
    return lambda deck: pool.render_bytes(deck, dpi=SCREEN_DPI, name="picture-only deck")


def _check(report, name):  # type: ignore[no-untyped-def]
    return next(c for c in report.checks if c.name == name)


# ---- copies ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(hd.COPIES))
def test_every_copy_is_invalid_with_a_check_naming_why(
    name: str, work: Path, ref_bytes: bytes, reference: Path, render_pool: RenderPool
) -> None:
    deck = hd.COPIES[name](work / f"{name}.pptx", ref_bytes)
    report = validate(deck, reference=reference, render_pictures=_pictures(render_pool))
    failed = {c.name for c in report.checks if not c.passed and not c.skipped}
    assert not report.valid, [(c.name, c.detail) for c in report.checks]
    assert failed & EXPECTED[name], [(c.name, c.detail) for c in report.checks if not c.passed]
    assert _check(report, "opens").passed  # it was read and checked, not refused unread
    if name in RENDER_SCREEN_ONLY:  # stored mirrored, drawn flipped back: only the render sees it
        check = _check(report, "no_rendered_copy")
        assert not check.passed and "picture-only render" in check.detail, check.detail


@pytest.mark.slow
def test_svg_reading_a_file_from_disk_is_invalid_and_never_rendered(
    work: Path, reference: Path, render_pool: RenderPool
) -> None:
    deck = hd.svg_file_href_copy(work / "svg_href.pptx", reference)
    report = validate(deck, reference=reference, render_pictures=_pictures(render_pool))
    check = _check(report, "fully_screened")
    assert not check.passed and "external reference" in check.detail
    assert _check(report, "no_rendered_copy").skipped  # the picture-only deck is never built
    with pytest.raises(RenderError, match="refused"):  # and the renderer refuses it too
        render_pool.render(deck, work / "svg_href.png", dpi=50)


# ---- honest decks ------------------------------------------------------------------------------


def test_honest_deck_whose_slide_part_is_slide2_is_valid(work: Path, reference: Path) -> None:
    deck = hd.renamed_slide(work / "slide2.pptx", "slide2.xml")
    loaded = load_slide(deck)
    assert loaded.slide_part == "ppt/slides/slide2.xml"
    report = validate(deck, reference=reference)
    assert report.valid, [(c.name, c.detail) for c in report.checks if not c.passed]


@pytest.mark.slow
def test_honest_deck_with_approved_asset_in_place_passes_the_render_screen(
    work: Path, render_pool: RenderPool
) -> None:
    import numpy as np
    from PIL import Image

    from tests.decks import decode

    icon = icon_image(3, size=160)
    ref = Image.fromarray(decode(diagram_image(seed=2)))
    ref.paste(Image.fromarray(decode(icon)), (900, 560))
    ref_path = work / "asset-ref.png"
    ref.save(ref_path)
    assets = work / "assets"
    assets.mkdir(exist_ok=True)
    (assets / "icon.png").write_bytes(icon)
    # the icon where the reference has it (1200x800 reference on a 4:3 slide, fit to width)
    box = (900 / 1200, 560 / 800 * 0.75 + 0.125, 160 / 1200, 160 / 800 * 0.75)
    deck = make_deck(work / "asset.pptx", n_shapes=5, pictures=(Pic(icon, box),))
    report = validate(
        deck, reference=ref_path, assets_dir=assets, render_pictures=_pictures(render_pool)
    )
    assert report.valid, [(c.name, c.detail) for c in report.checks if not c.passed]
    check = _check(report, "no_rendered_copy")
    assert not check.skipped and "1 asset(s) masked" in check.detail
    # an honest picture that is not an asset is rendered, screened and not flagged
    photo = make_deck(work / "photo.pptx", n_shapes=5, pictures=(Pic(icon_image(7), box),))
    report = validate(photo, reference=ref_path, render_pictures=_pictures(render_pool))
    assert report.valid, [(c.name, c.detail) for c in report.checks if not c.passed]
    assert np is not None


def test_deck_without_pictures_skips_the_render_screen(work: Path, reference: Path) -> None:
    def never(deck: bytes) -> bytes:
        raise AssertionError("a deck with no picture-bearing part must not be rendered")

    report = validate(hd.honest(work / "plain.pptx"), reference=reference, render_pictures=never)
    assert report.valid
    assert "no picture-bearing part" in _check(report, "no_rendered_copy").detail


# ---- malformed packages: invalid, never a traceback --------------------------------------------


@pytest.mark.parametrize(
    ("gen", "check", "words"),
    [
        (hd.zip64_two_disks, "opens", "not a readable zip"),
        (hd.case_duplicate, "safe_to_read", "differs only in case"),
        (hd.nul_name, "safe_to_read", "NUL"),
        (hd.template_deck, "opens", "a template (.potx)"),
    ],
)
def test_malformed_package_is_invalid_with_a_plain_message(
    gen,
    check: str,
    words: str,
    work: Path,  # type: ignore[no-untyped-def]
) -> None:
    deck = gen(work / f"{gen.__name__}.pptx")
    report = validate(deck)
    assert not report.valid and report.error is None
    c = _check(report, check)
    assert not c.passed and words in c.detail, c.detail
    assert "_io.BytesIO" not in c.detail
    result = runner.invoke(app, ["validate", str(deck), "--no-render"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and words in result.output


# ---- bounds -------------------------------------------------------------------------------------


def test_too_many_pictures_fail_closed_fast(work: Path, reference: Path) -> None:
    deck = hd.many_pictures(work / "many.pptx", 1500)
    t0 = time.perf_counter()
    report = validate(deck, reference=reference)
    assert time.perf_counter() - t0 < 20  # (was 43.6 s; the bound is the point, not the time)
    c = _check(report, "fully_screened")
    assert not c.passed and "over the 200" in c.detail


def test_offender_lists_are_capped_in_json(work: Path) -> None:
    deck = hd.off_slide_shapes(work / "offslide.pptx", 600)
    result = runner.invoke(app, ["validate", str(deck), "--no-render", "--json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    bounds = next(c for c in report["checks"] if c["name"] == "object_bounds")
    assert len(bounds["parts"]) == 51 and bounds["parts"][-1] == "... and 550 more"
    assert len(result.output) < 100_000


def test_fonts_of_unreferenced_parts_are_not_requested(work: Path) -> None:
    deck = hd.many_fonts_unreferenced(work / "fonts.pptx", 100_000)
    t0 = time.perf_counter()
    fonts = requested_fonts(deck)
    assert time.perf_counter() - t0 < 10
    assert len(fonts) <= 64 and not any(f.startswith("Fam") for f in fonts)


_PEAK_SCRIPT = """
import sys, json
from pathlib import Path
from judge.artifact.gate import validate
report = validate(Path(sys.argv[1]), reference=Path(sys.argv[2]))
# VmHWM is this process's own high-water mark; ru_maxrss would also count the parent's RSS
# at the fork (Linux carries the pre-exec image's peak over into the new program).
hwm = [ln for ln in Path("/proc/self/status").read_text().splitlines() if ln.startswith("VmHWM:")]
peak = int(hwm[0].split()[1]) * 1024
print(json.dumps({"peak": peak, "failures": report.failures,
                  "detail": [c.detail for c in report.checks if c.name == "fully_screened"]}))
"""


@pytest.mark.slow
def test_big_pictures_stay_within_memory_and_fail_on_the_decode_budget(
    work: Path, reference: Path
) -> None:
    deck = hd.big_pictures(work / "big.pptx", 30)
    assert deck.stat().st_size < 8 * 1024 * 1024
    out = subprocess.run(
        [sys.executable, "-c", _PEAK_SCRIPT, str(deck), str(reference)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    got = json.loads(out.stdout)
    assert got["peak"] < 1024**3, got
    assert "fully_screened" in got["failures"] and "budget" in got["detail"][0]


@pytest.mark.slow
def test_pool_leaves_no_temporary_files_or_pipes(tmp_path: Path) -> None:
    deck = hd.honest(tmp_path / "d.pptx")
    pool = RenderPool(workers=1)
    pool.render(deck, tmp_path / "d.png", dpi=50)
    inst = pool._instances[0]
    sockets = set(inst.sockets)
    tmp = inst.tmp
    assert sockets and tmp.is_dir()
    pool.close()
    assert not tmp.exists()
    assert not [s for s in sockets if Path(s).exists()], sockets


# ---- failure semantics in a run ---------------------------------------------------------------


@pytest.mark.slow
def test_run_scores_a_hostile_file_zero_and_recomputes_corrupt_case_files(
    judge_bench: Path, render_pool: RenderPool, tmp_path: Path
) -> None:
    import shutil

    from judge.backends import BackendSettings
    from judge.engine.runner import RunSettings, run_bench
    from judge.rundir import case_dir, read_results
    from taxonomy.loader import load_taxonomy
    from tests.judge_helpers import passing_script

    bench = tmp_path / "bench"
    shutil.copytree(judge_bench, bench)
    shutil.rmtree(bench / "candidates" / "swapped")
    (bench / "candidates" / "hostile").mkdir()
    hd.zip64_two_disks(bench / "candidates" / "hostile" / "flow.pptx")
    script = tmp_path / "pass.jsonl"
    script.write_text(passing_script(load_taxonomy()))
    settings = RunSettings(
        judge="replay", rounds=1, backend=BackendSettings(replay_source=str(script))
    )
    run = tmp_path / "run"
    summary = run_bench(bench, run, settings, render_pool=render_pool)
    results = {r.case_id: r for r in read_results(run)}
    # the candidate's own broken file is its failure: invalid, score 0, never an error
    hostile = results["hostile/flow"]
    assert hostile.error is None and not hostile.valid and hostile.score == 0
    assert "opens" in hostile.artifact_failures and summary.errors == 0
    # corrupt stage0.json / pair.json are recomputed on the next run, not errored forever
    good = case_dir(run, "good", "flow")
    good.stage0.write_text("{not json")
    good.pair_json.write_text("")
    good.case_json.unlink()
    again = run_bench(bench, run, settings, render_pool=render_pool)
    assert again.errors == 0
    fixed = {r.case_id: r for r in read_results(run)}["good/flow"]
    assert fixed.error is None and fixed.gate == "pass"
    assert json.loads(good.stage0.read_text())["valid"] is True
    renders = [c for c in json.loads(good.stage0.read_text())["checks"] if c["name"] == "renders"]
    assert renders[0]["passed"] and not renders[0]["skipped"]


@pytest.mark.slow
def test_case_past_its_deadline_is_the_judges_error_and_is_retried(
    judge_bench: Path, render_pool: RenderPool, tmp_path: Path
) -> None:
    import shutil

    from judge.backends import BackendSettings
    from judge.engine.runner import RunSettings, run_bench
    from judge.rundir import read_results
    from taxonomy.loader import load_taxonomy
    from tests.judge_helpers import passing_script

    bench = tmp_path / "bench"
    shutil.copytree(judge_bench, bench)
    for cfg in ("swapped", "empty"):
        shutil.rmtree(bench / "candidates" / cfg)
    script = tmp_path / "pass.jsonl"
    script.write_text(passing_script(load_taxonomy()))
    backend = BackendSettings(replay_source=str(script))
    late = RunSettings(judge="replay", rounds=1, backend=backend, case_timeout_s=1e-6)
    run = tmp_path / "run"
    summary = run_bench(bench, run, late, render_pool=render_pool)
    (result,) = read_results(run)
    assert summary.errors == 1 and result.error and "deadline" in result.error
    again = run_bench(bench, run, RunSettings(judge="replay", rounds=1, backend=backend))
    (result,) = read_results(run)
    assert again.errors == 0 and result.gate == "pass"
