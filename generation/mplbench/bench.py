"""Materialise the matplotlib benchmark in the DESIGN.md layout.

::

    <out>/tasks/<task_id>/reference.png        drawn by matplotlib
    <out>/tasks/<task_id>/task.json
    <out>/candidates/<variant>/<task_id>.pptx  one deck per variant and task
    <out>/labels.jsonl                         CaseLabel per case (expected gate, subtypes)
    <out>/bench.json                           tasks, variants, folds, how each was drawn

Variants and constructions are the Graphviz benchmark's (the real-figure ten, ``extra_node``
kept off the edges); defect variants alternate the two constructions over the tasks. Folds: by
the task's place in the list (even / odd; its index unless a figure was dropped, as
:mod:`generation.gvbench.bench` says).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from generation.gvbench.bench import (
    drawn_indices,
    finish_out,
    keep_task,
    prepare_out,
)
from generation.gvbench.spec import make_spec
from generation.mplbench.draw import draw_png
from generation.mplbench.layout import layout, make_style
from generation.realfig.deck import CONSTRUCTIONS
from judge.rundir import atomic_write_bytes, write_model
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
    names = prepare_out(out, tasks, variants, force, OUTPUTS)
    labels: list[CaseLabel] = []
    drawn_how: dict[str, dict[str, object]] = {}
    ids: list[str] = []
    skipped: dict[str, str] = {}
    for i in drawn_indices(out, tasks, ids, skipped):
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
        keep_task(out, fig, tid, names, CONSTRUCTIONS[i % 2], (labels, ids, skipped, drawn_how))
    return finish_out(
        out, labels, "pptjudge generation.mplbench", seed, ids, names, drawn_how, skipped
    )
