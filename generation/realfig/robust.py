"""The hand-builder robustness benchmark: faithful real-figure decks with the changes a person
redrawing a figure makes on their own, every one of which must still pass.

Each change is applied to a built faithful deck (``shapes`` and ``handmade`` constructions):

* ``heads``  -- every arrowhead becomes a large stealth head (the constructions draw triangles
  and stealth heads of medium or large size);
* ``thick``  -- every outline and line drawn ``THICK_FACTOR`` times as wide;
* ``font``   -- every run set in ``FONT_FACE`` at ``FONT_SCALE`` of its size (a builder without
  the reference's font, or who chose a smaller one);
* ``margin`` -- the slide ``MARGIN_SCALE`` times as large in both directions with the figure
  centred on it (a figure placed on a larger slide with empty margins round it);
* ``thin``   -- PowerPoint's defaults: every outline and line ``THIN_PT`` wide, every
  arrowhead of the default (medium) size;
* ``shadow`` -- every shape and line casts a soft outer shadow (a theme's shape style, or
  "Shadow" picked from the format pane).

None changes what the diagram says, so each case's expected gate is ``pass``: the benchmark
measures false rejections only. ``bench/builtin_accuracy.py --bench robust`` runs it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from lxml import etree
from pptx import Presentation
from pptx.oxml.ns import qn
from pptx.util import Emu

from generation.deck import _fixed_zip
from generation.outdir import ready_out
from generation.realfig.bench import finish_benchmark, select, write_task
from generation.realfig.deck import Construction, build_deck
from judge.errors import BenchmarkError
from judge.rundir import atomic_write_bytes
from judge.schema import CaseLabel

THICK_FACTOR = 2.2
"""How many times as wide ``thick`` draws every outline and line."""
FONT_FACE = "DejaVu Sans"
FONT_SCALE = 0.9
"""``font``: the face every run is set in, and the fraction of its size it keeps."""
MARGIN_SCALE = 1.25
"""``margin``: how many times as wide and as tall the slide becomes (the figure centred)."""
THIN_PT = 0.75
"""``thin``: the width of every outline and line (PowerPoint's default line), points."""
SHADOW_XML = (
    '<a:effectLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
    '<a:outerShdw blurRad="50800" dist="38100" dir="2700000" algn="tl" rotWithShape="0">'
    '<a:prstClr val="black"><a:alpha val="40000"/></a:prstClr></a:outerShdw></a:effectLst>'
)
"""``shadow``: PowerPoint's "Offset: Bottom Right" outer shadow (4 pt blur, 3 pt offset)."""
ROBUST_CONSTRUCTIONS: tuple[Construction, ...] = ("shapes", "handmade")
"""The faithful constructions each change is applied to."""


def _shapes(shapes: Any) -> Iterator[Any]:
    """Every shape of a shape tree, group members included (depth first)."""
    for sh in shapes:
        yield sh
        if sh.shape_type is not None and hasattr(sh, "shapes"):
            yield from _shapes(sh.shapes)


def _lines(prs: Any) -> Iterator[Any]:
    """Every ``a:ln`` element on the deck's slides."""
    for slide in prs.slides:
        for sh in _shapes(slide.shapes):
            yield from sh._element.iter(qn("a:ln"))


def _heads(prs: Any) -> None:
    for ln in _lines(prs):
        for tag in ("a:headEnd", "a:tailEnd"):
            end = ln.find(qn(tag))
            if end is not None and end.get("type", "none") != "none":
                end.set("type", "stealth")
                end.set("w", "lg")
                end.set("len", "lg")


def _thick(prs: Any) -> None:
    for ln in _lines(prs):
        if ln.get("w") is not None:
            ln.set("w", str(round(int(ln.get("w")) * THICK_FACTOR)))


def _font(prs: Any) -> None:
    for slide in prs.slides:
        for sh in _shapes(slide.shapes):
            if not getattr(sh, "has_text_frame", False):
                continue
            for para in sh.text_frame.paragraphs:
                for run in para.runs:
                    run.font.name = FONT_FACE
                    if run.font.size is not None:
                        run.font.size = Emu(round(run.font.size * FONT_SCALE))


def _margin(prs: Any) -> None:
    w, h = prs.slide_width, prs.slide_height
    prs.slide_width, prs.slide_height = round(w * MARGIN_SCALE), round(h * MARGIN_SCALE)
    dx, dy = round(w * (MARGIN_SCALE - 1) / 2), round(h * (MARGIN_SCALE - 1) / 2)
    for slide in prs.slides:
        for sh in slide.shapes:  # top level only: group members move with their group
            sh.left, sh.top = sh.left + dx, sh.top + dy


def _thin(prs: Any) -> None:
    for ln in _lines(prs):
        if ln.find(qn("a:noFill")) is not None:
            continue  # no line drawn: nothing to thin
        ln.set("w", str(round(THIN_PT * 12700)))
        for tag in ("a:headEnd", "a:tailEnd"):
            end = ln.find(qn(tag))
            if end is not None:
                end.attrib.pop("w", None)
                end.attrib.pop("len", None)


def _shadow(prs: Any) -> None:
    # a:effectLst follows a:ln in spPr (CT_ShapeProperties' sequence); styles may follow it
    later = {qn(t) for t in ("a:scene3d", "a:sp3d", "a:extLst")}
    for slide in prs.slides:
        for sh in _shapes(slide.shapes):
            sp_pr = sh._element.find(qn("p:spPr"))
            if sp_pr is None or sp_pr.find(qn("a:effectLst")) is not None:
                continue
            effect = etree.fromstring(SHADOW_XML)
            at = next((i for i, el in enumerate(sp_pr) if el.tag in later), len(sp_pr))
            sp_pr.insert(at, effect)


CHANGES: dict[str, Callable[[Any], None]] = {
    "heads": _heads,
    "thick": _thick,
    "font": _font,
    "margin": _margin,
    "thin": _thin,
    "shadow": _shadow,
}
"""Each hand-builder change, by name: it edits an opened presentation in place."""


def restyle(deck: bytes, change: str) -> bytes:
    """``deck`` (PPTX bytes) with hand-builder change ``change`` applied (deterministic bytes)."""
    if change not in CHANGES:
        raise BenchmarkError(f"unknown change {change!r} (known: {sorted(CHANGES)})")
    prs = Presentation(io.BytesIO(deck))
    CHANGES[change](prs)
    buf = io.BytesIO()
    prs.save(buf)
    return _fixed_zip(buf.getvalue())


def write_robust_benchmark(
    out: Path,
    figures_dir: Path | None = None,
    figures: Sequence[str] | None = None,
    changes: Sequence[str] | None = None,
    force: bool = False,
) -> list[CaseLabel]:
    """Write the robustness benchmark for ``figures`` (default: every real-figure spec) and
    ``changes`` (default: all) in the real-figure benchmark's layout; configurations are named
    ``<change>_<construction>`` and every case is labelled ``pass``."""
    out = Path(out)
    src, specs, names = select(figures_dir, figures, changes, CHANGES, "change")
    ready_out(out, force)
    labels: list[CaseLabel] = []
    configs = [f"{c}_{h}" for h in ROBUST_CONSTRUCTIONS for c in names]
    for fig in specs:
        write_task(out, src, fig)
        for how in ROBUST_CONSTRUCTIONS:
            deck = build_deck(fig, how)
            for change in names:
                config = f"{change}_{how}"
                path = out / "candidates" / config / f"{fig.id}.pptx"
                atomic_write_bytes(path, restyle(deck, change))
                labels.append(
                    CaseLabel(
                        case_id=f"{config}/{fig.id}",
                        task_id=fig.id,
                        config_id=config,
                        variant=config,
                        style=how,
                        gate="pass",
                    )
                )
    return finish_benchmark(
        out, src, specs, sorted(configs), labels, "pptjudge generation.realfig.robust"
    )
