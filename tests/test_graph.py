"""The case graph end to end: Stage 0, render, prepare, rounds, aggregation, score."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from judge.backends import BackendSettings
from judge.backends.openai import OpenAIBackend
from judge.backends.replay import ReplayBackend
from judge.engine.agent import build_stage_graph
from judge.engine.graph import CaseRuntime, build_graph, build_round_graph, judge_case, settled
from judge.engine.trajectory import read_trajectory
from judge.errors import RenderError
from judge.render.pool import RenderPool
from judge.rundir import CaseDir, iter_candidates
from judge.schema import Candidate, CaseResult, Policy, RoundResult
from judge.tools import TOOLS
from taxonomy.loader import load_taxonomy, taxonomy_hash
from tests.fake_openai import Reply, call, serve, stage_of, submit, turn_of
from tests.judge_helpers import detail_args, failing_script, passing_script

TAX = load_taxonomy()

CASE_GRAPH_EDGES = """\
	__start__ --> validate;
	aggregate --> score;
	collect --> dispatch;
	dispatch -.-> __end__;
	dispatch -.-> aggregate;
	dispatch -.-> round;
	prepare -.-> collect;
	prepare -.-> score;
	render -.-> prepare;
	render -.-> score;
	round --> collect;
	validate -.-> render;
	validate -.-> score;
	score --> __end__;"""

ROUND_GRAPH_EDGES = """\
	__start__ --> semantic;
	detail --> finish;
	render -. &nbsp;next&nbsp; .-> detail;
	render -.-> finish;
	semantic -.-> finish;
	semantic -. &nbsp;next&nbsp; .-> render;
	finish --> __end__;"""

STAGE_GRAPH_EDGES = """\
	__start__ --> model;
	model -.-> __end__;
	model -.-> nudge;
	model -.-> submit;
	model -.-> tools;
	nudge -.-> __end__;
	nudge -.-> model;
	submit -.-> __end__;
	submit -.-> model;
	tools -.-> __end__;
	tools -.-> model;
	tools -.-> submit;"""


def edges(mermaid: str) -> str:
    return "\n".join(ln for ln in mermaid.splitlines() if ln.startswith("\t") and ln.endswith(";"))


def test_case_graph_mermaid_snapshot() -> None:
    assert edges(build_graph().get_graph().draw_mermaid()) == CASE_GRAPH_EDGES


def test_round_graph_mermaid_snapshot() -> None:
    assert edges(build_round_graph().get_graph().draw_mermaid()) == ROUND_GRAPH_EDGES


def test_stage_graph_mermaid_snapshot() -> None:
    assert edges(build_stage_graph().get_graph().draw_mermaid()) == STAGE_GRAPH_EDGES


def candidate(bench: Path, config: str) -> Candidate:
    return next(c for c in iter_candidates(bench) if c.config_id == config)


def runtime(
    bench: Path, config: str, out: Path, backend: Any, pool: RenderPool | None = None, **kw: Any
) -> CaseRuntime:
    cand = candidate(bench, config)
    return CaseRuntime(
        candidate=cand,
        case_dir=CaseDir(out / cand.config_id / cand.task_id),
        backend=backend,
        taxonomy=TAX,
        taxonomy_hash=taxonomy_hash(TAX),
        policy=Policy(),
        tools=TOOLS,
        render=(lambda pptx, png: pool.render(pptx, png)) if pool is not None else None,
        **kw,
    )


@pytest.fixture(scope="module")
def rendered(
    judge_bench: Path, render_pool: RenderPool, tmp_path_factory
) -> tuple[Path, CaseResult]:
    """The ``good`` candidate judged once through the whole graph (real render)."""
    out = tmp_path_factory.mktemp("graph_rendered")
    script = out / "pass.jsonl"
    script.write_text(passing_script(TAX))
    rt = runtime(judge_bench, "good", out, ReplayBackend(script), render_pool)
    result = judge_case(rt, 3)
    assert result is not None
    return out / "good" / "flow", result


def seeded(src: Path, dst: Path) -> Path:
    """A fresh case folder holding the Stage 0 report and render of ``src`` (no rounds)."""
    dst.mkdir(parents=True)
    for name in ("stage0.json", "render.png", "render.json"):
        shutil.copy(src / name, dst / name)
    return dst


@pytest.mark.slow
def test_valid_candidate_is_rendered_judged_and_scored(rendered) -> None:
    case, result = rendered
    assert result.valid and result.gate == "pass" and result.rounds == ["pass"] * 3
    assert result.score is not None and 0 < result.score < 100
    assert result.findings and result.findings[0].support == [0, 1, 2]
    assert CaseResult.model_validate_json((case / "case.json").read_text()) == result
    for k in range(3):
        assert (case / "rounds" / f"round-{k}.json").is_file()
        events = read_trajectory(case / "rounds" / f"round-{k}.trajectory.jsonl")
        assert events[-1].kind == "submit" and events[-1].stage == "detail"
    assert (case / "pair.png").is_file() and (case / "render.png").is_file()


@pytest.mark.slow
def test_invalid_artifact_scores_zero_without_render_or_rounds(
    judge_bench, render_pool, tmp_path
) -> None:
    script = tmp_path / "pass.jsonl"
    script.write_text(passing_script(TAX))
    rt = runtime(judge_bench, "empty", tmp_path, ReplayBackend(script), render_pool)
    result = judge_case(rt, 3)
    assert result is not None and result.gate == "artifact" and result.score == 0.0
    assert "editable_components" in result.artifact_failures
    assert not (tmp_path / "empty" / "flow" / "render.png").exists()
    assert not (tmp_path / "empty" / "flow" / "rounds").exists()


@pytest.mark.slow
def test_render_failure_fails_renders_check(judge_bench, tmp_path) -> None:
    def broken(pptx: Path, png: Path):
        raise RenderError(f"{pptx}: LibreOffice crashed")

    script = tmp_path / "pass.jsonl"
    script.write_text(passing_script(TAX))
    rt = runtime(judge_bench, "good", tmp_path, ReplayBackend(script))
    rt.render = broken
    result = judge_case(rt, 3)
    assert (
        result is not None and result.gate == "artifact" and result.artifact_failures == ["renders"]
    )


@pytest.mark.slow
def test_semantic_rejection_scores_zero(rendered, judge_bench, tmp_path) -> None:
    seeded(rendered[0], tmp_path / "swapped" / "flow")
    script = tmp_path / "fail.jsonl"
    script.write_text(failing_script())
    rt = runtime(judge_bench, "swapped", tmp_path, ReplayBackend(script))
    result = judge_case(rt, 3)
    assert result is not None and result.gate == "semantic" and result.score == 0.0
    assert result.gate_votes == {"semantic": 3}


def per_round_source(root: Path, scripts: list[str]) -> Path:
    for k, text in enumerate(scripts):
        path = root / "rounds" / f"round-{k}.trajectory.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.slow
def test_early_stop_skips_rounds_that_cannot_change_result(rendered, judge_bench, tmp_path) -> None:
    source = per_round_source(
        tmp_path / "src", [failing_script(), failing_script(), passing_script(TAX)]
    )
    results: dict[bool, Any] = {}
    for early in (False, True):
        out = tmp_path / f"early-{early}"
        seeded(rendered[0], out / "good" / "flow")
        rt = runtime(judge_bench, "good", out, ReplayBackend(source), early_stop=early)
        results[early] = judge_case(rt, 3)
    full, early_result = results[False], results[True]
    assert early_result.rounds == ["semantic", "semantic", "skipped"]
    assert full.rounds == ["semantic", "semantic", "pass"]
    assert (early_result.gate, early_result.score) == (full.gate, full.score) == ("semantic", 0.0)


def test_settled_waits_when_remaining_rounds_could_flip_the_gate() -> None:
    def r(status: str, k: int) -> RoundResult:
        return RoundResult(case_id="c", round_index=k, status=status)  # type: ignore[arg-type]

    assert settled([r("semantic", 0), r("semantic", 1)], 3, Policy())
    assert not settled([r("semantic", 0), r("render", 1)], 3, Policy())
    assert not settled([r("semantic", 0), r("pass", 1)], 3, Policy())
    assert not settled([r("pass", 0), r("pass", 1)], 3, Policy())


def live(request: dict[str, Any]) -> Reply:
    stage, turn = stage_of(request), turn_of(request)
    if stage == "semantic" and turn == 0:
        reply = Reply(tool_calls=[call("object_tree", {"types": ["connector"]})])
    elif stage == "detail":
        reply = submit(detail_args(TAX, 0.3))
    else:
        reply = submit({"passed": True})
    reply.delay_s = 0.05  # long enough for parallel rounds to overlap at the server
    return reply


@pytest.mark.slow
def test_whole_graph_through_openai_backend_runs_rounds_in_parallel(
    rendered, judge_bench, tmp_path
) -> None:
    seeded(rendered[0], tmp_path / "good" / "flow")
    with serve(live) as fake:
        backend = OpenAIBackend(
            BackendSettings(model="fake", base_url=fake.base_url, api_key="k", backoff_cap_s=0.05)
        )
        rt = runtime(judge_bench, "good", tmp_path, backend)
        result = judge_case(rt, 3, max_concurrency=3)
    assert result is not None and result.gate == "pass" and result.score is not None
    assert len(fake.requests) == 12  # 3 rounds x (semantic x2, render, detail)
    assert fake.max_in_flight >= 2  # rounds ran in parallel (max_concurrency)
    assert result.usage.model_calls == 12 and result.usage.tool_calls == 3
    tool_results = [m for r in fake.requests for m in r["messages"] if m["role"] == "tool"]
    assert any('"connector"' in m["content"] for m in tool_results)
    assert result.findings[0].fraction == 0.3 and result.findings[0].support == [0, 1, 2]
