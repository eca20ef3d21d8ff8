"""Write a labelled synthetic benchmark in the DESIGN.md layout.

::

    <out>/bench.json                                  how it was made (seed, tasks, configs)
    <out>/tasks/<task_id>/reference.png               the raster reference (1600x900)
    <out>/tasks/<task_id>/task.json                   {"id", "domain", "assets": []}
    <out>/tasks/<task_id>/truth.json                  TruthGraph: nodes, boxes, edges, panels
    <out>/candidates/<config_id>/<task_id>.pptx       one candidate per configuration and task
    <out>/labels.jsonl                                CaseLabel per case (the truth)
    <out>/labels.csv                                  simulated human labels (judge agree format)

Configurations behave like agents: ``agent-careful`` builds faithful decks (glued connectors,
free lines, grouped nodes), ``agent-sloppy`` leaves one Stage 3 defect, ``agent-wrong`` breaks
the process (or lets the labels overflow), ``agent-cheat`` breaks an artifact rule. Each config
walks through its variants in a seeded order, one per task, and the edge style of defect
variants rotates over the tasks. Everything follows from the seed: the same seed writes the same
bytes.

``labels.csv`` holds three simulated annotators who agree with the truth except for a few seeded
slips (a flipped gate, a forgotten or an extra subtype), so agreement statistics have something
to measure.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from generation.deck import STYLES, build_deck
from generation.diagram import make_diagram
from generation.draw import reference_png_bytes
from generation.outdir import ready_out
from generation.variants import ARTIFACT, FAITHFUL, RENDER, SEMANTIC, STAGE3, VARIANTS
from judge.errors import BenchmarkError
from judge.rundir import atomic_write_bytes, atomic_write_text, write_model
from judge.schema import CaseLabel, Task

DEFAULT_CONFIGS: dict[str, tuple[str, ...]] = {
    "agent-careful": FAITHFUL,
    "agent-sloppy": STAGE3,
    "agent-wrong": SEMANTIC + RENDER,
    "agent-cheat": ARTIFACT,
}
"""Configuration id -> the variants it draws from."""

DOMAIN = "synthetic-flow"
ANNOTATORS = ("annotator-1", "annotator-2", "annotator-3")
GATE_SLIP = 0.05
"""Chance that a simulated annotator calls the gate the other way."""
SUBTYPE_DROP = 0.10
"""Chance that a simulated annotator forgets one of a passing case's subtypes."""
SUBTYPE_ADD = 0.05
"""Chance that a simulated annotator lists one subtype that was not injected."""
STAGE3_SUBTYPES = (
    "node_position", "node_spacing", "alignment", "unexpected_wrap", "overflow", "clipping",
    "text_overlap", "font_size", "font_style", "text_color", "missing_shape", "extra_shape",
    "node_fill", "node_stroke", "corner_radius", "missing_connector", "extra_connector",
    "endpoint_attachment", "connector_routing", "arrowhead_style", "dash_style", "line_width",
)  # fmt: skip
"""Subtype names the generator uses (taxonomy names)."""
LABEL_FILES = ("labels.jsonl", "labels.csv", "bench.json")


def task_id_for(seed: int, index: int) -> str:
    return f"s{seed}-flow{index:02d}"


def task_seed(seed: int, index: int) -> int:
    """A task's own seed, derived from the benchmark seed and its index."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def plan(
    seed: int, n_tasks: int, configs: Mapping[str, Sequence[str]]
) -> list[tuple[str, int, str, str]]:
    """(config_id, task index, variant name, edge style) of every case, in a seeded order."""
    cases: list[tuple[str, int, str, str]] = []
    for ci, (config, pool) in enumerate(configs.items()):
        unknown = [v for v in pool if v not in VARIANTS]
        if unknown or not pool:
            raise BenchmarkError(
                f"config {config!r}: unknown variant(s) {unknown} (known: {sorted(VARIANTS)})"
            )
        rng = np.random.default_rng([seed, ci, 1])
        order: list[str] = []
        while len(order) < n_tasks:
            order += [pool[int(k)] for k in rng.permutation(len(pool))]
        for i in range(n_tasks):
            name = order[i]
            style = VARIANTS[name].fixed_style or STYLES[(i + ci) % len(STYLES)]
            cases.append((config, i, name, style))
    return cases


def write_benchmark(
    out: Path,
    seed: int,
    n_tasks: int,
    variants: Mapping[str, Sequence[str]] | None = None,
    force: bool = False,
) -> list[CaseLabel]:
    """Generate ``n_tasks`` tasks and one candidate per task for every configuration.

    ``variants`` maps config ids to variant names (default :data:`DEFAULT_CONFIGS`). An existing
    non-empty ``out`` is refused unless ``force``, which replaces the generated parts. Returns
    the truth labels (also written to ``labels.jsonl``).
    """
    out = Path(out)
    configs = dict(variants or DEFAULT_CONFIGS)
    if n_tasks < 1:
        raise BenchmarkError(f"{out}: need at least one task, got {n_tasks}")
    ready_out(out, force, files=LABEL_FILES)
    cases = plan(seed, n_tasks, configs)

    diagrams = []
    references: list[bytes] = []
    for i in range(n_tasks):
        tid = task_id_for(seed, i)
        d = make_diagram(tid, task_seed(seed, i))
        png = reference_png_bytes(d)
        folder = out / "tasks" / tid
        atomic_write_bytes(folder / "reference.png", png)
        write_model(folder / "task.json", Task(id=tid, domain=DOMAIN, assets=[]))
        write_model(folder / "truth.json", d.to_truth())
        diagrams.append(d)
        references.append(png)

    labels: list[CaseLabel] = []
    config_index = {c: k for k, c in enumerate(configs)}
    for config, i, name, style in cases:
        variant = VARIANTS[name]
        d = diagrams[i]
        rng = np.random.default_rng([seed, i, config_index[config], 2])
        built = variant.make(d, style, rng, references[i])  # type: ignore[arg-type]
        deck = build_deck(built.diagram, built.options)
        atomic_write_bytes(out / "candidates" / config / f"{d.task_id}.pptx", deck)
        gate = variant.gate
        labels.append(
            CaseLabel(
                case_id=f"{config}/{d.task_id}",
                task_id=d.task_id,
                config_id=config,
                variant=name,
                style=built.options.style,
                gate=gate,
                artifact_failures=[variant.artifact_check] if variant.artifact_check else [],
                subtypes=sorted({x.subtype for x in built.defects if x.subtype})
                if gate == "pass"
                else [],
                defects=built.defects,
            )
        )
    labels.sort(key=lambda lb: lb.case_id)
    atomic_write_text(out / "labels.jsonl", "".join(lb.model_dump_json() + "\n" for lb in labels))
    atomic_write_text(out / "labels.csv", simulated_labels_csv(labels, seed))
    manifest = {
        "generator": "pptjudge generation.benchmark",
        "seed": seed,
        "tasks": n_tasks,
        "configs": {c: list(v) for c, v in configs.items()},
        "command": f"judge synth {out} --seed {seed} --tasks {n_tasks}",
    }
    atomic_write_text(out / "bench.json", json.dumps(manifest, indent=2) + "\n")
    return labels


def simulated_labels_csv(labels: Sequence[CaseLabel], seed: int) -> str:
    """``case_id,annotator,gate,subtypes`` rows: three annotators, mostly agreeing with truth."""
    rng = np.random.default_rng([seed, 99])
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["case_id", "annotator", "gate", "subtypes"])
    for lb in labels:
        for who in ANNOTATORS:
            passed = lb.gate == "pass"
            if rng.random() < GATE_SLIP:
                passed = not passed
            subtypes: list[str] = list(lb.subtypes) if passed else []
            if passed and subtypes and rng.random() < SUBTYPE_DROP:
                subtypes.pop(int(rng.integers(len(subtypes))))
            if passed and rng.random() < SUBTYPE_ADD:
                extra = [s for s in STAGE3_SUBTYPES if s not in subtypes]
                subtypes.append(extra[int(rng.integers(len(extra)))])
            writer.writerow(
                [lb.case_id, who, "pass" if passed else "fail", ";".join(sorted(subtypes))]
            )
    return buf.getvalue()


def read_labels_jsonl(path: Path) -> list[CaseLabel]:
    """Read ``labels.jsonl`` (truth per case); errors name the file and line."""
    path = Path(path)
    if not path.is_file():
        raise BenchmarkError(f"{path}: no labels.jsonl")
    labels: list[CaseLabel] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                labels.append(CaseLabel.model_validate_json(line))
            except ValueError as exc:
                raise BenchmarkError(f"{path}:{lineno}: not a label record: {exc}") from exc
    return labels
