"""Stage 1 evidence: label presence, the verdict contract's new fields, raster reading of
outlined boxes joined in a loop (small image, glyph blobs), unreadable reference labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont
from pptx.dml.color import RGBColor
from pptx.oxml.ns import qn

from judge.render.pool import RenderPool
from judge.schema import GateReason, GateVerdict
from judge.tools.arrows import detect_lines
from judge.tools.evidence import Corpus
from judge.tools.graphread import node_blobs, read_raster_graph
from judge.tools.nodes import detect_blobs
from judge.tools.ocr import ocr_image

FONT = "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"


def test_old_gate_reasons_load_with_defaults_and_new_ones_keep_evidence_fields() -> None:
    old = GateVerdict.model_validate_json(
        '{"passed": false, "reasons": [{"target": "edge A -> B", "evidence": "reversed"}]}'
    )
    assert old.reasons[0].confirmed is True and old.reasons[0].confidence == 1.0
    new = GateReason(
        target="node X",
        evidence="missing",
        confirmed=False,
        confidence=0.3,
        reference_bbox={"x": 1, "y": 2, "w": 3, "h": 4},  # type: ignore[arg-type]
    )
    again = GateReason.model_validate_json(new.model_dump_json())
    assert again.confirmed is False and again.reference_bbox is not None
    assert again.reference_bbox.w == 3 and again.candidate_bbox is None


def test_label_presence_survives_ocr_splits_orders_and_slips() -> None:
    deck = Corpus.of(["TorchServe RAG", "Endpoint", "Feature Enhancements issue", "Triaged Wait"])
    assert deck.has("TorchServe RAG Endpoint")  # split over two texts
    assert deck.has("Enhancements Feature issue")  # OCR ordered rotated lines differently
    assert deck.has("TorchServe RAC Endpoint")  # one slip
    assert not deck.has("Scheduler")
    # a label inside another node's label is not present when that text is the other node's
    owned = deck.owned_by_others("Triaged", ["Triaged", "Triaged Wait"])
    assert deck.has("Triaged") and not deck.has("Triaged", owned)
    # short labels must be whole texts
    assert not Corpus.of(["Nothing"]).has("No") and Corpus.of(["No"]).has("No")


def _loop_figure() -> np.ndarray:
    """dev01's layout: six outlined boxes, a fan-out and a merge closing a loop of lines."""
    img = Image.new("RGB", (761, 201), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, 13)
    boxes = {
        "input": (0, 80), "pre-processing": (160, 80), "en-2-de": (320, 0),
        "en-2-fr": (320, 159), "aggregate": (480, 80), "output": (639, 80),
    }  # fmt: skip
    for label, (x, y) in boxes.items():
        d.rectangle((x, y, x + 121, y + 41), outline="black", width=1)
        w = d.textlength(label, font=font)
        d.text((x + 61 - w / 2, y + 13), label, fill="black", font=font)
    for pts in (
        [(121, 100), (158, 100)], [(220, 80), (220, 20), (318, 20)],
        [(220, 121), (220, 180), (318, 180)], [(441, 20), (540, 20), (540, 78)],
        [(441, 180), (540, 180), (540, 123)], [(601, 100), (637, 100)],
    ):  # fmt: skip
        d.line(pts, fill="black", width=1)
    return cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)


def test_outlined_boxes_in_a_loop_are_six_nodes_not_one_box_of_glyphs() -> None:
    img = _loop_figure()
    blobs = detect_blobs(img)
    ocr = ocr_image(img)
    leaves = node_blobs(blobs, ocr, img)[0]
    g = read_raster_graph(
        "reference", (761, 201), blobs, detect_lines(img, blobs, leaves), ocr, img
    )
    labels = sorted(n.label for n in g.nodes if n.label)
    assert labels == sorted(
        ["input", "pre-processing", "en-2-de", "en-2-fr", "aggregate", "output"]
    ), g.notes
    assert all(n.box[3] >= 30 for n in g.nodes)  # boxes, not glyph clusters


def test_substring_distance_is_the_same_computed_a_row_at_a_time() -> None:
    """The numpy rows (long haystacks) give exactly the plain dynamic programme's distance,
    accents and CJK included."""
    import random

    from judge.tools.evidence import VECTOR_MIN_HAY, _substring_distance_np, substring_distance

    rng = random.Random(7)
    for _ in range(400):
        alphabet = rng.choice(["ab", "abcdef", "aéü中x"])
        needle = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        hay = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, VECTOR_MIN_HAY - 1)))
        assert _substring_distance_np(needle, hay) == substring_distance(needle, hay)
    assert substring_distance("endpoint", "x" * 40 + "endpiont" + "y" * 40) == 2
    assert substring_distance("gateway", "z" * 64) == 7


@pytest.mark.slow
def test_a_node_whose_reference_text_is_unreadable_is_no_extra_node(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """A reference node whose label is blurred past reading (a small or re-saved figure) is
    there all the same: the faithful deck's shape reading that label is no confirmed extra
    node. A shape the reference has nothing at is still one."""
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches

    from judge.tools.semantic import semantic_comparison
    from tests.judge_helpers import flow_deck, rendered_case

    deck = flow_deck(tmp_path / "deck.pptx", ("Tokenizer", "Encoder stack", "Classifier"))
    render_pool.render(deck, tmp_path / "full.png")
    img = cv2.imread(str(tmp_path / "full.png"))
    assert img is not None
    s = img.shape[1] / 10  # px per inch of the 10 in slide
    x, y, w, h, m = (int(v * s) for v in (3.8, 3.0, 2.2, 1.2, 0.12))  # the middle box
    inner = img[y + m : y + h - m, x + m : x + w - m]
    img[y + m : y + h - m, x + m : x + w - m] = cv2.GaussianBlur(inner, (0, 0), 14)
    ref = tmp_path / "reference.png"
    cv2.imwrite(str(ref), img)

    def node_findings(name: str, pptx: Path) -> list[dict]:
        ctx = rendered_case(render_pool, tmp_path, name, ref, pptx)
        found = semantic_comparison(ctx)["discrepancies"]
        return [d for d in found if d["kind"] in ("extra_node", "missing_node", "changed_label")]

    faithful = node_findings("faithful", deck)
    assert [d["confirmed"] for d in faithful] == [False], faithful
    assert "does not read clearly" in " ".join(faithful[0]["checks"])
    prs = Presentation(str(deck))
    extra = prs.slides[0].shapes.add_shape(
        MSO_SHAPE.ROUNDED_RECTANGLE, Inches(3.8), Inches(0.8), Inches(2.2), Inches(1.2)
    )
    extra.text_frame.text = "Validator"
    prs.save(str(tmp_path / "extra.pptx"))
    got = node_findings("extra", tmp_path / "extra.pptx")
    assert [d["target"] for d in got if d["confirmed"]] == ['node "Validator"'], got


def _arrow(slide: Any, x0: int, y0: int, x1: int, y1: int) -> None:
    """A black 2.25 pt straight connector (EMU ends) with a large triangle head at its end."""
    from lxml import etree
    from pptx.enum.shapes import MSO_CONNECTOR
    from pptx.util import Emu

    con = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, x0, y0, x1, y1)
    con.line.color.rgb = RGBColor(0, 0, 0)
    con.line.width = Emu(28575)
    head = etree.SubElement(con.line._get_or_add_ln(), qn("a:tailEnd"))
    head.set("type", "triangle"), head.set("w", "lg"), head.set("len", "lg")


def _confirmed(pool: RenderPool, tmp: Path, ref: Path, name: str, pptx: Path) -> list[tuple]:
    """(kind, target) of every confirmed discrepancy of ``pptx`` judged against ``ref``."""
    from judge.tools.semantic import semantic_comparison
    from tests.judge_helpers import rendered_case

    found = semantic_comparison(rendered_case(pool, tmp, name, ref, pptx))["discrepancies"]
    return [(d["kind"], d["target"]) for d in found if d["confirmed"]]


def _plaintext_deck(path: Path, wrong: bool) -> Path:
    """dev13's bottom half: ellipses "add_ten" and "double" into "sum", "sum" into the bare
    text "output" (Graphviz's plaintext node). ``wrong``: add_ten's connector leads to "output"
    instead of "sum", passing by "sum"."""
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches, Pt

    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(10), Inches(7.5)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    shapes = {}
    for label, x, y in (("add_ten", 1.5, 2.5), ("double", 6.5, 2.5), ("sum", 4.0, 4.6)):
        s = slide.shapes.add_shape(MSO_SHAPE.OVAL, Inches(x), Inches(y), Inches(2), Inches(0.9))
        s.fill.background()
        s.line.color.rgb = RGBColor(0, 0, 0)
        s.text_frame.text = label
        run = s.text_frame.paragraphs[0].runs[0]
        run.font.size, run.font.color.rgb = Pt(20), RGBColor(0, 0, 0)
        shapes[label] = s
    out = slide.shapes.add_textbox(Inches(4.4), Inches(6.6), Inches(1.2), Inches(0.5))
    out.text_frame.text = "output"
    out.text_frame.paragraphs[0].runs[0].font.size = Pt(20)
    shapes["output"] = out
    lines = [((7.5, 3.4), (5.7, 4.75)), ((5.0, 5.5), (5.0, 6.6))]  # double, sum: glued to none
    lines.append(((2.5, 3.4), (4.7, 6.6) if wrong else (4.3, 4.75)))
    for (x0, y0), (x1, y1) in lines:
        _arrow(slide, Inches(x0), Inches(y0), Inches(x1), Inches(y1))
    prs.save(str(path))
    return path


@pytest.mark.slow
def test_a_line_moved_onto_a_bare_text_node_is_confirmed_rewired(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """dev13's wrong endpoint: add_ten's arrow into "sum" moved to the plaintext node "output".
    The deck's line ends at a text box (a node with no body, which the raster reader does not
    take for a node), and passes by "sum", so the render reads a headless line between add_ten
    and sum. Before, neither counted: the line was not rewired. The faithful deck is not."""
    faithful = _plaintext_deck(tmp_path / "faithful.pptx", wrong=False)
    wrong = _plaintext_deck(tmp_path / "wrong.pptx", wrong=True)
    ref = tmp_path / "reference.png"
    render_pool.render(faithful, ref)
    assert _confirmed(render_pool, tmp_path, ref, "faithful", faithful) == []
    assert _confirmed(render_pool, tmp_path, ref, "wrong", wrong) == [
        ("rewired_edge", 'edge "add_ten" -> "sum"')
    ]


def _two_way_deck(path: Path, reversed_: bool) -> Path:
    """The hand-drawn figure of ``tests.test_tools_arrows`` rebuilt in a deck (160 px per
    inch): the dashed panel, "Client", "Backend", "Store", the circled "6", connectors
    stopping short of their boxes as the figure's arrows do, Client -> Backend and Backend ->
    Client (``reversed_``: both Backend -> Client) and Backend -> Store."""
    from pptx import Presentation
    from pptx.enum.dml import MSO_LINE_DASH_STYLE
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Emu, Inches, Pt

    def inch(v: float) -> Emu:
        return Emu(int(Inches(v / 160)))

    prs = Presentation()
    prs.slide_width, prs.slide_height = inch(1600), inch(1000)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    panel = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, inch(560), inch(40), inch(840),
                                   inch(860))  # fmt: skip
    panel.fill.background()
    panel.line.color.rgb = RGBColor(0, 0, 0)
    panel.line.dash_style = MSO_LINE_DASH_STYLE.DASH
    for label, (x0, y0, x1, y1), shape in (
        ("Client", (60, 420, 340, 620), MSO_SHAPE.ROUNDED_RECTANGLE),
        ("Backend", (900, 420, 1200, 620), MSO_SHAPE.ROUNDED_RECTANGLE),
        ("Store", (900, 80, 1200, 260), MSO_SHAPE.ROUNDED_RECTANGLE),
        ("6", (440, 585, 500, 645), MSO_SHAPE.OVAL),
    ):
        s = slide.shapes.add_shape(shape, inch(x0), inch(y0), inch(x1 - x0), inch(y1 - y0))
        s.fill.background()
        s.line.color.rgb = RGBColor(0, 0, 0)
        s.line.width = Pt(2)
        s.text_frame.text = label
        run = s.text_frame.paragraphs[0].runs[0]
        run.font.size, run.font.color.rgb = Pt(16), RGBColor(0, 0, 0)
    there = ((850, 480), (380, 480)) if reversed_ else ((380, 480), (850, 480))
    lines = [there, ((860, 570), (390, 570)), ((1050, 390), (1050, 300))]
    for (x0, y0), (x1, y1) in lines:
        _arrow(slide, inch(x0), inch(y0), inch(x1), inch(y1))
    prs.save(str(path))
    return path


@pytest.mark.slow
def test_one_of_two_opposite_arrows_reversed_is_confirmed(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """dev04: "Client" -> "Backend" and "Backend" -> "Client" are two arrows, drawn by hand
    short of their boxes across a dashed panel's border. The deck turning the first round
    has two connectors Backend -> Client: the reversal is confirmed (before, a pair read both
    ways was taken for one double-headed line and never checked). The faithful deck is
    not."""
    from tests.test_tools_arrows import _hand_drawn_figure

    ref = tmp_path / "reference.png"
    cv2.imwrite(str(ref), _hand_drawn_figure())
    faithful = _two_way_deck(tmp_path / "faithful.pptx", False)
    assert _confirmed(render_pool, tmp_path, ref, "faithful", faithful) == []
    got = _confirmed(
        render_pool, tmp_path, ref, "reversed", _two_way_deck(tmp_path / "r.pptx", True)
    )
    assert got == [("reversed_edge", 'edge "Client" -> "Backend"')]
