"""Readings of stored references by two code trees, each scored against the figure's truth.

It shows how a change to the raster reader moves its readings (not the gates: a reading can get
closer to the truth without any gate changing).

Three steps, the middle one run once per code tree (``PYTHONPATH`` picks the tree: the
project's virtualenv is an editable install, so put the other tree first on the path)::

    # 1. draw the references once (benchmarks of generation/, each in ROOT/<name>;
    #    --standard: every seed and look in bench/reading_seeds.json, --list: show, draw nothing)
    .venv/bin/python bench/reading_diff.py build ROOT --mpl 3434 5858 --graphviz 8181 --real - dark
    # 2. read every reference with each code tree
    PYTHONPATH=/path/to/old/tree .venv/bin/python bench/reading_diff.py read ROOT old.json
    .venv/bin/python bench/reading_diff.py read ROOT new.json
    # 3. list the references whose reading changed, each scored against its truth
    .venv/bin/python bench/reading_diff.py compare old.json new.json

A reading is scored by its edges: an edge read with a direction (``high`` or ``medium``) is
right when the truth holds it that way (either way for double-headed truth edges); an edge read
without one is right when the truth joins the two nodes; anything else counts as wrong
(invented, backwards or between misread nodes). ``compare`` marks a reference ``closer`` when
(right - wrong) grew, ``further`` when it fell, and prints the totals over all references as
well, so one run also gives an absolute measure of the reading.

``--ocr-cache DIR`` keeps OCR results by image content between the two reads (OCR dominates the
time and does not depend on the reader's code unless that code changes what is sent to OCR).
Real figures need ``PPTJUDGE_SHARED`` (or ``../shared``), as the benchmarks do.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))

DIRECTED = ("high", "medium")
STANDARD = Path(__file__).resolve().parent / "reading_seeds.json"
"""The seeds and looks ``build --standard`` draws."""
EDGE_RE = re.compile(r"^(.*) -> (.*) (high|medium|low|undirected)$")


# ------------------------------------------------------------------------------------------
# truth


def truth_edges(bench: Path, task_id: str) -> list[tuple[str, str, bool]]:
    """The truth edges of one task of a benchmark written by ``generation``:
    (source label, target label, double-headed)."""
    meta = json.loads((bench / "bench.json").read_text())
    # "pptjudge generation.realfig look=dark": the writing module is the second word
    words = str(meta.get("generator", "")).split()
    generator = words[1] if len(words) > 1 else "".join(words)
    if generator.endswith("generation.benchmark"):
        from judge.schema import TruthGraph

        tg = TruthGraph.model_validate_json((bench / "tasks" / task_id / "truth.json").read_text())
        lab = {n.id: n.label for n in tg.nodes}
        return [(lab[e.src], lab[e.dst], False) for e in tg.edges]
    fig: Any
    if generator.endswith("generation.mplbench") or generator.endswith("generation.gvbench"):
        from generation.gvbench.spec import make_spec

        seed = int(meta["seed"])
        index = int(re.sub(r"\D", "", task_id.rsplit("-", 1)[-1]))
        if generator.endswith("mplbench"):
            from generation.mplbench.layout import layout, make_style

            spec = make_spec(task_id, index, seed)
            fig, _ = layout(spec, make_style(spec, index, seed))
        else:
            from generation.gvbench.layout import draw

            fig = draw(make_spec(task_id, index, seed)).fig
    elif generator.endswith("generation.realfig") or generator.endswith("realfig.robust"):
        from generation.realfig.bench import SPECS

        fig = next((f for f in SPECS if f.id == task_id), None)
        if fig is None:
            raise KeyError(f"{bench}: no real-figure spec for task {task_id!r}")
    else:
        raise KeyError(f"{bench}/bench.json: unknown generator {generator!r}")
    lab = {n.key: n.label for n in fig.nodes}
    return [
        (lab[e.src], lab[e.dst], bool(getattr(e, "both", False)))
        for e in fig.edges
        if e.src in lab and e.dst in lab
    ]


def score(edges: list[str], truth: list[list[Any]]) -> dict[str, int]:
    """Right and wrong edges of one reading (see the module text)."""
    directed = set()
    joined = set()
    for src, dst, both in truth:
        directed.add((src, dst))
        if both:
            directed.add((dst, src))
        joined.add(frozenset((src, dst)))
    right = undirected = wrong = 0
    for e in edges:
        m = EDGE_RE.match(e)
        if m is None:
            wrong += 1
            continue
        src, dst, conf = m.groups()
        if conf in DIRECTED:
            if (src, dst) in directed:
                right += 1
            else:
                wrong += 1
        elif frozenset((src, dst)) in joined:
            undirected += 1
        else:
            wrong += 1
    return {"truth": len(truth), "right": right, "undirected": undirected, "wrong": wrong}


# ------------------------------------------------------------------------------------------
# reading


def read_reference(path: Path) -> dict[str, Any]:
    """The reader's graph of one reference image, read as the judge reads it
    (:func:`judge.tools.graphs.raster_graph`: enlarged when small, OCR in that frame): node
    labels and edges as text."""
    from judge.schema import PairGeometry
    from judge.tools.base import ToolContext, ToolUsageError
    from judge.tools.graphs import raster_graph

    # only the reference is looked at: the other images and the pair are never opened
    ctx = ToolContext(
        pptx=path,
        reference_png=path,
        render_png=path,
        pair_png=path,
        pair=cast(PairGeometry, None),
    )
    try:
        g = raster_graph(ctx, "reference")
    except ToolUsageError as exc:
        raise ValueError(f"{path}: {exc}") from exc
    lab = {n.id: n.label for n in g.nodes}
    return {
        "nodes": sorted(lab.values()),
        "edges": sorted(f"{lab[e.src]} -> {lab[e.dst]} {e.direction}" for e in g.edges),
    }


def references(root: Path, only: list[str] | None) -> list[tuple[Path, str]]:
    out = []
    for ref in sorted(root.glob("*/tasks/*/reference.png")):
        key = str(ref.relative_to(root))
        if only and not any(o in key for o in only):
            continue
        out.append((ref, key))
    return out


def cmd_build(args: argparse.Namespace) -> int:
    from builtin_accuracy import build

    root: Path = args.root
    mpl, graphviz, real, synth = args.mpl or [], args.graphviz or [], args.real or [], args.synth
    if args.standard:
        try:
            std = json.loads(STANDARD.read_text())
            mpl = sorted({*mpl, *std["mpl"]})
            graphviz = sorted({*graphviz, *std["graphviz"]})
            real = list(dict.fromkeys([*real, *std["real"]]))
            synth = std["synth"] if synth is None else synth
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"{STANDARD}: cannot read the standard seeds: {exc!r}", file=sys.stderr)
            return 2
    jobs: list[tuple[str, str, int, int, str | None]] = []
    jobs += [("mpl", f"mpl{s}", s, args.tasks_mpl, None) for s in mpl]
    jobs += [("graphviz", f"gv{s}", s, args.tasks_graphviz, None) for s in graphviz]
    for look in real:
        name = "real" if look in ("-", "") else f"real-{look}"
        jobs.append(("real", name, 0, 0, None if look in ("-", "") else look))
    if synth is not None:
        jobs.append(("synth", f"synth{synth}", synth, args.tasks_synth, None))
    if args.robust:
        jobs.append(("robust", "robust", 0, 0, None))
    if not jobs:
        print(
            "nothing to build: name --mpl, --graphviz, --real, --synth, --robust or --standard",
            file=sys.stderr,
        )
        return 2
    if args.list:
        for _kind, name, _seed, _tasks, _look in jobs:
            d = root / name
            print(f"{d}: {'already built' if (d / 'bench.json').is_file() else 'to draw'}")
        return 0
    for kind, name, seed, tasks, look in jobs:
        d = root / name
        if (d / "bench.json").is_file():
            print(f"{d}: already built")
            continue
        t0 = time.time()
        build(kind, d, seed, tasks, look)
        print(f"{d}: built in {time.time() - t0:.0f} s")
    return 0


def cmd_read(args: argparse.Namespace) -> int:
    if args.ocr_cache:
        from builtin_accuracy import cache_ocr_on_disk

        cache_ocr_on_disk(args.ocr_cache)
    refs = references(args.root, args.only)
    if not refs:
        print(f"{args.root}: no */tasks/*/reference.png here", file=sys.stderr)
        return 2
    out: dict[str, Any] = {}
    failed = 0
    t0 = time.time()
    for i, (ref, key) in enumerate(refs, 1):
        bench = ref.parents[2]
        try:
            truth = truth_edges(bench, ref.parent.name)
            reading = read_reference(ref)
        except Exception as exc:  # one bad reference must not end the run
            failed += 1
            out[key] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"  {key}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        out[key] = {**reading, "truth": [list(t) for t in truth]}
        if i % 20 == 0 or i == len(refs):
            print(f"  read {i}/{len(refs)} in {time.time() - t0:.0f} s", file=sys.stderr)
    args.out.write_text(json.dumps(out, indent=0, sort_keys=True))
    print(f"{args.out}: {len(refs) - failed} readings, {failed} failed")
    return 1 if failed else 0


def _totals(readings: dict[str, Any]) -> dict[str, int]:
    tot = {"truth": 0, "right": 0, "undirected": 0, "wrong": 0}
    for r in readings.values():
        if "error" in r:
            continue
        for k, v in score(r["edges"], r["truth"]).items():
            tot[k] += v
    return tot


def compare(a: dict[str, Any], b: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Per reference whose reading differs between ``a`` and ``b``: both scores and the verdict
    (``closer``, ``further``, ``same``); and counts of each verdict."""
    rows = []
    counts = {"closer": 0, "further": 0, "same": 0, "changed": 0}
    for key in sorted(set(a) & set(b)):
        ra, rb = a[key], b[key]
        if "error" in ra or "error" in rb:
            continue
        if ra["edges"] == rb["edges"] and ra["nodes"] == rb["nodes"]:
            continue
        sa, sb = score(ra["edges"], rb["truth"]), score(rb["edges"], rb["truth"])
        delta = (sb["right"] - sb["wrong"]) - (sa["right"] - sa["wrong"])
        verdict = "closer" if delta > 0 else "further" if delta < 0 else "same"
        counts[verdict] += 1
        counts["changed"] += 1
        rows.append(
            {
                "reference": key,
                "a": sa,
                "b": sb,
                "verdict": verdict,
                "lost": sorted(set(ra["edges"]) - set(rb["edges"])),
                "gained": sorted(set(rb["edges"]) - set(ra["edges"])),
            }
        )
    return rows, counts


def cmd_compare(args: argparse.Namespace) -> int:
    a = json.loads(args.a.read_text())
    b = json.loads(args.b.read_text())
    rows, counts = compare(a, b)
    for r in rows:
        sa, sb = r["a"], r["b"]
        print(
            f"{r['verdict']:8} {r['reference']:52} truth {sb['truth']:2}  "
            f"right {sa['right']:2} und {sa['undirected']:2} wrong {sa['wrong']:2}  ->  "
            f"right {sb['right']:2} und {sb['undirected']:2} wrong {sb['wrong']:2}"
        )
        if args.edges:
            for e in r["lost"]:
                print(f"           - {e}")
            for e in r["gained"]:
                print(f"           + {e}")
    common = {k: a[k] for k in set(a) & set(b)}
    ta = _totals(common)
    tb = _totals({k: b[k] for k in common})
    print(
        f"{len(common)} references in both, {counts['changed']} readings changed: "
        f"{counts['closer']} closer, {counts['further']} further, {counts['same']} as far"
    )
    for name, t in (("a", ta), ("b", tb)):
        print(
            f"  {name}: {t['truth']} truth edges; read with their direction {t['right']}, "
            f"without one {t['undirected']}, wrong {t['wrong']}"
        )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=__doc__.split("::", 1)[1].split("A reading is scored")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="draw benchmarks' references into ROOT/<name>")
    b.add_argument("root", type=Path)
    b.add_argument("--mpl", type=int, nargs="*", help="matplotlib seeds")
    b.add_argument("--graphviz", type=int, nargs="*", help="Graphviz seeds")
    b.add_argument("--real", nargs="*", help="real-figure looks ('-' plain; dark, small+jpeg…)")
    b.add_argument("--synth", type=int, help="synthetic seed")
    b.add_argument("--robust", action="store_true", help="the robustness benchmark")
    b.add_argument(
        "--standard",
        action="store_true",
        help=f"add every seed and look listed in {STANDARD.name} (the stored references of "
        "issue 10: about 1100 figures, half an hour on 2 cores)",
    )
    b.add_argument("--list", action="store_true", help="list what would be drawn, draw nothing")
    b.add_argument("--tasks-mpl", type=int, default=14)
    b.add_argument("--tasks-graphviz", type=int, default=12)
    b.add_argument("--tasks-synth", type=int, default=12)
    r = sub.add_parser("read", help="read every ROOT/*/tasks/*/reference.png with this code")
    r.add_argument("root", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--only", nargs="*", help="only references whose path holds one of these")
    r.add_argument("--ocr-cache", type=Path, help="folder keeping OCR results between reads")
    c = sub.add_parser("compare", help="score the readings that changed between two reads")
    c.add_argument("a", type=Path, help="read before the change")
    c.add_argument("b", type=Path, help="read after it")
    c.add_argument("--edges", action="store_true", help="list the edges lost and gained")
    args = ap.parse_args()
    return {"build": cmd_build, "read": cmd_read, "compare": cmd_compare}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
