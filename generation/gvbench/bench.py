"""Materialise the Graphviz benchmark in the DESIGN.md layout.

::

    <out>/tasks/<task_id>/reference.png        Graphviz's PNG (dot/neato/fdp -Tpng)
    <out>/tasks/<task_id>/task.json
    <out>/graphviz/<task_id>.dot               the DOT source the reference was drawn from
    <out>/graphviz/<task_id>.json              Graphviz's layout of the same run (-Tjson)
    <out>/candidates/<variant>/<task_id>.pptx  one deck per variant and task
    <out>/labels.jsonl                         CaseLabel per case (expected gate, subtypes)
    <out>/bench.json                           tasks, variants, folds, how each was drawn

The candidate decks are built from the layout Graphviz wrote, with the real-figure deck builder
(:mod:`generation.realfig.deck`) and its variants (:mod:`generation.realfig.variants`): the
same ten variants with the same expected gates. Defect variants alternate the two faithful
constructions over the tasks. Folds: by the task's place in the list (even / odd; its index
unless a figure was dropped), so a task never sits in both.
The layout files sit outside ``tasks/`` so a judge never sees them.

A drawn figure some variant cannot be built from (no room left for the extra node) is dropped
whole, and the next seeded figure is drawn in its place (:func:`drop_task`): task ids then skip
that index, and ``bench.json`` lists the dropped ids with the reason under ``skipped``.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from generation.gvbench.layout import draw, edges_as_icons
from generation.gvbench.spec import make_spec
from generation.outdir import ready_out
from generation.realfig.bench import write_variant_cases
from generation.realfig.deck import CONSTRUCTIONS, Construction
from generation.realfig.model import Fig
from generation.realfig.variants import VARIANTS as REALFIG_VARIANTS
from generation.realfig.variants import Built, Variant
from judge.errors import BenchmarkError
from judge.rundir import atomic_write_bytes, atomic_write_text, write_model
from judge.schema import CaseLabel, Task

DOMAIN = "graphviz-flow"
MAX_DRAWN_PER_TASK = 3
"""A drawn benchmark gives up (:class:`BenchmarkError`) after drawing this many figures per task
asked for without getting that many whole tasks."""


def _extra_clear_of_edges(fig: Fig, how: Construction) -> Built:
    """The real-figure ``extra_node`` variant, its new node placed clear of the edges too (a
    Graphviz layout is compact: its free space is mostly crossed by lines). Falls back to the
    plain rule when no box clear of the edges is left."""
    plain = REALFIG_VARIANTS["extra_node"].make
    try:
        built = plain(edges_as_icons(fig), how)
        built = replace(built, fig=replace(built.fig, icons=fig.icons))
    except ValueError:
        built = plain(fig, how)
    # the new node copies the largest node, often the one diamond: draw it in the figure's
    # most common shape instead (a diamond's corners would wrap its word)
    shapes = Counter(n.shape for n in fig.nodes)
    common = max(shapes, key=lambda k: (shapes[k], -list(shapes).index(k)))
    nodes = tuple(replace(n, shape=common) if n.key == "extra" else n for n in built.fig.nodes)
    return replace(built, fig=replace(built.fig, nodes=nodes))


VARIANTS: dict[str, Variant] = {
    name: replace(v, make=_extra_clear_of_edges) if name == "extra_node" else v
    for name, v in REALFIG_VARIANTS.items()
}
"""The real-figure variants (same names, gates and subtypes); ``extra_node`` keeps off the
edges and takes the figure's most common node shape."""
OUTPUTS = ("tasks", "candidates", "graphviz")


def task_id_for(seed: int, index: int) -> str:
    return f"g{seed}-gv{index:02d}"


def fold_of(index: int) -> int:
    """0 or 1: the fold task ``index`` belongs to."""
    return index % 2


def write_graphviz_benchmark(
    out: Path,
    seed: int,
    tasks: int,
    force: bool = False,
    variants: Sequence[str] | None = None,
) -> list[CaseLabel]:
    """Write ``tasks`` Graphviz-drawn tasks and one deck per variant (default: every variant)
    for each. An existing non-empty ``out`` is refused unless ``force``. Raises
    :class:`generation.gvbench.layout.GraphvizError` when Graphviz is missing or fails."""
    out = Path(out)
    names = prepare_out(out, tasks, variants, force, OUTPUTS)
    labels: list[CaseLabel] = []
    drawn_how: dict[str, dict[str, object]] = {}
    ids: list[str] = []
    skipped: dict[str, str] = {}
    for i in drawn_indices(out, tasks, ids, skipped):
        tid = task_id_for(seed, i)
        spec = make_spec(tid, i, seed)
        drawn = draw(spec)
        fig = drawn.fig
        folder = out / "tasks" / tid
        atomic_write_bytes(folder / "reference.png", drawn.png)
        write_model(folder / "task.json", Task(id=tid, domain=DOMAIN, assets=[]))
        atomic_write_text(out / "graphviz" / f"{tid}.dot", drawn.dot)
        atomic_write_text(out / "graphviz" / f"{tid}.json", json.dumps(drawn.layout) + "\n")
        st = spec.style
        drawn_how[tid] = {
            "kind": spec.kind, "engine": st.engine, "splines": st.splines,
            "arrowhead": st.arrowhead, "rankdir": st.rankdir, "font": st.font,
            "shapes": sorted({n.shape for n in spec.nodes}), "nodes": len(spec.nodes),
            "edges": len(spec.edges), "size": list(fig.size), "dpi": drawn.dpi,
        }  # fmt: skip
        keep_task(out, fig, tid, names, CONSTRUCTIONS[i % 2], (labels, ids, skipped, drawn_how))
    return finish_out(
        out, labels, "pptjudge generation.gvbench", seed, ids, names, drawn_how, skipped
    )


def drawn_indices(out: Path, tasks: int, ids: list[str], skipped: dict[str, str]) -> Iterator[int]:
    """Figure indices to draw until ``ids`` (filled by the caller) holds ``tasks`` whole tasks;
    :data:`MAX_DRAWN_PER_TASK` draws per task at most (``skipped``: why figures were dropped,
    named in the error)."""
    for i in range(MAX_DRAWN_PER_TASK * tasks):
        if len(ids) >= tasks:
            return
        yield i
    if len(ids) < tasks:
        why = "; ".join(sorted(set(skipped.values()))[:3])
        raise BenchmarkError(
            f"{out}: only {len(ids)} of {tasks} drawn figures took every variant "
            f"({MAX_DRAWN_PER_TASK * tasks} drawn; dropped for: {why})"
        )


def keep_task(
    out: Path,
    fig: Fig,
    tid: str,
    names: list[str],
    how: Construction,
    into: tuple[list[CaseLabel], list[str], dict[str, str], dict[str, dict[str, object]]],
) -> None:
    """Build drawn task ``tid``'s deck for each variant in ``names`` and add them and the task
    to ``into`` (labels, task ids, skipped, how each was drawn); a figure some variant cannot be
    built from is dropped (:func:`drop_task`), its reason kept under ``skipped``."""
    labels, ids, skipped, drawn_how = into
    try:
        labels.extend(write_variant_cases(out, fig, tid, names, how, VARIANTS))
    except ValueError as exc:
        skipped[tid] = drop_task(out, tid, exc)
        del drawn_how[tid]
        return
    ids.append(tid)


def drop_task(out: Path, tid: str, exc: Exception) -> str:
    """Remove what was written of task ``tid`` (reference, layout files, the decks built so
    far), which a variant could not be built from; the reason, for ``bench.json``."""
    shutil.rmtree(out / "tasks" / tid, ignore_errors=True)
    for p in [out / "graphviz" / f"{tid}.dot", out / "graphviz" / f"{tid}.json"]:
        p.unlink(missing_ok=True)
    for deck in (out / "candidates").glob(f"*/{tid}.pptx"):
        deck.unlink()
    return f"{type(exc).__name__}: {exc}"


def prepare_out(
    out: Path, tasks: int, variants: Sequence[str] | None, force: bool, outputs: Sequence[str]
) -> list[str]:
    """Check a drawn benchmark's arguments and make ``out`` ready (an existing non-empty folder
    only with ``force``, which removes ``outputs``); the variant names to build."""
    if tasks < 1:
        raise BenchmarkError(f"{out}: need at least one task, got {tasks}")
    names = list(variants or VARIANTS)
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        raise BenchmarkError(f"unknown variant(s) {unknown} (known: {sorted(VARIANTS)})")
    ready_out(out, force, outputs)
    return names


def finish_out(
    out: Path,
    labels: list[CaseLabel],
    generator: str,
    seed: int,
    ids: list[str],
    names: list[str],
    drawn_how: dict[str, dict[str, object]],
    skipped: dict[str, str] | None = None,
) -> list[CaseLabel]:
    """Write ``labels.jsonl`` (sorted by case) and ``bench.json`` (folds by task index) of a
    drawn benchmark; returns the sorted labels."""
    labels = sorted(labels, key=lambda lb: lb.case_id)
    atomic_write_text(out / "labels.jsonl", "".join(lb.model_dump_json() + "\n" for lb in labels))
    manifest = {
        "generator": generator,
        "seed": seed,
        "tasks": ids,
        "variants": names,
        "folds": {t: fold_of(i) for i, t in enumerate(ids)},
        "drawn": drawn_how,
    }
    if skipped:
        manifest["skipped"] = skipped
    atomic_write_text(out / "bench.json", json.dumps(manifest, indent=2) + "\n")
    return labels
