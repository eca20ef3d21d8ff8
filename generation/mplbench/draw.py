"""Draw a truth spec with matplotlib, the way a figure made in a notebook looks.

The axes fill the figure and run 0..width, height..0, so one data unit is one pixel of the
saved image and the spec's boxes are where matplotlib draws them. Boxes are ``FancyBboxPatch``
(square, round and the hand-drawn ``round4``/``roundtooth``), ``Ellipse``, ``Polygon``
diamonds and cylinders from patches; arrows are ``FancyArrowPatch`` along the spec's own
route (:func:`generation.realfig.geometry.route`), shortened at both ends by matplotlib's
default 2 pt ``shrink``, in the task's ``arrowstyle``. Text is matplotlib's (its font
rasteriser, not Pillow's or LibreOffice's). Some references go through JPEG before being saved
as PNG.

matplotlib is a development dependency: :class:`MatplotlibMissing` says so when it is absent.
"""

from __future__ import annotations

import io
import math
from dataclasses import replace
from typing import Any

from PIL import Image

from generation.mplbench.layout import STRAIGHT_ONLY, MplStyle
from generation.realfig.geometry import route
from generation.realfig.model import Fig, N
from judge.errors import BenchmarkError

SHRINK_PT = 2.0
"""matplotlib's default ``shrinkA``/``shrinkB``: arrows stop this short of their ends."""
CAN_CAP = 0.14
"""A cylinder's elliptic cap: this share of its height."""
OUTLINE_PT = 1.0


class MatplotlibMissing(BenchmarkError):
    """matplotlib is not installed (``pip install -e '.[dev]'``)."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise MatplotlibMissing(
            "matplotlib is not installed: the matplotlib benchmark needs the development "
            "dependencies (.venv/bin/pip install -e '.[dev]')"
        ) from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _c(hex6: str | None) -> str:
    return "none" if hex6 is None else f"#{hex6}"


def _node(ax: Any, n: N, st: MplStyle, lw: float, font_pt: float) -> None:
    from matplotlib.patches import Ellipse, FancyBboxPatch, Polygon, Rectangle

    x, y, w, h = n.box
    fc, ec = _c(n.fill), _c(n.stroke)
    elw = lw if n.stroke is not None else 0.0
    if n.shape == "ellipse":
        ax.add_patch(Ellipse((x + w / 2, y + h / 2), w, h, fc=fc, ec=ec, lw=elw))
    elif n.shape == "diamond":
        pts = [(x + w / 2, y), (x + w, y + h / 2), (x + w / 2, y + h), (x, y + h / 2)]
        ax.add_patch(Polygon(pts, closed=True, fc=fc, ec=ec, lw=elw, joinstyle="miter"))
    elif n.shape == "can":
        cap = CAN_CAP * h
        ax.add_patch(Ellipse((x + w / 2, y + h - cap / 2), w, cap, fc=fc, ec=ec, lw=elw))
        ax.add_patch(Rectangle((x, y + cap / 2), w, h - cap, fc=fc, ec="none", lw=0))
        for sx in (x, x + w):
            ax.plot([sx, sx], [y + cap / 2, y + h - cap / 2], color=ec, lw=elw,
                    solid_capstyle="butt")  # fmt: skip
        ax.add_patch(Ellipse((x + w / 2, y + cap / 2), w, cap, fc=fc, ec=ec, lw=elw))
    else:
        if n.shape == "round":
            style = f"round,pad=0,rounding_size={0.25 * h:.1f}"
        elif st.box == "round4":
            style = f"round4,pad=0,rounding_size={0.2 * h:.1f}"
        elif st.box == "roundtooth":
            style = f"roundtooth,pad=0,tooth_size={0.1 * h:.1f}"
        else:
            style = "square,pad=0"
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle=style, fc=fc, ec=ec, lw=elw))
    ax.text(x + w / 2, y + h / 2, n.label, ha="center", va="center", color=_c(n.text),
            fontsize=font_pt, fontfamily=st.font)  # fmt: skip


def _arrowstyle(st: MplStyle) -> str:
    if st.arrow == "-|>wide":
        return "-|>,head_length=0.35,head_width=0.3"
    if st.arrow == "simple":
        return "simple,head_length=0.6,head_width=0.6,tail_width=0.15"
    if st.arrow == "fancy":
        return "fancy,head_length=0.5,head_width=0.5,tail_width=0.3"
    return st.arrow


def _shortened(pts: list[tuple[float, float]], d: float) -> list[tuple[float, float]]:
    """``pts`` with ``d`` pixels cut from each end (as matplotlib's ``shrink`` does)."""

    def cut(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        left = d
        out = list(seq)
        while len(out) > 2 and math.dist(out[0], out[1]) <= left:
            left -= math.dist(out[0], out[1])
            out.pop(0)
        (x0, y0), (x1, y1) = out[0], out[1]
        seg = math.dist(out[0], out[1]) or 1.0
        t = min(left / seg, 0.45)
        out[0] = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
        return out

    return cut(cut(pts)[::-1])[::-1]


def _straight_arrow(ax: Any, pts: list[tuple[float, float]], st: MplStyle, colour: str) -> None:
    """One straight arrow the two classic ways: ``ax.annotate`` with ``arrowprops`` of
    ``width``/``headwidth``/``headlength`` (points), or ``ax.arrow`` (data units = pixels), both
    a filled polygon whose tip is the route's end."""
    (x0, y0), (x1, y1) = pts
    k = st.dpi / 72
    shaft_pt = max(0.8, st.line_pt * 1.6)
    if st.arrow == "annotate":
        props = {"facecolor": colour, "edgecolor": colour, "width": shaft_pt,
                 "headwidth": st.mutation, "headlength": 0.9 * st.mutation, "shrink": 0.0,
                 "lw": 0.5}  # fmt: skip
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), xycoords="data", arrowprops=props)
        return
    head_w = st.mutation * k
    ax.arrow(x0, y0, x1 - x0, y1 - y0, width=shaft_pt * k * 0.7, head_width=head_w,
             head_length=1.1 * head_w, length_includes_head=True, fc=colour, ec=colour,
             lw=0.5)  # fmt: skip


def _path(pts: list[tuple[float, float]], st: MplStyle) -> Any:
    """The matplotlib path along ``pts``: a polyline, or for the ``simple`` and ``fancy``
    styles (which take only a quadratic Bezier) the quadratic through its ends and middle."""
    from matplotlib.path import Path as MPath

    if st.arrow not in ("simple", "fancy"):
        return MPath(pts)
    p0, p2 = pts[0], pts[-1]
    if len(pts) == 2:
        c = ((p0[0] + p2[0]) / 2, (p0[1] + p2[1]) / 2)
    else:  # B(1/2) = (p0 + 2c + p2) / 4 at the middle sample of the route's curve
        m = pts[len(pts) // 2]
        c = (2 * m[0] - (p0[0] + p2[0]) / 2, 2 * m[1] - (p0[1] + p2[1]) / 2)
    return MPath([p0, c, p2], [MPath.MOVETO, MPath.CURVE3, MPath.CURVE3])


def draw_png(fig: Fig, st: MplStyle) -> bytes:
    """The reference image of ``fig`` drawn by matplotlib (PNG bytes, ``fig.size`` pixels)."""
    plt = _pyplot()
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    k = st.dpi / 72
    w, h = fig.size
    mfig = plt.figure(figsize=(w / st.dpi, h / st.dpi), dpi=st.dpi, facecolor="white")
    try:
        ax = mfig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, w)
        ax.set_ylim(h, 0)
        ax.axis("off")
        font_pt = fig.font_px / k
        for p in fig.panels:
            x, y, pw, ph = p.box
            ax.add_patch(FancyBboxPatch(
                (x, y), pw, ph, boxstyle=f"round,pad=0,rounding_size={0.4 * fig.font_px:.1f}",
                fc=_c(p.fill), ec=_c(p.stroke), lw=OUTLINE_PT, ls="--" if p.dashed else "-",
            ))  # fmt: skip
            if p.title_box is not None:
                tx, ty, _, th = p.title_box
                ax.text(tx, ty + th / 2, p.title, ha="left", va="center", fontsize=font_pt,
                        fontweight="bold", fontfamily=st.font)  # fmt: skip
        for e in fig.edges:
            pts = _shortened(route(fig, e), SHRINK_PT * k)
            if len(pts) == 2 and st.arrow in STRAIGHT_ONLY:
                _straight_arrow(ax, pts, st, _c(e.colour))
                continue
            # ``simple``/``fancy`` follow one quadratic only: an elbow or a route round the
            # drawing is drawn ``-|>`` (as are the straight-only kinds' arcs)
            one_curve = len(pts) == 2 or (e.route == "curved" and not e.points)
            bent = st.arrow in ("simple", "fancy") and not one_curve
            arrow = replace(st, arrow="-|>") if st.arrow in STRAIGHT_ONLY or bent else st
            ax.add_patch(FancyArrowPatch(
                path=_path(pts, arrow), arrowstyle=_arrowstyle(arrow),
                mutation_scale=arrow.mutation, lw=st.line_pt, color=_c(e.colour),
                joinstyle="miter", capstyle="butt",
            ))  # fmt: skip
        for n in fig.nodes:
            _node(ax, n, st, st.line_pt * 0.9 if n.stroke else 0.0, font_pt)
        for t in fig.texts:
            x, y, tw, th = t.box
            fs = (t.font_px or fig.font_px) / k
            ax.text(x + tw / 2, y + th / 2, t.text, ha="center", va="center", fontsize=fs,
                    color=_c(t.colour), fontweight="bold" if t.bold else "normal",
                    fontfamily=st.font)  # fmt: skip
        buf = io.BytesIO()
        mfig.savefig(buf, format="png", dpi=st.dpi, facecolor="white")
    finally:
        plt.close(mfig)
    png = buf.getvalue()
    if st.jpeg:
        with Image.open(io.BytesIO(png)) as im:
            jpg = io.BytesIO()
            im.convert("RGB").save(jpg, format="JPEG", quality=st.jpeg)
        with Image.open(io.BytesIO(jpg.getvalue())) as im2:
            out = io.BytesIO()
            im2.save(out, format="PNG")
            png = out.getvalue()
    return png
