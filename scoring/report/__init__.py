"""Static HTML report of a run: opens from disk, no server, no external resources.

Layout written under the output folder::

    index.html                  leaderboard with intervals, plots, stage failures, case list
    report.css                  the stylesheet (from scoring/report/report_assets/)
    cases/<slug>/index.html     one page per case
    cases/<slug>/pair.png       copy of the case's normalised pair (reference left, render right)
    cases/<slug>/img/<sha>.png  copies of the images its trajectories refer to

Plots are hand-written inline SVG. Every text that comes from the run (ids, findings, gate
reasons, tool arguments and results, model messages) is HTML-escaped: candidate text and model
output are untrusted. A case folder whose round or trajectory files are unreadable still gets a
page, with a warning naming the file.

Layers: :mod:`.markup` (escaping, formats, page frame), :mod:`.svg` (the plots),
:mod:`.index` (the index page), :mod:`.case_pages` (one page per case, trajectories read through
:func:`judge.engine.trajectory.read_trajectory`); this module writes the folder.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from pathlib import Path

from judge.errors import BenchmarkError
from judge.rundir import read_results
from scoring.agreement import (
    agreement_report,
    agreement_text,
    case_comparisons,
    copied_rounds_reason,
    read_labels,
    run_subtypes,
)
from scoring.behaviour import BehaviourReport, run_behaviour
from scoring.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from scoring.findings_stats import findings_report
from scoring.leaderboard import build_leaderboard
from scoring.report.case_pages import case_html
from scoring.report.index import index_html
from scoring.report.labels import comparisons_html
from scoring.report.markup import CSS_NAME

__all__ = ["case_slug", "write_report"]

SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
SLUG_MAX = 60
"""Characters of the case id kept in a case folder name (a hash suffix keeps names unique)."""


def case_slug(case_id: str) -> str:
    """A file-system-safe, unique folder name for a case id."""
    digest = hashlib.sha1(case_id.encode("utf-8")).hexdigest()[:10]
    safe = SLUG_UNSAFE.sub("_", case_id).strip("._")[:SLUG_MAX] or "case"
    return f"{safe}-{digest}"


def _behaviour_of(run: Path, results: str | Path | None = None) -> BehaviourReport | None:
    """The run's behaviour report when its benchmark has generation records, else None."""
    try:
        return run_behaviour(run, results=results)
    except BenchmarkError:
        return None


def write_report(
    run: Path,
    out: Path,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    labels: Path | None = None,
    refigbench: Path | None = None,
    results: str | Path | None = None,
) -> Path:
    """Write the report of ``run`` into ``out``; return the path of ``index.html``.

    ``labels``: a human labels CSV (see :mod:`scoring.agreement`); its agreement statistics
    and a case-by-case table (disagreements with the human majority first, judge and
    annotators side by side) are added to the index page. ``refigbench``: a ReFigBench run of
    the same candidates, shown beside this run's leaderboard with the fidelity metrics and the
    tier split. ``results``: the results file to report (default ``results.jsonl``; a
    rescored ``results.<policy>.<hash8>.jsonl``).
    """
    run, out = Path(run), Path(out)
    cases = read_results(run, results)
    if not cases:
        raise BenchmarkError(f"{run}: {Path(results or 'results.jsonl').name} has no cases")
    agreement = ""
    labs = []
    if labels is not None:
        labs = read_labels(labels, known_subtypes=run_subtypes(run))
        rep = agreement_report(
            cases, labs, labels_file=str(labels), rounds_copied=copied_rounds_reason(run)
        )
        agreement = agreement_text(rep)
    if out.exists() and not out.is_dir():
        raise BenchmarkError(f"{out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    css = resources.files("scoring.report").joinpath("report_assets", CSS_NAME).read_text("utf-8")
    (out / CSS_NAME).write_text(css, encoding="utf-8")
    board = build_leaderboard(cases, n_resamples=n_resamples, seed=seed, runs=[run])
    frep = findings_report(cases)
    slugs = {c.case_id: case_slug(c.case_id) for c in cases}
    for case in cases:
        page_dir = out / "cases" / slugs[case.case_id]
        page_dir.mkdir(parents=True, exist_ok=True)
        (page_dir / "index.html").write_text(case_html(case, run, page_dir), encoding="utf-8")
    from scoring.report.protocols import protocols_html

    refig_cases = read_results(refigbench) if refigbench is not None else []
    side = protocols_html(run, cases, refigbench, refig_cases)
    index = out / "index.html"
    comparisons = comparisons_html(case_comparisons(cases, labs), slugs) if labs else ""
    page_html = index_html(
        run,
        cases,
        board,
        frep,
        slugs,
        agreement,
        _behaviour_of(run, results),
        protocols=side,
        comparisons=comparisons,
    )
    index.write_text(page_html, encoding="utf-8")
    return index
