"""Materialise the real-figure benchmark in the DESIGN.md layout.

::

    <out>/tasks/<fig>/reference.png            copied from the shared folder at build time
    <out>/tasks/<fig>/task.json
    <out>/candidates/<variant>/<fig>.pptx      one deck per variant and figure
    <out>/labels.jsonl                         CaseLabel per case (expected gate, subtypes)
    <out>/bench.json                           figures, variants, folds

Defect variants alternate the two constructions over the figures. Folds: figures are split in
two by their position in the spec list (odd/even), so a figure never sits in both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from generation.outdir import ready_out
from generation.realfig import looks
from generation.realfig.deck import CONSTRUCTIONS, Construction, build_deck
from generation.realfig.model import Fig, shared_figures_dir
from generation.realfig.specs_a import SPECS_A
from generation.realfig.specs_b import SPECS_B
from generation.realfig.variants import VARIANTS, Variant
from judge.errors import BenchmarkError
from judge.rundir import atomic_write_bytes, atomic_write_text, write_model
from judge.schema import CaseLabel, Task

SPECS: tuple[Fig, ...] = SPECS_A + SPECS_B
DOMAIN = "real-figure"


def fold_of(fig_id: str) -> int:
    """0 or 1: the fold a figure belongs to (alternating over the spec list)."""
    ids = [f.id for f in SPECS]
    return ids.index(fig_id) % 2


def write_variant_cases(
    out: Path,
    fig: Fig,
    task_id: str,
    names: Sequence[str],
    how: Construction,
    variants: Mapping[str, Variant] = VARIANTS,
    restyle: Callable[[bytes], bytes] | None = None,
) -> list[CaseLabel]:
    """Build task ``task_id``'s deck for each variant in ``names`` (construction ``how``, from
    ``variants``) into ``out/candidates/<variant>/`` and return their labels; ``restyle``
    (a reference look's deck change) is applied to every deck."""
    labels = []
    for name in names:
        v = variants[name]
        built = v.make(fig, how)
        nowrap = frozenset(k for k, w in built.wrap.items() if not w)
        deck = build_deck(built.fig, built.construction, nowrap)
        if restyle is not None:
            deck = restyle(deck)
        atomic_write_bytes(out / "candidates" / name / f"{task_id}.pptx", deck)
        labels.append(
            CaseLabel(
                case_id=f"{name}/{task_id}",
                task_id=task_id,
                config_id=name,
                variant=name,
                style=built.construction,
                gate=v.gate,
                subtypes=list(v.subtypes),
                defects=built.defects,
            )
        )
    return labels


def write_realfig_benchmark(
    out: Path,
    figures_dir: Path | None = None,
    figures: Sequence[str] | None = None,
    variants: Sequence[str] | None = None,
    force: bool = False,
    look: str | None = None,
) -> list[CaseLabel]:
    """Write the benchmark for ``figures`` (default: every spec) and ``variants`` (default:
    every variant). Reference images are read from ``figures_dir`` (default: the shared folder,
    ``$PPTJUDGE_SHARED/real-figures``). ``look`` (``generation.realfig.looks``) draws every
    reference image another way and changes every deck to match."""
    out = Path(out)
    src, specs, names = select(figures_dir, figures, variants, VARIANTS, "variant")
    drawn = looks.look(look) if look is not None else None
    ready_out(out, force)
    labels: list[CaseLabel] = []
    for i, fig in enumerate(specs):
        problems = fig.check()
        if problems:
            raise BenchmarkError(f"spec {fig.id}: " + "; ".join(problems))
        write_task(out, src, fig, drawn.reference if drawn else None)
        how, restyle = CONSTRUCTIONS[i % 2], (drawn.deck if drawn else None)
        labels += write_variant_cases(out, fig, fig.id, names, how, restyle=restyle)
    generator = "pptjudge generation.realfig" + (f" look={look}" if look else "")
    return finish_benchmark(out, src, specs, names, labels, generator)


def select(
    figures_dir: Path | None,
    figures: Sequence[str] | None,
    wanted: Sequence[str] | None,
    known: Mapping[str, object],
    what: str,
) -> tuple[Path, list[Fig], list[str]]:
    """The images' folder (default: the shared one), the specs of ``figures`` (default: all)
    and the ``wanted`` names (default: every one ``known``); an unknown name is a clear
    ``BenchmarkError`` saying what ``what`` names exist."""
    src = Path(figures_dir) if figures_dir is not None else shared_figures_dir()
    specs = [f for f in SPECS if figures is None or f.id in figures]
    names = list(wanted or known)
    unknown = [v for v in names if v not in known]
    if unknown:
        raise BenchmarkError(f"unknown {what}(s) {unknown} (known: {sorted(known)})")
    return src, specs, names


def write_task(
    out: Path, src: Path, fig: Fig, redraw: Callable[[bytes], bytes] | None = None
) -> None:
    """Copy figure ``fig``'s reference image from ``src`` into ``out/tasks/<fig>/`` with its
    task file (a clear error naming the image when it is missing); ``redraw`` (a reference
    look) transforms the image's bytes on the way."""
    ref = src / fig.id / "reference.png"
    if not ref.is_file():
        raise BenchmarkError(f"{ref}: reference image missing (set PPTJUDGE_SHARED)")
    folder = out / "tasks" / fig.id
    data = ref.read_bytes()
    atomic_write_bytes(folder / "reference.png", redraw(data) if redraw else data)
    write_model(folder / "task.json", Task(id=fig.id, domain=DOMAIN, assets=[]))


def finish_benchmark(
    out: Path,
    src: Path,
    specs: Sequence[Fig],
    variants: Sequence[str],
    labels: list[CaseLabel],
    generator: str,
) -> list[CaseLabel]:
    """Write ``labels.jsonl`` (sorted by case) and ``bench.json`` (figures, variants, folds,
    where the images came from); return the sorted labels."""
    labels.sort(key=lambda lb: lb.case_id)
    atomic_write_text(out / "labels.jsonl", "".join(lb.model_dump_json() + "\n" for lb in labels))
    manifest = {
        "generator": generator,
        "figures": [f.id for f in specs],
        "variants": list(variants),
        "folds": {f.id: fold_of(f.id) for f in specs},
        "source": str(src),
    }
    atomic_write_text(out / "bench.json", json.dumps(manifest, indent=2) + "\n")
    return labels
