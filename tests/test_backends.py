"""Backends through real HTTP: the openai backend against tests/fake_openai.py, and replay."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from judge.backends import BackendSettings, Prices, load_prices, make_backend
from judge.backends.openai import OpenAIBackend
from judge.engine.agent import Budgets
from judge.engine.cache import ModelCache
from judge.engine.graph import CaseRuntime, run_round
from judge.engine.trajectory import read_trajectory
from judge.errors import BackendError
from judge.rundir import CaseDir
from judge.schema import Candidate, Policy
from judge.tools import TOOLS
from taxonomy.loader import load_taxonomy, taxonomy_hash
from tests.fake_openai import Reply, call, scripted, serve, stage_of, submit, turn_of
from tests.judge_helpers import detail_args, make_context

TAX = load_taxonomy()
FAST = {"backoff_s": 0.01, "backoff_cap_s": 0.05}
"""Retry waits for tests: the cap also bounds the server's retry-after."""


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory):
    return make_context(tmp_path_factory.mktemp("backends"))


def runtime(ctx, tmp_path: Path, base_url: str, **settings: Any) -> CaseRuntime:
    merged = {"model": "fake-vision", "base_url": base_url, "api_key": "k", **FAST, **settings}
    backend = OpenAIBackend(BackendSettings(**merged))
    rt = CaseRuntime(
        candidate=Candidate(
            case_id="cfg/flow",
            task_id="flow",
            config_id="cfg",
            pptx=str(ctx.pptx),
            reference=str(ctx.reference_png),
        ),
        case_dir=CaseDir(tmp_path / "case"),
        backend=backend,
        taxonomy=TAX,
        taxonomy_hash=taxonomy_hash(TAX),
        policy=Policy(),
        tools=TOOLS,
        budgets=Budgets(max_idle_turns=1),
    )
    rt.ctx = ctx
    return rt


def happy(request: dict[str, Any]) -> Reply:
    """Semantic: one crop then pass; render: pass; detail: one finding."""
    stage, turn = stage_of(request), turn_of(request)
    if stage == "semantic" and turn == 0:
        crop = {"image": "candidate", "x": 100, "y": 300, "w": 500, "h": 300}
        return Reply(tool_calls=[call("crop", crop)])
    if stage == "detail":
        return submit(detail_args(TAX))
    return submit({"passed": True})


def test_round_through_openai_backend_sends_images_and_tool_results(ctx, tmp_path) -> None:
    with serve(happy) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url), 0)
    assert result.status == "pass" and result.detail is not None
    assert len(fake.requests) == 4  # semantic x2, render, detail
    first = fake.requests[0]
    assert (
        first["model"] == "fake-vision"
        and first["tools"][-1]["function"]["name"] == "submit_verdict"
    )
    user = next(m for m in first["messages"] if m["role"] == "user")
    assert user["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    second = fake.requests[1]["messages"]
    tool_msg = next(m for m in second if m["role"] == "tool")
    assert json.loads(tool_msg["content"])["image"] == "candidate"
    follow = second[second.index(tool_msg) + 1]
    assert follow["role"] == "user" and follow["content"][1]["type"] == "image_url"
    assert result.usage.model_calls == 4 and result.usage.input_tokens == 4000
    events = read_trajectory(tmp_path / "case" / "rounds" / "round-0.trajectory.jsonl")
    assert [e.kind for e in events].count("submit") == 3


def test_cost_comes_from_the_price_table(ctx, tmp_path) -> None:
    with serve(happy) as fake:
        rt = runtime(ctx, tmp_path, fake.base_url, prices=Prices(2.0, 10.0))
        result = run_round(rt, 0)
    assert result.usage.cost_usd == pytest.approx((4000 * 2.0 + 200 * 10.0) / 1e6)


def test_429_is_retried_with_capped_retry_after(ctx, tmp_path) -> None:
    limited = Reply(status=429, headers={"retry-after": "120"}, content="slow down")
    replies = [
        limited,
        limited,
        submit({"passed": True}),
        submit({"passed": True}),
        submit({"findings": [], "fractions": []}),
    ]
    with serve(scripted(replies)) as fake:
        t0 = time.perf_counter()
        result = run_round(runtime(ctx, tmp_path, fake.base_url), 0)
        took = time.perf_counter() - t0
    assert result.status == "pass" and len(fake.requests) == 5
    assert took < 10  # retry-after 120 s was capped at 0.05 s


def test_500_after_retries_makes_round_errored(ctx, tmp_path) -> None:
    with serve(scripted([Reply(status=500)] * 3)) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url, retries=2), 0)
    assert result.status == "errored" and len(fake.requests) == 3
    assert "semantic stage" in (result.error or "") and "HTTP 500" in (result.error or "")
    assert result.semantic is None


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"<html>bad gateway</html>", "JSONDecodeError"),
        (b"{}", "answer could not be read"),
        (b'{"choices": "none"}', "answer could not be read"),
    ],
)
def test_unreadable_answer_names_the_endpoint(ctx, tmp_path, body: bytes, says: str) -> None:
    with serve(scripted([Reply(raw=body)])) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url, retries=0), 0)
    assert result.status == "errored"
    assert fake.base_url in (result.error or "") and says in (result.error or "")


def test_refused_connection_names_the_endpoint(ctx, tmp_path) -> None:
    with serve(scripted([])) as fake:
        url = fake.base_url  # the port is closed once the server stops
    result = run_round(runtime(ctx, tmp_path, url, retries=0), 0)
    assert result.status == "errored"
    assert url in (result.error or "") and "connection failed" in (result.error or "")


def test_timeout_makes_round_errored(ctx, tmp_path) -> None:
    with serve(scripted([Reply(delay_s=2.0, **{})] * 2)) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url, timeout_s=0.3, retries=1), 0)
    assert result.status == "errored" and "timed out" in (result.error or "")
    assert fake.base_url in (result.error or "")
    assert len(fake.requests) == 2


def test_malformed_arguments_flow_back_as_tool_error(ctx, tmp_path) -> None:
    replies = [
        Reply(tool_calls=[("crop", '{"image": "candidate", x: }')]),
        submit({"passed": True}),
        submit({"passed": True}),
        submit({"findings": [], "fractions": []}),
    ]
    with serve(scripted(replies)) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url), 0)
    assert result.status == "pass"
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "not valid JSON" in json.loads(tool_msg["content"])["error"]


def test_unknown_tool_flows_back_as_tool_error(ctx, tmp_path) -> None:
    replies = [
        Reply(tool_calls=[call("read_minds", {})]),
        submit({"passed": True}),
        submit({"passed": True}),
        submit({"findings": [], "fractions": []}),
    ]
    with serve(scripted(replies)) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url), 0)
    assert result.status == "pass"
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "unknown tool 'read_minds'" in json.loads(tool_msg["content"])["error"]


def test_missing_submit_makes_round_errored_not_passed(ctx, tmp_path) -> None:
    with serve(scripted([Reply(content="All good.")] * 2)) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url), 0)
    assert result.status == "errored" and "without calling submit_verdict" in (result.error or "")
    nudge = fake.requests[1]["messages"][-1]
    assert nudge["role"] == "user" and "submit_verdict" in nudge["content"]


def test_failed_semantic_gate_ends_round_without_later_stages(ctx, tmp_path) -> None:
    reason = {"target": "edge Encode -> Train", "evidence": "arrowhead at the Encode end"}
    with serve(scripted([submit({"passed": False, "reasons": [reason]})])) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url), 0)
    assert result.status == "semantic" and result.render is None and len(fake.requests) == 1


def test_cached_answers_cost_nothing_on_rerun(ctx, tmp_path) -> None:
    with serve(happy) as fake:
        rt = runtime(ctx, tmp_path, fake.base_url, prices=Prices(2.0, 10.0))
        rt.cache = ModelCache(tmp_path / "cache")
        first = run_round(rt, 0)
        second = run_round(rt, 0)
    assert len(fake.requests) == 4
    assert second.status == first.status and second.detail == first.detail
    assert second.usage.cached_calls == 4 and second.usage.cost_usd == 0.0


def test_errors_are_not_cached(ctx, tmp_path) -> None:
    replies = [
        Reply(status=500),
        submit({"passed": True}),
        submit({"passed": True}),
        submit({"findings": [], "fractions": []}),
    ]
    with serve(scripted(replies)) as fake:
        rt = runtime(ctx, tmp_path, fake.base_url, retries=0)
        rt.cache = ModelCache(tmp_path / "cache")
        assert run_round(rt, 0).status == "errored"
        assert run_round(rt, 0).status == "pass"


def test_openai_backend_needs_a_model_name() -> None:
    with pytest.raises(BackendError, match="--model"):
        make_backend("openai", BackendSettings(base_url="http://127.0.0.1:9/v1"), TAX)


def test_price_table_file_per_model(tmp_path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"m1": {"input": 1.0, "output": 4.0}}))
    assert load_prices(path, "m1") == Prices(1.0, 4.0)
    with pytest.raises(BackendError, match="no prices for model 'm2'"):
        load_prices(path, "m2")


def test_hand_written_script_with_comments_and_grouped_turns(ctx, tmp_path) -> None:
    from judge.backends.replay import ReplayBackend

    script = tmp_path / "probe.jsonl"
    script.write_text(
        "# probe: look at the connectors, then pass everything\n"
        '{"stage": "semantic", "kind": "message", "role": "assistant", "content": "looking"}\n'
        '{"stage": "semantic", "kind": "tool_call", "tool_name": "object_tree", '
        '"arguments": {"types": ["connector"]}}\n'
        '{"stage": "semantic", "kind": "tool_call", "tool_name": "crop", "arguments": '
        '{"image": "reference", "x": 0, "y": 0, "w": 600, "h": 450}}\n'
        "\n"
        '{"stage": "semantic", "kind": "message", "role": "assistant", "content": "ok"}\n'
        '{"stage": "semantic", "kind": "submit", "arguments": {"passed": true}}\n'
        '{"stage": "render", "kind": "submit", "arguments": {"passed": true}}\n'
        '{"stage": "detail", "kind": "submit", "arguments": {"findings": [], "fractions": []}}\n'
    )
    rt = runtime(ctx, tmp_path, "http://127.0.0.1:9/v1")
    rt.backend = ReplayBackend(script)
    result = run_round(rt, 0)
    assert result.status == "pass" and result.usage.tool_calls == 2
    events = read_trajectory(tmp_path / "case" / "rounds" / "round-0.trajectory.jsonl")
    semantic_answers = [e for e in events if e.stage == "semantic" and e.role == "assistant"]
    assert [e.content for e in semantic_answers] == ["looking", "ok"]  # two calls in one turn


def test_default_backend_is_openai_only_with_an_endpoint(monkeypatch) -> None:
    from judge.backends import default_backend_name

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert default_backend_name(BackendSettings()) == "builtin"
    assert default_backend_name(BackendSettings(model="gpt-4o")) == "openai"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    assert default_backend_name(BackendSettings()) == "openai"
