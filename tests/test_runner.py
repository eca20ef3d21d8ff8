"""Batch runs (judge.engine.runner, `judge run`, `judge replay`): layout, resume, kill, replay."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import app
from judge.backends import BackendSettings, Prices
from judge.engine.runner import RunSettings, run_bench
from judge.engine.verify import replay_case
from judge.errors import BenchmarkError
from judge.rundir import RESULTS, RUN_MANIFEST, read_results
from judge.schema import CaseResult, RunManifest
from taxonomy.loader import load_taxonomy
from tests.fake_openai import Reply, call, serve, stage_of, submit, turn_of
from tests.judge_helpers import detail_args, passing_script

TAX = load_taxonomy()
JUDGE = [str(Path(sys.executable).parent / "judge")]
CASES = {"empty/flow", "good/flow", "swapped/flow"}


def happy(request: dict[str, Any]) -> Reply:
    stage, turn = stage_of(request), turn_of(request)
    if stage == "semantic" and turn == 0:
        crop = {"image": "candidate", "x": 100, "y": 300, "w": 500, "h": 300}
        return Reply(tool_calls=[call("crop", crop), call("object_tree", {"types": ["connector"]})])
    if stage == "detail":
        return submit(detail_args(TAX))
    return submit({"passed": True})


def openai_settings(url: str, **kw: Any) -> RunSettings:
    backend = BackendSettings(
        model="fake", base_url=url, api_key="k", backoff_cap_s=0.05, prices=Prices(1.0, 4.0)
    )
    return RunSettings(judge="openai", backend=backend, **kw)


@pytest.fixture(scope="module")
def first_run(judge_bench: Path, render_pool, tmp_path_factory) -> tuple[Path, Any]:
    """The tiny benchmark judged once with a replay script (real Stage 0 and LibreOffice)."""
    root = tmp_path_factory.mktemp("runner")
    script = root / "pass.jsonl"
    script.write_text(passing_script(TAX))
    settings = RunSettings(judge="replay", backend=BackendSettings(replay_source=str(script)))
    return root / "run", run_bench(judge_bench, root / "run", settings, render_pool=render_pool)


def seed(src_run: Path, dst_run: Path) -> Path:
    """A new run folder holding the Stage 0 reports and renders of ``src_run`` (no rounds), so
    tests judge again without starting LibreOffice."""
    for stage0 in (src_run / "cases").glob("*/*/stage0.json"):
        dst = dst_run / stage0.parent.relative_to(src_run)
        dst.mkdir(parents=True)
        for name in ("stage0.json", "render.png", "render.json"):
            if (stage0.parent / name).is_file():
                shutil.copy(stage0.parent / name, dst / name)
    return dst_run


def all_json_parses(run: Path) -> None:
    for path in run.rglob("*.json"):
        json.loads(path.read_text())
    for path in run.rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            json.loads(line)


@pytest.mark.slow
def test_run_writes_manifest_and_one_result_line_per_case(first_run) -> None:
    run, summary = first_run
    manifest = RunManifest.model_validate_json((run / RUN_MANIFEST).read_text())
    assert manifest.judge == "replay" and manifest.rounds == 3
    assert manifest.taxonomy_hash and manifest.render_provenance is not None
    lines = [json.loads(x) for x in (run / RESULTS).read_text().splitlines()]
    assert {x["case_id"] for x in lines} == CASES and len(lines) == 3
    for key in (
        "task_id",
        "config_id",
        "valid",
        "artifact_failures",
        "gate",
        "gate_votes",
        "score",
        "layout",
        "text",
        "graphics",
        "findings",
        "error",
    ):
        assert all(key in x for x in lines)
    by_id = {x["case_id"]: x for x in lines}
    assert by_id["empty/flow"]["gate"] == "artifact" and by_id["empty/flow"]["score"] == 0
    assert by_id["good/flow"]["gate"] == "pass" and by_id["good/flow"]["score"] > 0
    assert summary.judged == 3 and summary.gates == {"artifact": 1, "pass": 2}


@pytest.mark.slow
def test_rerun_reuses_finished_cases(first_run, judge_bench) -> None:
    run, _ = first_run
    before = (run / RESULTS).read_text()
    settings = RunSettings(
        judge="replay", backend=BackendSettings(replay_source=str(run.parent / "pass.jsonl"))
    )
    again = run_bench(judge_bench, run, settings)
    assert again.judged == 0 and again.reused == 3 and again.rounds_judged == 0
    assert (run / RESULTS).read_text() == before


@pytest.mark.slow
def test_resume_with_other_settings_is_refused(first_run, judge_bench) -> None:
    run, _ = first_run
    settings = RunSettings(
        judge="replay",
        rounds=2,
        backend=BackendSettings(replay_source=str(run.parent / "pass.jsonl")),
    )
    with pytest.raises(BenchmarkError, match="rounds=3"):
        run_bench(judge_bench, run, settings)


@pytest.mark.slow
def test_one_failing_case_is_recorded_and_batch_goes_on(first_run, judge_bench, tmp_path) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(judge_bench, bench)
    (bench / "tasks" / "broken").mkdir()
    (bench / "tasks" / "broken" / "reference.png").write_bytes(b"not a png")
    shutil.copy(
        bench / "candidates" / "good" / "flow.pptx", bench / "candidates" / "good" / "broken.pptx"
    )
    run = seed(first_run[0], tmp_path / "run")
    settings = RunSettings(
        judge="replay",
        backend=BackendSettings(replay_source=str(first_run[0].parent / "pass.jsonl")),
    )
    summary = run_bench(bench, run, settings)
    results = {r.case_id: r for r in read_results(run)}
    assert len(results) == 4 and summary.errors == 1
    assert results["good/broken"].error and results["good/broken"].score is None
    assert results["good/flow"].gate == "pass"


@pytest.mark.slow
def test_max_cost_stops_new_work_and_rerun_finishes(first_run, judge_bench, tmp_path) -> None:
    run = seed(first_run[0], tmp_path / "run")
    with serve(happy) as fake:
        stopped = run_bench(
            judge_bench, run, openai_settings(fake.base_url, max_cost_usd=1e-9, concurrency=1)
        )
        assert stopped.stopped and "cost budget" in stopped.stopped and stopped.unfinished >= 1
        n_first = len(fake.requests)
        partial = read_results(run)
        assert len(partial) < 3
        done = run_bench(judge_bench, run, openai_settings(fake.base_url, concurrency=1))
    results = read_results(run)
    assert {r.case_id for r in results} == CASES and done.stopped is None
    assert len(fake.requests) - n_first < 2 * 3 * 4  # rounds judged before the stop were kept


@pytest.mark.slow
def test_killed_run_resumes_with_every_case_once(first_run, judge_bench, tmp_path) -> None:
    run = seed(first_run[0], tmp_path / "run")

    def slow(request: dict[str, Any]) -> Reply:
        reply = happy(request)
        reply.delay_s = 0.1
        return reply

    with serve(slow) as fake:
        args = [
            *JUDGE,
            "run",
            str(judge_bench),
            "--out",
            str(run),
            "--judge",
            "openai",
            "--model",
            "fake",
            "--base-url",
            fake.base_url,
            "--api-key",
            "k",
            "--rounds",
            "3",
            "--concurrency",
            "1",
        ]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not list(run.glob("cases/*/*/rounds/round-*.json")):
            assert proc.poll() is None and time.monotonic() < deadline, "run ended too early"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed_requests = len(fake.requests)
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "results:" in done.stdout
    lines = (run / RESULTS).read_text().splitlines()
    ids = [json.loads(x)["case_id"] for x in lines]
    assert sorted(ids) == sorted(CASES)
    all_json_parses(run)
    assert len(fake.requests) - killed_requests < 2 * 3 * 4  # finished rounds were not redone
    for r in read_results(run):
        assert r.error is None


@pytest.mark.slow
def test_replay_of_recorded_round_reproduces_verdict_and_score(
    first_run, judge_bench, tmp_path
) -> None:
    run = seed(first_run[0], tmp_path / "run")
    with serve(happy) as fake:
        run_bench(judge_bench, run, openai_settings(fake.base_url))
    case = run / "cases" / "good" / "flow"
    recorded = CaseResult.model_validate_json((case / "case.json").read_text())
    report = replay_case(case)
    assert report.reproduced and not report.tool_diffs and not report.verdict_diffs
    assert report.replayed.score == recorded.score and report.replayed.findings == recorded.findings
    one = CliRunner().invoke(app, ["replay", str(case), "--round", "1"])
    assert one.exit_code == 0 and "reproduced" in one.output


@pytest.mark.slow
def test_replay_reports_tool_results_that_changed(first_run, judge_bench, tmp_path) -> None:
    run = seed(first_run[0], tmp_path / "run")
    with serve(happy) as fake:
        run_bench(judge_bench, run, openai_settings(fake.base_url, rounds=1))
    case = run / "cases" / "good" / "flow"
    traj = case / "rounds" / "round-0.trajectory.jsonl"
    events = [json.loads(x) for x in traj.read_text().splitlines()]
    for e in events:
        if e["kind"] == "tool_result" and e["tool_name"] == "object_tree":
            e["result"]["matched"] = 99
    traj.write_text("".join(json.dumps(e) + "\n" for e in events))
    report = replay_case(case, 0)
    assert not report.reproduced
    assert [(d.stage, d.tool_name) for d in report.tool_diffs] == [("semantic", "object_tree")]
    out = CliRunner().invoke(app, ["replay", str(case)])
    assert out.exit_code == 1 and "DIFF round 0 semantic object_tree" in out.output
    (change,) = report.tool_diffs[0].changes
    assert change.startswith("result.matched: 99 -> ")  # the JSON path, not 200 equal chars
    assert f"    {change}\n" in out.output


def tiny_bench(root: Path) -> Path:
    """A benchmark layout with one (unrendered) case, for argument checks."""
    from tests.judge_helpers import flow_deck, flow_image

    (root / "tasks" / "t").mkdir(parents=True)
    (root / "candidates" / "c").mkdir(parents=True)
    flow_image(root / "tasks" / "t" / "reference.png")
    flow_deck(root / "candidates" / "c" / "t.pptx")
    return root


def test_max_cost_without_prices_is_refused(tmp_path) -> None:
    settings = RunSettings(
        judge="openai",
        backend=BackendSettings(model="m", base_url="http://127.0.0.1:9/v1"),
        max_cost_usd=1.0,
    )
    with pytest.raises(BenchmarkError, match="--max-cost needs prices"):
        run_bench(tiny_bench(tmp_path / "b"), tmp_path / "run", settings)


def test_cli_openai_without_model_fails_with_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    bench = tiny_bench(tmp_path / "b")
    out = CliRunner().invoke(
        app, ["run", str(bench), "--out", str(tmp_path / "r"), "--judge", "openai"]
    )
    assert out.exit_code == 2 and "needs a model name: --model NAME" in out.output
    assert "Traceback" not in out.output


@pytest.mark.slow
def test_rerun_redoes_errored_rounds_only(first_run, judge_bench, tmp_path) -> None:
    run = seed(first_run[0], tmp_path / "run")
    down = {"on": True}

    def flaky(request: dict[str, Any]) -> Reply:
        if down["on"] and stage_of(request) == "detail":
            return Reply(status=503)
        return happy(request)

    with serve(flaky) as fake:
        settings = openai_settings(fake.base_url)
        settings.backend = BackendSettings(
            model="fake", base_url=fake.base_url, api_key="k", retries=0, prices=Prices(1.0, 4.0)
        )
        first = run_bench(judge_bench, run, settings)
        assert first.errors == 2  # both valid cases: every round errored at Stage 3
        n_first = len(fake.requests)
        down["on"] = False
        second = run_bench(judge_bench, run, settings)
    assert second.errors == 0 and second.gates == {"artifact": 1, "pass": 2}
    # errored rounds redone: only the failed Stage 3 calls reach the server again, the calls
    # answered before (semantic x2, render) come from the cache
    assert len(fake.requests) - n_first == 2 * 3
    assert second.usage.cached_calls == 2 * 3 * 3


def test_second_run_on_same_folder_is_refused_while_first_holds_it(tmp_path) -> None:
    from judge.engine.runner import _lock_run

    (tmp_path / "run").mkdir()
    held = _lock_run(tmp_path / "run")
    try:
        with pytest.raises(BenchmarkError, match="another `judge run`"):
            _lock_run(tmp_path / "run")
    finally:
        held.close()
    _lock_run(tmp_path / "run").close()  # free again once released


def test_run_keeps_a_copy_of_its_taxonomy_for_rescoring(first_run: tuple[Path, Any]) -> None:
    from judge.rundir import RUN_TAXONOMY
    from scoring.rescore import rescore_run
    from taxonomy.loader import DEFAULT_TAXONOMY, load_taxonomy, taxonomy_hash

    run, _ = first_run
    copy = run / RUN_TAXONOMY
    assert copy.read_bytes() == Path(DEFAULT_TAXONOMY).read_bytes()
    manifest = json.loads((run / "run.json").read_text())
    assert taxonomy_hash(load_taxonomy(copy)) == manifest["taxonomy_hash"]
    # the run's own settings reproduce every score from the copy
    report = rescore_run(run, None, [])
    assert report.taxonomy_source == str(copy)
    assert report.identity and report.mismatches == []


def test_candidates_carry_absolute_paths_for_a_relative_bench(tmp_path, monkeypatch) -> None:
    from judge.rundir import iter_candidates

    tiny_bench(tmp_path / "b")
    monkeypatch.chdir(tmp_path)
    (cand,) = iter_candidates(Path("b"))
    # the run records these; `judge replay` from another folder must still find the files
    assert Path(cand.pptx).is_absolute() and Path(cand.pptx).is_file()
    assert Path(cand.reference).is_absolute() and Path(cand.reference).is_file()


@pytest.mark.slow
def test_replay_scores_with_the_runs_taxonomy_copy(first_run, render_pool, tmp_path) -> None:
    run = tmp_path / "run"
    shutil.copytree(first_run[0], run)
    manifest = json.loads((run / RUN_MANIFEST).read_text())
    manifest["taxonomy_path"] = str(tmp_path / "edited-or-gone.yaml")
    (run / RUN_MANIFEST).write_text(json.dumps(manifest))
    report = replay_case(run / "cases" / "good" / "flow", 0, render_pool=render_pool)
    assert report.reproduced


def test_replay_names_a_recorded_file_that_is_gone(first_run, tmp_path) -> None:
    run = tmp_path / "run"
    shutil.copytree(first_run[0], run)
    stage0 = run / "cases" / "good" / "flow" / "stage0.json"
    data = json.loads(stage0.read_text())
    data["path"] = "moved/flow.pptx"
    stage0.write_text(json.dumps(data))
    out = CliRunner().invoke(app, ["replay", str(stage0.parent)])
    assert out.exit_code == 2 and "moved/flow.pptx (recorded by the run) is not found" in out.output
    assert "Traceback" not in out.output


def test_replay_of_an_invalid_candidate_says_there_is_nothing_to_replay(first_run) -> None:
    case = first_run[0] / "cases" / "empty" / "flow"
    out = CliRunner().invoke(app, ["replay", str(case)])
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert "invalid at Stage 0 (editable_components" in out.output
    assert "nothing to replay" in out.output


def test_macro_enabled_and_upper_case_decks_are_candidates_not_skipped(tmp_path) -> None:
    from judge.rundir import iter_candidates

    bench = tiny_bench(tmp_path / "b")
    deck = bench / "candidates" / "c" / "t.pptx"
    (bench / "tasks" / "u").mkdir()
    shutil.copy(bench / "tasks" / "t" / "reference.png", bench / "tasks" / "u" / "reference.png")
    deck.rename(deck.with_name("t.pptm"))
    shutil.copy(deck.with_name("t.pptm"), deck.with_name("u.PPTX"))
    (bench / "candidates" / "c" / "notes.txt").write_text("not a deck")
    assert [c.case_id for c in iter_candidates(bench)] == ["c/t", "c/u"]
    shutil.copy(deck.with_name("t.pptm"), deck)  # t.pptm and t.pptx: which one is the answer?
    with pytest.raises(BenchmarkError, match="a second candidate for task 't'"):
        list(iter_candidates(bench))


def test_candidate_for_a_missing_task_is_an_errored_case_and_the_batch_goes_on(
    tmp_path, render_pool
) -> None:
    from judge.rundir import read_results

    bench = tiny_bench(tmp_path / "b")
    shutil.copy(bench / "candidates" / "c" / "t.pptx", bench / "candidates" / "c" / "gone.pptx")
    settings = RunSettings(judge="builtin", rounds=1)

    summary = run_bench(bench, tmp_path / "run", settings, render_pool=render_pool)

    results = {r.case_id: r for r in read_results(tmp_path / "run")}
    assert summary.errors == 1
    assert "no task 'gone'" in (results["c/gone"].error or "")
    assert results["c/gone"].score is None
    assert results["c/t"].error is None and results["c/t"].gate is not None
