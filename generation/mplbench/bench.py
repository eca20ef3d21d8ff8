"""Materialise the matplotlib benchmark in the DESIGN.md layout.

::

    <out>/tasks/<task_id>/reference.png        drawn by matplotlib
    <out>/tasks/<task_id>/task.json
    <out>/candidates/<variant>/<task_id>.pptx  one deck per variant and task
    <out>/labels.jsonl                         CaseLabel per case (expected gate, subtypes)
    <out>/bench.json                           tasks, variants, folds, how each was drawn

Variants and constructions are the Graphviz benchmark's (the real-figure ten, ``extra_node``
kept off the edges); defect variants alternate the two constructions over the tasks. Folds: by
task index (even / odd).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from generation.gvbench.bench import VARIANTS, fold_of
from generation.gvbench.spec import make_spec
from generation.mplbench.draw import draw_png
from generation.mplbench.layout import layout, make_style
from generation.realfig.bench import write_variant_cases
from generation.realfig.deck import CONSTRUCTIONS
from judge.errors import BenchmarkError
from judge.rundir import atomic_write_bytes, atomic_write_text, write_model
from judge.schema import CaseLabel, Task

DOMAIN = "matplotlib-flow"
OUTPUTS = ("tasks", "candidates")


def task_id_for(seed: int, index: int) -> str:
    return f"m{seed}-mpl{index:02d}"


def write_mpl_benchmark(
    out: Path,
    seed: int,
    tasks: int,
    force: bool = False,
    variants: Sequence[str] | None = None,
) -> list[CaseLabel]:
    """Write ``tasks`` matplotlib-drawn tasks and one deck per variant (default: every variant)
    for each. An existing non-empty ``out`` is refused unless ``force``. Raises
    :class:`generation.mplbench.draw.MatplotlibMissing` when matplotlib is not installed."""
    out = Path(out)
    if tasks < 1:
        raise BenchmarkError(f"{out}: need at least one task, got {tasks}")
    names = list(variants or VARIANTS)
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        raise BenchmarkError(f"unknown variant(s) {unknown} (known: {sorted(VARIANTS)})")
    if out.exists() and not out.is_dir():
        raise BenchmarkError(f"{out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not force:
            raise BenchmarkError(f"{out}: directory is not empty (use force to replace it)")
        for sub in OUTPUTS:
            shutil.rmtree(out / sub, ignore_errors=True)
    labels: list[CaseLabel] = []
    drawn_how: dict[str, dict[str, object]] = {}
    for i in range(tasks):
        tid = task_id_for(seed, i)
        spec = make_spec(tid, i, seed)
        fig, st = layout(spec, make_style(spec, i, seed))
        folder = out / "tasks" / tid
        atomic_write_bytes(folder / "reference.png", draw_png(fig, st))
        write_model(folder / "task.json", Task(id=tid, domain=DOMAIN, assets=[]))
        drawn_how[tid] = {
            "kind": spec.kind, "arrowstyle": st.arrow, "route": st.route, "boxstyle": st.box,
            "rankdir": st.rankdir, "font": st.font, "font_pt": st.font_pt, "dpi": st.dpi,
            "line_pt": st.line_pt, "mutation_scale": st.mutation, "jpeg_quality": st.jpeg,
            "title": st.title, "panel": st.panel,
            "shapes": sorted({n.shape for n in fig.nodes}), "nodes": len(fig.nodes),
            "edges": len(fig.edges), "size": list(fig.size),
        }  # fmt: skip
        labels += write_variant_cases(out, fig, tid, names, CONSTRUCTIONS[i % 2], VARIANTS)
    labels.sort(key=lambda lb: lb.case_id)
    atomic_write_text(out / "labels.jsonl", "".join(lb.model_dump_json() + "\n" for lb in labels))
    ids = [task_id_for(seed, i) for i in range(tasks)]
    manifest = {
        "generator": "pptjudge generation.mplbench",
        "seed": seed,
        "tasks": ids,
        "variants": names,
        "folds": {t: fold_of(i) for i, t in enumerate(ids)},
        "drawn": drawn_how,
    }
    atomic_write_text(out / "bench.json", json.dumps(manifest, indent=2) + "\n")
    return labels
