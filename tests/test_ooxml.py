"""judge.artifact.ooxml: the object tree and requested fonts read from python-pptx decks."""

from __future__ import annotations

from pathlib import Path

import pytest
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_LINE_DASH_STYLE
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.enum.text import MSO_AUTO_SIZE
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt

from judge.artifact.ooxml import load_slide, read_object_tree, requested_fonts
from judge.errors import PackageStructureError
from judge.schema import SlideObject
from tests.decks import SLIDE_H_EMU, SLIDE_W_EMU, Pic, icon_image, inject, make_deck


def _emu(x: float, y: float, w: float, h: float) -> tuple[Emu, Emu, Emu, Emu]:
    return (
        Emu(int(x * SLIDE_W_EMU)),
        Emu(int(y * SLIDE_H_EMU)),
        Emu(int(w * SLIDE_W_EMU)),
        Emu(int(h * SLIDE_H_EMU)),
    )


def _rich_slide(slide) -> None:
    """A slide exercising every field: styled shapes, an arrow connector, a group, a table."""
    a = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, *_emu(0.1, 0.1, 0.2, 0.1))
    a.name = "Encoder"
    a.text_frame.text = "Encoder"
    run = a.text_frame.paragraphs[0].runs[0]
    run.font.size = Pt(18)
    run.font.bold = True
    run.font.name = "Liberation Sans"
    run.font.color.rgb = RGBColor(0x12, 0x34, 0x56)
    a.fill.solid()
    a.fill.fore_color.rgb = RGBColor(0xAA, 0xBB, 0xCC)
    a.adjustments[0] = 0.25
    a.text_frame.word_wrap = True
    a.text_frame.auto_size = MSO_AUTO_SIZE.TEXT_TO_FIT_SHAPE
    b = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, *_emu(0.6, 0.1, 0.2, 0.1))
    b.name = "Decoder"
    b.text_frame.text = "Decoder\nstage"
    cxn = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
    cxn.name = "Arrow"
    cxn.begin_connect(a, 3)
    cxn.end_connect(b, 1)
    cxn.line.dash_style = MSO_LINE_DASH_STYLE.DASH
    cxn.line.color.rgb = RGBColor(0xFF, 0x00, 0x00)
    cxn.line.width = Pt(2)
    ln = cxn.line._get_or_add_ln()
    tail = ln.makeelement(qn("a:tailEnd"), {"type": "triangle"})
    ln.append(tail)
    grp = slide.shapes.add_group_shape()
    grp.name = "Panel"
    inner = grp.shapes.add_shape(MSO_SHAPE.OVAL, *_emu(0.1, 0.5, 0.1, 0.1))
    inner.name = "Inner"
    grp.shapes.add_textbox(*_emu(0.25, 0.5, 0.1, 0.1)).name = "Note"
    tbl = slide.shapes.add_table(2, 2, *_emu(0.5, 0.5, 0.3, 0.2)).table
    tbl.cell(0, 0).text = "k"
    tbl.cell(1, 1).text = "v"
    slide.shapes.add_picture(__import__("io").BytesIO(icon_image(1)), *_emu(0.85, 0.8, 0.1, 0.1))


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_deck(
        tmp_path_factory.mktemp("ox") / "rich.pptx",
        n_shapes=0,
        connectors=False,
        text_boxes=False,
        extra=_rich_slide,
    )


@pytest.fixture(scope="module")
def objects(rich: Path) -> dict[str, SlideObject]:
    return {o.name: o for o in read_object_tree(rich).objects}


def test_types_are_classified(objects: dict[str, SlideObject]) -> None:
    assert objects["Encoder"].type == "autoshape"
    assert objects["Arrow"].type == "connector"
    assert objects["Panel"].type == "group"
    assert objects["Note"].type == "text_box"
    assert [o.type for o in objects.values() if o.type in ("table", "picture")] == [
        "table",
        "picture",
    ]


def test_bbox_is_in_slide_fractions(objects: dict[str, SlideObject]) -> None:
    b = objects["Encoder"].bbox
    assert (b.x, b.y, b.w, b.h) == pytest.approx((0.1, 0.1, 0.2, 0.1), abs=1e-6)


def test_z_is_flattened_depth_first_with_members_after_their_group(
    objects: dict[str, SlideObject],
) -> None:
    order = sorted(objects.values(), key=lambda o: o.z)
    names = [o.name for o in order]
    assert names[:5] == ["Encoder", "Decoder", "Arrow", "Panel", "Inner"]
    assert [o.z for o in order] == list(range(len(order)))
    assert objects["Inner"].parent_id == objects["Panel"].id
    assert objects["Note"].parent_id == objects["Panel"].id


def test_connector_endpoints_dash_and_arrowhead(objects: dict[str, SlideObject]) -> None:
    arrow = objects["Arrow"]
    assert arrow.begin_id == objects["Encoder"].id
    assert arrow.end_id == objects["Decoder"].id
    assert arrow.dash == "dash"
    assert arrow.tail_end == "triangle"
    assert arrow.head_end is None
    assert arrow.line_rgb == "FF0000"
    assert arrow.line_width_pt == pytest.approx(2.0)


def test_text_fonts_and_colours(objects: dict[str, SlideObject]) -> None:
    enc = objects["Encoder"]
    assert enc.text == "Encoder"
    assert enc.font_sizes_pt == [18.0]
    assert enc.font_names == ["Liberation Sans"]
    assert enc.bold is True
    assert enc.text_rgb == "123456"
    assert enc.fill_rgb == "AABBCC"
    assert enc.geometry == "roundRect"
    assert enc.adjustments == pytest.approx([0.25])
    assert enc.word_wrap is True
    assert enc.autofit == "normal"
    assert objects["Decoder"].text == "Decoder\nstage"
    assert objects["Note"].autofit == "shape"


def test_style_fill_resolves_through_the_theme(objects: dict[str, SlideObject]) -> None:
    # python-pptx's default autoshape style fills with accent1 of the default theme.
    assert objects["Decoder"].fill_rgb == "4F81BD"
    assert objects["Decoder"].shadow is True


def test_table_text_joins_cells(objects: dict[str, SlideObject]) -> None:
    table = next(o for o in objects.values() if o.type == "table")
    assert table.text == "k\nv"


def test_group_child_transform_is_applied(rich: Path, tmp_path: Path) -> None:
    # Halve the group's extent against its child extent: members shrink towards its offset.
    def halve(xml: bytes) -> bytes:
        from lxml import etree

        root = etree.fromstring(xml)
        a = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
        grp_xfrm = root.find(".//{*}grpSp/{*}grpSpPr/" + a + "xfrm")
        ext = grp_xfrm.find(a + "ext")
        ext.set("cx", str(int(ext.get("cx")) // 2))
        ext.set("cy", str(int(ext.get("cy")) // 2))
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)

    path = inject(rich, tmp_path / "half.pptx", edit={"ppt/slides/slide1.xml": halve})
    objs = {o.name: o for o in read_object_tree(path).objects}
    panel, inner = objs["Panel"].bbox, objs["Inner"].bbox
    assert inner.x == pytest.approx(panel.x, abs=1e-6)
    assert inner.w == pytest.approx(0.05, abs=1e-3)
    assert objs["Note"].bbox.x == pytest.approx(panel.x + 0.075, abs=1e-3)


def test_group_rotation_moves_members_about_the_group_centre(rich: Path, tmp_path: Path) -> None:
    def rotate(xml: bytes) -> bytes:
        from lxml import etree

        root = etree.fromstring(xml)
        a = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
        root.find(".//{*}grpSp/{*}grpSpPr/" + a + "xfrm").set("rot", str(180 * 60000))
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)

    path = inject(rich, tmp_path / "rot.pptx", edit={"ppt/slides/slide1.xml": rotate})
    objs = {o.name: o for o in read_object_tree(path).objects}
    # Members at x 0.10 and 0.25 (0.1 wide) in a group spanning 0.10-0.35: swapped by 180 deg.
    assert objs["Inner"].bbox.x == pytest.approx(0.25, abs=1e-3)
    assert objs["Note"].bbox.x == pytest.approx(0.10, abs=1e-3)
    assert objs["Inner"].rotation == pytest.approx(180.0)
    assert objs["Inner"].bbox.y == pytest.approx(0.5, abs=1e-3)


def test_pictures_carry_their_image_bytes(rich: Path) -> None:
    loaded = load_slide(rich)
    pics = [p for p in loaded.pictures if p.is_picture_shape]
    assert len(pics) == 1
    assert pics[0].blob == icon_image(1)
    assert pics[0].bbox.x == pytest.approx(0.85, abs=1e-6)


def test_requested_fonts_resolve_theme_and_runs(rich: Path) -> None:
    fonts = requested_fonts(rich)
    assert fonts[0] == "Calibri"  # theme major and minor latin of python-pptx's template
    assert "Liberation Sans" in fonts
    assert not any(f.startswith("+") for f in fonts)


def test_theme_font_reference_in_a_run_is_resolved(rich: Path, tmp_path: Path) -> None:
    path = inject(
        rich,
        tmp_path / "mj.pptx",
        edit={
            "ppt/slides/slide1.xml": lambda b: b.replace(
                b'typeface="Liberation Sans"', b'typeface="+mj-lt"'
            )
        },
    )
    assert requested_fonts(path) == ["Calibri"]


def test_broken_slide_xml_is_a_structure_error(rich: Path, tmp_path: Path) -> None:
    path = inject(rich, tmp_path / "broken.pptx", parts={"ppt/slides/slide1.xml": b"<p:sld"})
    with pytest.raises(PackageStructureError):
        read_object_tree(path)


def test_slide_count_and_empty_deck(tmp_path: Path) -> None:
    assert load_slide(make_deck(tmp_path / "two.pptx", n_slides=2)).slide_count == 2
    empty = load_slide(make_deck(tmp_path / "none.pptx", n_slides=0))
    assert empty.slide_count == 0 and empty.tree.objects == []


def test_picture_in_deck_helper_round_trips(tmp_path: Path) -> None:
    deck = make_deck(tmp_path / "p.pptx", pictures=[Pic(icon_image(2), (0.1, 0.1, 0.2, 0.2))])
    assert [o.type for o in read_object_tree(deck).objects].count("picture") == 1


def test_an_open_freeform_records_where_its_path_starts_and_ends(tmp_path: Path) -> None:
    """A curve's ends are not its box's corners: a back edge leaving the right of A, looping
    below and entering B's left from the right again starts and ends inside its box."""

    def build(slide) -> None:
        pts = [(0.6, 0.3), (0.9, 0.5), (0.5, 0.9), (0.1, 0.5), (0.4, 0.3)]
        fb = slide.shapes.build_freeform(
            int(pts[0][0] * SLIDE_W_EMU), int(pts[0][1] * SLIDE_H_EMU), scale=1.0
        )
        fb.add_line_segments(
            [(int(x * SLIDE_W_EMU), int(y * SLIDE_H_EMU)) for x, y in pts[1:]], close=False
        )
        fb.convert_to_shape().name = "Curve"
        closed = slide.shapes.build_freeform(0, 0, scale=1.0)
        closed.add_line_segments([(100000, 0), (100000, 100000)], close=True)
        closed.convert_to_shape().name = "Closed"

    deck = make_deck(tmp_path / "f.pptx", n_shapes=0, connectors=False, text_boxes=False,
                     extra=build)  # fmt: skip
    objs = {o.name: o for o in read_object_tree(deck).objects}
    (sx, sy), (ex, ey) = objs["Curve"].path_ends or [(0, 0), (0, 0)]
    assert (round(sx, 3), round(sy, 3)) == (0.6, 0.3)
    assert (round(ex, 3), round(ey, 3)) == (0.4, 0.3)
    assert objs["Closed"].path_ends is None


def test_the_tree_reads_a_curved_edge_between_the_nodes_its_path_joins(tmp_path: Path) -> None:
    from judge.tools.treeread import read_tree_graph

    def build(slide) -> None:
        for name, x in (("Alpha", 0.1), ("Beta", 0.7)):
            s = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, *_emu(x, 0.1, 0.2, 0.15))
            s.text_frame.text = name
        # from Beta's bottom, down and round, up into Alpha's bottom; head at the end
        pts = [(0.8, 0.25), (0.8, 0.8), (0.2, 0.8), (0.2, 0.25)]
        fb = slide.shapes.build_freeform(
            int(pts[0][0] * SLIDE_W_EMU), int(pts[0][1] * SLIDE_H_EMU), scale=1.0
        )
        fb.add_line_segments(
            [(int(x * SLIDE_W_EMU), int(y * SLIDE_H_EMU)) for x, y in pts[1:]], close=False
        )
        curve = fb.convert_to_shape()
        curve.fill.background()
        ln = curve.line._get_or_add_ln()
        ln.append(ln.makeelement(qn("a:tailEnd"), {"type": "triangle"}))

    deck = make_deck(tmp_path / "c.pptx", n_shapes=0, connectors=False, text_boxes=False,
                     extra=build)  # fmt: skip
    g = read_tree_graph(read_object_tree(deck), (1600, 900))
    names = {n.id: n.label for n in g.nodes}
    assert {(names[e.src], names[e.dst], e.direction) for e in g.edges} == {
        ("Beta", "Alpha", "high")
    }


def test_a_white_label_hiding_its_line_is_text_and_a_grey_one_a_node(tmp_path: Path) -> None:
    """An edge label in a white-filled, unoutlined text box (the way a person hides the line
    under it) is text; before, any filled text box was a node, and the connector's end was
    then read as landing on the label. A grey-filled text box is still a node."""
    from judge.tools.treeread import read_tree_graph

    def build(slide) -> None:
        for name, x in (("Alpha", 0.1), ("Beta", 0.7)):
            s = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, *_emu(x, 0.4, 0.2, 0.15))
            s.text_frame.text = name
        mid = int(0.475 * SLIDE_H_EMU)
        line = slide.shapes.add_connector(
            MSO_CONNECTOR.STRAIGHT, int(0.3 * SLIDE_W_EMU), mid, int(0.7 * SLIDE_W_EMU), mid
        )
        ln = line.line._get_or_add_ln()
        ln.append(ln.makeelement(qn("a:tailEnd"), {"type": "triangle"}))
        for text, x, y, rgb in (("yes", 0.47, 0.45, "FFFFFF"), ("Gamma", 0.45, 0.1, "C0C0C0")):
            tb = slide.shapes.add_textbox(*_emu(x, y, 0.08, 0.05))
            tb.text_frame.text = text
            tb.fill.solid()
            tb.fill.fore_color.rgb = RGBColor.from_string(rgb)

    deck = make_deck(tmp_path / "w.pptx", n_shapes=0, connectors=False, text_boxes=False,
                     extra=build)  # fmt: skip
    g = read_tree_graph(read_object_tree(deck), (1600, 900))
    names = {n.id: n.label for n in g.nodes}
    assert sorted(names.values()) == ["Alpha", "Beta", "Gamma"]
    assert {(names[e.src], names[e.dst]) for e in g.edges} == {("Alpha", "Beta")}
    assert "yes" in {p.get("title") for p in g.panels}


def test_a_free_text_a_line_ends_at_is_a_node_and_a_label_beside_a_line_is_not(
    tmp_path: Path,
) -> None:
    """Graphviz's plaintext nodes ("input", "output") are text with no body: a line that ends
    at one (its end lands on the text box with no shape that near, or it is glued to it) makes
    it a node. An edge label beside a line, and a title a headless line leaves (a divider, a
    leader to a note) stay text."""
    from judge.tools.treeread import read_tree_graph

    def build(slide) -> None:
        alpha = slide.shapes.add_shape(MSO_SHAPE.OVAL, *_emu(0.4, 0.4, 0.2, 0.15))
        alpha.text_frame.text = "Alpha"
        src = slide.shapes.add_textbox(*_emu(0.45, 0.05, 0.1, 0.06))
        src.text_frame.text = "input"
        out = slide.shapes.add_textbox(*_emu(0.45, 0.85, 0.1, 0.06))
        out.text_frame.text = "output"
        label = slide.shapes.add_textbox(*_emu(0.52, 0.2, 0.08, 0.05))
        label.text_frame.text = "value"
        x = int(0.5 * SLIDE_W_EMU)
        down = slide.shapes.add_connector(
            MSO_CONNECTOR.STRAIGHT, x, int(0.11 * SLIDE_H_EMU), x, int(0.4 * SLIDE_H_EMU)
        )  # lands on "input" and on Alpha, glued to neither
        glued = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
        glued.begin_connect(alpha, 2)
        glued.end_connect(out, 0)
        for con in (down, glued):
            ln = con.line._get_or_add_ln()
            ln.append(ln.makeelement(qn("a:tailEnd"), {"type": "triangle"}))
        title = slide.shapes.add_textbox(*_emu(0.75, 0.05, 0.2, 0.06))
        title.text_frame.text = "Deployment"
        beta = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, *_emu(0.75, 0.8, 0.2, 0.15))
        beta.text_frame.text = "Beta"
        y0 = int(0.11 * SLIDE_H_EMU)  # a line from under the title to Beta, with no head
        slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, int(0.85 * SLIDE_W_EMU), y0,
                                   int(0.85 * SLIDE_W_EMU), int(0.8 * SLIDE_H_EMU))  # fmt: skip

    deck = make_deck(tmp_path / "p.pptx", n_shapes=0, connectors=False, text_boxes=False,
                     extra=build)  # fmt: skip
    g = read_tree_graph(read_object_tree(deck), (1600, 900))
    names = {n.id: n.label for n in g.nodes}
    assert sorted(names.values()) == ["Alpha", "Beta", "input", "output"]
    text_nodes = [n for n in g.nodes if n.label in ("input", "output")]
    assert all(n.fill is None and n.stroke is None for n in text_nodes)
    assert {(names[e.src], names[e.dst], e.direction) for e in g.edges} == {
        ("input", "Alpha", "high"), ("Alpha", "output", "high")
    }  # fmt: skip
    assert {"value", "Deployment"} <= {p.get("title") for p in g.panels}


def test_a_straight_line_stopping_short_of_a_box_joins_the_box_it_points_at(
    tmp_path: Path,
) -> None:
    """A deck redrawing a hand-drawn figure keeps its arrows short of their boxes: a straight
    line whose end lands on no box joins the box straight ahead within the raster reader's
    aim gap (``AIM_GAP_PER_KPX``); one pointing past every box joins none."""
    from judge.tools.treeread import read_tree_graph

    def build(slide) -> None:
        for name, x, y in (("Alpha", 0.1, 0.4), ("Beta", 0.7, 0.4), ("Gamma", 0.7, 0.05)):
            s = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, *_emu(x, y, 0.2, 0.15))
            s.text_frame.text = name
        for (x0, y0), (x1, y1) in (
            ((0.33, 0.47), (0.67, 0.47)),  # 30 px short of both
            ((0.33, 0.6), (0.67, 0.9)),
        ):  # past Beta: no edge
            line = slide.shapes.add_connector(
                MSO_CONNECTOR.STRAIGHT, int(x0 * SLIDE_W_EMU), int(y0 * SLIDE_H_EMU),
                int(x1 * SLIDE_W_EMU), int(y1 * SLIDE_H_EMU),
            )  # fmt: skip
            ln = line.line._get_or_add_ln()
            ln.append(ln.makeelement(qn("a:tailEnd"), {"type": "triangle"}))

    deck = make_deck(tmp_path / "a.pptx", n_shapes=0, connectors=False, text_boxes=False,
                     extra=build)  # fmt: skip
    g = read_tree_graph(read_object_tree(deck), (1000, 1000))
    names = {n.id: n.label for n in g.nodes}
    assert {(names[e.src], names[e.dst], e.direction) for e in g.edges} == {
        ("Alpha", "Beta", "high")
    }
