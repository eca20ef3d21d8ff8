"""Both protocols on the fixture benchmark (one task): run folders, report side by side,
paired comparison and blinded pair export."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from judge.engine.runner import RunSettings, run_bench
from judge.rundir import read_results
from judge.schema import RunManifest

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "bench"


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory, render_pool) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("protocols")
    bench = root / "bench"
    shutil.copytree(FIXTURE / "tasks" / "s7-flow01", bench / "tasks" / "s7-flow01")
    for cfg in ("agent-careful", "agent-cheat"):
        (bench / "candidates" / cfg).mkdir(parents=True)
        shutil.copy(FIXTURE / "candidates" / cfg / "s7-flow01.pptx", bench / "candidates" / cfg)
    ppt, refig = root / "ppt", root / "refig"
    run_bench(bench, ppt, RunSettings(rounds=1), render_pool=render_pool)
    run_bench(bench, refig, RunSettings(rounds=1, protocol="refigbench"), render_pool=render_pool)
    return ppt, refig


@pytest.mark.slow
def test_refigbench_run_records_its_protocol_and_scores_the_pasted_deck(two_runs) -> None:
    ppt, refig = two_runs
    manifest = RunManifest.model_validate_json((refig / "run.json").read_text())
    assert manifest.protocol == "refigbench" and manifest.rubric_hash
    assert (refig / "rubric.yaml").is_file()
    by_id = {c.config_id: c for c in read_results(refig)}
    assert all(c.protocol == "refigbench" for c in by_id.values())
    cheat = by_id["agent-cheat"]  # pastes the reference: PPTBench invalid, ReFigBench judged
    assert cheat.gate == "pass" and cheat.refigbench is not None
    assert by_id["agent-careful"].refigbench is not None
    assert (
        cheat.refigbench.axes["editability"] < by_id["agent-careful"].refigbench.axes["editability"]
    )
    ppt_cases = {c.config_id: c for c in read_results(ppt)}
    assert ppt_cases["agent-cheat"].gate == "artifact"
    careful = ppt_cases["agent-careful"]
    assert careful.protocol == "pptbench" and careful.fidelity is not None
    assert careful.fidelity.terms == ["psnr", "ssim", "ciede2000"]
    assert careful.audit is not None and careful.complexity is not None


@pytest.mark.slow
def test_report_shows_both_leaderboards_and_compare_paired_prints_intervals(
    two_runs, tmp_path: Path
) -> None:
    ppt, refig = two_runs
    runner = CliRunner()
    out = runner.invoke(
        app,
        [
            "report",
            str(ppt),
            "--out",
            str(tmp_path / "rep"),
            "--refigbench",
            str(refig),
            "--resamples",
            "200",
        ],
    )
    assert out.exit_code == 0, out.output
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "Protocols side by side" in html and "ReFigBench S" in html and "PSNR term" in html
    res = runner.invoke(
        app,
        [
            "compare",
            str(ppt),
            "agent-careful",
            "agent-cheat",
            "--paired",
            "--refigbench",
            str(refig),
            "--resamples",
            "200",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "95% interval" in res.output and "editability" in res.output
    tiers = runner.invoke(app, ["leaderboard", str(ppt), "--by", "tier", "--resamples", "100"])
    assert tiers.exit_code == 0 and "== tier" in tiers.output


@pytest.mark.slow
def test_prefs_export_is_blinded_and_keeps_the_key_apart(two_runs, tmp_path: Path) -> None:
    from scoring.prefs import export_pairs

    _, refig = two_runs
    summary = export_pairs(refig, tmp_path / "pairs", seed=1)
    rows = list(csv.DictReader((tmp_path / "pairs" / "pairs.csv").open()))
    assert summary.pairs == len(rows) == 1  # one task, two configurations
    assert set(rows[0]) == {"pair_id", "task_id", "image"}
    text = (tmp_path / "pairs" / "pairs.csv").read_text()
    assert "agent-" not in text
    assert (tmp_path / "pairs" / rows[0]["image"]).is_file()
    assert summary.key == tmp_path / "pairs-key.csv" and "agent-careful" in summary.key.read_text()


@pytest.mark.slow
def test_rescoring_a_refigbench_run_reproduces_it_under_its_rubric(two_runs) -> None:
    from judge.errors import BenchmarkError
    from scoring.rescore import rescore_run

    _, refig = two_runs
    report = rescore_run(refig, workers=1)
    assert report.identity and not report.mismatches and not report.errors
    assert "ReFigBench rubric" in report.taxonomy_source
    with pytest.raises(BenchmarkError, match="scored by its rubric"):
        rescore_run(refig, policies=["vote-1"], workers=1)


@pytest.mark.slow
def test_model_judge_scores_the_rubric_in_one_structured_pass_per_round(
    judge_bench: Path, tmp_path: Path, render_pool
) -> None:
    import itertools
    import threading

    from judge.backends import BackendSettings
    from taxonomy.rubric import load_rubric
    from tests.fake_openai import Reply, serve, submit

    rubric = load_rubric()
    counter = itertools.count()
    lock = threading.Lock()

    def respond(request: dict) -> Reply:
        with lock:
            n = next(counter)
        axes = [
            {"axis": a.name, "points": a.max_points, "rationale": "matches"} for a in rubric.axes
        ]
        axes[1]["points"] = (30, 24, 18)[n % 3]  # structure: mean 24 over a case's rounds
        return submit({"axes": axes})

    with serve(respond) as fake:
        backend = BackendSettings(model="fake", base_url=fake.base_url, api_key="k")
        settings = RunSettings(
            judge="openai", backend=backend, protocol="refigbench", concurrency=1, cache=False
        )
        run_bench(judge_bench, tmp_path / "run", settings, render_pool=render_pool)
    results = {c.config_id: c for c in read_results(tmp_path / "run")}
    assert len(fake.requests) == 3 * len(results)  # one request per round, three rounds
    first = fake.requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["submit_verdict"]
    text = first["messages"][1]["content"][0]["text"]
    assert "ReFigBench rubric" in text and "picture_area_ratio" in text
    good = results["good"]
    assert good.refigbench is not None and good.refigbench.rounds_scored == 3
    assert good.refigbench.axes["structure"] == 24.0 and good.score == 94.0


@pytest.mark.slow
def test_replaying_a_refigbench_case_reproduces_its_rubric_rounds(two_runs) -> None:
    from judge.engine.verify import replay_case

    _, refig = two_runs
    report = replay_case(refig / "cases" / "agent-cheat" / "s7-flow01")
    assert report.reproduced, (report.tool_diffs, report.verdict_diffs)
    assert report.replayed is not None and report.recorded is not None
    assert report.replayed.protocol == "refigbench"
    assert report.replayed.score == report.recorded.score


@pytest.mark.slow
def test_prefs_cli_exports_pairs_and_fits_labelled_answers_with_the_key(
    two_runs, tmp_path: Path
) -> None:
    ppt, refig = two_runs
    runner = CliRunner()
    out = runner.invoke(app, ["prefs", "export", str(refig), "--out", str(tmp_path / "p")])
    assert out.exit_code == 0 and "key:" in out.output, out.output
    rows = list(csv.DictReader((tmp_path / "p" / "pairs.csv").open()))
    labels = tmp_path / "labels.csv"
    labels.write_text("pair_id,winner\n" + "".join(f"{r['pair_id']},a\n" for r in rows))
    fit = runner.invoke(
        app,
        [
            "prefs",
            "fit",
            str(labels),
            "--key",
            str(tmp_path / "p-key.csv"),
            "--run",
            str(ppt),
            "--resamples",
            "50",
        ],
    )
    assert fit.exit_code == 0, fit.output
    assert "Bradley-Terry on 1 comparisons over 1 tasks" in fit.output
    assert "agent-careful" in fit.output and "agent-cheat" in fit.output
