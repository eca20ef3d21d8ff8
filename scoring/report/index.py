"""The report's index page: leaderboard, plots, findings and stage failures, the case list."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from judge.rundir import RUN_MANIFEST
from judge.schema import CaseResult, RunManifest
from scoring.behaviour import BehaviourReport
from scoring.findings_stats import FindingsReport
from scoring.leaderboard import Leaderboard
from scoring.report.markup import (
    CSS_NAME,
    GATE_COLOURS,
    GATE_ORDER,
    badge,
    case_outcome,
    esc,
    fmt,
    page,
    percent,
)
from scoring.report.svg import (
    legend,
    svg_bars,
    svg_histograms,
    svg_intervals,
    svg_scatter,
    svg_stacked,
)

MAX_SUBTYPE_BARS = 20
"""Subtypes shown in the penalty-by-subtype plot (largest first); the table lists all."""
DIM_COLOURS = {"layout": "#4e79a7", "text": "#e08a2c", "graphics": "#3f8f4f"}


def _leaderboard_html(board: Leaderboard) -> str:
    pct = int(round(board.confidence * 100))
    head = (
        "<tr><th>#</th><th class=l>configuration</th><th>S</th>"
        f"<th>{pct}% CI</th><th>valid</th><th>gate pass</th><th>S | pass</th><th>layout</th>"
        "<th>text</th><th>graphics</th><th>judge $</th><th>gen. $</th><th>cases</th>"
        f"<th>errors</th><th>P(rank 1)</th><th>P(top {board.top_k})</th></tr>"
    )
    body = []
    for r in board.rows:
        body.append(
            f"<tr><td>{r.rank}</td><td class=l>{esc(r.config_id)}</td>"
            f"<td><b>{fmt(r.mean_score)}</b></td><td>[{fmt(r.ci_low)}, {fmt(r.ci_high)}]</td>"
            f"<td>{percent(r.validity)}</td><td>{percent(r.gate_pass)}</td>"
            f"<td>{fmt(r.mean_passed)}</td><td>{fmt(r.layout)}</td><td>{fmt(r.text)}</td>"
            f"<td>{fmt(r.graphics)}</td><td>{fmt(r.judge_cost_usd, '{:.2f}')}</td>"
            f"<td>{fmt(r.generation_cost_usd, '{:.2f}')}</td><td>{r.cases}</td>"
            f"<td>{r.errors}</td><td>{percent(r.p_rank1)}</td><td>{percent(r.p_top_k)}</td></tr>"
        )
    parts = [f"<table>{head}{''.join(body)}</table>"]
    notes = [
        f"Paired task bootstrap over {board.tasks} tasks, {board.resamples} resamples, seed "
        f"{board.seed}. Invalid and gated cases score 0; errored cases are left out of means. "
        f"Missing tasks: {esc(board.missing_rule)}."
    ]
    if board.tau is not None:
        t = board.tau
        notes.append(
            f"Kendall tau of resampled vs full ranking: mean {t.mean:.3f}, median {t.median:.3f}, "
            f"{pct}% range [{t.p2_5:.3f}, {t.p97_5:.3f}]; the full ranking is reproduced exactly "
            f"in {100 * t.share_identical:.1f}% of resamples."
        )
    parts.append("".join(f'<p class="note">{n}</p>' for n in notes))
    if board.adjacent:
        rows = "".join(
            f"<tr><td class=l>{esc(p.upper)} − {esc(p.lower)}</td><td>{p.difference:+.2f}</td>"
            f"<td>[{fmt(p.ci_low, '{:+.2f}')}, {fmt(p.ci_high, '{:+.2f}')}]</td>"
            f"<td>{'yes' if p.separated else 'no'}</td></tr>"
            for p in board.adjacent
        )
        parts.append(
            "<h3>Adjacent pairs</h3><table><tr><th class=l>pair</th><th>difference</th>"
            f"<th>{pct}% CI</th><th>separated</th></tr>{rows}</table>"
        )
    return "".join(parts)


def _findings_html(rep: FindingsReport) -> str:
    dims = [(d.dimension, d.penalty) for d in rep.dimensions]
    subs = [(f"{s.subtype} ({s.dimension})", s.penalty) for s in rep.subtypes if s.penalty > 0]
    parts = ['<div class="grid"><div class="card"><h3>Penalty points by dimension</h3>']
    total = sum(v for _, v in dims)
    if total > 0:
        parts.append(svg_stacked([("all cases", dict(dims))], list(DIM_COLOURS), DIM_COLOURS))
        parts.append(legend(list(DIM_COLOURS), DIM_COLOURS))
        parts.append(svg_bars(dims, "#4e79a7", "pts", DIM_COLOURS, total))
    else:
        parts.append('<p class="note">No penalty points in this run.</p>')
    parts.append('</div><div class="card"><h3>Penalty points by subtype</h3>')
    if subs:
        parts.append(svg_bars(subs[:MAX_SUBTYPE_BARS], "#d1495b", "pts", total=total))
        if len(subs) > MAX_SUBTYPE_BARS:
            parts.append(f'<p class="note">Top {MAX_SUBTYPE_BARS} of {len(subs)}.</p>')
    else:
        parts.append('<p class="note">No penalised findings.</p>')
    parts.append("</div></div>")
    rows = "".join(
        f"<tr><td class=l>{esc(s.dimension)}</td><td class=l>{esc(s.category)}</td>"
        f"<td class=l>{esc(s.subtype)}</td><td>{s.cases}</td><td>{s.occurrences}</td>"
        f"<td>{s.mean_fraction:.2f}</td><td>{s.penalty:.1f}</td>"
        f"<td>{100 * s.single_round_share:.0f}%</td></tr>"
        for s in rep.subtypes
    )
    if rows:
        parts.append(
            "<h3>Findings by subtype</h3><table><tr><th class=l>dimension</th>"
            "<th class=l>category</th><th class=l>subtype</th><th>cases</th><th>occurrences</th>"
            "<th>mean ρ</th><th>penalty</th><th>single-round</th></tr>" + rows + "</table>"
        )
    st = rep.stages
    parts.append(
        "<h3>Stage failures</h3><table><tr><th class=l>stage</th><th>cases</th><th>rounds</th>"
        f"</tr><tr><td class=l>0 artifact</td><td>{st.artifact_cases}</td><td>–</td></tr>"
        f"<tr><td class=l>1 semantic</td><td>{st.semantic_cases}</td>"
        f"<td>{st.semantic_rounds}</td></tr><tr><td class=l>2 render/text</td>"
        f"<td>{st.render_cases}</td><td>{st.render_rounds}</td></tr>"
        f"<tr><td class=l>errored</td><td>{st.errored_cases}</td><td>{st.errored_rounds}</td></tr>"
        f"<tr><td class=l>skipped (early stop)</td><td>–</td><td>{st.skipped_rounds}</td></tr>"
        f"<tr><td class=l>passed</td><td>{st.passed_cases}</td><td>{st.passed_rounds}</td></tr>"
        "</table>"
    )
    if st.artifact_checks:
        parts.append(
            '<p class="note">Stage 0 failing checks: '
            + ", ".join(f"{esc(k)} {v}" for k, v in st.artifact_checks.items())
            + "</p>"
        )
    return "".join(parts)


def _manifest_html(run: Path) -> tuple[str, str]:
    """(header subline, warning) from run.json; a broken manifest is a warning, not a failure."""
    path = run / RUN_MANIFEST
    if not path.is_file():
        return (esc(str(run)), f"{path} is missing")
    try:
        m = RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        return (esc(str(run)), f"{path}: not a run manifest ({str(exc).splitlines()[0]})")
    model = f" · model {esc(m.model)}" if m.model else ""
    return (
        f"{esc(str(run))} · judge {esc(m.judge)}{model} · {m.rounds} rounds · taxonomy "
        f"{esc(m.taxonomy_version)} ({esc(m.taxonomy_hash[:12])}) · pptjudge "
        f"{esc(m.package_version)} · {esc(m.created)}",
        "",
    )


def _behaviour_html(rep: BehaviourReport) -> str:
    """Reviews vs score per configuration (generation records joined with the run)."""
    points = [
        (r.config_id, float(r.mean_reviews), float(r.mean_score))
        for r in rep.rows
        if r.mean_reviews is not None and r.mean_score is not None
    ]
    c = rep.reviews
    note = (
        f"Pearson r {fmt(c.pearson, '{:.3f}')}, Spearman rho {fmt(c.spearman, '{:.3f}')} "
        f"across {len(points)} configurations (mean render() calls per task vs mean score)."
    )
    return (
        '<h2>Agent behaviour</h2><div class="card" id="reviews-vs-score">'
        "<h3>Reviews vs score</h3>"
        + svg_scatter(points, "mean reviews per task")
        + f'<p class="note">{esc(note)}</p></div>'
    )


def index_html(
    run: Path,
    cases: Sequence[CaseResult],
    board: Leaderboard,
    frep: FindingsReport,
    slugs: dict[str, str],
    agreement: str = "",
    behaviour: BehaviourReport | None = None,
    protocols: str = "",
    comparisons: str = "",
) -> str:
    """The index page; ``agreement`` (text) and ``comparisons`` (HTML of
    :func:`scoring.report.labels.comparisons_html`) when the report has human labels."""
    sub, warn = _manifest_html(run)
    header = f"<h1>pptjudge report</h1><div class=sub>{sub}</div>"
    order = [r.config_id for r in board.rows]
    scores: dict[str, list[float]] = {}
    outcomes: dict[str, Counter[str]] = {cfg: Counter() for cfg in order}
    for c in cases:
        outcomes[c.config_id][case_outcome(c)] += 1
        if c.error is None and c.gate is not None:
            ok = c.gate == "pass" and c.valid
            scores.setdefault(c.config_id, []).append(float(c.score or 0.0) if ok else 0.0)
    body = []
    if warn:
        body.append(f'<p class="warn">{esc(warn)}</p>')
    body.append("<h2>Leaderboard</h2>")
    body.append(_leaderboard_html(board))
    body.append('<div class="grid"><div class="card"><h3>Mean score and interval</h3>')
    body.append(svg_intervals(board))
    body.append('</div><div class="card"><h3>Score distribution (cases, 0 for gated)</h3>')
    body.append(svg_histograms(scores, order))
    body.append("</div></div>")
    if protocols:
        body.append("<h2>Protocols side by side</h2>")
        body.append(protocols)
    body.append("<h2>Gate outcomes</h2>")
    stacked = [(cfg, {k: float(outcomes[cfg].get(k, 0)) for k in GATE_ORDER}) for cfg in order]
    body.append('<div class="card">' + svg_stacked(stacked, GATE_ORDER, GATE_COLOURS))
    body.append(legend(GATE_ORDER, GATE_COLOURS) + "</div>")
    body.append("<h2>Findings and penalties</h2>")
    body.append(_findings_html(frep))
    if behaviour is not None and behaviour.rows:
        body.append(_behaviour_html(behaviour))
    if agreement:
        body.append("<h2>Agreement with human labels</h2>")
        body.append(f"<pre>{esc(agreement)}</pre>")
        body.append(comparisons)
    body.append("<h2>Cases</h2>")
    rows = []
    for c in sorted(cases, key=lambda c: (c.config_id, c.task_id)):
        href = f"cases/{slugs[c.case_id]}/index.html"
        votes = ", ".join(f"{esc(k)} {v}" for k, v in sorted(c.gate_votes.items()))
        rows.append(
            f'<tr><td class=l><a href="{esc(href)}">{esc(c.case_id)}</a></td>'
            f"<td class=l>{badge(case_outcome(c))}</td>"
            f"<td>{fmt(c.score)}</td><td class=l>{votes}</td><td>{len(c.findings)}</td></tr>"
        )
    body.append(
        "<table><tr><th class=l>case</th><th class=l>gate</th><th>S</th>"
        "<th class=l>round votes</th><th>findings</th></tr>" + "".join(rows) + "</table>"
    )
    return page("pptjudge report", CSS_NAME, header, "".join(body))
