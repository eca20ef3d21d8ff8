"""What a user sees on wrong input: one error line naming the file, exit 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app
from judge.schema import SCHEMA_VERSION

runner = CliRunner()


def one_error_line(result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    errors = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, result.output
    # nothing after the error line: the message is one line
    assert result.output.rstrip().splitlines()[-1] == errors[0], result.output
    for needle in needles:
        assert needle in errors[0], result.output


def two_configs(runkit) -> list:
    return [runkit.case(cfg, t) for cfg in ("a", "b") for t in ("t1", "t2")]


def test_corrupt_results_line_is_one_line_naming_file_and_line(runkit, tmp_path) -> None:
    run = runkit.write(tmp_path / "run", two_configs(runkit))
    results = run / "results.jsonl"
    lines = results.read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]  # a line cut short (disk full, killed writer)
    results.write_text("\n".join(lines) + "\n")
    for cmd in (["leaderboard"], ["findings"], ["compare", "x", "a", "b"]):
        args = [cmd[0], str(run), *cmd[2:]]
        one_error_line(runner.invoke(app, args), "results.jsonl:3: not a results line")


def test_results_of_another_schema_version_are_refused(runkit, tmp_path) -> None:
    run = runkit.write(tmp_path / "run", two_configs(runkit))
    results = run / "results.jsonl"
    lines = results.read_text().splitlines()
    first = json.loads(lines[0])
    first["version"] = SCHEMA_VERSION + 1
    lines[0] = json.dumps(first)
    results.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["leaderboard", str(run)])
    one_error_line(result, "results.jsonl:1", f"schema version {SCHEMA_VERSION + 1}")


def test_rescore_refuses_a_run_manifest_of_another_schema_version(runkit, tmp_path) -> None:
    run = runkit.write(tmp_path / "run", two_configs(runkit))
    manifest = json.loads((run / "run.json").read_text())
    manifest["version"] = SCHEMA_VERSION + 1
    (run / "run.json").write_text(json.dumps(manifest))
    one_error_line(runner.invoke(app, ["rescore", str(run)]), "run.json", "schema version")


def test_run_refuses_to_resume_a_run_of_another_schema_version(tmp_path) -> None:
    from judge.engine.runner import _check_resume
    from judge.errors import BenchmarkError
    from judge.schema import RunManifest

    new = RunManifest(
        package_version="0.1.0",
        created="2026-11-29T00:00:00Z",
        bench="b",
        judge="builtin",
        rounds=3,
        taxonomy_path="t.yaml",
        taxonomy_version="1",
        taxonomy_hash="0" * 64,
        render_dpi=150,
    )
    old = new.model_copy(update={"version": SCHEMA_VERSION + 1})
    (tmp_path / "run.json").write_text(old.model_dump_json())
    try:
        _check_resume(tmp_path / "run.json", new)
    except BenchmarkError as exc:
        assert "schema version" in str(exc)
    else:
        raise AssertionError("resumed a run written by another schema version")


def test_empty_benchmark_is_refused(tmp_path) -> None:
    bench = tmp_path / "bench"
    (bench / "tasks").mkdir(parents=True)
    (bench / "candidates").mkdir()
    result = runner.invoke(app, ["run", str(bench), "--out", str(tmp_path / "run")])
    one_error_line(result, str(bench), "no candidates")
    assert not (tmp_path / "run").exists()


def test_labels_path_that_is_a_folder_is_one_line(runkit, tmp_path) -> None:
    run = runkit.write(tmp_path / "run", two_configs(runkit))
    result = runner.invoke(app, ["agree", str(run), "--labels", str(tmp_path)])
    one_error_line(result, str(tmp_path), "cannot read the labels file")


def guarded_stderr(fn, capsys) -> str:
    import typer

    from cli.base import guarded

    try:
        guarded(fn)
    except typer.Exit as exc:
        assert exc.exit_code == 2
    else:
        raise AssertionError("the call did not fail")
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_os_errors_of_any_command_are_one_line(tmp_path: Path, capsys) -> None:
    err = guarded_stderr(tmp_path.read_text, capsys)
    assert err.startswith(f"error: {tmp_path}: ")


def test_invalid_record_is_one_line(tmp_path, capsys) -> None:
    from judge.rundir import load_task

    (tmp_path / "tasks" / "t").mkdir(parents=True)
    (tmp_path / "tasks" / "t" / "task.json").write_text('{"id": "t", "colour": 3, "x": 1}')
    err = guarded_stderr(lambda: load_task(tmp_path, "t"), capsys)
    assert "colour: Extra inputs are not permitted (and 1 more)" in err


def test_taxonomy_validate_of_a_missing_file_could_not_check(tmp_path) -> None:
    result = runner.invoke(app, ["taxonomy", "validate", str(tmp_path / "nope.yaml")])
    one_error_line(result, "nope.yaml: no such file")
    one_error_line(runner.invoke(app, ["taxonomy", "validate", str(tmp_path)]), "is a folder")


def test_run_refuses_flag_values_that_could_only_error(tmp_path) -> None:
    bench = tmp_path / "bench"
    (bench / "tasks").mkdir(parents=True)
    (bench / "candidates").mkdir()
    for flags, flag in [
        (["--workers", "0"], "--workers"),
        (["--render-timeout", "0"], "--render-timeout"),
        (["--dpi", "0"], "--dpi"),
        (["--max-cost", "-1"], "--max-cost"),
        (["--max-tool-calls", "0"], "--max-tool-calls"),
        (["--retries", "-1"], "--retries"),
        (["--timeout", "0"], "--timeout"),
        (["--max-tokens", "0"], "--max-tokens"),
        (["--temperature", "-1"], "--temperature"),
    ]:
        out = tmp_path / "run"
        result = runner.invoke(app, ["run", str(bench), "--out", str(out), *flags])
        one_error_line(result, f"error: {flag} must")
        assert not out.exists()  # nothing written for a refused command


def test_labels_naming_a_subtype_unknown_to_the_runs_taxonomy_fail(runkit, tmp_path) -> None:
    import shutil

    from taxonomy.loader import DEFAULT_TAXONOMY

    run = runkit.write(tmp_path / "run", two_configs(runkit))
    shutil.copy(DEFAULT_TAXONOMY, run / "taxonomy.yaml")
    labels = tmp_path / "labels.csv"
    labels.write_text("case_id,annotator,gate,subtypes\na/t1,x,pass,line_width;line_widht\n")
    for cmd in (["agree", str(run)], ["report", str(run), "--out", str(tmp_path / "rep")]):
        result = runner.invoke(app, [*cmd, "--labels", str(labels)])
        one_error_line(result, "labels.csv:2: unknown subtype(s) 'line_widht'")


def test_report_page_of_a_case_stage0_could_not_check_says_not_checked(runkit, tmp_path) -> None:
    from scoring.report import case_slug, write_report

    broken = runkit.case(
        "a", "t3", gate=None, valid=False, error="stage 0 could not check x.pptx: is a folder"
    )
    run = runkit.write(tmp_path / "run", [*two_configs(runkit), broken])
    write_report(run, tmp_path / "rep", n_resamples=50)
    page = (tmp_path / "rep" / "cases" / case_slug(broken.case_id) / "index.html").read_text()
    assert "<th>artifact</th><td>not checked</td>" in page
    assert "is a folder" in page


def test_a_run_argument_that_is_missing_or_a_file_is_named(tmp_path) -> None:
    for cmd in (["leaderboard"], ["findings"]):
        one_error_line(
            runner.invoke(app, [*cmd, str(tmp_path / "nope")]), "nope: no such run folder"
        )
        (tmp_path / "results.jsonl").write_text("")
        result = runner.invoke(app, [*cmd, str(tmp_path / "results.jsonl")])
        one_error_line(result, "results.jsonl: a file, not a run folder")
