"""CLI commands: ``judge run`` (judge a benchmark) and ``judge replay`` (re-execute a case)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.base import EXIT_ERRORED, EXIT_FAIL, app, fail, guarded
from scoring.policy import PRESETS

if TYPE_CHECKING:
    from judge.engine.runner import RunSummary

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""
MAX_DIFFS_SHOWN = 20
"""Differing tool results printed by ``judge replay`` before the rest are counted."""
MAX_CHANGES_SHOWN = 12
"""JSON paths printed per differing tool result by ``judge replay``."""
MAX_ERROR_GROUPS = 10
"""Causes of errored cases listed by ``judge run`` before the rest are counted."""


@app.command("run")
def run_cmd(
    bench: Annotated[Path, typer.Argument(help="Benchmark folder (tasks/, candidates/).")],
    out: Annotated[Path, typer.Option("--out", help="Run folder to create or resume.")],
    rounds: Annotated[int, typer.Option("--rounds", help="Independent rounds per case.")] = 3,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Backend: openai, replay or builtin. Default: openai when a model endpoint is "
            "configured (--base-url/--model or OPENAI_BASE_URL), else builtin.",
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Rounds judged at the same time (across cases).")
    ] = 2,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", help="LibreOffice instances (per Ray worker with --executor ray)."
        ),
    ] = 1,
    render_timeout: Annotated[
        float, typer.Option("--render-timeout", help="Seconds LibreOffice may spend on a deck.")
    ] = 60.0,
    dpi: Annotated[
        int | None, typer.Option("--dpi", help="Render resolution (default: the renderer's).")
    ] = None,
    early_stop: Annotated[
        bool,
        typer.Option(
            "--early-stop",
            help="Judge a case's rounds in order; skip rounds that cannot change its result.",
        ),
    ] = False,
    max_cost: Annotated[
        float | None,
        typer.Option("--max-cost", help="Stop starting new rounds once this many USD are spent."),
    ] = None,
    taxonomy: Annotated[
        Path | None, typer.Option("--taxonomy", help="Taxonomy YAML (default: packaged).")
    ] = None,
    policy: Annotated[
        list[str] | None,
        typer.Option("--policy", help=f"Policy preset, repeatable: {', '.join(PRESETS)}."),
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name (openai).")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint URL.")
    ] = None,
    api_key: Annotated[
        str | None, typer.Option("--api-key", help="API key (default: OPENAI_API_KEY).")
    ] = None,
    temperature: Annotated[float, typer.Option("--temperature")] = 0.0,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Per model answer.")] = 2048,
    timeout: Annotated[float, typer.Option("--timeout", help="Per request, seconds.")] = 120.0,
    retries: Annotated[
        int, typer.Option("--retries", help="Retries on 429/5xx/timeouts (capped backoff).")
    ] = 4,
    price_input: Annotated[
        float | None, typer.Option("--price-input", help="USD per 1M input tokens.")
    ] = None,
    price_output: Annotated[
        float | None, typer.Option("--price-output", help="USD per 1M output tokens.")
    ] = None,
    prices: Annotated[
        Path | None,
        typer.Option(
            "--prices", help='Price table JSON: {"<model>": {"input": .., "output": ..}}.'
        ),
    ] = None,
    replay_from: Annotated[
        Path | None,
        typer.Option(
            "--replay-from", help="replay: a run folder, a case folder or one script file."
        ),
    ] = None,
    max_tool_calls: Annotated[
        int, typer.Option("--max-tool-calls", help="Measurement tool calls per stage.")
    ] = 16,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the model-call cache.")
    ] = False,
    judge_sandbox: Annotated[
        bool,
        typer.Option(
            "--judge-sandbox",
            help="Offer the model judge run_python: its own OpenCV/numpy/Pillow scripts on "
            "read-only reference.png, render.png, pair.png, sandboxed; counts in the tool budget.",
        ),
    ] = False,
    retry_errors: Annotated[
        bool,
        typer.Option(
            "--retry-errors/--keep-errors",
            help="On resume, judge again the cases recorded with an error (errored rounds).",
        ),
    ] = True,
    protocol: Annotated[
        str,
        typer.Option(
            "--protocol",
            help="pptbench (gates + taxonomy, default) or refigbench (gate, five rubric axes, "
            "raster-paste cap). Example: --protocol refigbench",
        ),
    ] = "pptbench",
    rubric: Annotated[
        Path | None,
        typer.Option("--rubric", help="ReFigBench rubric YAML (default: packaged)."),
    ] = None,
    lpips_weights: Annotated[
        Path | None,
        typer.Option(
            "--lpips-weights",
            help="Local LPIPS(alex) state dict: adds LPIPS to the fidelity diagnostics "
            "(needs torch and lpips; nothing is downloaded).",
        ),
    ] = None,
    rate_limit: Annotated[
        float | None,
        typer.Option(
            "--rate-limit",
            help="Model requests per minute across the whole run (all Ray workers), evenly "
            "spaced. Example: --rate-limit 500",
        ),
    ] = None,
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            help="Where cases are judged: local (this process) or ray (Ray actors; needs "
            "pip install 'pptjudge[ray]'). Example: --executor ray --ray-workers 4",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help="Ray cluster to join (with --executor ray), e.g. --address auto or "
            "--address ray://head:10001. Default: start a local Ray instance.",
        ),
    ] = None,
    ray_workers: Annotated[
        int | None,
        typer.Option(
            "--ray-workers",
            help="Ray worker actors, each with --workers LibreOffice instances "
            "(default: one per CPU of the cluster). Example: --ray-workers 8",
        ),
    ] = None,
    case_retries: Annotated[
        int,
        typer.Option(
            "--case-retries",
            help="Times a case is started again on another Ray worker after its worker was "
            "lost. Example: --case-retries 3",
        ),
    ] = 2,
) -> None:
    """Judge every candidate of a benchmark: Stage 0, render, R rounds, score.

    Writes RUN/run.json, one folder per case and RUN/results.jsonl (one line per case).
    Rerunning the same command resumes: finished cases and rounds are not redone.
    Exit codes: 0 every case judged, 2 could not run (bad flags, malformed replay script:
    FILE:LINE), 3 the run finished but some cases errored (listed by cause).

    Example: judge run bench/ --rounds 3 --judge openai --model gpt-4o --out runs/gpt4o

    Example: judge run bench/ --protocol refigbench --out runs/refig
    """
    from judge.backends import BackendSettings, Prices, default_backend_name, load_prices
    from judge.engine.agent import Budgets
    from judge.engine.runner import Progress, RunSettings, run_bench
    from scoring.policy import resolve_policy

    def build() -> RunSettings:
        price = Prices(price_input, price_output)
        if prices is not None:
            price = load_prices(prices, model)
        backend = BackendSettings(
            model=model,
            base_url=base_url,
            api_key=api_key,
            temperature=temperature,
            max_tokens=max_tokens,
            timeout_s=timeout,
            retries=retries,
            prices=price,
            replay_source=str(replay_from) if replay_from else None,
        )
        name = judge
        if name is None:
            name = default_backend_name(backend)
            if name == "builtin":
                typer.echo(
                    "note: no model endpoint configured (--base-url/--model or "
                    "OPENAI_BASE_URL): using the builtin judge",
                    err=True,
                )
        return RunSettings(
            judge=name,
            backend=backend,
            rounds=rounds,
            concurrency=concurrency,
            workers=workers,
            render_timeout_s=render_timeout,
            dpi=dpi,
            early_stop=early_stop,
            max_cost_usd=max_cost,
            taxonomy_path=taxonomy,
            policy=resolve_policy(policy or []),
            budgets=Budgets(max_tool_calls=max_tool_calls),
            cache=not no_cache,
            retry_errors=retry_errors,
            judge_sandbox=judge_sandbox,
            protocol=protocol,  # type: ignore[arg-type]  # checked by check_settings
            rubric_path=rubric,
            lpips_weights=lpips_weights,
            rate_limit=rate_limit,
            executor=executor,
            ray_address=address,
            ray_workers=ray_workers,
            case_retries=case_retries,
        )

    settings = guarded(build)
    from tqdm import tqdm

    bar: tqdm | None = None
    counts: dict[str, int] = {}

    def on_start(total: int, done: int) -> None:
        nonlocal bar
        bar = tqdm(total=total, initial=done, unit="case", file=sys.stderr, dynamic_ncols=True)

    def on_note(text: str) -> None:
        typer.echo(f"note: {text}", err=True)

    def on_case(cand: object, result: object) -> None:
        if bar is None:
            return
        key = "unfinished" if result is None else (getattr(result, "gate", None) or "error")
        counts[key] = counts.get(key, 0) + 1
        bar.set_postfix(counts, refresh=False)
        bar.update(1)

    def run() -> RunSummary:
        try:
            progress = Progress(on_start=on_start, on_case=on_case, on_note=on_note)
            return run_bench(bench, out, settings, progress)
        except KeyboardInterrupt:
            # Every file is written atomically: stop now instead of waiting for rounds in flight.
            if bar is not None:
                bar.close()
            typer.echo(f"interrupted: rerun the same command to resume {out}", err=True)
            sys.stderr.flush()
            sys.stdout.flush()
            os._exit(EXIT_INTERRUPTED)

    try:
        summary = guarded(run)
    finally:
        if bar is not None:
            bar.close()
    for line in summary_lines(summary):
        typer.echo(line)
    for note in summary.executor_notes:
        typer.echo(note if note.startswith("ray:") else f"ray: {note}")
    if summary.stopped:
        typer.echo(f"stopped: {summary.stopped}", err=True)
    for line in error_lines(summary):
        typer.echo(line, err=True)
    typer.echo(f"results: {summary.results}")
    if summary.errors:
        raise typer.Exit(EXIT_ERRORED)


def summary_lines(summary: RunSummary) -> list[str]:
    """The end-of-run summary: cases, then rounds, calls and cost of this invocation."""
    gates = ", ".join(f"{n} {g}" for g, n in sorted(summary.gates.items())) or "none"
    u = summary.usage
    rounds = f"rounds: {summary.rounds_judged} judged"
    if summary.rounds_copied:
        rounds += f", {summary.rounds_copied} copied from round 0 ({summary.copy_reason})"
    if summary.rounds_skipped:
        rounds += f", {summary.rounds_skipped} skipped (early stop)"
    if summary.cost_free:
        cost = f"none ({summary.cost_free})"
    elif u.cost_usd is None:
        cost = "unknown (no prices: give --price-input/--price-output or --prices FILE)"
    else:
        cost = f"${u.cost_usd:.4f}"
    return [
        f"judged {summary.judged} case(s), reused {summary.reused}, of {summary.cases} "
        f"in {summary.seconds:.1f} s; gates: {gates}; errors: {summary.errors}",
        f"{rounds}; model calls: {u.model_calls} ({u.cached_calls} cached); tokens in/out: "
        f"{u.input_tokens}/{u.output_tokens}; cost: {cost}",
    ]


def error_lines(summary: RunSummary) -> list[str]:
    """Errored cases grouped by cause, with the first case of each (exit code 3 follows)."""
    if not summary.errors:
        return []
    lines = [f"{summary.errors} case(s) errored (exit code {EXIT_ERRORED}), by cause:"]
    for g in summary.error_groups[:MAX_ERROR_GROUPS]:
        more = f" and {len(g.cases) - 1} more" if len(g.cases) > 1 else ""
        lines.append(f"  {len(g.cases)} x {g.cause}  [first: {g.cases[0]}{more}]")
    if len(summary.error_groups) > MAX_ERROR_GROUPS:
        lines.append(f"  ... and {len(summary.error_groups) - MAX_ERROR_GROUPS} more causes")
    lines.append("  (their details are in results.jsonl; rerunning retries errored cases)")
    return lines


@app.command("replay")
def replay_cmd(
    case: Annotated[Path, typer.Argument(help="A case folder of a run (RUN/cases/CFG/TASK).")],
    round_index: Annotated[
        int | None, typer.Option("--round", help="Replay only this round (default: all).")
    ] = None,
    taxonomy: Annotated[
        Path | None, typer.Option("--taxonomy", help="Taxonomy YAML (default: the run's).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Re-execute a case's recorded tool calls and re-derive its verdicts and score.

    Reports every tool result that now differs from the recording; exit 1 when anything
    (tool results, verdicts, score) is not reproduced.

    Example: judge replay runs/gpt4o/cases/cfgA/task07 --round 1
    """
    from judge.engine.verify import replay_case

    if not case.is_dir():
        fail(f"{case}: no such case folder")
    rep = guarded(lambda: replay_case(case, round_index, taxonomy))
    rec, new = rep.recorded, rep.replayed
    if json_out:
        typer.echo(
            json.dumps(
                {
                    "case": str(rep.case_dir),
                    "rounds": rep.rounds,
                    "reproduced": rep.reproduced,
                    "tool_diffs": [{**d.__dict__, "changes": d.changes} for d in rep.tool_diffs],
                    "verdict_diffs": rep.verdict_diffs,
                    "recorded": rec.model_dump(mode="json") if rec else None,
                    "replayed": new.model_dump(mode="json"),
                },
                indent=2,
            )
        )
    else:
        typer.echo(f"{rep.case_dir}: replayed round(s) {', '.join(map(str, rep.rounds))}")
        for d in rep.tool_diffs[:MAX_DIFFS_SHOWN]:
            changes = d.changes
            where = f"round {d.round_index} {d.stage} {d.tool_name} (call {d.call_index})"
            typer.echo(f"  DIFF {where}:")
            for line in changes[:MAX_CHANGES_SHOWN]:
                typer.echo(f"    {line}")
            if len(changes) > MAX_CHANGES_SHOWN:
                typer.echo(f"    ... and {len(changes) - MAX_CHANGES_SHOWN} more differences")
        if len(rep.tool_diffs) > MAX_DIFFS_SHOWN:
            typer.echo(f"  ... and {len(rep.tool_diffs) - MAX_DIFFS_SHOWN} more differing results")
        for line in rep.verdict_diffs:
            typer.echo(f"  VERDICT {line}")
        before = f"gate {rec.gate}, score {rec.score}" if rec else "no case.json recorded"
        typer.echo(f"  recorded: {before}")
        typer.echo(f"  replayed: gate {new.gate}, score {new.score}, rounds {new.rounds}")
        typer.echo("reproduced" if rep.reproduced else "NOT reproduced")
    if not rep.reproduced:
        raise typer.Exit(EXIT_FAIL)
