"""The HTML report's case pages show the Stage 0 detail `judge validate` knows, and the report
reads a rescored results file (--results)."""

from __future__ import annotations

import html
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app
from judge.artifact.gate import validate
from judge.rundir import case_dir, read_results, write_model
from scoring.report import case_slug, write_report
from tests.test_rescore import build_run

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "bench"
runner = CliRunner()


def test_artifact_case_page_shows_the_failed_check_detail(runkit, tmp_path) -> None:
    deck = FIXTURE / "candidates" / "agent-cheat" / "s7-flow00.pptx"  # external_hyperlink
    report = validate(deck, render=None)
    assert report.failures == ["no_external_relationships"]
    case = runkit.case(
        "agent-cheat", "s7-flow00", gate="artifact", artifact_failures=report.failures
    )
    run = runkit.write(tmp_path / "run", [case])
    write_model(case_dir(run, "agent-cheat", "s7-flow00").stage0, report)
    write_report(run, tmp_path / "rep", n_resamples=20)
    page = (tmp_path / "rep" / "cases" / case_slug(case.case_id) / "index.html").read_text()
    text = html.unescape(page)
    detail = next(c.detail for c in report.checks if c.name == "no_external_relationships")
    assert "rId2 hyperlink -> https://example.org/" in detail
    assert f"invalid: no_external_relationships: {detail}" in text
    assert "<h2>Stage 0 checks</h2>" in page and "FAIL" in page


def test_report_reads_a_rescored_results_file(tmp_path) -> None:
    run = build_run(tmp_path / "run")
    res = runner.invoke(app, ["rescore", str(run), "--policy", "equal-weights"])
    assert res.exit_code == 0, res.output
    (name,) = [p.name for p in run.glob("results.equal-weights.*.jsonl")]
    out = tmp_path / "rep"
    res = runner.invoke(
        app, ["report", str(run), "--out", str(out), "--resamples", "20", "--results", name]
    )
    assert res.exit_code == 0, res.output
    case = next(c for c in read_results(run, name) if c.score is not None)
    page = (out / "cases" / case_slug(case.case_id) / "index.html").read_text()
    assert "policy equal-weights" in page
