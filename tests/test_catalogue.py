"""`judge tools`: the catalogue a script author reads, and the replay docstring's example."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import judge.backends.replay as replay_mod
from cli.app import app
from judge.backends.replay import read_script
from judge.engine.agent import SUBMIT_TOOL
from judge.schema import DetailVerdict, GateReason, GateVerdict
from judge.tools import TOOLS
from judge.tools.python import judge_tools

runner = CliRunner()


def test_tools_json_lists_every_tool_with_its_argument_schema_and_stages() -> None:
    result = runner.invoke(app, ["tools", "--json"])
    assert result.exit_code == 0, result.output
    cat = json.loads(result.output)
    everything = judge_tools(TOOLS, sandbox=True)
    assert [t["name"] for t in cat["tools"]] == sorted(everything)
    for entry in cat["tools"]:
        tool = everything[entry["name"]]
        assert entry["needs"] == (None if entry["name"] in TOOLS else "--judge-sandbox")
        assert entry["description"] == tool.description
        assert set(entry["arguments"].get("properties", {})) == set(tool.args_model.model_fields)
        assert entry["stages"] == ["semantic", "render", "detail"]
    crop = next(t for t in cat["tools"] if t["name"] == "crop")
    assert {"x", "y", "w", "h"} <= set(crop["arguments"]["required"])
    assert cat["submit_tool"] == SUBMIT_TOOL and cat["first_round"] == 0


def test_tools_json_gives_each_stage_its_submit_schema() -> None:
    cat = json.loads(runner.invoke(app, ["tools", "--json"]).output)
    assert set(cat["submit"]) == {"semantic", "render", "detail", "rubric"}
    for stage in ("semantic", "render"):
        args = cat["submit"][stage]["arguments"]
        assert set(args["properties"]) == set(GateVerdict.model_fields)
        assert set(args["$defs"]["GateReason"]["properties"]) == set(GateReason.model_fields)
    assert set(cat["submit"]["detail"]["arguments"]["properties"]) == set(
        DetailVerdict.model_fields
    )


def test_tools_text_shows_arguments_stages_submit_fields_and_round_numbering() -> None:
    result = runner.invoke(app, ["tools"])
    assert result.exit_code == 0
    out = result.output
    for name in TOOLS:
        assert f"\n{name}  [stages: semantic, render, detail]\n" in out
    assert "\nrun_python  [stages: semantic, render, detail; only with --judge-sandbox]" in out
    assert "image: 'reference'|'candidate'" in out  # an argument with its allowed values
    assert "GateReason: target: string (required), evidence: string (required)" in out
    assert "affected_count: integer = 1" in out
    assert "Rounds are numbered from 0" in out


def docstring_script() -> list[str]:
    """The example script of judge/backends/replay.py, wrapped lines joined."""
    doc = replay_mod.__doc__ or ""
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    lines: list[str] = []
    for raw in block.splitlines():
        text = raw.strip()
        if text.startswith(('{"stage"', "#")) or not lines:
            lines.append(text)
        else:
            lines[-1] += " " + text
    return lines


def test_replay_docstring_example_parses_and_shows_every_gate_reason_field(tmp_path) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(docstring_script()) + "\n", encoding="utf-8")
    events = read_script(script)
    assert {e.tool_name for e in events if e.kind == "tool_call"} <= set(TOOLS)
    semantic = next(e for e in events if e.kind == "submit" and e.stage == "semantic")
    verdict = GateVerdict.model_validate(semantic.arguments)
    assert verdict.reasons, "the example shows a gate reason"
    arguments: Any = semantic.arguments
    shown = set(arguments["reasons"][0])
    assert shown == set(GateReason.model_fields)


def test_readme_says_rounds_are_numbered_from_zero() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert "numbered from 0" in readme and "judge tools" in readme
