"""Hand-written inline SVG plots of the report (coordinates are SVG user units)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from scoring.leaderboard import Leaderboard
from scoring.report.markup import esc, fmt

SCORE_BINS = 20
"""Bins of the per-configuration score histograms (5 points each on the 0-100 scale)."""


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
                f"[{fmt(r.ci_low)}, {fmt(r.ci_high)}]</title></circle>"
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


def legend(keys: Sequence[str], colours: dict[str, str]) -> str:
    return (
        '<div class="legend">'
        + "".join(f'<span><i style="background:{colours[k]}"></i>{esc(k)}</span>' for k in keys)
        + "</div>"
    )


def svg_scatter(
    points: Sequence[tuple[str, float, float]], x_label: str, y_label: str = "mean score"
) -> str:
    """Labelled points (label, x, y): x from 0 to its largest value, y (a score) on 0-100."""
    left, plot_w, plot_h, top = 50, 460, 260, 10
    peak = max((x for _, x, _ in points), default=0.0) or 1.0

    def sx(v: float) -> float:
        return left + plot_w * max(0.0, v) / peak

    def sy(v: float) -> float:
        return top + plot_h * (1.0 - max(0.0, min(100.0, v)) / 100.0)

    step = peak / 5
    inner = _axis(left, left + plot_w, top + plot_h, top, [step * i for i in range(6)], sx)
    inner.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#8892a0"/>')
    for t in range(0, 101, 25):
        inner.append(
            f'<text x="{left - 6}" y="{sy(t) + 4:.1f}" font-size="11" text-anchor="end" '
            f'fill="#5f6b7a">{t}</text>'
        )
    inner.append(
        f'<text x="{left + plot_w / 2}" y="{top + plot_h + 30}" font-size="12" '
        f'text-anchor="middle">{esc(x_label)}</text>'
        f'<text x="12" y="{top + plot_h / 2}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + plot_h / 2})">{esc(y_label)}</text>'
    )
    for label, x, y in points:
        inner.append(
            f'<circle class="pt" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="5" fill="#4e79a7">'
            f"<title>{esc(label)}: {x:.2f}, {y:.1f}</title></circle>"
            f'<text x="{sx(x) + 7:.1f}" y="{sy(y) - 6:.1f}" font-size="11">{esc(label)}</text>'
        )
    return _svg(left + plot_w + 120, top + plot_h + 40, inner, f"{x_label} vs {y_label}")
