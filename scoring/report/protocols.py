"""The report's "Protocols side by side" section: PPTBench and ReFigBench leaderboards of the
same candidates, with the fidelity diagnostics, the object audit and the split by complexity
tier (one row per configuration)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from judge.errors import PptJudgeError
from judge.schema import CaseResult
from scoring.audit import audit_rows, config_audits
from scoring.complexity import TIERS
from scoring.report.markup import esc, fmt, percent


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _scores(cases: Sequence[CaseResult]) -> dict[str, dict[str, float]]:
    """config -> task -> points (0 for gated/invalid; errored cases left out)."""
    out: dict[str, dict[str, float]] = {}
    for c in cases:
        if c.error is None and c.gate is not None:
            ok = c.gate == "pass" and c.valid
            out.setdefault(c.config_id, {})[c.task_id] = float(c.score or 0.0) if ok else 0.0
    return out


def protocols_html(
    run: Path,
    cases: Sequence[CaseResult],
    refig_run: Path | None = None,
    refig_cases: Sequence[CaseResult] = (),
) -> str:
    """The section's HTML (a table; empty string when nothing of it is known)."""
    from scoring.tiers import case_tiers

    main_name = "ReFigBench" if any(c.protocol == "refigbench" for c in cases) else "PPTBench"
    main = _scores(cases)
    other = _scores(refig_cases)
    runs = [run] + ([refig_run] if refig_run is not None else [])
    try:
        tiers = case_tiers([*cases, *refig_cases], runs)
    except PptJudgeError:
        tiers = {}
    audits = config_audits(audit_rows(cases, run))
    configs = sorted(
        set(main) | set(other), key=lambda k: -(_mean(list(main.get(k, {}).values())) or 0)
    )
    head = [f"{main_name} S"] + (["ReFigBench S"] if other else [])
    head += ["fidelity", "PSNR term", "SSIM", "CIEDE2000 term", "no connector", "median conn."]
    head += [f"{main_name} {t}" for t in TIERS if t in tiers.values()]
    rows = []
    for cfg in configs:
        fid = [c.fidelity for c in cases if c.config_id == cfg and c.fidelity is not None]
        cells = [fmt(_mean(list(main.get(cfg, {}).values())))]
        if other:
            cells.append(fmt(_mean(list(other.get(cfg, {}).values()))))
        cells += [
            fmt(_mean([f.combined for f in fid]), "{:.3f}"),
            fmt(_mean([f.psnr_term for f in fid]), "{:.3f}"),
            fmt(_mean([f.ssim for f in fid]), "{:.3f}"),
            fmt(_mean([f.ciede2000_term for f in fid]), "{:.3f}"),
        ]
        a = audits.get(cfg)
        cells += [percent(a.without_connectors if a else None)]
        cells += [fmt(a.median_connectors if a else None, "{:g}")]
        for tier in TIERS:
            if tier in tiers.values():
                pts = [v for t, v in main.get(cfg, {}).items() if tiers.get(t) == tier]
                cells.append(fmt(_mean(pts)))
        rows.append(
            f"<tr><td>{esc(cfg)}</td>" + "".join(f"<td>{esc(x)}</td>" for x in cells) + "</tr>"
        )
    if not rows:
        return ""
    th = "<tr><th>config</th>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"
    note = (
        "Fidelity terms are diagnostics (means over cases that reached the normalised pair; "
        "PSNR and SSIM reward a pasted reference). Tiers: tertiles of the benchmark's complexity."
    )
    return f'<table class="protocols">{th}{"".join(rows)}</table><p class="sub">{esc(note)}</p>'
