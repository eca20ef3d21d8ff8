"""HTML building blocks of the report: escaping, number formats, the page frame, badges.

Every text that comes from the run goes through :func:`esc` (candidate text and model output are
untrusted).
"""

from __future__ import annotations

import html
import json
import math

from judge.schema import CaseResult

CSS_NAME = "report.css"
MAX_TEXT_CHARS = 4000
"""Longest message/JSON text shown in full on a case page; longer text is cut with a note
(trajectories can hold whole prompts; the files on disk keep everything)."""
GATE_ORDER = ("pass", "semantic", "render", "artifact", "errored")
GATE_COLOURS = {
    "pass": "#3f8f4f",
    "semantic": "#d1495b",
    "render": "#e08a2c",
    "artifact": "#8c6d4f",
    "errored": "#9aa1aa",
}


def esc(value: object) -> str:
    """HTML-escape any value (quotes too, so it is safe in attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def fmt(x: float | None, spec: str = "{:.1f}") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return spec.format(x)


def percent(x: float | None) -> str:
    return fmt(None if x is None else 100 * x, "{:.0f}%")


def truncate(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[:MAX_TEXT_CHARS] + f"\n… ({len(text) - MAX_TEXT_CHARS} more characters in the file)"


def json_text(obj: object) -> str:
    return truncate(json.dumps(obj, indent=1, ensure_ascii=False, default=str))


def page(title: str, css_href: str, header_html: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title>"
        f'<link rel="stylesheet" href="{esc(css_href)}">'
        "</head><body>"
        f'<header class="top">{header_html}</header><main>{body}</main></body></html>\n'
    )


def case_outcome(case: CaseResult) -> str:
    if case.error is not None or case.gate is None:
        return "errored"
    return case.gate


def badge(outcome: str) -> str:
    cls = outcome if outcome in GATE_COLOURS or outcome == "skipped" else "none"
    return f'<span class="badge b-{esc(cls)}">{esc(outcome)}</span>'
