"""What a script author may call: every measurement tool and each stage's submit tool.

:func:`tool_catalogue` is the data behind ``judge tools``: for each tool its name, the
description the model sees, the JSON schema of its arguments and the stages it is bound in; for
each stage the ``submit_verdict`` schema (the verdict model's fields). It is read from the same
objects the judge binds (:func:`judge.engine.agent.bind`), so it cannot drift from them.
"""

from __future__ import annotations

from typing import Any, get_args

from judge.engine.agent import SUBMIT_TOOL, submit_tool_schema
from judge.schema import StageName
from judge.tools.base import Tool

STAGES: tuple[StageName, ...] = get_args(StageName)
"""Every judged stage in order, each with its own submit tool (``rubric``: ReFigBench's one
structured pass)."""

TOOL_STAGES: tuple[StageName, ...] = ("semantic", "render", "detail")
"""The PPTBench stages, where :func:`judge.engine.agent.bind` binds every measurement tool;
a model judge's ReFigBench ``rubric`` pass gets no tools (the object audit is in its prompt)."""

FIRST_ROUND = 0
"""Rounds are numbered from 0: ``round-0.json`` ... ``round-<R-1>.json``, ``--round 0``."""


def tool_catalogue(tools: dict[str, Tool], opt_in: dict[str, str] | None = None) -> dict[str, Any]:
    """Tools and submit schemas as plain JSON-ready data (see the module docstring).

    ``opt_in``: tool name -> the flag that makes it available (``run_python``:
    ``--judge-sandbox``); the entry's ``needs`` says so (None for tools always bound)."""
    listed = []
    for name in sorted(tools):
        schema = tools[name].json_schema()["function"]
        listed.append(
            {
                "name": name,
                "description": schema["description"],
                "arguments": schema["parameters"],
                "stages": list(TOOL_STAGES),
                "needs": (opt_in or {}).get(name),
            }
        )
    submits = {}
    for stage in STAGES:
        fn = submit_tool_schema(stage)["function"]
        submits[stage] = {"description": fn["description"], "arguments": fn["parameters"]}
    return {
        "tools": listed,
        "submit_tool": SUBMIT_TOOL,
        "submit": submits,
        "first_round": FIRST_ROUND,
    }


def _type_of(prop: dict[str, Any]) -> str:
    """A short type label for one JSON-schema property (``integer``, ``string|null``, enum)."""
    if "enum" in prop:
        return "|".join(repr(v) for v in prop["enum"])
    if "anyOf" in prop:
        return "|".join(_type_of(p) for p in prop["anyOf"])
    if "$ref" in prop:
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    if prop.get("type") == "array":
        return f"list[{_type_of(prop.get('items', {}))}]"
    return str(prop.get("type", "any"))


def argument_lines(schema: dict[str, Any]) -> list[str]:
    """One line per argument: ``name: type (required)`` or ``name: type = default``."""
    required = set(schema.get("required", []))
    lines = []
    for name, prop in schema.get("properties", {}).items():
        label = f"{name}: {_type_of(prop)}"
        if name in required:
            label += " (required)"
        elif "default" in prop:
            label += f" = {prop['default']!r}"
        lines.append(label)
    return lines


def definition_lines(schema: dict[str, Any]) -> list[str]:
    """The nested objects of a submit schema (``GateReason: target: string (required), ...``)."""
    return [
        f"{name}: " + ", ".join(argument_lines(sub))
        for name, sub in schema.get("$defs", {}).items()
    ]
