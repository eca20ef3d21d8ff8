"""One HTML page per case: outcome, gate reasons, the pair with finding boxes, the findings
table, and every round with its verdicts and trajectory.

Round files and trajectories are read leniently: an unreadable file or line becomes a warning on
the page (naming the file), never a failed report.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from judge.engine.trajectory import read_trajectory
from judge.rundir import CaseDir, case_dir
from judge.schema import (
    ArtifactReport,
    Box,
    CaseResult,
    FindingPenalty,
    GateReason,
    PairGeometry,
    RoundResult,
    TrajectoryEvent,
)
from scoring.report.markup import (
    CSS_NAME,
    badge,
    case_outcome,
    esc,
    fmt,
    json_text,
    page,
    truncate,
)

OBSERVATIONS_SHOWN = 4
"""Round sightings listed per merged finding before the rest fold away (a finding can be seen on
every edge in every round)."""
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
"""Image references must be plain sha256 digests (nothing else becomes a file path)."""
REASON_COLOUR = "#c62828"
MATCHED_COLOUR = "#2e7d32"
UNMATCHED_COLOUR = "#ef6c00"
EDGE_COLOUR = "#1f4e9c"
BOX_COLOURS = ("#d1495b", "#4e79a7", "#e08a2c", "#7b4fa3", "#2a9d8f", "#b5651d", "#c2185b")
"""Colours of finding boxes on the pair image, cycled by finding number."""


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
        events = read_trajectory(tpath, problems=warnings)
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


def _box_svg(
    b: Box, dx: float, colour: str, tag: str, title: str, cls: str, dash: bool = False
) -> str:
    """One labelled box over the pair (``dx``: the panel's left edge in the pair)."""
    style = ' stroke-dasharray="10 6"' if dash else ""
    return (
        f'<g class="{cls}"><rect x="{dx + b.x:.1f}" y="{b.y:.1f}" width="{b.w:.1f}" '
        f'height="{b.h:.1f}" fill="none" stroke="{colour}" stroke-width="4"{style}>'
        f"<title>{esc(title)}</title></rect>"
        f'<text x="{dx + b.x + 4:.1f}" y="{max(18.0, b.y - 6):.1f}" font-size="22" '
        f'font-weight="700" fill="{colour}">{esc(tag)}</text></g>'
    )


def _reason_boxes(rounds: Sequence[_RoundData], left: float) -> list[str]:
    """Boxes of failed gates' reasons in both panels (G1, G2, ... as in the gate list)."""
    out: list[str] = []
    for i, (rd, name, g) in enumerate(_failed_reasons(rounds), 1):
        for b, dx in ((g.reference_bbox, 0.0), (g.candidate_bbox, left)):
            if b is not None:
                title = f"G{i} round {rd.index}, {name}: {g.target}"
                out.append(_box_svg(b, dx, REASON_COLOUR, f"G{i}", title, "reason", dash=True))
    return out


def _failed_reasons(rounds: Sequence[_RoundData]) -> list[tuple[_RoundData, str, GateReason]]:
    """Confirmed reasons of every failed gate, in round order."""
    out: list[tuple[_RoundData, str, GateReason]] = []
    for rd in rounds:
        r = rd.result
        if r is None:
            continue
        for name, verdict in (("semantic", r.semantic), ("render/text", r.render)):
            if verdict is not None and not verdict.passed:
                out.extend((rd, name, g) for g in verdict.reasons if g.confirmed)
    return out


def _pair_html(
    case: CaseResult,
    folder: CaseDir,
    page_dir: Path,
    warnings: list[str],
    rounds: Sequence[_RoundData] = (),
) -> str:
    """The pair image with finding and gate-reason boxes on both panels (panel frames shifted
    by each panel's left edge)."""
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
            for b, dx in ((ob.bbox, left), (ob.reference_bbox, 0)):
                if b is None:
                    continue
                title = f"#{i} {f.subtype} (round {ob.round_index}): {ob.location}"
                boxes.append(_box_svg(b, dx, colour, f"#{i}", title, "finding"))
    boxes += _reason_boxes(rounds, left)
    return (
        '<div class="pair"><svg viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg" '
        'role="img" aria-label="reference (left) and render (right)">'
        '<image href="pair.png" x="0" y="0" width="{w}" height="{h}"/>'
        '<text x="10" y="{ty}" font-size="20" fill="#5f6b7a">reference</text>'
        '<text x="{rx}" y="{ty}" font-size="20" fill="#5f6b7a">candidate render</text>'
        '<line x1="{gx}" y1="0" x2="{gx}" y2="{h}" stroke="#c5cbd6" stroke-width="2"/>'
        "{boxes}</svg></div>"
    ).format(w=width, h=height, ty=height - 10, rx=left + 10, gx=left - 2, boxes="".join(boxes)) + (
        f'<p class="note">Boxes: finding locations in both panels ({panel_w} px wide each), '
        "numbered as in the findings table; dashed G boxes: confirmed gate-failure reasons.</p>"
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
    """The reasons of every failed gate, by round, for the top of a case page: confirmed ones
    tagged G1, G2, ... as their boxes on the pair; unconfirmed ones listed apart (audit)."""
    items: list[str] = []
    unconfirmed: list[str] = []
    tags = {id(g): i for i, (_, _, g) in enumerate(_failed_reasons(rounds), 1)}
    for rd in rounds:
        r = rd.result
        if r is None:
            continue
        for name, verdict in (("semantic", r.semantic), ("render/text", r.render)):
            if verdict is None or verdict.passed:
                continue
            for g in verdict.reasons:
                line = (
                    f"round {rd.index}, {esc(name)}: <b>{esc(g.target)}</b> — {esc(g.evidence)}"
                    f' <span class="muted">(confidence {g.confidence:.2f})</span>'
                )
                if g.confirmed:
                    tag = f' <b style="color:{REASON_COLOUR}">G{tags[id(g)]}</b>'
                    items.append(f"<li>{line}{tag}</li>")
                else:
                    unconfirmed.append(f"<li>{line}</li>")
    out = f"<ul>{''.join(items)}</ul>" if items else ""
    if unconfirmed:
        out += (
            f"<details><summary>{len(unconfirmed)} unconfirmed possible differences (recorded, "
            f"not failing)</summary><ul>{''.join(unconfirmed)}</ul></details>"
        )
    return out


def _readings(rounds: Sequence[_RoundData]) -> dict[str, object] | None:
    """The two graphs as read (the ``compare_graphs`` result's ``readings``), from the first
    round whose trajectory has them."""
    for rd in rounds:
        for ev in rd.events:
            if ev.tool_name == "compare_graphs" and isinstance(ev.result, dict):
                readings = ev.result.get("readings")
                if isinstance(readings, dict):
                    return readings
    return None


def _graph_svg(graph: Any, dx: float) -> str:
    """Nodes (solid green: matched; dashed orange: unmatched) and directed edges of one
    reading, over its panel."""
    if not isinstance(graph, dict):
        return ""
    nodes = {str(n.get("id")): n for n in graph.get("nodes", []) if isinstance(n, dict)}
    parts = []
    for n in nodes.values():
        x, y, w, h = (float(v) for v in n.get("box", [0, 0, 0, 0]))
        matched = bool(n.get("matched"))
        colour = MATCHED_COLOUR if matched else UNMATCHED_COLOUR
        dash = "" if matched else ' stroke-dasharray="8 5"'
        state = "matched" if matched else "unmatched"
        parts.append(
            f'<rect class="node {state}" x="{dx + x:.1f}" y="{y:.1f}" width="{w:.1f}" '
            f'height="{h:.1f}" fill="none" stroke="{colour}" stroke-width="3"{dash}>'
            f"<title>{esc(str(n.get('label', '')))} ({state})</title></rect>"
        )
    for e in graph.get("edges", []):
        a, b = nodes.get(str(e.get("src"))), nodes.get(str(e.get("dst")))
        if a is None or b is None:
            continue
        (ax, ay), (bx, by) = _centre(a, dx), _centre(b, dx)
        directed = e.get("direction") in ("high", "medium")
        head = ' marker-end="url(#head)"' if directed else ""
        parts.append(
            f'<line class="edge" x1="{ax:.1f}" y1="{ay:.1f}" x2="{bx:.1f}" y2="{by:.1f}" '
            f'stroke="{EDGE_COLOUR}" stroke-width="3"{head}><title>'
            f"{esc(str(a.get('label', '')))} → {esc(str(b.get('label', '')))} "
            f"({esc(str(e.get('direction')))})</title></line>"
        )
    return "".join(parts)


def _centre(n: dict[str, Any], dx: float) -> tuple[float, float]:
    x, y, w, h = (float(v) for v in n.get("box", [0, 0, 0, 0]))
    return (dx + x + w / 2, y + h / 2)


def _graphs_html(rounds: Sequence[_RoundData], folder: CaseDir, width: int, height: int) -> str:
    """Both graphs as the judge read them, drawn over the pair."""
    readings = _readings(rounds)
    if readings is None:
        return ""
    left = width // 2
    if folder.pair_json.is_file():
        with contextlib.suppress(ValueError):
            left = PairGeometry.model_validate_json(
                folder.pair_json.read_text()
            ).candidate.panel_left
    marker = (
        '<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
        f'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{EDGE_COLOUR}"/>'
        "</marker></defs>"
    )
    body = _graph_svg(readings.get("reference"), 0) + _graph_svg(readings.get("render"), left)
    return (
        "<h2>Graphs as read</h2>"
        f'<div class="pair graphs"><svg viewBox="0 0 {width} {height}" '
        'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="graphs as read">'
        f'{marker}<image href="pair.png" x="0" y="0" width="{width}" height="{height}" '
        f'opacity="0.35"/>{body}</svg></div>'
        '<p class="note">Solid green: nodes matched between the readings; dashed orange: '
        "unmatched; arrows: edges read with an arrowhead (lines without one have none).</p>"
    )


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
            f"<pre>{esc(truncate(ev.content))}</pre></details>"
        )
    elif ev.content:
        body.append(f"<pre>{esc(truncate(ev.content))}</pre>")
    if ev.arguments is not None:
        body.append(f"<div class=muted>arguments</div><pre>{esc(json_text(ev.arguments))}</pre>")
    if ev.result is not None:
        body.append(f"<div class=muted>result</div><pre>{esc(json_text(ev.result))}</pre>")
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


def _stage0(folder: CaseDir) -> ArtifactReport | None:
    """The case's Stage 0 report (``stage0.json``), None when absent or unreadable."""
    try:
        return ArtifactReport.model_validate_json(folder.stage0.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _artifact_text(case: CaseResult, report: ArtifactReport | None = None) -> str:
    """``valid``, ``not checked``, or each failed check with what ``judge validate`` found
    (``no_external_relationships: ... rId2 hyperlink -> https://...``)."""
    if case.valid:
        return "valid"
    if not case.artifact_failures:  # Stage 0 itself could not run (the error row says why)
        return "not checked"
    details = {c.name: c.detail for c in report.checks} if report is not None else {}
    return "invalid: " + "; ".join(
        f"{name}: {details[name]}" if details.get(name) else name for name in case.artifact_failures
    )


def _stage0_html(report: ArtifactReport | None) -> str:
    """Every Stage 0 check with its result and detail, failed ones marked."""
    if report is None:
        return '<p class="note">No Stage 0 report (stage0.json) in the case folder.</p>'
    rows = "".join(
        f'<tr class="{"pass" if c.passed else "fail"}"><td>{esc(c.name)}</td>'
        f"<td>{'skipped' if c.skipped else ('pass' if c.passed else 'FAIL')}</td>"
        f"<td>{esc(c.detail)}</td></tr>"
        for c in report.checks
    )
    return f"<table><tr><th>check</th><th>result</th><th>detail</th></tr>{rows}</table>"


def case_html(case: CaseResult, run: Path, page_dir: Path) -> str:
    folder = case_dir(run, case.config_id, case.task_id)
    warnings: list[str] = []
    round_ids = _round_indices(case, folder)
    rounds = [_read_round(folder, k) for k in round_ids]
    for rd in rounds:
        warnings.extend(rd.warnings)
    outcome = case_outcome(case)
    stage0 = _stage0(folder)
    header = (
        f'<h1>{esc(case.case_id)} {badge(outcome)}</h1><div class=sub><a href="../../index.html">'
        f"← report index</a> · configuration {esc(case.config_id)} · task {esc(case.task_id)}"
        "</div>"
    )
    kv = [
        (
            "score",
            f"{fmt(case.score)} (layout {fmt(case.layout)}, text {fmt(case.text)}, "
            f"graphics {fmt(case.graphics)})",
        ),
        ("artifact", _artifact_text(case, stage0)),
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
    pair = _pair_html(case, folder, page_dir, warnings, rounds)
    reasons = _gate_reasons_summary(rounds)
    if reasons:
        body.append("<h2>Gate failures</h2>" + reasons)
    if warnings:
        body.append("".join(f'<p class="warn">{esc(w)}</p>' for w in warnings))
    if not case.valid:
        body.append("<h2>Stage 0 checks</h2>" + _stage0_html(stage0))
    body.append("<h2>Reference and render</h2>" + pair)
    if (page_dir / "pair.png").is_file():
        try:
            with Image.open(page_dir / "pair.png") as im:
                body.append(_graphs_html(rounds, folder, *im.size))
        except OSError:
            pass  # _pair_html already warned
    body.append("<h2>Findings (merged over passing rounds)</h2>")
    body.append(_findings_table(case, round_ids))
    body.append("<h2>Rounds</h2>")
    for rd in rounds:
        status = (
            rd.result.status
            if rd.result is not None
            else (case.rounds[rd.index] if rd.index < len(case.rounds) else "none")
        )
        body.append(f"<h3>Round {rd.index} {badge(status)}</h3>")
        body.append(_gate_html(rd))
        body.append(_trajectory_html(rd, folder, page_dir))
    if not rounds:
        body.append('<p class="note">No judged rounds (invalid artifact or errored case).</p>')
    return page(case.case_id, f"../../{CSS_NAME}", header, "".join(body))
