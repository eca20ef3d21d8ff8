"""Reference looks (``generation.realfig.looks``): the real-figure benchmark light on dark and
scaled down or through JPEG, with decks changed to match."""

from __future__ import annotations

import colorsys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from generation.realfig.bench import SPECS, write_realfig_benchmark
from generation.realfig.deck import build_deck
from generation.realfig.looks import (
    SMALL_SIDE_PX,
    dark_deck,
    invert_lightness_hex,
    invert_lightness_image,
    jpeg_image,
    look,
    shrink_image,
)
from generation.realfig.model import shared_figures_dir
from judge.artifact.ooxml import read_object_tree
from judge.errors import BenchmarkError
from judge.render.pool import RenderPool

FIGURES = shared_figures_dir()
needs_figures = pytest.mark.skipif(
    not (FIGURES / "dev01" / "reference.png").is_file(),
    reason=f"{FIGURES} is absent (set PPTJUDGE_SHARED to the shared folder)",
)


def _png(img: np.ndarray) -> bytes:
    return cv2.imencode(".png", img)[1].tobytes()


def _img(png: bytes) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None
    return img


def test_lightness_inversion_swaps_light_and_dark_and_keeps_the_hue() -> None:
    assert invert_lightness_hex("FFFFFF") == "000000"
    assert invert_lightness_hex("000000") == "FFFFFF"
    pale = "DAE8FC"  # a draw.io pale blue fill becomes a dark blue
    dark = invert_lightness_hex(pale)
    hue = [colorsys.rgb_to_hls(*(int(c[i : i + 2], 16) / 255 for i in (0, 2, 4)))[0]
           for c in (pale, dark)]  # fmt: skip
    assert hue[1] == pytest.approx(hue[0], abs=0.02)
    assert sum(int(dark[i : i + 2], 16) for i in (0, 2, 4)) < 3 * 80
    # the image is inverted the same way, pixel by pixel
    img = np.full((20, 30, 3), 255, np.uint8)
    img[5:15, 5:25] = (0xFC, 0xE8, 0xDA)  # BGR of the pale blue
    out = _img(invert_lightness_image(_png(img)))
    assert (out[0, 0] == 0).all()
    got = "".join(f"{int(c):02X}" for c in out[10, 10][::-1])
    assert all(abs(int(got[i : i + 2], 16) - int(dark[i : i + 2], 16)) <= 3 for i in (0, 2, 4))


def test_small_scales_the_longer_side_down_and_never_up() -> None:
    big = np.full((1000, 2000, 3), 255, np.uint8)
    assert _img(shrink_image(_png(big))).shape[:2] == (SMALL_SIDE_PX // 2, SMALL_SIDE_PX)
    tiny = np.full((100, 50, 3), 255, np.uint8)
    assert _img(shrink_image(_png(tiny))).shape[:2] == (100, 50)
    assert _img(look("tiny").reference(_png(big))).shape[:2] == (200, 400)
    with pytest.raises(BenchmarkError, match="unknown look 'sepia'"):
        look("sepia")


def test_looks_joined_by_plus_apply_left_to_right() -> None:
    """``small+jpeg`` scales down, then saves as JPEG; ``dark+small`` recolours the decks too;
    an unknown or repeated part is a clear error."""
    img = np.full((800, 1600, 3), 255, np.uint8)
    cv2.line(img, (100, 400), (1500, 400), (0, 0, 0), 6)
    both = look("small+jpeg")
    assert both.deck is None
    out = _img(both.reference(_png(img)))
    assert out.shape[:2] == (SMALL_SIDE_PX // 2, SMALL_SIDE_PX)
    want = _img(jpeg_image(shrink_image(_png(img))))
    assert np.array_equal(out, want)
    assert look("dark+small").deck is dark_deck
    for bad in ("small+sepia", "jpeg+jpeg"):
        with pytest.raises(BenchmarkError, match="joined by"):
            look(bad)


def test_jpeg_leaves_the_ringing_of_one_lossy_save_and_keeps_the_size() -> None:
    """A black line on white comes back with grey ringing beside it (the artefacts a figure
    re-saved for the web carries), at the same size, still stored as PNG."""
    img = np.full((64, 96, 3), 255, np.uint8)
    cv2.line(img, (8, 32), (88, 32), (0, 0, 0), 1)
    png = jpeg_image(_png(img))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out = _img(png)
    assert out.shape == img.shape
    changed = np.abs(out.astype(int) - img.astype(int)).max(axis=2) >= 2
    assert changed[26:40, 8:88].sum() > 40  # ringing beside the line, where the page was white
    assert out[32, 48].max() < 100 and out[5, 5].min() > 235  # the line and the page survive
    assert not np.array_equal(_img(jpeg_image(_png(img), quality=95)), out)


@pytest.mark.slow
def test_a_dark_deck_renders_light_on_dark(render_pool: RenderPool, tmp_path: Path) -> None:
    """Every explicit colour of the deck is inverted and the slide gets a black background:
    LibreOffice draws the page black and the node text light."""
    fig = next(f for f in SPECS if f.id == "dev13")
    deck = tmp_path / "dark.pptx"
    deck.write_bytes(dark_deck(build_deck(fig, "shapes")))
    tree = read_object_tree(deck)
    colours = {o.fill_rgb for o in tree.objects if o.fill_rgb}
    assert "FFFFFF" not in colours
    render_pool.render(deck, tmp_path / "dark.png")
    img = _img((tmp_path / "dark.png").read_bytes())
    corner = img[:10, :10].reshape(-1, 3)
    assert corner.max() < 40, corner.max()
    assert (img.reshape(-1, 3).sum(axis=1) > 600).any()  # light ink on it


@needs_figures
def test_a_look_redraws_the_references_and_keeps_the_labels(tmp_path: Path) -> None:
    plain = write_realfig_benchmark(tmp_path / "plain", figures=["dev08"])
    dark = write_realfig_benchmark(tmp_path / "dark", figures=["dev08"], look="dark")
    assert [lb.model_dump() for lb in dark] == [lb.model_dump() for lb in plain]
    ref = _img((FIGURES / "dev08" / "reference.png").read_bytes())
    got = _img((tmp_path / "dark" / "tasks" / "dev08" / "reference.png").read_bytes())
    assert got.shape == ref.shape and got.mean() < 255 - ref.mean() + 10
    small = write_realfig_benchmark(tmp_path / "small", figures=["dev08"], look="small")
    assert len(small) == len(plain)
    shrunk = _img((tmp_path / "small" / "tasks" / "dev08" / "reference.png").read_bytes())
    assert max(shrunk.shape[:2]) == min(SMALL_SIDE_PX, max(ref.shape[:2]))


def test_a_dark_handmade_deck_reads_as_the_same_graph(tmp_path: Path) -> None:
    """``handmade`` edge labels sit in boxes of the page's colour that hide the line under
    them: on a black slide those boxes are black, and they are still text, not nodes."""
    from judge.tools.treeread import read_tree_graph

    fig = next(f for f in SPECS if f.id == "dev14")  # two-line edge labels in boxes
    plain = build_deck(fig, "handmade")
    graphs = {"plain": plain, "dark": dark_deck(plain)}
    read = {}
    for name, data in graphs.items():
        path = tmp_path / f"{name}.pptx"
        path.write_bytes(data)
        tree = read_object_tree(path)
        g = read_tree_graph(tree, (1600, 900))
        names = {n.id: n.label for n in g.nodes}
        read[name] = (sorted(n.label for n in g.nodes),
                      {(names[e.src], names[e.dst], e.direction) for e in g.edges})  # fmt: skip
        if name == "dark":
            assert tree.background_rgb == "000000"
    assert read["dark"] == read["plain"]
    assert len(read["dark"][0]) == len(fig.nodes)


def test_a_transparent_reference_is_flattened_on_white_as_the_judge_reads_it() -> None:
    """Looks decode through the judge's own loader: transparent pixels become white (not
    black) before the lightness is inverted, and undecodable bytes are a clear error."""
    rgba = np.zeros((40, 60, 4), np.uint8)  # fully transparent black
    rgba[10:30, 10:50] = (0, 0, 200, 255)  # an opaque red box (BGRA)
    png = cv2.imencode(".png", rgba)[1].tobytes()
    small = _img(shrink_image(png, side=1000))
    assert (small[0, 0] == 255).all() and tuple(small[20, 20]) == (0, 0, 200)
    dark = _img(invert_lightness_image(png))
    assert (dark[0, 0] == 0).all()  # the white page inverted, not the transparent black
    with pytest.raises(BenchmarkError, match="does not decode"):
        shrink_image(b"not an image")


@needs_figures
def test_label_pills_through_jpeg_stay_labels() -> None:
    """dev05's edge labels sit in cream pills with no outline on its green panel. Through one
    JPEG save, OCR's boxes round "Association" and "Attribution" shrink by a few pixels and
    no longer cover 70 % of their pill: the pills read as nodes, and the line they sit on as
    an edge out of them (three faithful decks failed). A pill's OCR line is given slack and
    the lines decide whether it is a node: these stay labels, as in the plain figure."""
    from judge.tools.arrows import read_lines
    from judge.tools.graphread import read_raster_graph
    from judge.tools.nodes import detect_blobs
    from judge.tools.ocr import ocr_image

    plain = (FIGURES / "dev05" / "reference.png").read_bytes()
    for png in (plain, jpeg_image(plain)):
        img = _img(png)
        blobs, ocr = detect_blobs(img), ocr_image(img)
        lines, pills = read_lines(img, blobs, ocr)
        g = read_raster_graph("reference", img.shape[1::-1], blobs, lines, ocr, img, pills)
        labels = {n.label for n in g.nodes}
        assert not labels & {"Association", "Attribution"}, sorted(labels)
        assert {"Context: ContextType", "Artifact: ArtifactType"} <= labels, sorted(labels)


@needs_figures
@pytest.mark.slow
def test_long_labels_read_with_slips_in_a_small_dark_figure_are_still_there(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """dev14 light on dark at 640 px: its boxes hold five or six lines of code-like text, which
    OCR reads with a slip every few words ("mMemoryM25Retrlever", "Optfonal tmputs:"), so whole
    labels are too far from the deck's text; a neighbour's reading then stood in for one
    (missing node) and a deck shape was reported as extra. A node is there when one line of its
    own is read beyond doubt letter for letter ("fr_retriever", "prompt_builder"): the faithful
    deck has no confirmed discrepancy, and a missing node is still found."""
    from generation.realfig.variants import VARIANTS
    from judge.tools.semantic import semantic_comparison
    from tests.judge_helpers import rendered_case

    fig = next(f for f in SPECS if f.id == "dev14")
    drawn = look("dark+small")
    ref = tmp_path / "reference.png"
    ref.write_bytes(drawn.reference((FIGURES / "dev14" / "reference.png").read_bytes()))
    assert drawn.deck is not None
    faithful = tmp_path / "faithful.pptx"
    faithful.write_bytes(drawn.deck(build_deck(fig, "shapes")))
    ctx = rendered_case(render_pool, tmp_path, "faithful", ref, faithful)
    found = semantic_comparison(ctx)["discrepancies"]
    assert [d for d in found if d["confirmed"]] == []
    missing = tmp_path / "missing.pptx"
    built = VARIANTS["missing_node"].make(fig, "shapes")
    missing.write_bytes(drawn.deck(build_deck(built.fig, built.construction)))
    ctx = rendered_case(render_pool, tmp_path, "missing", ref, missing)
    kinds = {d["kind"] for d in semantic_comparison(ctx)["discrepancies"] if d["confirmed"]}
    assert "missing_node" in kinds, kinds


def _tiny_faithful_discrepancies(
    render_pool: RenderPool, tmp_path: Path, fig_id: str
) -> list[dict[str, Any]]:
    """The semantic comparison's discrepancies for a real figure at 400 px (``--look tiny``)
    against its faithful plain-shapes deck, rendered."""
    from judge.tools.semantic import semantic_comparison
    from tests.judge_helpers import rendered_case

    fig = next(f for f in SPECS if f.id == fig_id)
    drawn = look("tiny")
    ref = tmp_path / "reference.png"
    ref.write_bytes(drawn.reference((FIGURES / fig_id / "reference.png").read_bytes()))
    faithful = tmp_path / "faithful.pptx"
    deck = build_deck(fig, "shapes")
    faithful.write_bytes(drawn.deck(deck) if drawn.deck is not None else deck)
    ctx = rendered_case(render_pool, tmp_path, "faithful", ref, faithful)
    found: list[dict[str, Any]] = semantic_comparison(ctx)["discrepancies"]
    return found


@needs_figures
@pytest.mark.slow
def test_text_too_small_to_read_in_a_400_px_figure_is_no_added_node(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """dev06 at 400 px (``--look tiny``): its labels are 3-5 px tall there, too small for OCR
    even enlarged, so every deck shape's text was "shown nowhere" in the reference and four
    extra nodes were confirmed against the faithful deck. Absence of text too small to read is
    no evidence (``LEGIBLE_INK_MIN_PX``): the faithful deck has no confirmed discrepancy."""
    found = _tiny_faithful_discrepancies(render_pool, tmp_path, "dev06")
    assert [d["target"] for d in found if d["confirmed"]] == []
    assert any("too small to read" in " ".join(d["checks"] or []) for d in found)


@needs_figures
@pytest.mark.slow
def test_a_label_ocr_garbles_at_400_px_is_not_another_nodes_text(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """dev15 at 400 px: OCR reads the box "Input data" as "imput dasa". The render shows
    "Input data" there, and words of it occur elsewhere in the reference ("set_input"), so
    the changed label was taken for another reference text standing in for a missing node,
    and every faithful deck failed. Only a whole reference text away from the node (another
    node's label, an OCR line outside its box) makes that case."""
    found = _tiny_faithful_discrepancies(render_pool, tmp_path, "dev15")
    assert [d["target"] for d in found if d["confirmed"]] == []
