"""The shared typer app and the error boundary every command goes through."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer
from pydantic import ValidationError
from typer.core import TyperOption

from judge.errors import PptJudgeError

APP_HELP = """pptjudge: judge editable PowerPoint reconstructions of raster diagrams (PPTBench).

Example: judge run fixtures/bench --out runs/fx && judge leaderboard runs/fx

Every command has --help with an example (judge run --help, judge tools --help).

Exit codes: 0 ok, 1 negative answer (invalid deck, replay mismatch), 2 could not do what was
asked (bad input), 3 judge run finished but some cases errored.
"""

app = typer.Typer(
    name="judge",
    help=APP_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

T = TypeVar("T")

_typed_label = TyperOption.display_type_rich


def _label_without_flags(self: TyperOption, ctx: Any) -> str | None:
    """The type column of rich help: nothing for an on/off flag (it takes no value), where
    typer would print ``<bool>``; every other option keeps its label (``<int>``, ``<path>``)."""
    if self.is_bool_flag:
        return None
    return _typed_label(self, ctx)


TyperOption.display_type_rich = _label_without_flags  # type: ignore[method-assign]

EXIT_OK = 0
EXIT_FAIL = 1
"""Ran fine, and the answer is negative (invalid artifact, mismatching replay, ...)."""
EXIT_ERROR = 2
"""Could not do what was asked (bad input, missing file, broken configuration)."""
EXIT_ERRORED = 3
"""``judge run`` finished, but some cases errored (a script can tell "all judged" apart)."""


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    """Print one plain error line to stderr and exit."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def guarded(fn: Callable[[], T]) -> T:
    """Call ``fn``; turn project errors and validation errors into plain messages, exit 2."""
    try:
        return fn()
    except PptJudgeError as exc:
        fail(str(exc))
    except ValidationError as exc:
        from judge.rundir import first_problem

        fail(f"invalid {exc.title}: {first_problem(exc)}")
    except OSError as exc:  # a path the user gave is a folder, unreadable, on a full disk, ...
        reason = exc.strerror or str(exc)
        fail(f"{exc.filename}: {reason}" if exc.filename else reason)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
