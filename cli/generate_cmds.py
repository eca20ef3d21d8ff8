"""CLI commands: generate (synthetic benchmarks)."""

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
