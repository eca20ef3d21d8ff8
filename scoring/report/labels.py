"""The report's case-by-case comparison of the judge with human labels (``--labels``):
disagreements with the human majority first, judge and annotators side by side."""

from __future__ import annotations

from collections.abc import Sequence

from scoring.agreement import CaseComparison, Label
from scoring.report.markup import badge, esc

STATUS_TEXT = {
    "disagree": "judge ≠ humans",
    "undecided": "undecided",
    "agree": "agree",
}
THUMB_WIDTH = 260
"""Width (CSS pixels) of the pair thumbnail in the comparison table."""


def _call(lab: Label) -> str:
    gate = "pass" if lab.gate_pass else "fail"
    parts = [f'<b>{esc(lab.annotator)}</b> <span class="badge b-{gate}">{gate}</span>']
    if lab.gate_stage:
        parts.append(f"stage {esc(lab.gate_stage)}")
    if lab.gate_reason:
        parts.append(f"“{esc(lab.gate_reason)}”")
    if lab.subtypes:
        fracs = dict(lab.fractions)
        parts.append(
            ", ".join(
                esc(s) + (f" ({fracs[s]:g})" if s in fracs else "") for s in sorted(lab.subtypes)
            )
        )
    return "<div>" + " · ".join(parts) + "</div>"


def _majority(c: CaseComparison) -> str:
    passes = sum(1 for lab in c.humans if lab.gate_pass)
    fails = len(c.humans) - passes
    word = "tie" if c.human_pass is None else ("pass" if c.human_pass else "fail")
    return f"majority <b>{word}</b> ({passes} pass, {fails} fail)"


def comparisons_html(comparisons: Sequence[CaseComparison], slugs: dict[str, str]) -> str:
    """The table: case, pair thumbnail, the judge's call and findings, each annotator's call."""
    if not comparisons:
        return ""
    n_dis = sum(1 for c in comparisons if c.status == "disagree")
    rows = []
    for c in comparisons:
        slug = slugs[c.case_id]
        href = f"cases/{slug}/index.html"
        thumb = (
            f'<a href="{esc(href)}"><img src="cases/{esc(slug)}/pair.png" '
            f'width="{THUMB_WIDTH}" alt="normalised pair of {esc(c.case_id)}"></a>'
        )
        judge = badge(c.judge_gate)
        if c.judge_subtypes:
            judge += "<div>" + ", ".join(esc(s) for s in c.judge_subtypes) + "</div>"
        humans = _majority(c) + "".join(_call(lab) for lab in c.humans)
        rows.append(
            f'<tr class="cmp-{c.status}"><td class=l><a href="{esc(href)}">{esc(c.case_id)}</a>'
            f"<div class=muted>{esc(STATUS_TEXT[c.status])}</div></td>"
            f"<td class=l>{thumb}</td><td class=l>{judge}</td><td class=l>{humans}</td></tr>"
        )
    return (
        f"<h3>Case by case: {n_dis} disagreement(s) with the human majority first</h3>"
        "<table class=cmp><tr><th class=l>case</th><th class=l>pair</th>"
        "<th class=l>judge</th><th class=l>human labels</th></tr>" + "".join(rows) + "</table>"
    )
