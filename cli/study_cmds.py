"""CLI commands: studies of finished runs (leaderboard, compare, findings, agree, report)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from cli.base import app, guarded
from scoring.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from scoring.leaderboard import DEFAULT_TOP_K


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


class TextFormat(StrEnum):
    text = "text"
    json = "json"


RunArg = Annotated[
    Path,
    typer.Argument(help="Run directory (output of `judge run`).", show_default=False),
]

ResultsOpt = Annotated[
    str | None,
    typer.Option(
        "--results",
        help="Results file of the run to read instead of results.jsonl, e.g. a rescored "
        "results.<policy>.<hash8>.jsonl (a name in the run folder, or a path).",
        show_default=False,
    ),
]


@app.command("leaderboard")
def leaderboard_cmd(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="One or more run directories; their cases are pooled (a case may appear once).",
            show_default=False,
        ),
    ],
    fmt: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.table,
    resamples: Annotated[
        int, typer.Option(help="Bootstrap resamples of the tasks.", min=1)
    ] = DEFAULT_RESAMPLES,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap generator.")] = DEFAULT_SEED,
    top_k: Annotated[
        int, typer.Option("--top-k", "-k", help="k of the top-k membership probability.", min=1)
    ] = DEFAULT_TOP_K,
    results: ResultsOpt = None,
    allow_incomplete: Annotated[
        bool,
        typer.Option(
            "--allow-incomplete",
            help="Rank even when cases errored (the judge could not decide them); affected "
            "configurations are marked 'incomplete'.",
        ),
    ] = False,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Split into one leaderboard per complexity tier: --by tier."),
    ] = None,
    tier_cuts: Annotated[
        str | None,
        typer.Option(
            "--tier-cuts",
            help="Tier cut-offs of the complexity score, e.g. 0.33,0.66 (default: tertiles "
            "of the benchmark's own scores).",
        ),
    ] = None,
) -> None:
    """Rank configurations by mean score, with a paired task bootstrap of the ranking.

    Invalid and gated cases score 0. A run with errored cases (the judge's failures) is
    refused, naming them, unless --allow-incomplete: then they are left out of the means and
    every affected configuration is marked.
    --results reads a rescored file (judge rescore) of each run instead of results.jsonl.
    The table ends with the object audit (share of decks without connectors, median
    connectors).

    Example: judge leaderboard runs/main --format table --resamples 10000 --seed 0

    Example: judge leaderboard runs/main --results results.equal-weights.1a2b3c4d.jsonl

    Example: judge leaderboard runs/main --allow-incomplete

    Example: judge leaderboard runs/main --by tier
    """
    from cli.protocol_cmds import audit_text, tier_boards_text
    from scoring.leaderboard import (
        build_leaderboard,
        check_complete,
        leaderboard_csv,
        leaderboard_json,
        leaderboard_table,
        load_cases,
    )

    def go() -> str:
        cases = load_cases(runs, results)
        if not allow_incomplete:
            check_complete(cases)

        if by is not None:
            return tier_boards_text(cases, runs, by, tier_cuts, resamples, seed, top_k, fmt.value)
        board = build_leaderboard(cases, n_resamples=resamples, seed=seed, top_k=top_k, runs=runs)
        if fmt is Format.csv:
            return leaderboard_csv(board).rstrip("\n")
        if fmt is Format.json:
            return leaderboard_json(board)
        return leaderboard_table(board) + audit_text(cases, runs)

    typer.echo(guarded(go))


@app.command("compare")
def compare_cmd(
    run: RunArg,
    a: Annotated[str, typer.Argument(help="First configuration id.", show_default=False)],
    b: Annotated[str, typer.Argument(help="Second configuration id.", show_default=False)],
    fmt: Annotated[TextFormat, typer.Option("--format", help="Output format.")] = TextFormat.text,
    results: ResultsOpt = None,
    paired: Annotated[
        bool,
        typer.Option(
            "--paired",
            help="Mean paired difference A - B over shared tasks with a seeded task-bootstrap "
            "95% interval, for S and each ReFigBench axis.",
        ),
    ] = False,
    refigbench: Annotated[
        Path | None,
        typer.Option("--refigbench", help="With --paired: a ReFigBench run of the same cases."),
    ] = None,
    resamples: Annotated[
        int, typer.Option(help="With --paired: bootstrap resamples.", min=1)
    ] = DEFAULT_RESAMPLES,
    seed: Annotated[int, typer.Option(help="With --paired: bootstrap seed.")] = DEFAULT_SEED,
) -> None:
    """Compare two configurations on the tasks both pass; list tasks gained and lost.

    Differences are A minus B; "gained" are tasks B passes and A does not.

    Example: judge compare runs/main gpt-small gpt-large

    Example: judge compare runs/main gpt-small gpt-large --paired --refigbench runs/refig
    """
    from scoring.leaderboard import compare_configs, comparison_text, load_cases

    if paired:
        from cli.protocol_cmds import paired_output

        typer.echo(
            guarded(lambda: paired_output(run, a, b, refigbench, resamples, seed, fmt.value))
        )
        return

    def go() -> str:
        cmp = compare_configs(load_cases([run], results), a, b)
        return (
            json.dumps(cmp.to_dict(), indent=2) if fmt is TextFormat.json else comparison_text(cmp)
        )

    typer.echo(guarded(go))


@app.command("findings")
def findings_cmd(
    run: RunArg,
    fmt: Annotated[TextFormat, typer.Option("--format", help="Output format.")] = TextFormat.text,
    results: ResultsOpt = None,
) -> None:
    """Findings analytics: per subtype, per dimension and per stage.

    Example: judge findings runs/main --results results.equal-weights.1a2b3c4d.jsonl
    """
    from scoring.findings_stats import findings_json, findings_report, findings_text
    from scoring.leaderboard import load_cases

    def go() -> str:
        rep = findings_report(load_cases([run], results))
        return findings_json(rep) if fmt is TextFormat.json else findings_text(rep)

    typer.echo(guarded(go))


@app.command("agree")
def agree_cmd(
    run: RunArg,
    labels: Annotated[
        Path,
        typer.Option(
            "--labels",
            help="CSV with columns case_id,annotator,gate,subtypes (gate pass|fail, "
            "subtypes ;-separated).",
            show_default=False,
        ),
    ],
    second_run: Annotated[
        Path | None,
        typer.Option("--second-run", help="A second run of the same cases (repeatability)."),
    ] = None,
    fmt: Annotated[TextFormat, typer.Option("--format", help="Output format.")] = TextFormat.text,
    results: ResultsOpt = None,
) -> None:
    """Agreement of the judge with human labels, among annotators, and across rounds/runs.

    Labels for cases the run does not have are listed and skipped (a subset run compares with
    the full label file). With one annotator the between-annotator figures are not measured;
    with a deterministic judge (builtin) round repeatability is not measured.

    Example: judge agree runs/main --labels fixtures/labels.csv --second-run runs/again
    """
    from scoring.agreement import (
        agreement_report,
        agreement_text,
        copied_rounds_reason,
        read_labels,
        run_subtypes,
    )
    from scoring.leaderboard import load_cases

    def go() -> str:
        cases = load_cases([run], results)
        labs = read_labels(labels, known_subtypes=run_subtypes(run))
        second = load_cases([second_run]) if second_run is not None else None
        rep = agreement_report(
            cases,
            labs,
            labels_file=str(labels),
            second=second,
            second_run_path=str(second_run) if second_run is not None else None,
            rounds_copied=copied_rounds_reason(run),
        )
        return (
            json.dumps(rep.to_dict(), indent=2) if fmt is TextFormat.json else agreement_text(rep)
        )

    typer.echo(guarded(go))


@app.command("report")
def report_cmd(
    run: RunArg,
    out: Annotated[
        Path,
        typer.Option("--out", help="Folder to write the HTML report into.", show_default=False),
    ],
    resamples: Annotated[
        int, typer.Option(help="Bootstrap resamples for the leaderboard intervals.", min=1)
    ] = DEFAULT_RESAMPLES,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap generator.")] = DEFAULT_SEED,
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="Human labels CSV: add the agreement statistics."),
    ] = None,
    refigbench: Annotated[
        Path | None,
        typer.Option(
            "--refigbench", help="A ReFigBench run of the same candidates: protocols side by side."
        ),
    ] = None,
    results: ResultsOpt = None,
) -> None:
    """Write a static HTML report (opens from disk, no server): leaderboard, plots, case pages.

    Example: judge report runs/main --out report/ --labels fixtures/labels.csv

    Example: judge report runs/main --out report/ --refigbench runs/refig

    Example: judge report runs/main --out report-ew/ --results results.equal-weights.1a2b3c4d.jsonl
    """
    from scoring.report import write_report

    def go() -> Path:
        return write_report(
            run,
            out,
            n_resamples=resamples,
            seed=seed,
            labels=labels,
            refigbench=refigbench,
            results=results,
        )

    index = guarded(go)
    typer.echo(f"wrote {index}")
