"""What `judge run` says at the end: rounds judged vs copied, cost, notes, errors by cause,
exit code 3, the budget as given, and malformed replay scripts refused before judging."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from cli.base import EXIT_ERRORED
from judge.backends import BackendSettings, BuiltinBackend, make_backend
from judge.engine.runner import run_bench
from judge.engine.summary import cost_free_reason, setting_notes, usd
from judge.rundir import case_dir, read_results
from judge.schema import RoundResult
from taxonomy.loader import load_taxonomy
from tests.fake_openai import serve
from tests.judge_helpers import passing_script
from tests.test_runner import first_run, happy, openai_settings, seed  # noqa: F401

TAX = load_taxonomy()
runner = CliRunner()


def _run_cli(bench: Path, run: Path, script: Path, *extra: str):
    args = ["run", str(bench), "--out", str(run), "--judge", "replay"]
    return runner.invoke(app, [*args, "--replay-from", str(script), *extra])


@pytest.mark.slow
def test_summary_counts_judged_and_copied_rounds_like_the_results(first_run) -> None:  # noqa: F811
    run, summary = first_run
    # a replay of one script file is deterministic: round 0 judged, rounds 1-2 copied
    assert summary.rounds_judged == 2 and summary.rounds_copied == 4
    assert "same answer every round" in (summary.copy_reason or "")
    results = read_results(run)
    assert sum(r.usage.model_calls for r in results) == summary.usage.model_calls > 0
    rounds = [
        RoundResult.model_validate_json(case_dir(run, "good", "flow").round_json(k).read_text())
        for k in range(3)
    ]
    assert [r.copied_from for r in rounds] == [None, 0, 0]
    assert rounds[1].usage.model_calls == 0 and rounds[0].usage.model_calls > 0


@pytest.mark.slow
def test_cli_says_rounds_were_copied_and_cost_is_the_same_on_resume(
    first_run,  # noqa: F811
    judge_bench,
    tmp_path,
) -> None:
    run = seed(first_run[0], tmp_path / "run")
    script = first_run[0].parent / "pass.jsonl"
    first = _run_cli(judge_bench, run, script, "--early-stop")
    assert first.exit_code == 0, first.output
    assert "rounds: 2 judged, 4 copied from round 0 (the replay judge gives" in first.output
    assert "note: --early-stop does nothing with the replay judge" in first.output
    cost = "cost: none (the replay judge calls no paid model)"
    assert cost in first.output
    again = _run_cli(judge_bench, run, script)
    assert again.exit_code == 0 and "rounds: 0 judged;" in again.output and cost in again.output


def test_builtin_judge_notes_early_stop_and_has_no_model_cost() -> None:
    builtin = BuiltinBackend(TAX)
    assert setting_notes(builtin, early_stop=True) == [
        "--early-stop does nothing with the builtin judge: it judges round 0 once and copies "
        "it to the other rounds"
    ]
    assert setting_notes(builtin, early_stop=False) == []
    assert cost_free_reason(builtin) == "the builtin judge calls no paid model"
    openai = make_backend("openai", BackendSettings(model="m", base_url="http://127.0.0.1:9"), TAX)
    assert cost_free_reason(openai) is None and setting_notes(openai, early_stop=True) == []


@pytest.mark.slow
def test_errored_cases_are_listed_by_cause_and_exit_code_is_3(
    first_run,  # noqa: F811
    judge_bench,
    tmp_path,
) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(judge_bench, bench)
    for cfg in ("good", "swapped"):  # two candidates for a task the benchmark lacks
        folder = bench / "candidates" / cfg
        shutil.copy(folder / "flow.pptx", folder / "gone.pptx")
    run = seed(first_run[0], tmp_path / "run")
    result = _run_cli(bench, run, first_run[0].parent / "pass.jsonl")
    assert result.exit_code == EXIT_ERRORED == 3, result.output
    assert "errors: 2" in result.output
    assert "2 case(s) errored (exit code 3), by cause:" in result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith("  2 x "))
    assert "no task 'gone'" in line and "[first: good/gone and 1 more]" in line
    assert {r.case_id for r in read_results(run) if r.error} == {"good/gone", "swapped/gone"}


@pytest.mark.slow
def test_max_cost_is_printed_as_given(first_run, judge_bench, tmp_path) -> None:  # noqa: F811
    run = seed(first_run[0], tmp_path / "run")
    with serve(happy) as fake:
        stopped = run_bench(
            judge_bench, run, openai_settings(fake.base_url, max_cost_usd=0.005, concurrency=1)
        )
    assert stopped.stopped and stopped.stopped.startswith("cost budget of $0.005 spent")
    assert usd(5) == "$5" and usd(0.0001) == "$0.0001" and usd(1.25) == "$1.25"


def test_malformed_replay_script_is_refused_before_judging_with_file_and_line(tmp_path) -> None:
    from tests.test_runner import tiny_bench

    bench = tiny_bench(tmp_path / "b")
    lines = passing_script(TAX).splitlines()
    # the docstring example pasted with a wrapped line: line 2 is half an event
    wrapped = [lines[0], lines[1][:40], lines[1][40:], *lines[2:]]
    script = tmp_path / "script_doc.jsonl"
    script.write_text("\n".join(wrapped) + "\n", encoding="utf-8")
    run = tmp_path / "run"
    result = _run_cli(bench, run, script)
    assert result.exit_code == 2, result.output
    assert f"{script}:2: not a trajectory event" in result.output
    assert "was a line wrapped?" in result.output
    assert not (run / "cases").exists()  # nothing was judged


def test_script_with_an_unknown_event_field_names_the_line_and_field(tmp_path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(
        '# comment\n{"stage": "semantic", "kind": "submit", "argumnts": {}}\n', encoding="utf-8"
    )
    with pytest.raises(Exception, match=r"s\.jsonl:2: not a trajectory event: argumnts"):
        make_backend("replay", BackendSettings(replay_source=str(script)), TAX)
