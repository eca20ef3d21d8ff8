"""CLI commands: synth (synthetic benchmarks) and generate (the generation agent)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from cli.base import app, fail, guarded


@app.command("synth")
def synth_cmd(
    out: Annotated[Path, typer.Argument(help="Benchmark directory to write.")],
    seed: Annotated[
        int, typer.Option("--seed", help="Seed: the same seed writes the same files.")
    ] = 7,
    tasks: Annotated[int, typer.Option("--tasks", min=1, help="Number of tasks (diagrams).")] = 3,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the generated parts of an existing OUT.")
    ] = False,
    config: Annotated[
        list[str] | None,
        typer.Option(
            "--config",
            help="CONFIG=VARIANT,VARIANT,... (repeatable); replaces the default configurations.",
        ),
    ] = None,
    list_variants: Annotated[
        bool, typer.Option("--list-variants", help="Print the variants and their gates, then stop.")
    ] = False,
) -> None:
    """Generate a labelled synthetic benchmark of flow diagrams and candidate decks.

    Writes tasks/<id>/reference.png (+ task.json, truth.json), one candidate deck per task for
    each configuration (agent-careful: faithful; agent-sloppy: Stage 3 defects; agent-wrong:
    semantic or render-gate defects; agent-cheat: artifact-gate failures), labels.jsonl (the
    truth per case) and labels.csv (three simulated annotators, for judge agree).

    Example: judge synth bench/synth --seed 7 --tasks 3
    """
    from generation.benchmark import DEFAULT_CONFIGS, write_benchmark
    from generation.variants import VARIANTS

    if list_variants:
        default_of = {v: c for c, vs in DEFAULT_CONFIGS.items() for v in vs}
        for name, v in VARIANTS.items():
            check = f" ({v.artifact_check})" if v.artifact_check else ""
            typer.echo(f"{name:22s} gate {v.gate}{check}  [{default_of.get(name, 'not default')}]")
        return
    configs: dict[str, list[str]] | None = None
    if config:
        configs = {}
        for item in config:
            name, sep, names = item.partition("=")
            if not sep or not name.strip() or not names.strip():
                fail(f"--config {item!r}: expected CONFIG=VARIANT,VARIANT,...")
            configs[name.strip()] = [v.strip() for v in names.split(",") if v.strip()]
    labels = guarded(
        lambda: write_benchmark(out, seed=seed, n_tasks=tasks, variants=configs, force=force)
    )
    gates = Counter(lb.gate for lb in labels)
    typer.echo(
        f"wrote {len(labels)} cases ({tasks} tasks x {len({lb.config_id for lb in labels})} "
        f"configs) to {out}"
    )
    typer.echo("  expected gates: " + ", ".join(f"{g} {n}" for g, n in sorted(gates.items())))
    typer.echo(f"  truth: {out / 'labels.jsonl'}   human-format labels: {out / 'labels.csv'}")


@app.command("generate")
def generate_cmd(
    bench: Annotated[Path, typer.Argument(help="Benchmark folder (tasks/<id>/reference.png).")],
    config: Annotated[
        str, typer.Option("--config", help="Configuration name: candidates/<config>/.")
    ],
    model: Annotated[str, typer.Option("--model", help="Model name at the endpoint.")],
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint URL.")
    ] = None,
    api_key: Annotated[
        str | None, typer.Option("--api-key", help="API key (default: OPENAI_API_KEY).")
    ] = None,
    effort: Annotated[
        str | None,
        typer.Option("--effort", help="low, medium or high: sent as reasoning_effort, recorded."),
    ] = None,
    max_turns: Annotated[
        int, typer.Option("--max-turns", min=1, help="Model answers per task.")
    ] = 30,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Tasks generated at the same time.")
    ] = 2,
    workers: Annotated[int, typer.Option("--workers", min=1, help="LibreOffice instances.")] = 1,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Per model answer.")] = 8192,
    timeout: Annotated[float, typer.Option("--timeout", help="Per request, seconds.")] = 300.0,
    retries: Annotated[
        int, typer.Option("--retries", help="Retries on 429/5xx/timeouts (capped backoff).")
    ] = 4,
    price_input: Annotated[
        float | None, typer.Option("--price-input", help="USD per 1M input tokens.")
    ] = None,
    price_output: Annotated[
        float | None,
        typer.Option("--price-output", help="USD per 1M output tokens (reasoning included)."),
    ] = None,
    price_cached_input: Annotated[
        float | None,
        typer.Option(
            "--price-cached-input", help="USD per 1M cached input tokens (default: input rate)."
        ),
    ] = None,
    prices: Annotated[
        Path | None,
        typer.Option(
            "--prices",
            help='Price table JSON: {"<model>": {"input": .., "output": .., "cached_input": ..}}.',
        ),
    ] = None,
    wall: Annotated[
        float, typer.Option("--sandbox-wall", help="Wall-clock seconds per run_python call.")
    ] = 60.0,
    memory_mb: Annotated[
        int, typer.Option("--sandbox-memory-mb", help="Address space per sandboxed process, MB.")
    ] = 2048,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the model-answer cache.")
    ] = False,
    keep_work: Annotated[
        bool, typer.Option("--keep-work", help="Keep each task's sandbox folder afterwards.")
    ] = False,
) -> None:
    """Run a coding agent on every task; write candidates and generation records.

    The agent's tools are run_python(code) (sandboxed), render(), view_reference(x, y, w, h)
    and submit(). Writes BENCH/candidates/CONFIG/<task>.pptx, BENCH/generation/CONFIG/<task>.json
    (tokens, cost, reviews, revisions, sandbox failures), the program and the trajectory.
    Rerunning resumes: finished tasks are not redone. Then judge with `judge run BENCH`.

    Example: judge generate bench/ --config gpt4o-high --model gpt-4o --effort high --prices p.json
    """
    from generation.agent import GenerateSettings, run_generation
    from generation.records import load_generation_prices
    from judge.sandbox import SandboxLimits
    from judge.schema import GenerationPrices

    def build() -> GenerateSettings:
        price = GenerationPrices(
            input=price_input, output=price_output, cached_input=price_cached_input
        )
        if prices is not None:
            price = load_generation_prices(prices, model)
        return GenerateSettings(
            config_id=config,
            model=model,
            base_url=base_url,
            api_key=api_key,
            effort=effort,
            max_turns=max_turns,
            concurrency=concurrency,
            workers=workers,
            max_tokens=max_tokens,
            timeout_s=timeout,
            retries=retries,
            prices=price,
            limits=SandboxLimits(wall_s=wall, memory_bytes=memory_mb * 1024**2),
            cache=not no_cache,
            keep_work=keep_work,
        )

    settings = guarded(build)

    def on_task(rec: object, reused: bool) -> None:
        from judge.schema import GenerationRecord

        if not isinstance(rec, GenerationRecord):
            return
        cost = "unknown" if rec.cost_usd is None else f"${rec.cost_usd:.4f}"
        why = f" ({rec.reason})" if rec.reason else ""
        typer.echo(
            f"{'reused' if reused else 'done'} {rec.task_id}: {rec.status}{why}; turns "
            f"{rec.turns}, reviews {rec.reviews}, revisions {rec.revisions}, sandbox failures "
            f"{rec.sandbox_failures}, cost {cost}",
            err=True,
        )

    summary = guarded(lambda: run_generation(bench, settings, on_task=on_task))
    statuses = Counter(r.status for r in summary.records)
    cost = summary.cost_usd
    typer.echo(
        f"generated {summary.generated} task(s), reused {summary.reused}, in "
        f"{summary.seconds:.1f} s; " + ", ".join(f"{s} {n}" for s, n in sorted(statuses.items()))
    )
    typer.echo(f"cost: {'unknown' if cost is None else f'${cost:.4f}'}")
    typer.echo(f"candidates: {bench / 'candidates' / config}   next: judge run {bench} --out RUN")
