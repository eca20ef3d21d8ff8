"""CLI command: tools (what a replay script may call, with argument and submit schemas)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from cli.base import app
from judge.engine.catalogue import argument_lines, definition_lines, tool_catalogue
from judge.tools import TOOLS


def _render(cat: dict[str, Any]) -> str:
    lines = [
        f"{len(cat['tools'])} measurement tools (a script line: "
        '{"stage": ..., "kind": "tool_call", "tool_name": NAME, "arguments": {...}})',
    ]
    for tool in cat["tools"]:
        first = tool["description"].split("\n\n", 1)[0].replace("\n", " ")
        lines.append("")
        needs = f"; only with {tool['needs']}" if tool["needs"] else ""
        lines.append(f"{tool['name']}  [stages: {', '.join(tool['stages'])}{needs}]")
        lines.append(f"  {first}")
        args = argument_lines(tool["arguments"])
        lines.extend(f"  - {a}" for a in args or ["(no arguments)"])
    lines.append("")
    lines.append(
        f"submit ({cat['submit_tool']}; a script line: "
        '{"stage": ..., "kind": "submit", "arguments": {...}})'
    )
    for stage, sub in cat["submit"].items():
        lines.append("")
        lines.append(f"{stage}:")
        lines.extend(f"  - {a}" for a in argument_lines(sub["arguments"]))
        lines.extend(f"    {d}" for d in definition_lines(sub["arguments"]))
    lines.append("")
    lines.append(f"Rounds are numbered from {cat['first_round']} (judge replay CASE --round 0).")
    return "\n".join(lines)


@app.command("tools")
def tools_cmd(
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the full catalogue as JSON (descriptions and JSON schemas)."
        ),
    ] = False,
) -> None:
    """List the measurement tools a judge (or a replay script) may call, and the submit schemas.

    For each tool: name, description, argument schema and the stages it may be called in; for
    each stage (semantic, render, detail) the arguments of its submit_verdict call. Use it to
    write a tool-scripted inspection (see judge/backends/replay.py).

    Example: judge tools --json
    """
    from judge.tools.python import judge_tools

    everything = judge_tools(TOOLS, sandbox=True)
    cat = tool_catalogue(everything, {n: "--judge-sandbox" for n in everything if n not in TOOLS})
    typer.echo(json.dumps(cat, indent=2) if as_json else _render(cat))
