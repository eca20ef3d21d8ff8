"""Static HTML report of a run: opens from disk, no server, no external resources.

Layout written under the output folder::

    index.html                  leaderboard with intervals, plots, stage failures, case list
    report.css                  the stylesheet (from scoring/report_assets/)
    cases/<slug>/index.html     one page per case
    cases/<slug>/pair.png       copy of the case's normalised pair (reference left, render right)
    cases/<slug>/img/<sha>.png  copies of the images its trajectories refer to

Plots are hand-written inline SVG. Every text that comes from the run (ids, findings, gate
reasons, tool arguments and results, model messages) is HTML-escaped: candidate text and model
output are untrusted. A case folder whose round or trajectory files are unreadable still gets a
page, with a warning naming the file.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from PIL import Image

from judge.errors import BenchmarkError
from judge.rundir import RUN_MANIFEST, CaseDir, case_dir, read_results
from judge.schema import (
    CaseResult,
    FindingPenalty,
    PairGeometry,
    RoundResult,
    RunManifest,
    TrajectoryEvent,
)
from scoring.agreement import agreement_report, agreement_text, read_labels, run_subtypes
from scoring.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from scoring.findings_stats import FindingsReport, findings_report
from scoring.leaderboard import Leaderboard, build_leaderboard

CSS_NAME = "report.css"
MAX_TEXT_CHARS = 4000
"""Longest message/JSON text shown in full on a case page; longer text is cut with a note
(trajectories can hold whole prompts; the files on disk keep everything)."""
OBSERVATIONS_SHOWN = 4
"""Round sightings listed per merged finding before the rest fold away (a finding can be seen on
every edge in every round)."""
MAX_SUBTYPE_BARS = 20
"""Subtypes shown in the penalty-by-subtype plot (largest first); the table lists all."""
SCORE_BINS = 20
"""Bins of the per-configuration score histograms (5 points each on the 0-100 scale)."""
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
"""Image references must be plain sha256 digests (nothing else becomes a file path)."""
SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
SLUG_MAX = 60
"""Characters of the case id kept in a case folder name (a hash suffix keeps names unique)."""

GATE_ORDER = ("pass", "semantic", "render", "artifact", "errored")
GATE_COLOURS = {
    "pass": "#3f8f4f",
    "semantic": "#d1495b",
    "render": "#e08a2c",
    "artifact": "#8c6d4f",
    "errored": "#9aa1aa",
}
DIM_COLOURS = {"layout": "#4e79a7", "text": "#e08a2c", "graphics": "#3f8f4f"}
BOX_COLOURS = ("#d1495b", "#4e79a7", "#e08a2c", "#7b4fa3", "#2a9d8f", "#b5651d", "#c2185b")
"""Colours of finding boxes on the pair image, cycled by finding number."""


def esc(value: object) -> str:
    """HTML-escape any value (quotes too, so it is safe in attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def case_slug(case_id: str) -> str:
    """A file-system-safe, unique folder name for a case id."""
    digest = hashlib.sha1(case_id.encode("utf-8")).hexdigest()[:10]
    safe = SLUG_UNSAFE.sub("_", case_id).strip("._")[:SLUG_MAX] or "case"
    return f"{safe}-{digest}"


def _fmt(x: float | None, spec: str = "{:.1f}") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return spec.format(x)


def _pct(x: float | None) -> str:
    return _fmt(None if x is None else 100 * x, "{:.0f}%")


def _truncate(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[:MAX_TEXT_CHARS] + f"\n… ({len(text) - MAX_TEXT_CHARS} more characters in the file)"


def _json_text(obj: object) -> str:
    return _truncate(json.dumps(obj, indent=1, ensure_ascii=False, default=str))


def _page(title: str, css_href: str, header_html: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title>"
        f'<link rel="stylesheet" href="{esc(css_href)}">'
        "</head><body>"
        f'<header class="top">{header_html}</header><main>{body}</main></body></html>\n'
    )


# ----------------------------------------------------------------------------------------------
# SVG plots (hand-written; coordinates are SVG user units)


def _svg(width: int, height: int, inner: list[str], label: str) -> str:
    return (
        f'<svg class="plot" viewBox="0 0 {width} {height}" style="max-width:{width}px" role="img" '
        f'aria-label="{esc(label)}" xmlns="http://www.w3.org/2000/svg">' + "".join(inner) + "</svg>"
    )


def _axis(
    x0: float,
    x1: float,
    y: float,
    top: float,
    ticks: Sequence[float],
    scale: Callable[[float], float],
) -> list[str]:
    out = [f'<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="#8892a0"/>']
    for t in ticks:
        x = scale(t)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{y}" stroke="#eef0f4"/>')
        out.append(
            f'<text x="{x:.1f}" y="{y + 14}" font-size="11" text-anchor="middle" '
            f'fill="#5f6b7a">{t:g}</text>'
        )
    return out


def svg_intervals(board: Leaderboard) -> str:
    """Mean score and its bootstrap interval per configuration, on 0-100."""
    label_w, plot_w, row_h, top = 170, 520, 22, 8
    rows = board.rows
    height = top + row_h * len(rows) + 26
    x0, x1 = label_w, label_w + plot_w

    def sx(v: float) -> float:
        return x0 + plot_w * max(0.0, min(100.0, v)) / 100.0

    inner = _axis(x0, x1, top + row_h * len(rows) + 4, top, range(0, 101, 20), sx)
    for i, r in enumerate(rows):
        y = top + row_h * i + row_h / 2
        inner.append(
            f'<text x="{label_w - 8}" y="{y + 4:.1f}" font-size="12" text-anchor="end">'
            f"{esc(r.config_id)}</text>"
        )
        if r.ci_low is not None and r.ci_high is not None:
            inner.append(
                f'<line x1="{sx(r.ci_low):.1f}" y1="{y:.1f}" x2="{sx(r.ci_high):.1f}" '
                f'y2="{y:.1f}" stroke="#4e79a7" stroke-width="3"/>'
            )
        if r.mean_score is not None:
            inner.append(
                f'<circle cx="{sx(r.mean_score):.1f}" cy="{y:.1f}" r="4.5" fill="#1d2330">'
                f"<title>{esc(r.config_id)}: {r.mean_score:.1f} "
                f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]</title></circle>"
            )
    return _svg(x1 + 20, int(height), inner, "mean score with bootstrap interval")


def svg_histograms(scores: dict[str, list[float]], order: Sequence[str]) -> str:
    """One small histogram of case scores (0-100, zeros included) per configuration."""
    label_w, plot_w, row_h, top = 170, 520, 34, 6
    height = top + row_h * len(order) + 26
    x0, x1 = label_w, label_w + plot_w
    bin_w = plot_w / SCORE_BINS

    def sx(v: float) -> float:
        return x0 + plot_w * v / 100.0

    inner = _axis(x0, x1, top + row_h * len(order) + 4, top, range(0, 101, 20), sx)
    for i, cfg in enumerate(order):
        vals = scores.get(cfg, [])
        base = top + row_h * (i + 1) - 4
        inner.append(
            f'<text x="{label_w - 8}" y="{base - 8:.1f}" font-size="12" text-anchor="end">'
            f"{esc(cfg)}</text>"
        )
        counts = Counter(min(SCORE_BINS - 1, int(v / 100.0 * SCORE_BINS)) for v in vals)
        peak = max(counts.values()) if counts else 1
        for b, n in sorted(counts.items()):
            h = (row_h - 8) * n / peak
            inner.append(
                f'<rect x="{x0 + b * bin_w + 0.5:.1f}" y="{base - h:.1f}" width="{bin_w - 1:.1f}" '
                f'height="{h:.1f}" fill="#4e79a7"><title>{esc(cfg)}: {n} cases in '
                f"[{b * 100 / SCORE_BINS:g}, {(b + 1) * 100 / SCORE_BINS:g})</title></rect>"
            )
        if vals:
            mean = sum(vals) / len(vals)
            inner.append(
                f'<line x1="{sx(mean):.1f}" y1="{base - row_h + 8:.1f}" x2="{sx(mean):.1f}" '
                f'y2="{base:.1f}" stroke="#d1495b" stroke-width="2"><title>mean {mean:.1f}'
                "</title></line>"
            )
    return _svg(x1 + 20, int(height), inner, "score distribution per configuration")


def svg_stacked(
    rows: Sequence[tuple[str, dict[str, float]]], keys: Sequence[str], colours: dict[str, str]
) -> str:
    """100% stacked horizontal bars, one per row label."""
    label_w, plot_w, row_h, top = 170, 520, 22, 6
    height = top + row_h * len(rows) + 8
    inner: list[str] = []
    for i, (label, parts) in enumerate(rows):
        y = top + row_h * i
        total = sum(parts.values())
        inner.append(
            f'<text x="{label_w - 8}" y="{y + 15}" font-size="12" text-anchor="end">'
            f"{esc(label)}</text>"
        )
        x = float(label_w)
        for k in keys:
            v = parts.get(k, 0.0)
            if total <= 0 or v <= 0:
                continue
            w = plot_w * v / total
            inner.append(
                f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" '
                f'fill="{colours[k]}"><title>{esc(label)}: {esc(k)} {100 * v / total:.1f}%'
                "</title></rect>"
            )
            if w > 34:
                inner.append(
                    f'<text x="{x + w / 2:.1f}" y="{y + 15}" font-size="10" fill="#fff" '
                    f'text-anchor="middle">{100 * v / total:.0f}%</text>'
                )
            x += w
    return _svg(label_w + plot_w + 20, int(height), inner, "shares")


def svg_bars(
    items: Sequence[tuple[str, float]],
    colour: str,
    unit: str,
    colours: dict[str, str] | None = None,
    total: float | None = None,
) -> str:
    """Horizontal bars of non-negative values, in the order given (``colours`` per label).

    With ``total``, each bar's label also gives its share of it.
    """
    label_w, plot_w, row_h, top = 230, 440, 20, 6
    height = top + row_h * max(1, len(items)) + 8
    peak = max((v for _, v in items), default=0.0) or 1.0
    inner: list[str] = []
    for i, (label, v) in enumerate(items):
        y = top + row_h * i
        w = plot_w * v / peak
        inner.append(
            f'<text x="{label_w - 8}" y="{y + 14}" font-size="12" text-anchor="end">'
            f"{esc(label)}</text>"
            f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" '
            f'fill="{(colours or {}).get(label, colour)}"/>'
            f'<text x="{label_w + w + 5:.1f}" y="{y + 14}" font-size="11" fill="#5f6b7a">'
            f"{v:.1f} {esc(unit)}" + (f" ({100 * v / total:.0f}%)" if total else "") + "</text>"
        )
    return _svg(label_w + plot_w + 100, int(height), inner, "bars")


def _legend(keys: Sequence[str], colours: dict[str, str]) -> str:
    return (
        '<div class="legend">'
        + "".join(f'<span><i style="background:{colours[k]}"></i>{esc(k)}</span>' for k in keys)
        + "</div>"
    )


# ----------------------------------------------------------------------------------------------
# Index page


def _case_outcome(case: CaseResult) -> str:
    if case.error is not None or case.gate is None:
        return "errored"
    return case.gate


def _badge(outcome: str) -> str:
    cls = outcome if outcome in GATE_COLOURS or outcome == "skipped" else "none"
    return f'<span class="badge b-{esc(cls)}">{esc(outcome)}</span>'


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
            f"<td><b>{_fmt(r.mean_score)}</b></td><td>[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]</td>"
            f"<td>{_pct(r.validity)}</td><td>{_pct(r.gate_pass)}</td>"
            f"<td>{_fmt(r.mean_passed)}</td><td>{_fmt(r.layout)}</td><td>{_fmt(r.text)}</td>"
            f"<td>{_fmt(r.graphics)}</td><td>{_fmt(r.judge_cost_usd, '{:.2f}')}</td>"
            f"<td>{_fmt(r.generation_cost_usd, '{:.2f}')}</td><td>{r.cases}</td>"
            f"<td>{r.errors}</td><td>{_pct(r.p_rank1)}</td><td>{_pct(r.p_top_k)}</td></tr>"
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
            f"<td>[{_fmt(p.ci_low, '{:+.2f}')}, {_fmt(p.ci_high, '{:+.2f}')}]</td>"
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
        parts.append(_legend(list(DIM_COLOURS), DIM_COLOURS))
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


def _index_html(
    run: Path,
    cases: Sequence[CaseResult],
    board: Leaderboard,
    frep: FindingsReport,
    slugs: dict[str, str],
    agreement: str = "",
) -> str:
    sub, warn = _manifest_html(run)
    header = f"<h1>pptjudge report</h1><div class=sub>{sub}</div>"
    order = [r.config_id for r in board.rows]
    scores: dict[str, list[float]] = {}
    outcomes: dict[str, Counter[str]] = {cfg: Counter() for cfg in order}
    for c in cases:
        outcomes[c.config_id][_case_outcome(c)] += 1
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
    body.append("<h2>Gate outcomes</h2>")
    stacked = [(cfg, {k: float(outcomes[cfg].get(k, 0)) for k in GATE_ORDER}) for cfg in order]
    body.append('<div class="card">' + svg_stacked(stacked, GATE_ORDER, GATE_COLOURS))
    body.append(_legend(GATE_ORDER, GATE_COLOURS) + "</div>")
    body.append("<h2>Findings and penalties</h2>")
    body.append(_findings_html(frep))
    if agreement:
        body.append("<h2>Agreement with human labels</h2>")
        body.append(f"<pre>{esc(agreement)}</pre>")
    body.append("<h2>Cases</h2>")
    rows = []
    for c in sorted(cases, key=lambda c: (c.config_id, c.task_id)):
        href = f"cases/{slugs[c.case_id]}/index.html"
        votes = ", ".join(f"{esc(k)} {v}" for k, v in sorted(c.gate_votes.items()))
        rows.append(
            f'<tr><td class=l><a href="{esc(href)}">{esc(c.case_id)}</a></td>'
            f"<td class=l>{_badge(_case_outcome(c))}</td>"
            f"<td>{_fmt(c.score)}</td><td class=l>{votes}</td><td>{len(c.findings)}</td></tr>"
        )
    body.append(
        "<table><tr><th class=l>case</th><th class=l>gate</th><th>S</th>"
        "<th class=l>round votes</th><th>findings</th></tr>" + "".join(rows) + "</table>"
    )
    return _page("pptjudge report", CSS_NAME, header, "".join(body))


# ----------------------------------------------------------------------------------------------
# Case pages


@dataclass
class _RoundData:
    index: int
    result: RoundResult | None
    events: list[TrajectoryEvent]
    warnings: list[str]


def _read_round(folder: CaseDir, k: int) -> _RoundData:
    warnings: list[str] = []
    result = None
    path = folder.round_json(k)
    if path.is_file():
        try:
            result = RoundResult.model_validate_json(path.read_text(encoding="utf-8"))
        except (ValueError, OSError) as exc:
            warnings.append(f"{path}: unreadable round file ({str(exc).splitlines()[0]})")
    events: list[TrajectoryEvent] = []
    tpath = folder.trajectory(k)
    if tpath.is_file():
        try:
            lines = tpath.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            lines = []
            warnings.append(f"{tpath}: unreadable ({exc})")
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                events.append(TrajectoryEvent.model_validate_json(line))
            except ValueError as exc:
                warnings.append(f"{tpath}:{n}: not a trajectory event ({str(exc).splitlines()[0]})")
    return _RoundData(k, result, events, warnings)


def _round_indices(case: CaseResult, folder: CaseDir) -> list[int]:
    found = set(range(len(case.rounds)))
    if folder.rounds_dir.is_dir():
        for p in folder.rounds_dir.glob("round-*.json"):
            m = re.fullmatch(r"round-(\d+)\.json", p.name)
            if m:
                found.add(int(m.group(1)))
    return sorted(found)


def _copy_image(src: Path, dest: Path) -> bool:
    if not src.is_file():
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.exists():
        shutil.copyfile(src, dest)
    return True


def _pair_html(case: CaseResult, folder: CaseDir, page_dir: Path, warnings: list[str]) -> str:
    """The pair image with finding boxes (candidate panel frame shifted by the panel's left)."""
    if not _copy_image(folder.pair_png, page_dir / "pair.png"):
        why = "the artifact was not rendered" if not case.valid else "pair.png is missing"
        return f'<p class="note">No reference/render pair: {esc(why)}.</p>'
    try:
        with Image.open(page_dir / "pair.png") as im:
            width, height = im.size
    except OSError as exc:
        warnings.append(f"{folder.pair_png}: unreadable image ({exc})")
        return '<p class="warn">pair.png could not be read.</p>'
    left = width - (width // 2)  # fallback: right half
    panel_w = width // 2
    if folder.pair_json.is_file():
        try:
            geom = PairGeometry.model_validate_json(folder.pair_json.read_text(encoding="utf-8"))
            left, panel_w = geom.candidate.panel_left, geom.panel_width
        except ValueError as exc:
            warnings.append(f"{folder.pair_json}: not pair geometry ({str(exc).splitlines()[0]})")
    boxes = []
    for i, f in enumerate(case.findings, 1):
        colour = BOX_COLOURS[(i - 1) % len(BOX_COLOURS)]
        for ob in f.observations:
            if ob.bbox is None:
                continue
            b = ob.bbox
            boxes.append(
                f'<rect x="{left + b.x:.1f}" y="{b.y:.1f}" width="{b.w:.1f}" height="{b.h:.1f}" '
                f'fill="none" stroke="{colour}" stroke-width="4"><title>#{i} '
                f"{esc(f.subtype)} (round {ob.round_index}): {esc(ob.location)}</title></rect>"
                f'<text x="{left + b.x + 4:.1f}" y="{max(18.0, b.y - 6):.1f}" font-size="22" '
                f'font-weight="700" fill="{colour}">#{i}</text>'
            )
    return (
        '<div class="pair"><svg viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg" '
        'role="img" aria-label="reference (left) and render (right)">'
        '<image href="pair.png" x="0" y="0" width="{w}" height="{h}"/>'
        '<text x="10" y="{ty}" font-size="20" fill="#5f6b7a">reference</text>'
        '<text x="{rx}" y="{ty}" font-size="20" fill="#5f6b7a">candidate render</text>'
        '<line x1="{gx}" y1="0" x2="{gx}" y2="{h}" stroke="#c5cbd6" stroke-width="2"/>'
        "{boxes}</svg></div>"
    ).format(w=width, h=height, ty=height - 10, rx=left + 10, gx=left - 2, boxes="".join(boxes)) + (
        f'<p class="note">Boxes: finding locations in the candidate panel ({panel_w} px wide), '
        "numbered as in the findings table.</p>"
    )


def _findings_table(case: CaseResult, round_ids: list[int]) -> str:
    if not case.findings:
        return '<p class="note">No merged findings.</p>'
    penalties: dict[tuple[str, str, str], FindingPenalty] = {}
    if case.breakdown is not None:
        for p in case.breakdown.penalties:
            penalties[(p.dimension, p.category, p.subtype)] = p
    head = (
        "<tr><th>#</th><th class=l>dimension</th><th class=l>category</th><th class=l>subtype</th>"
        "<th>ρ</th><th>penalty</th>"
        + "".join(f"<th>r{k}</th>" for k in round_ids)
        + "<th class=l>where / what (per round)</th></tr>"
    )
    rows = []
    for i, f in enumerate(case.findings, 1):
        fp = penalties.get((f.dimension, f.category, f.subtype))
        pen = "–" if fp is None else f"{fp.penalty:.2f}" + ("" if fp.counted else " (not counted)")
        support = "".join(f"<td>{'●' if k in f.support else '·'}</td>" for k in round_ids)
        lines = [
            f"<div>r{o.round_index}: <b>{esc(o.location)}</b> — {esc(o.description)}</div>"
            for o in f.observations
        ]
        obs = "".join(lines)
        if len(lines) > OBSERVATIONS_SHOWN:
            obs = (
                "".join(lines[:OBSERVATIONS_SHOWN])
                + f"<details><summary>{len(lines) - OBSERVATIONS_SHOWN} more sightings</summary>"
                + "".join(lines[OBSERVATIONS_SHOWN:])
                + "</details>"
            )
        colour = BOX_COLOURS[(i - 1) % len(BOX_COLOURS)]
        rows.append(
            f'<tr><td style="color:{colour}"><b>{i}</b></td><td class=l>{esc(f.dimension)}</td>'
            f"<td class=l>{esc(f.category)}</td><td class=l>{esc(f.subtype)}</td>"
            f"<td>{f.fraction:.2f}</td><td>{pen}</td>{support}<td class=l>{obs}</td></tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def _gate_html(rd: _RoundData) -> str:
    r = rd.result
    if r is None:
        return '<p class="note">No round file.</p>'
    parts = []
    for name, verdict in (("semantic", r.semantic), ("render/text", r.render)):
        if verdict is None:
            continue
        state = "passed" if verdict.passed else "failed"
        reasons = "".join(
            f"<li><b>{esc(g.target)}</b>: {esc(g.evidence)}</li>" for g in verdict.reasons
        )
        meas = ", ".join(f"{esc(k)} {v:.3g}" for k, v in verdict.measurements.items())
        parts.append(
            f"<div>{esc(name)} gate {state}"
            + (f"<ul>{reasons}</ul>" if reasons else "")
            + (f'<div class="muted">measured: {meas}</div>' if meas else "")
            + "</div>"
        )
    if r.error:
        parts.append(f'<div class="warn">error: {esc(r.error)}</div>')
    u = r.usage
    cost = f", ${u.cost_usd:.4f}" if u.cost_usd is not None else ""
    parts.append(
        f'<div class="muted">backend {esc(r.backend or "?")}, {r.seconds:.1f} s, '
        f"{u.model_calls} model calls, {u.tool_calls} tool calls, "
        f"{u.input_tokens}+{u.output_tokens} tokens{cost}</div>"
    )
    return "".join(parts)


def _gate_reasons_summary(rounds: Sequence[_RoundData]) -> str:
    """The reasons of every failed gate, by round, for the top of a case page."""
    items: list[str] = []
    for rd in rounds:
        r = rd.result
        if r is None:
            continue
        for name, verdict in (("semantic", r.semantic), ("render/text", r.render)):
            if verdict is None or verdict.passed:
                continue
            items.extend(
                f"<li>round {rd.index}, {esc(name)}: <b>{esc(g.target)}</b> — "
                f"{esc(g.evidence)}</li>"
                for g in verdict.reasons
            )
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _event_html(ev: TrajectoryEvent, images: dict[str, str]) -> str:
    head = f"#{ev.seq} · {esc(ev.stage)} · {esc(ev.kind)} · t={ev.t:.1f}s"
    if ev.role:
        head += f" · {esc(ev.role)}"
    if ev.tool_name:
        head += f" · <b>{esc(ev.tool_name)}</b>"
    body = []
    if ev.content and ev.kind == "message" and ev.role in ("system", "user"):
        body.append(
            f"<details><summary>{esc(ev.role)} prompt ({len(ev.content)} characters)</summary>"
            f"<pre>{esc(_truncate(ev.content))}</pre></details>"
        )
    elif ev.content:
        body.append(f"<pre>{esc(_truncate(ev.content))}</pre>")
    if ev.arguments is not None:
        body.append(f"<div class=muted>arguments</div><pre>{esc(_json_text(ev.arguments))}</pre>")
    if ev.result is not None:
        body.append(f"<div class=muted>result</div><pre>{esc(_json_text(ev.result))}</pre>")
    crops = [
        f'<img src="{esc(images[sha])}" alt="image {esc(sha[:12])}" loading="lazy">'
        for sha in ev.images
        if sha in images
    ]
    missing = [sha for sha in ev.images if sha not in images]
    if crops:
        body.append(f'<div class="crops">{"".join(crops)}</div>')
    if missing:
        body.append(
            '<div class="warn">missing images: '
            + ", ".join(esc(s[:16]) for s in missing)
            + "</div>"
        )
    return f'<div class="event {esc(ev.kind)}"><div class="head">{head}</div>{"".join(body)}</div>'


def _trajectory_html(rd: _RoundData, folder: CaseDir, page_dir: Path) -> str:
    if not rd.events:
        return '<p class="note">No trajectory recorded.</p>'
    images: dict[str, str] = {}
    for ev in rd.events:
        for sha in ev.images:
            if sha in images or not SHA256_RE.match(sha):
                continue
            if _copy_image(folder.images_dir / f"{sha}.png", page_dir / "img" / f"{sha}.png"):
                images[sha] = f"img/{sha}.png"
    by_stage: dict[str, list[TrajectoryEvent]] = {}
    for ev in rd.events:
        by_stage.setdefault(ev.stage, []).append(ev)
    parts = []
    for stage, evs in by_stage.items():
        calls = sum(1 for e in evs if e.kind == "tool_call")
        parts.append(
            f"<details{' open' if stage != 'semantic' or calls < 12 else ''}><summary>"
            f"{esc(stage)}: {len(evs)} events, {calls} tool calls</summary>"
            + "".join(_event_html(e, images) for e in evs)
            + "</details>"
        )
    return "".join(parts)


def _artifact_text(case: CaseResult) -> str:
    if case.valid:
        return "valid"
    if not case.artifact_failures:  # Stage 0 itself could not run (the error row says why)
        return "not checked"
    return "invalid: " + ", ".join(case.artifact_failures)


def _case_html(case: CaseResult, run: Path, page_dir: Path) -> str:
    folder = case_dir(run, case.config_id, case.task_id)
    warnings: list[str] = []
    round_ids = _round_indices(case, folder)
    rounds = [_read_round(folder, k) for k in round_ids]
    for rd in rounds:
        warnings.extend(rd.warnings)
    outcome = _case_outcome(case)
    header = (
        f'<h1>{esc(case.case_id)} {_badge(outcome)}</h1><div class=sub><a href="../../index.html">'
        f"← report index</a> · configuration {esc(case.config_id)} · task {esc(case.task_id)}"
        "</div>"
    )
    kv = [
        (
            "score",
            f"{_fmt(case.score)} (layout {_fmt(case.layout)}, text {_fmt(case.text)}, "
            f"graphics {_fmt(case.graphics)})",
        ),
        ("artifact", _artifact_text(case)),
        ("gate", outcome),
        ("round votes", ", ".join(f"{k} {v}" for k, v in sorted(case.gate_votes.items()))),
        ("rounds", " · ".join(f"r{i} {s}" for i, s in enumerate(case.rounds))),
        (
            "taxonomy",
            f"{case.taxonomy_version or '–'} {case.taxonomy_hash[:12]} · policy {case.policy}",
        ),
    ]
    if case.error:
        kv.append(("error", case.error))
    body = [
        '<table class="kv">'
        + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in kv)
        + "</table>"
    ]
    pair = _pair_html(case, folder, page_dir, warnings)
    reasons = _gate_reasons_summary(rounds)
    if reasons:
        body.append("<h2>Gate failures</h2>" + reasons)
    if warnings:
        body.append("".join(f'<p class="warn">{esc(w)}</p>' for w in warnings))
    body.append("<h2>Reference and render</h2>" + pair)
    body.append("<h2>Findings (merged over passing rounds)</h2>")
    body.append(_findings_table(case, round_ids))
    body.append("<h2>Rounds</h2>")
    for rd in rounds:
        status = (
            rd.result.status
            if rd.result is not None
            else (case.rounds[rd.index] if rd.index < len(case.rounds) else "none")
        )
        body.append(f"<h3>Round {rd.index} {_badge(status)}</h3>")
        body.append(_gate_html(rd))
        body.append(_trajectory_html(rd, folder, page_dir))
    if not rounds:
        body.append('<p class="note">No judged rounds (invalid artifact or errored case).</p>')
    return _page(case.case_id, f"../../{CSS_NAME}", header, "".join(body))


# ----------------------------------------------------------------------------------------------


def write_report(
    run: Path,
    out: Path,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    labels: Path | None = None,
) -> Path:
    """Write the report of ``run`` into ``out``; return the path of ``index.html``.

    ``labels``: a human labels CSV (see :mod:`scoring.agreement`); its agreement statistics are
    added to the index page.
    """
    run, out = Path(run), Path(out)
    cases = read_results(run)
    if not cases:
        raise BenchmarkError(f"{run}: results.jsonl has no cases")
    agreement = ""
    if labels is not None:
        labs = read_labels(
            labels, known_cases={c.case_id for c in cases}, known_subtypes=run_subtypes(run)
        )
        agreement = agreement_text(agreement_report(cases, labs, labels_file=str(labels)))
    if out.exists() and not out.is_dir():
        raise BenchmarkError(f"{out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    css = resources.files("scoring").joinpath("report_assets", CSS_NAME).read_text("utf-8")
    (out / CSS_NAME).write_text(css, encoding="utf-8")
    board = build_leaderboard(cases, n_resamples=n_resamples, seed=seed, runs=[run])
    frep = findings_report(cases)
    slugs = {c.case_id: case_slug(c.case_id) for c in cases}
    for case in cases:
        page_dir = out / "cases" / slugs[case.case_id]
        page_dir.mkdir(parents=True, exist_ok=True)
        (page_dir / "index.html").write_text(_case_html(case, run, page_dir), encoding="utf-8")
    index = out / "index.html"
    index.write_text(_index_html(run, cases, board, frep, slugs, agreement), encoding="utf-8")
    return index
