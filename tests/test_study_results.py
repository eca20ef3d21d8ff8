"""Study commands on a rescored results file: RUN --results results.<policy>.<hash8>.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from judge.rundir import read_results
from tests.test_rescore import build_run

runner = CliRunner()


@pytest.fixture(scope="module")
def rescored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A frozen run (3 configurations x 6 tasks) and its equal-weights rescoring."""
    run = build_run(tmp_path_factory.mktemp("study") / "run")
    out = runner.invoke(app, ["rescore", str(run), "--policy", "equal-weights"])
    assert out.exit_code == 0, out.output
    (name,) = [p.name for p in run.glob("results.equal-weights.*.jsonl")]
    return run, name


def _means(output: str) -> dict[str, float]:
    return {r["config_id"]: r["mean_score"] for r in json.loads(output)["rows"]}


def test_leaderboard_reads_the_rescored_file_with_intervals(rescored) -> None:
    run, name = rescored
    # the study run holds errored cases: ranked with --allow-incomplete (issue 15)
    incomplete = ["--allow-incomplete"]
    before = runner.invoke(app, ["leaderboard", str(run), "--format", "json", *incomplete])
    after = runner.invoke(
        app,
        [
            "leaderboard",
            str(run),
            "--results",
            name,
            "--format",
            "json",
            "--resamples",
            "50",
            *incomplete,
        ],
    )
    assert before.exit_code == 0 and after.exit_code == 0, after.output
    new = {c.case_id: c for c in read_results(run, name)}
    assert {c.policy for c in new.values()} == {"equal-weights"}
    assert _means(before.output) != _means(after.output)
    rows = json.loads(after.output)["rows"]
    assert all(r["ci_low"] <= r["mean_score"] <= r["ci_high"] for r in rows)
    # a path works as well as a bare name
    by_path = runner.invoke(
        app,
        ["leaderboard", str(run), "--results", str(run / name), "--format", "json", *incomplete],
    )
    assert _means(by_path.output) == _means(after.output)


def test_findings_compare_and_agree_take_the_results_option(rescored, tmp_path) -> None:
    run, name = rescored
    findings = runner.invoke(app, ["findings", str(run), "--results", name, "--format", "json"])
    assert findings.exit_code == 0, findings.output
    compare = runner.invoke(app, ["compare", str(run), "alpha", "beta", "--results", name])
    assert compare.exit_code == 0, compare.output
    labels = tmp_path / "labels.csv"
    labels.write_text("case_id,annotator,gate,subtypes\nalpha/t1,ann1,pass,\n", encoding="utf-8")
    agree = runner.invoke(app, ["agree", str(run), "--labels", str(labels), "--results", name])
    assert agree.exit_code == 0, agree.output


def test_a_missing_results_file_lists_the_ones_the_run_has(rescored) -> None:
    run, name = rescored
    result = runner.invoke(app, ["leaderboard", str(run), "--results", "results.nope.jsonl"])
    assert result.exit_code == 2
    assert "no such results file" in result.output
    assert name in result.output and "results.jsonl" in result.output


def test_a_results_file_given_as_the_run_says_how_to_read_it(rescored) -> None:
    run, name = rescored
    result = runner.invoke(app, ["leaderboard", str(run / name)])
    assert result.exit_code == 2 and "--results results.<policy>.<hash8>.jsonl" in result.output
