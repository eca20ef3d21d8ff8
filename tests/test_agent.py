"""The stage loop (judge.engine.agent): tools, submissions, budgets, trajectories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from judge.backends.replay import ReplayChatModel
from judge.engine.agent import (
    SUBMIT_TOOL,
    Budgets,
    StageRuntime,
    bind,
    initial_messages,
    run_stage,
    submit_tool_schema,
)
from judge.engine.trajectory import ImageStore, Recorder
from judge.schema import StageName
from judge.tools import TOOLS
from taxonomy.loader import load_taxonomy
from tests.judge_helpers import detail_args, make_context

TAX = load_taxonomy()


class RecordingModel(ReplayChatModel):
    """A scripted model that keeps every conversation it was sent."""

    seen: list[list[BaseMessage]] = []  # noqa: RUF012 - a pydantic field, copied per instance

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any):  # type: ignore[override]
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def call(name: str, args: dict[str, Any], i: int) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"call_{i}", "type": "tool_call"}


def turns(*calls: list[dict[str, Any]] | str) -> list[AIMessage]:
    out = []
    for c in calls:
        if isinstance(c, str):
            out.append(AIMessage(content=c))
        else:
            out.append(AIMessage(content="", tool_calls=c))
    return out


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory):
    return make_context(tmp_path_factory.mktemp("agent"))


def run(
    ctx, tmp_path: Path, stage: StageName, script: list[AIMessage], budgets: Budgets | None = None
) -> tuple[Any, Recorder, RecordingModel]:
    model = RecordingModel(turns=script, stage=stage, seen=[])
    recorder = Recorder(ImageStore(tmp_path / "images"))
    rt = StageRuntime(
        stage=stage,
        model=bind(model, stage, TOOLS),
        ctx=ctx,
        tools=TOOLS,
        recorder=recorder,
        budgets=budgets or Budgets(),
        taxonomy=TAX,
    )
    msgs = initial_messages(stage, "system", "rubric", ctx.pair_png.read_bytes(), recorder)
    return run_stage(rt, msgs), recorder, model


def test_valid_submission_ends_stage_with_verdict(ctx, tmp_path: Path) -> None:
    out, rec, _ = run(ctx, tmp_path, "semantic", turns([call(SUBMIT_TOOL, {"passed": True}, 0)]))
    assert out.error is None and out.verdict == {"passed": True, "reasons": [], "measurements": {}}
    kinds = [e.kind for e in rec.events]
    assert kinds == ["message", "message", "message", "submit"]
    pair_hash = rec.events[1].images[0]
    assert (tmp_path / "images" / f"{pair_hash}.png").read_bytes() == ctx.pair_png.read_bytes()


def test_first_user_message_carries_rubric_and_pair_image(ctx, tmp_path: Path) -> None:
    _, _, model = run(ctx, tmp_path, "render", turns([call(SUBMIT_TOOL, {"passed": True}, 0)]))
    first_user = next(m for m in model.seen[0] if isinstance(m, HumanMessage))
    blocks: Any = first_user.content
    assert blocks[0] == {"type": "text", "text": "rubric"}
    assert blocks[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_tool_result_json_and_image_flow_back_to_model(ctx, tmp_path: Path) -> None:
    crop = {"image": "candidate", "x": 0, "y": 300, "w": 600, "h": 300, "frame": "panel"}
    script = turns([call("crop", crop, 1)], [call(SUBMIT_TOOL, {"passed": True}, 2)])
    out, rec, model = run(ctx, tmp_path, "semantic", script)
    assert out.verdict is not None
    second = model.seen[1]
    tool_msg = next(m for m in second if isinstance(m, ToolMessage))
    data = json.loads(str(tool_msg.content))
    assert data["image"] == "candidate" and data["images_attached"] == 1
    assert data["image_box"]["w"] > 0
    after = second[second.index(tool_msg) + 1]
    assert isinstance(after, HumanMessage)
    content: Any = after.content
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    result = next(e for e in rec.events if e.kind == "tool_result")
    assert result.tool_name == "crop" and len(result.images) == 1


def test_unknown_tool_gets_json_error_and_stage_goes_on(ctx, tmp_path: Path) -> None:
    script = turns([call("teleport", {}, 1)], [call(SUBMIT_TOOL, {"passed": True}, 2)])
    out, _, model = run(ctx, tmp_path, "semantic", script)
    assert out.verdict is not None
    err = json.loads(str(next(m for m in model.seen[1] if isinstance(m, ToolMessage)).content))
    assert "unknown tool 'teleport'" in err["error"] and "crop" in err["error"]


def test_malformed_arguments_get_json_error(ctx, tmp_path: Path) -> None:
    bad = AIMessage(
        content="",
        invalid_tool_calls=[{"name": "crop", "args": "{x: oops", "id": "c1", "error": None}],
    )
    script = [bad, *turns([call(SUBMIT_TOOL, {"passed": True}, 2)])]
    out, rec, model = run(ctx, tmp_path, "semantic", script)
    assert out.verdict is not None
    err = json.loads(str(next(m for m in model.seen[1] if isinstance(m, ToolMessage)).content))
    assert "not valid JSON" in err["error"]
    assert rec.events[3].arguments == {"__raw__": "{x: oops"}


def test_failed_gate_without_reason_is_sent_back_then_accepted(ctx, tmp_path: Path) -> None:
    reason = {"target": "edge A -> B", "evidence": "reversed"}
    script = turns(
        [call(SUBMIT_TOOL, {"passed": False}, 1)],
        [call(SUBMIT_TOOL, {"passed": False, "reasons": [reason]}, 2)],
    )
    out, rec, model = run(ctx, tmp_path, "semantic", script)
    assert out.verdict is not None and out.verdict["passed"] is False
    assert [e.kind for e in rec.events if "submit" in e.kind] == ["invalid_submit", "submit"]
    err = json.loads(str(next(m for m in model.seen[1] if isinstance(m, ToolMessage)).content))
    assert "at least one reason" in err["error"]


def test_unknown_subtype_is_rejected_with_taxonomy_error(ctx, tmp_path: Path) -> None:
    bad = detail_args(TAX)
    bad["findings"][0]["subtype"] = "wobbly_vibes"
    script = turns([call(SUBMIT_TOOL, bad, 1)], [call(SUBMIT_TOOL, detail_args(TAX), 2)])
    out, _, model = run(ctx, tmp_path, "detail", script)
    assert out.verdict is not None
    err = json.loads(str(next(m for m in model.seen[1] if isinstance(m, ToolMessage)).content))
    assert "wobbly_vibes" in err["error"]


def test_fraction_out_of_range_is_rejected(ctx, tmp_path: Path) -> None:
    script = turns([call(SUBMIT_TOOL, detail_args(TAX, fraction=1.5), 1)])
    out, rec, _ = run(ctx, tmp_path, "detail", script, Budgets(max_invalid_submits=0))
    assert out.verdict is None and "invalid submissions" in (out.error or "")
    assert "fraction" in json.dumps(rec.events[-2].result)


def test_stage_that_never_submits_ends_with_error(ctx, tmp_path: Path) -> None:
    script = turns("looks fine to me", "still fine", "really fine")
    out, rec, _ = run(ctx, tmp_path, "semantic", script, Budgets(max_idle_turns=2))
    assert out.verdict is None and "without calling submit_verdict" in (out.error or "")
    assert rec.events[-1].kind == "error"


def test_exhausted_script_is_a_backend_error_not_a_verdict(ctx, tmp_path: Path) -> None:
    out, _, _ = run(ctx, tmp_path, "semantic", turns([call("object_tree", {}, 1)]))
    assert out.verdict is None and "replay script has 1 model turn" in (out.error or "")


def test_tool_budget_answers_with_error_and_counts_no_more_calls(ctx, tmp_path: Path) -> None:
    script = turns(
        [call("object_tree", {}, 1), call("object_tree", {}, 2)],
        [call(SUBMIT_TOOL, {"passed": True}, 3)],
    )
    out, rec, _ = run(ctx, tmp_path, "semantic", script, Budgets(max_tool_calls=1))
    assert out.verdict is not None and out.usage.tool_calls == 1
    results: list[Any] = [e.result for e in rec.events if e.kind == "tool_result"]
    assert "objects" in results[0] and "tool budget spent" in results[1]["error"]


def test_turn_budget_ends_a_looping_stage(ctx, tmp_path: Path) -> None:
    script = turns(*[[call("object_tree", {}, i)] for i in range(10)])
    out, _, _ = run(ctx, tmp_path, "semantic", script, Budgets(max_turns=3))
    assert out.verdict is None and "no verdict after 3 model calls" in (out.error or "")


def test_submit_schema_is_the_verdict_model() -> None:
    schema = submit_tool_schema("detail")["function"]
    assert schema["name"] == SUBMIT_TOOL
    assert set(schema["parameters"]["properties"]) == {"findings", "fractions"}


def test_tool_images_follow_every_tool_message_of_the_answer(ctx, tmp_path: Path) -> None:
    crop = {"image": "candidate", "x": 0, "y": 300, "w": 600, "h": 300}
    script = turns(
        [call("crop", crop, 1), call(SUBMIT_TOOL, {"passed": False}, 2)],  # invalid submit
        [call(SUBMIT_TOOL, {"passed": True}, 3)],
    )
    out, _, model = run(ctx, tmp_path, "semantic", script)
    assert out.verdict is not None
    second = model.seen[1]
    answer_at = next(i for i, m in enumerate(second) if isinstance(m, AIMessage))
    after = second[answer_at + 1 :]
    assert [type(m).__name__ for m in after] == ["ToolMessage", "ToolMessage", "HumanMessage"]
