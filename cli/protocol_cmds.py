"""CLI commands of the sibling protocols: ``judge prefs export|fit``, ``judge taxonomy
validate-rubric``, and the helpers ``judge leaderboard --by tier`` / ``judge compare --paired``
call."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from cli.base import app, guarded
from cli.taxonomy_cmds import taxonomy_app
from judge.errors import BenchmarkError
from judge.schema import CaseResult

prefs_app = typer.Typer(
    help="Pairwise human preferences: blinded A/B pairs out, Bradley-Terry ratings in.",
    no_args_is_help=True,
)
app.add_typer(prefs_app, name="prefs")


def audit_text(cases: Sequence[CaseResult], runs: Sequence[Path]) -> str:
    """The object audit table (empty when no case has one), for the leaderboard's table."""
    from scoring.audit import AuditRow, audit_rows, audit_table

    unique: dict[str, AuditRow] = {}
    for run in runs:
        for row in audit_rows(cases, Path(run)):
            unique.setdefault(row.case_id, row)
    if not unique:
        return ""
    return (
        "\n\nobject audit (ReFigBench): decks without a native connector, median connectors\n"
        + audit_table(list(unique.values()))
    )


def tier_boards_text(
    cases: Sequence[CaseResult],
    runs: Sequence[Path],
    by: str,
    cuts: str | None,
    resamples: int,
    seed: int,
    top_k: int,
    fmt: str,
) -> str:
    from scoring.leaderboard import leaderboard_csv, leaderboard_json, leaderboard_table
    from scoring.tiers import parse_cuts, task_complexity, tier_leaderboards

    if by != "tier":
        raise BenchmarkError(f"--by takes tier, not {by!r}")
    boards = tier_leaderboards(
        cases, runs, parse_cuts(cuts), n_resamples=resamples, seed=seed, top_k=top_k
    )
    n_tasks = {t: b.tasks for t, b in boards.items()}
    if fmt == "json":
        data: dict[str, object] = {t: json.loads(leaderboard_json(b)) for t, b in boards.items()}
        data["complexity"] = {k: v.model_dump() for k, v in task_complexity(cases, runs).items()}
        return json.dumps(data, indent=2)
    parts = []
    for tier, board in boards.items():
        if fmt == "csv":
            body = leaderboard_csv(board).rstrip("\n")
            parts.append("\n".join(f"{tier},{line}" for line in body.splitlines()))
        else:
            parts.append(f"== tier {tier} ({n_tasks[tier]} tasks) ==\n{leaderboard_table(board)}")
    return "\n\n".join(parts)


def paired_output(
    run: Path, a: str, b: str, refig: Path | None, resamples: int, seed: int, fmt: str
) -> str:
    from scoring.leaderboard import load_cases
    from scoring.paired import paired_compare, paired_text

    cases = load_cases([run])
    refig_cases = load_cases([refig]) if refig is not None else None
    cmp = paired_compare(cases, a, b, refig_cases, resamples=resamples, seed=seed)
    return json.dumps(asdict(cmp), indent=2) if fmt == "json" else paired_text(cmp)


@prefs_app.command("export")
def prefs_export_cmd(
    run: Annotated[Path, typer.Argument(help="Run directory.", show_default=False)],
    out: Annotated[
        Path, typer.Option("--out", help="Folder for pairs.csv and images/.", show_default=False)
    ],
    key: Annotated[
        Path | None,
        typer.Option("--key", help="Where the unblinding key goes (default: OUT-key.csv)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the side and order draws.")] = 20240607,
) -> None:
    """Write blinded A/B pairs: reference | A | B images, random sides, no config names.

    OUT/pairs.csv lists pair_id,task_id,image; the key (pair_id,task_id,config_a,config_b) is
    written outside OUT. Labellers answer pair_id,winner (a, b or tie).

    Example: judge prefs export runs/main --out pairs/ --seed 1
    """
    from scoring.prefs import export_pairs

    summary = guarded(lambda: export_pairs(run, out, key, seed))
    typer.echo(
        f"wrote {summary.pairs} pairs over {summary.tasks} tasks to {summary.out}/pairs.csv; "
        f"key: {summary.key}"
    )


@prefs_app.command("fit")
def prefs_fit_cmd(
    prefs: Annotated[
        Path,
        typer.Argument(
            help="CSV task_id,config_a,config_b,winner (a|b|tie), or pair_id,winner with --key.",
            show_default=False,
        ),
    ],
    key: Annotated[
        Path | None, typer.Option("--key", help="The export's key, to unblind pair_id rows.")
    ] = None,
    run: Annotated[
        Path | None, typer.Option("--run", help="A run: Kendall tau against its ranking.")
    ] = None,
    prior: Annotated[
        float,
        typer.Option(
            help="Virtual ties between every two configs (keeps ratings finite; 0 = plain MLE)."
        ),
    ] = 0.5,
    resamples: Annotated[int, typer.Option(help="Task bootstrap resamples.", min=1)] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap generator.")] = 20240607,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Fit Bradley-Terry ratings (Elo scale, mean 1000) with task-bootstrap intervals.

    Ties count half a win to each side; the side a config was shown on plays no part.

    Example: judge prefs fit prefs.csv --run runs/main --resamples 1000 --seed 0
    """
    from scoring.prefs import fit_bradley_terry, fit_text, judge_means, read_preferences

    def go() -> str:
        rows = read_preferences(prefs, key)
        scores = judge_means(run) if run is not None else None
        fit = fit_bradley_terry(
            rows, prior=prior, resamples=resamples, seed=seed, judge_scores=scores
        )
        return json.dumps(asdict(fit), indent=2) if fmt == "json" else fit_text(fit)

    typer.echo(guarded(go))


@taxonomy_app.command("validate-rubric")
def validate_rubric_cmd(
    path: Annotated[
        Path | None, typer.Argument(help="Rubric YAML (default: the packaged refigbench.yaml).")
    ] = None,
) -> None:
    """Validate a ReFigBench rubric file; print its axes, cap and hash.

    Example: judge taxonomy validate-rubric taxonomy/refigbench.yaml
    """
    from taxonomy.rubric import DEFAULT_RUBRIC, load_rubric, rubric_hash

    rubric = guarded(lambda: load_rubric(path))
    typer.echo(f"{rubric.name} {rubric.version}  ({path or DEFAULT_RUBRIC})")
    typer.echo(f"hash {rubric_hash(rubric)}")
    typer.echo("gate: " + ", ".join(rubric.gate))
    for axis in rubric.axes:
        typer.echo(f"  {axis.name}: {axis.max_points:g} points, {len(axis.levels)} anchors")
    cap = rubric.cap
    typer.echo(
        f"cap: pictures >= {cap.picture_area_min:.0%} of the canvas with <= "
        f"{cap.max_native_objects} native objects -> at most {cap.cap_score:g}"
    )
    typer.echo("pptjudge's choices: " + ", ".join(rubric.choices))
