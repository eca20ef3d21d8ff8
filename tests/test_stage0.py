"""Stage 0 artifact gate: every check with a file that passes it and one that fails it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Emu
from typer.testing import CliRunner

from cli.app import app
from judge.artifact.gate import validate
from judge.errors import PackageError, RenderError
from judge.render.pool import RenderPool
from judge.schema import CHECK_NAMES, ArtifactReport, RenderResult
from tests.decks import (
    BILLION_LAUGHS,
    SLIDE_H_EMU,
    SLIDE_W_EMU,
    Pic,
    RawEntry,
    build_zip,
    cropped,
    deck_entries,
    diagram_image,
    icon_image,
    inject,
    make_deck,
    photo_image,
    zeros_stream,
)

REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
runner = CliRunner()


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stage0")


@pytest.fixture(scope="module")
def good(work: Path) -> Path:
    return make_deck(work / "good.pptx", n_shapes=5)


@pytest.fixture(scope="module")
def reference(work: Path) -> Path:
    path = work / "reference.png"
    path.write_bytes(diagram_image(seed=1))
    return path


def _check(report: ArtifactReport, name: str):
    return next(c for c in report.checks if c.name == name)


def _fails_only(report: ArtifactReport, name: str) -> None:
    assert report.failures == [name], [(c.name, c.detail) for c in report.checks if not c.passed]
    assert not report.valid


def _never_render(pptx: Path) -> RenderResult:
    raise AssertionError(f"{pptx} must not reach the renderer")


# ---- the whole report


def test_valid_deck_passes_every_check_in_order(good: Path, reference: Path) -> None:
    report = validate(good, reference=reference)
    assert [c.name for c in report.checks] == list(CHECK_NAMES)
    assert report.valid, report.failures
    assert report.audit is not None
    assert report.audit.autoshapes == 5 and report.audit.connectors == 4
    assert report.audit.text_boxes == 1 and report.audit.editable_components == 10
    assert report.slide_width_pt == pytest.approx(720.0)


def test_renders_is_skipped_and_says_so_without_a_renderer(good: Path) -> None:
    check = _check(validate(good), "renders")
    assert check.skipped and check.passed and check.detail == "not rendered (--no-render)"


def test_missing_file_is_invalid_not_an_error(tmp_path: Path) -> None:
    report = validate(tmp_path / "absent.pptx")
    assert not report.valid and report.error is None
    assert _check(report, "opens").detail.endswith("no such file")


# ---- opens


@pytest.mark.parametrize(
    "content",
    [b"", b"plain text, not a zip\n" * 10, b"PK\x03\x04" + b"\0" * 100],
    ids=["empty", "text", "bad-zip"],
)
def test_unreadable_file_fails_opens_and_skips_the_rest(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.pptx"
    path.write_bytes(content)
    report = validate(path, render=_never_render)
    assert not report.valid and report.audit is None
    assert not _check(report, "opens").passed
    assert all(c.skipped and not c.passed for c in report.checks[1:])


def test_truncated_deck_fails_opens(good: Path, tmp_path: Path) -> None:
    path = tmp_path / "cut.pptx"
    path.write_bytes(good.read_bytes()[:-200])
    assert not _check(validate(path, render=_never_render), "opens").passed


def test_missing_content_types_fails_opens_but_is_safe(good: Path, tmp_path: Path) -> None:
    path = inject(good, tmp_path / "noct.pptx", drop=["[Content_Types].xml"])
    report = validate(path, render=_never_render)
    assert "Content_Types" in _check(report, "opens").detail
    assert _check(report, "safe_to_read").passed


def test_broken_slide_xml_fails_opens(good: Path, tmp_path: Path) -> None:
    path = inject(good, tmp_path / "broken.pptx", parts={"ppt/slides/slide1.xml": b"<p:sld><"})
    report = validate(path, render=_never_render)
    assert not _check(report, "opens").passed and not report.valid


# ---- safe_to_read


def test_zip_bomb_fails_safe_to_read_and_never_renders(good: Path, tmp_path: Path) -> None:
    bomb = RawEntry("ppt/media/image9.png", zeros_stream(2048), 2048 << 20, 0)
    path = build_zip(tmp_path / "bomb.pptx", [*deck_entries(good), bomb])
    report = validate(path, render=_never_render)
    check = _check(report, "safe_to_read")
    assert not check.passed and "image9.png" in check.detail
    assert _check(report, "renders").skipped


def test_traversal_name_fails_safe_to_read(good: Path, tmp_path: Path) -> None:
    from tests.decks import entry

    path = build_zip(tmp_path / "trav.pptx", [*deck_entries(good), entry("../../x.xml", b"<a/>")])
    check = _check(validate(path, render=_never_render), "safe_to_read")
    assert not check.passed and "traversal" in check.detail


def test_entity_declaration_fails_safe_to_read(good: Path, tmp_path: Path) -> None:
    path = inject(good, tmp_path / "lol.pptx", parts={"ppt/slides/slide1.xml": BILLION_LAUGHS})
    check = _check(validate(path, render=_never_render), "safe_to_read")
    assert not check.passed and "DOCTYPE" in check.detail


# ---- one_slide


def test_two_slides_fail_one_slide(tmp_path: Path) -> None:
    _fails_only(validate(make_deck(tmp_path / "two.pptx", n_slides=2)), "one_slide")


def test_no_slide_fails_one_slide(tmp_path: Path) -> None:
    report = validate(make_deck(tmp_path / "none.pptx", n_slides=0))
    assert set(report.failures) == {"one_slide", "editable_components"}


# ---- editable_components


def test_two_shapes_fail_editable_components(tmp_path: Path) -> None:
    deck = make_deck(tmp_path / "two.pptx", n_shapes=2, connectors=False, text_boxes=False)
    report = validate(deck)
    _fails_only(report, "editable_components")
    assert "only 2" in _check(report, "editable_components").detail


def test_pictures_do_not_count_as_editable(tmp_path: Path) -> None:
    pics = [Pic(icon_image(i), (0.1 + 0.2 * i, 0.6, 0.1, 0.1)) for i in range(4)]
    deck = make_deck(
        tmp_path / "pics.pptx", n_shapes=2, connectors=False, text_boxes=False, pictures=pics
    )
    report = validate(deck)
    _fails_only(report, "editable_components")
    assert report.audit is not None and report.audit.pictures == 4


def test_group_members_count_as_editable(tmp_path: Path) -> None:
    def group(slide) -> None:
        grp = slide.shapes.add_group_shape()
        for i in range(3):
            grp.shapes.add_shape(
                MSO_SHAPE.OVAL, Emu(914400 * (i + 1)), Emu(914400), Emu(457200), Emu(457200)
            )

    deck = make_deck(
        tmp_path / "grp.pptx", n_shapes=0, connectors=False, text_boxes=False, extra=group
    )
    report = validate(deck)
    assert report.valid and report.audit is not None
    assert report.audit.groups == 1 and report.audit.editable_components == 3


# ---- forbidden parts


def test_external_hyperlink_fails_no_external_relationships(good: Path, tmp_path: Path) -> None:
    path = inject(
        good,
        tmp_path / "ext.pptx",
        rels=[("ppt/slides/slide1.xml", REL + "hyperlink", "http://example.com/x", True)],
    )
    report = validate(path)
    _fails_only(report, "no_external_relationships")
    check = _check(report, "no_external_relationships")
    assert "ppt/slides/_rels/slide1.xml.rels" in check.detail and "example.com" in check.detail


def test_linked_image_in_any_rels_part_fails(good: Path, tmp_path: Path) -> None:
    path = inject(
        good,
        tmp_path / "link.pptx",
        rels=[("ppt/slideLayouts/slideLayout3.xml", REL + "image", "file:///tmp/x.png", True)],
    )
    assert "slideLayout3.xml.rels" in _check(validate(path), "no_external_relationships").detail


def test_embedded_font_fails_no_embedded_fonts(good: Path, tmp_path: Path) -> None:
    path = inject(
        good,
        tmp_path / "font.pptx",
        parts={"ppt/fonts/font1.fntdata": b"\0\1\0\0fake font"},
        defaults={"fntdata": "application/x-fontdata"},
        rels=[("ppt/presentation.xml", REL + "font", "fonts/font1.fntdata", False)],
    )
    report = validate(path)
    _fails_only(report, "no_embedded_fonts")
    assert "ppt/fonts/font1.fntdata" in _check(report, "no_embedded_fonts").detail


def test_ole_embedding_fails_no_embedded_objects(good: Path, tmp_path: Path) -> None:
    path = inject(
        good,
        tmp_path / "ole.pptx",
        parts={"ppt/embeddings/oleObject1.bin": b"\xd0\xcf\x11\xe0 fake OLE"},
        defaults={"bin": "application/vnd.openxmlformats-officedocument.oleObject"},
        rels=[("ppt/slides/slide1.xml", REL + "oleObject", "../embeddings/oleObject1.bin", False)],
    )
    report = validate(path)
    _fails_only(report, "no_embedded_objects")
    assert "oleObject1.bin" in _check(report, "no_embedded_objects").detail


def test_attached_document_fails_no_embedded_objects(good: Path, tmp_path: Path) -> None:
    path = inject(
        good,
        tmp_path / "att.pptx",
        parts={"ppt/embeddings/Microsoft_Word_Document.docx": b"PK fake docx"},
        defaults={
            "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        },
        rels=[
            (
                "ppt/slides/slide1.xml",
                REL + "package",
                "../embeddings/Microsoft_Word_Document.docx",
                False,
            )
        ],
    )
    _fails_only(validate(path), "no_embedded_objects")


def test_activex_control_fails_no_activex(good: Path, tmp_path: Path) -> None:
    path = inject(
        good,
        tmp_path / "ax.pptx",
        parts={"ppt/activeX/activeX1.xml": b'<ax:ocx xmlns:ax="urn:x" ax:classid="{1}"/>'},
        overrides={"ppt/activeX/activeX1.xml": "application/vnd.ms-office.activeX+xml"},
        rels=[("ppt/slides/slide1.xml", REL + "control", "../activeX/activeX1.xml", False)],
    )
    report = validate(path)
    _fails_only(report, "no_activex")
    assert "activeX1.xml" in _check(report, "no_activex").detail


def test_vba_project_fails_no_macros(good: Path, tmp_path: Path) -> None:
    macro_ct = "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml"
    path = inject(
        good,
        tmp_path / "vba.pptx",
        parts={"ppt/vbaProject.bin": b"\xd0\xcf\x11\xe0 fake VBA"},
        defaults={"bin": "application/vnd.ms-office.vbaProject"},
        rels=[
            (
                "ppt/presentation.xml",
                "http://schemas.microsoft.com/office/2006/relationships/vbaProject",
                "vbaProject.bin",
                False,
            )
        ],
        edit={
            "[Content_Types].xml": lambda b: b.replace(
                b"application/vnd.openxmlformats-officedocument.presentationml.presentation"
                b".main+xml",
                macro_ct.encode(),
            )
        },
    )
    report = validate(path)
    _fails_only(report, "no_macros")
    detail = _check(report, "no_macros").detail
    assert "vbaProject.bin" in detail and "macroenabled" in detail.lower()


# ---- object_bounds


def _shape_at(x: float, y: float):
    def add(slide) -> None:
        shp = slide.shapes.add_shape(
            MSO_SHAPE.RECTANGLE,
            Emu(int(x * SLIDE_W_EMU)),
            Emu(int(y * SLIDE_H_EMU)),
            Emu(int(0.2 * SLIDE_W_EMU)),
            Emu(int(0.1 * SLIDE_H_EMU)),
        )
        shp.name = "Stray box"

    return add


def test_shape_beyond_the_slide_fails_object_bounds(tmp_path: Path) -> None:
    report = validate(make_deck(tmp_path / "out.pptx", extra=_shape_at(0.9, 0.5)))
    _fails_only(report, "object_bounds")
    assert '"Stray box"' in _check(report, "object_bounds").detail


def test_rotated_shape_reaching_past_the_edge_fails_object_bounds(tmp_path: Path) -> None:
    def bar(slide) -> None:
        # A wide, thin bar near the bottom: upright it fits; turned 90 deg about its centre,
        # its 4.8 in length runs off the bottom of the 7.5 in slide.
        shp = slide.shapes.add_shape(
            MSO_SHAPE.RECTANGLE,
            Emu(int(0.30 * SLIDE_W_EMU)),
            Emu(int(0.875 * SLIDE_H_EMU)),
            Emu(int(0.48 * SLIDE_W_EMU)),
            Emu(int(0.05 * SLIDE_H_EMU)),
        )
        shp.name = "Turned bar"

    assert validate(make_deck(tmp_path / "up.pptx", extra=bar)).valid

    def turned(slide) -> None:
        bar(slide)
        slide.shapes[-1].rotation = 90.0

    report = validate(make_deck(tmp_path / "turn.pptx", extra=turned))
    _fails_only(report, "object_bounds")
    assert '"Turned bar"' in _check(report, "object_bounds").detail
    assert "rotated 90 deg" in _check(report, "object_bounds").detail


def test_slight_overshoot_is_within_tolerance(tmp_path: Path) -> None:
    assert validate(make_deck(tmp_path / "edge.pptx", extra=_shape_at(0.81, 0.5))).valid


# ---- no_reference_copy


def test_pasted_reference_crop_fails_no_reference_copy(reference: Path, tmp_path: Path) -> None:
    crop = cropped(reference.read_bytes(), (0.1, 0.2, 0.6, 0.6), 0.7)
    deck = make_deck(tmp_path / "paste.pptx", pictures=[Pic(crop, (0.5, 0.6, 0.3, 0.25))])
    report = validate(deck, reference=reference)
    _fails_only(report, "no_reference_copy")
    assert "Picture" in _check(report, "no_reference_copy").detail


def test_icon_picture_passes_no_reference_copy(reference: Path, tmp_path: Path) -> None:
    deck = make_deck(tmp_path / "icon.pptx", pictures=[Pic(icon_image(3), (0.8, 0.8, 0.1, 0.1))])
    assert validate(deck, reference=reference).valid


def test_picture_covering_most_of_the_canvas_fails_without_a_reference(tmp_path: Path) -> None:
    deck = make_deck(tmp_path / "big.pptx", pictures=[Pic(photo_image(2), (0.0, 0.1, 0.9, 0.8))])
    report = validate(deck)
    _fails_only(report, "no_reference_copy")
    assert "covers 72%" in _check(report, "no_reference_copy").detail


def test_picture_fill_of_a_shape_is_screened_too(reference: Path, tmp_path: Path) -> None:
    def filled(slide) -> None:
        shp = slide.shapes.add_picture(
            __import__("io").BytesIO(reference.read_bytes()), 0, 0, Emu(914400), Emu(685800)
        )
        shp.name = "Tiny copy"

    report = validate(make_deck(tmp_path / "fill.pptx", extra=filled), reference=reference)
    _fails_only(report, "no_reference_copy")
    assert "byte-identical" in _check(report, "no_reference_copy").detail


def _with_background(good: Path, dst: Path, image: bytes) -> Path:
    """The deck with a slide background picture (``p:bg`` blip fill), injected as XML."""
    bg = (
        b'<p:bg><p:bgPr><a:blipFill><a:blip r:embed="rIdX0"/><a:stretch><a:fillRect/>'
        b"</a:stretch></a:blipFill><a:effectLst/></p:bgPr></p:bg>"
    )
    return inject(
        good,
        dst,
        parts={"ppt/media/background.png": image},
        defaults={"png": "image/png"},
        rels=[("ppt/slides/slide1.xml", REL + "image", "../media/background.png", False)],
        edit={"ppt/slides/slide1.xml": lambda b: b.replace(b"<p:cSld>", b"<p:cSld>" + bg, 1)},
    )


def test_reference_as_slide_background_fails_no_reference_copy(
    good: Path, reference: Path, tmp_path: Path
) -> None:
    path = _with_background(good, tmp_path / "bgref.pptx", reference.read_bytes())
    report = validate(path, reference=reference)
    _fails_only(report, "no_reference_copy")
    assert "slide background" in _check(report, "no_reference_copy").detail


def test_background_picture_covering_the_canvas_fails_without_a_reference(
    good: Path, tmp_path: Path
) -> None:
    path = _with_background(good, tmp_path / "bgphoto.pptx", photo_image(4))
    report = validate(path)
    _fails_only(report, "no_reference_copy")
    assert "slide background covers 100%" in _check(report, "no_reference_copy").detail


def test_approved_asset_passes_no_reference_copy(reference: Path, tmp_path: Path) -> None:
    asset = cropped(reference.read_bytes(), (0.1, 0.2, 0.6, 0.6))
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "logo.png").write_bytes(asset)
    deck = make_deck(tmp_path / "asset.pptx", pictures=[Pic(asset, (0.5, 0.6, 0.3, 0.25))])
    report = validate(deck, reference=reference, assets_dir=assets)
    assert report.valid, report.failures
    assert "approved" in _check(report, "no_reference_copy").detail


# ---- renders


def test_render_error_fails_renders(good: Path) -> None:
    def broken(pptx: Path) -> RenderResult:
        raise RenderError(f"{pptx}: LibreOffice wrote no PDF")

    report = validate(good, render=broken)
    _fails_only(report, "renders")
    assert "wrote no PDF" in _check(report, "renders").detail


@pytest.mark.slow
def test_real_render_passes_renders(good: Path, tmp_path: Path, render_pool: RenderPool) -> None:
    report = validate(good, render=lambda p: render_pool.render(p, tmp_path / "r.png"))
    assert report.valid, report.failures
    assert "rendered" in _check(report, "renders").detail


@pytest.mark.slow
def test_blank_render_fails_renders(tmp_path: Path, render_pool: RenderPool) -> None:
    def invisible(slide) -> None:
        for i in range(3):
            slide.shapes.add_textbox(Emu(914400 * (i + 1)), Emu(914400), Emu(914400), Emu(457200))

    deck = make_deck(
        tmp_path / "blank.pptx", n_shapes=0, connectors=False, text_boxes=False, extra=invisible
    )
    report = validate(deck, render=lambda p: render_pool.render(p, tmp_path / "b.png"))
    # empty text boxes draw nothing: they are not counted, and the render is blank
    assert report.failures == ["editable_components", "renders"]
    assert "render is blank" in _check(report, "renders").detail
    assert "blank" in _check(report, "renders").detail


# ---- CLI


def test_cli_exit_codes_and_json(good: Path, tmp_path: Path) -> None:
    ok = runner.invoke(app, ["validate", str(good), "--no-render"])
    assert ok.exit_code == 0, ok.output
    assert "PASS opens" in ok.output and "audit:" in ok.output
    two = make_deck(tmp_path / "two.pptx", n_slides=2)
    bad = runner.invoke(app, ["validate", str(two), "--no-render", "--json"])
    assert bad.exit_code == 1
    report = ArtifactReport.model_validate(json.loads(bad.output))
    assert report.failures == ["one_slide"]
    missing = runner.invoke(app, ["validate", str(tmp_path / "absent.pptx"), "--no-render"])
    assert missing.exit_code == 2


def test_cli_reports_hostile_file_as_invalid(good: Path, tmp_path: Path) -> None:
    path = inject(good, tmp_path / "lol.pptx", parts={"ppt/slides/slide1.xml": BILLION_LAUGHS})
    result = runner.invoke(app, ["validate", str(path)])  # renders would be skipped anyway
    assert result.exit_code == 1
    assert "FAIL safe_to_read" in result.output
    assert "Traceback" not in result.output


# ---- robustness


def _mutations(good: Path, n: int, seed: int):
    """Seeded broken variants of a deck: flipped bytes, cut XML, garbage attribute values."""
    import random
    import re

    from tests.decks import read_members

    rng = random.Random(seed)
    raw = good.read_bytes()
    members = read_members(good)
    xml_names = [m for m in members if m.endswith((".xml", ".rels"))]
    for i in range(n):
        if i % 3 == 0:
            data = bytearray(raw)
            for _ in range(rng.randint(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            yield ("bytes", bytes(data))
            continue
        changed = dict(members)
        name = rng.choice(xml_names)
        text = changed[name].decode("utf-8")
        if i % 3 == 1:
            text = text[: rng.randrange(len(text))]
        else:
            text = re.sub(
                r'="(\d+)"',
                lambda m: '="' + rng.choice([m.group(1), "-5", "abc", "1e9", "9" * 20, ""]) + '"',
                text,
            )
        changed[name] = text.encode("utf-8")
        yield (name, changed)


def test_mutated_decks_give_reports_or_package_errors(good: Path, tmp_path: Path) -> None:
    from tests.decks import write_members

    path = tmp_path / "mutant.pptx"
    for what, content in _mutations(good, 45, seed=7):
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            write_members(path, content)
        try:
            report = validate(path)
        except PackageError:
            continue
        assert [c.name for c in report.checks] == list(CHECK_NAMES), what


def test_cli_unreadable_reference_could_not_check(tmp_path: Path) -> None:
    deck = make_deck(tmp_path / "pic.pptx", pictures=[Pic(icon_image(1), (0.8, 0.8, 0.1, 0.1))])
    bad = tmp_path / "reference.png"
    bad.write_bytes(b"not a png")
    result = runner.invoke(app, ["validate", str(deck), "--reference", str(bad), "--no-render"])
    assert result.exit_code == 2
    assert "reference.png" in result.output and "Traceback" not in result.output
