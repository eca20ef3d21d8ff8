"""CLI command: ``judge behaviour`` (agent behaviour joined with judged scores)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.base import app, guarded


@app.command("behaviour")
def behaviour_cmd(
    run: Annotated[Path, typer.Argument(help="Run directory (output of `judge run`).")],
    bench: Annotated[
        Path | None,
        typer.Option("--bench", help="Benchmark with generation/ (default: the run's bench)."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    results: Annotated[
        str | None,
        typer.Option(
            "--results",
            help="Results file of the run instead of results.jsonl (a rescored "
            "results.<policy>.<hash8>.jsonl).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Per configuration: mean reviews and revisions per task, score, cost, cost per point.

    Joins the run's scores with the generation records `judge generate` wrote, and prints the
    Pearson and Spearman correlation of mean reviews and of mean revisions with mean score
    across configurations (at least 3 configurations).

    Example: judge behaviour runs/main
    """
    from scoring.behaviour import behaviour_json, behaviour_table, run_behaviour

    rep = guarded(lambda: run_behaviour(run, bench, results))
    typer.echo(behaviour_json(rep) if json_out else behaviour_table(rep))
