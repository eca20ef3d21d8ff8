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
  "Shadow" picked from the format pane);
* ``office`` -- PowerPoint's default look for an inserted shape: every node (a shape holding
  no other shape) filled ``OFFICE_FILL`` with an ``OFFICE_LINE`` outline and white text, every
  line and connector drawn in ``OFFICE_FILL``;
* ``wide``   -- the slide widened (or heightened) to 16:9 with the figure centred on it
  (PowerPoint's default slide; a figure already 16:9 is left as it is).

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
OFFICE_FILL = "4472C4"
OFFICE_LINE = "2F528F"
"""``office``: the Office theme's accent 1 (a new shape's fill and a new line's colour) and
the darker outline PowerPoint draws round a new shape."""
WIDE_ASPECT = 16 / 9
"""``wide``: the slide's width over its height afterwards."""
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


def _is_line(sh: Any) -> bool:
    """A connector, or a freeform with no fill (an open path drawn as a line)."""
    if sh._element.tag == qn("p:cxnSp"):
        return True
    sp_pr = sh._element.find(qn("p:spPr"))
    return (
        sp_pr is not None
        and sp_pr.find(qn("a:custGeom")) is not None
        and sp_pr.find(qn("a:noFill")) is not None
    )


def _solid(parent: Any, rgb: str) -> Any:
    """``parent``'s fill (an ``a:spPr`` or ``a:ln``) set to solid ``rgb``, in schema order."""
    fills = {qn(t) for t in ("a:noFill", "a:solidFill", "a:gradFill", "a:blipFill", "a:pattFill")}
    at = None
    for i, el in enumerate(list(parent)):
        if el.tag in fills:
            at = i if at is None else at
            parent.remove(el)
    if at is None:  # spPr: after the geometry; ln: first
        geo = [i for i, el in enumerate(parent) if el.tag in (qn("a:prstGeom"), qn("a:custGeom"))]
        at = geo[0] + 1 if geo and parent.tag == qn("p:spPr") else 0
    fill = etree.SubElement(parent, qn("a:solidFill"))
    parent.remove(fill)
    parent.insert(at, fill)
    etree.SubElement(fill, qn("a:srgbClr")).set("val", rgb)
    return fill


def _holds(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Whether box ``a`` (x0, y0, x1, y1) holds box ``b``'s centre and is over twice its area."""
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return (
        a[0] <= cx <= a[2]
        and a[1] <= cy <= a[3]
        and (a[2] - a[0]) * (a[3] - a[1]) > 2 * (b[2] - b[0]) * (b[3] - b[1])
    )


def _text_box(sh: Any) -> bool:
    nv = sh._element.find(qn("p:nvSpPr"))
    return nv is not None and nv.find(qn("p:cNvSpPr")).get("txBox") == "1"


def _office(prs: Any) -> None:
    for slide in prs.slides:
        every = [sh for sh in _shapes(slide.shapes) if not hasattr(sh, "shapes")]
        box: dict[int, tuple[int, ...]] = {
            id(sh): (sh.left, sh.top, sh.left + sh.width, sh.top + sh.height) for sh in every
        }

        def holds(a: Any, b: Any, box: dict[int, tuple[int, ...]] = box) -> bool:
            return a is not b and _holds(box[id(a)], box[id(b)])

        bodies = [
            sh
            for sh in every
            if sh._element.tag == qn("p:sp")
            and not _is_line(sh)
            and not sh.is_placeholder
            and not _text_box(sh)
        ]
        nodes = [b for b in bodies if not any(holds(b, o) for o in bodies)]  # not panels
        for sh in every:
            sp_pr = sh._element.find(qn("p:spPr"))
            if sp_pr is None:
                continue
            if _is_line(sh):
                ln = sp_pr.find(qn("a:ln"))
                if ln is not None and ln.find(qn("a:noFill")) is None:
                    _solid(ln, OFFICE_FILL)
                continue
            if sh in nodes:
                _solid(sp_pr, OFFICE_FILL)
                ln = sp_pr.find(qn("a:ln"))
                if ln is None:
                    ln = etree.SubElement(sp_pr, qn("a:ln"))
                _solid(ln, OFFICE_LINE)
            elif not any(holds(n, sh) for n in nodes):
                continue  # free text, a picture, a panel: as drawn
            for run in sh._element.iter(qn("a:rPr")):  # a node's text, or a text box on one
                _solid(run, "FFFFFF")


def _wide(prs: Any) -> None:
    w, h = prs.slide_width, prs.slide_height
    nw, nh = max(w, round(h * WIDE_ASPECT)), max(h, round(w / WIDE_ASPECT))
    prs.slide_width, prs.slide_height = nw, nh
    dx, dy = (nw - w) // 2, (nh - h) // 2
    for slide in prs.slides:
        for sh in slide.shapes:  # top level only: group members move with their group
            sh.left, sh.top = sh.left + dx, sh.top + dy


CHANGES: dict[str, Callable[[Any], None]] = {
    "heads": _heads,
    "thick": _thick,
    "font": _font,
    "margin": _margin,
    "thin": _thin,
    "shadow": _shadow,
    "office": _office,
    "wide": _wide,
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
