"""Every command has help text with an example invocation."""

from __future__ import annotations

from typing import Any

import typer.main
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()


def _commands(group, prefix=()):
    for name, cmd in getattr(group, "commands", {}).items():
        path = (*prefix, name)
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, path)
        else:
            yield path


def test_top_level_help_lists_the_tool():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "pptjudge" in result.output


def test_every_command_has_help_with_an_example():
    group = typer.main.get_command(app)
    paths = list(_commands(group))
    for path in paths:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, path
        assert "Example" in result.output or "example" in result.output, path


def test_flags_in_every_example_exist() -> None:
    """An example line is copied literally: each --flag it uses must be an option of the command."""
    import re

    group = typer.main.get_command(app)
    checked = 0
    for path in _commands(group):
        cmd: Any = group
        for name in path:
            cmd = cmd.commands[name]
        doc = cmd.help or ""
        examples = [ln for ln in doc.splitlines() if "Example" in ln or "example" in ln]
        known = {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)}
        for line in examples:
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", line):
                assert flag in known, (path, flag, line)
                checked += 1
    assert checked > 10  # the examples do use flags


def test_flags_in_readme_commands_exist() -> None:
    """Every `judge ...` line of README.md names a real command, and its --flags exist."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```[a-z]*\n(.*?)```", readme, flags=re.S)
    commands: list[str] = []
    for block in blocks:
        for raw in block.splitlines():
            line = raw.rstrip()  # flags in a trailing comment are checked too
            for part in re.split(r"&&|;", line):
                part = part.strip()
                if part.startswith(".venv/bin/"):
                    part = part[len(".venv/bin/") :]
                if part.startswith("judge "):
                    commands.append(part)
                elif commands and raw.startswith(" ") and part.startswith(("[", "--")):
                    commands[-1] += " " + part  # a synopsis continued on the next line
    group = typer.main.get_command(app)
    assert len(commands) > 20
    for text in commands:
        words = text.split()[1:]
        cmd = group
        while hasattr(cmd, "commands"):
            default = getattr(cmd, "default_command", None)  # `judge label RUN` = `label serve`
            if default and words and words[0] not in cmd.commands:
                words.insert(0, default)
            assert words and words[0] in cmd.commands, text
            cmd = cmd.commands[words.pop(0)]
        known = {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)}
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", " ".join(words)):
            assert flag in known, (text, flag)


def test_top_level_help_has_an_example() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "Example: judge run fixtures/bench --out runs/fx" in result.output


def test_flags_show_no_bool_type_label_but_valued_options_keep_theirs() -> None:
    group = typer.main.get_command(app)
    for path in [(), *_commands(group)]:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, path
        assert "<bool>" not in result.output, path
    run_help = runner.invoke(app, ["run", "--help"], terminal_width=200).output
    assert "<int>" in run_help  # --rounds still says it takes an integer
    early = next(line for line in run_help.splitlines() if "--early-stop" in line)
    assert "<" not in early.split("--early-stop", 1)[1].split("Judge", 1)[0]
