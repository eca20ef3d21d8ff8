"""CLI commands: rescore."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.base import EXIT_FAIL, app, guarded
from scoring.policy import PRESETS

MAX_LISTED = 20
"""Mismatches/errors printed before the rest are summarised (the report keeps them all)."""


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


@app.command("rescore")
def rescore_cmd(
    run: Annotated[
        Path, typer.Argument(help="Run directory (output of `judge run`).", show_default=False)
    ],
    taxonomy: Annotated[
        Path | None,
        typer.Option(
            "--taxonomy", help="Taxonomy YAML to score with; default: the run's own taxonomy."
        ),
    ] = None,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            help=f"Policy preset, repeatable to combine: {', '.join(PRESETS)}. "
            "Default: the run's policy.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", min=1, help="Processes sharing the cases; default: one per CPU core."
        ),
    ] = None,
) -> None:
    """Recompute every case of a finished run from its frozen round files (no model call).

    With the run's own taxonomy and policy every recorded score must come back exactly (exit 1
    if not). Otherwise writes results.<policy>.<hash8>.jsonl beside results.jsonl and prints
    each configuration's mean S before and after and Kendall's tau of the two rankings.

    Example: judge rescore runs/main --taxonomy my-taxonomy.yaml --policy unit-multiplier
    """
    from scoring.rescore import rescore_run

    rep = guarded(lambda: rescore_run(run, taxonomy, policy or [], workers))
    typer.echo(
        f"rescored {len(rep.lines)} cases of {run} in {rep.seconds:.2f} s: taxonomy "
        f"{rep.taxonomy_version} ({rep.taxonomy_hash[:8]}, from {rep.taxonomy_source}), "
        f"policy {rep.policy.name}"
    )
    if rep.identity:
        n_ok = len(rep.lines) - len(rep.mismatches)
        typer.echo(
            f"original taxonomy and policy: {n_ok}/{len(rep.lines)} results reproduced exactly"
        )
        for line in rep.mismatches[:MAX_LISTED]:
            typer.echo(f"  MISMATCH {line}")
        if len(rep.mismatches) > MAX_LISTED:
            typer.echo(f"  ... and {len(rep.mismatches) - MAX_LISTED} more")
        if rep.mismatches:
            raise typer.Exit(EXIT_FAIL)
        return
    split = (
        f"; {rep.split_changed} more changed only their layout/text/graphics split "
        "(same gate and score)"
        if rep.split_changed
        else ""
    )
    typer.echo(
        f"was taxonomy {rep.recorded_taxonomy_hash[:8]}, policy {rep.recorded_policy.name}; "
        f"{rep.score_changed} of {len(rep.lines)} cases changed score or gate{split}"
    )
    if rep.one_sided:
        typer.echo(
            f"{len(rep.one_sided)} cases scored on one side only, left out of the deltas below:"
        )
        for line in rep.one_sided[:MAX_LISTED]:
            typer.echo(f"  {line}")
        if len(rep.one_sided) > MAX_LISTED:
            typer.echo(f"  ... and {len(rep.one_sided) - MAX_LISTED} more")
    width = max([len("config"), *(len(c.config_id) for c in rep.configs)])
    typer.echo(
        f"{'config':<{width}}  {'cases':>5}  {'compared':>8}  {'mean S before':>13}  "
        f"{'after':>7}  {'delta':>7}   (means over the cases scored on both sides)"
    )
    for c in rep.configs:
        typer.echo(
            f"{c.config_id:<{width}}  {c.cases:>5}  {c.compared:>8}  {_fmt(c.mean_before):>13}  "
            f"{_fmt(c.mean_after):>7}  {_fmt(c.delta):>7}"
        )
    tau = (
        "n/a (fewer than two ranked configurations)"
        if rep.kendall_tau is None
        else (f"{rep.kendall_tau:.3f}")
    )
    typer.echo(f"Kendall tau of the configuration ranking, before vs after: {tau}")
    if rep.errors:
        typer.echo(f"{len(rep.errors)} cases could not be scored:")
        for line in rep.errors[:MAX_LISTED]:
            typer.echo(f"  {line}")
        if len(rep.errors) > MAX_LISTED:
            typer.echo(f"  ... and {len(rep.errors) - MAX_LISTED} more")
    typer.echo(f"wrote {rep.output}")
    if rep.output is not None:
        typer.echo(f"study it with: judge leaderboard {run} --results {rep.output.name}")
