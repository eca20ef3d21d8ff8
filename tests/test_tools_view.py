"""The judge's tools on real images and a real deck: crop/zoom frames, matched crops, object
tree, colour segmentation, components and geometry."""

from __future__ import annotations

import numpy as np
import pytest

from judge.tools import TOOLS
from tests.judge_helpers import BOX_COLOUR_BGR, make_context

BOX_HEX = "{:02X}{:02X}{:02X}".format(*BOX_COLOUR_BGR[::-1])


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return make_context(tmp_path_factory.mktemp("tools3"), n_candidate_boxes=3)


@pytest.fixture(scope="module")
def ctx2(tmp_path_factory):
    """The candidate render lacks the third box."""
    return make_context(tmp_path_factory.mktemp("tools2"), n_candidate_boxes=2)


def run(ctx, name: str, **args):
    return TOOLS[name].call(ctx, args)


def box_colour_share(img: np.ndarray) -> float:
    return float((np.abs(img.astype(int) - BOX_COLOUR_BGR).max(axis=2) < 30).mean())


def test_crop_in_panel_frame_cuts_full_resolution_image(ctx) -> None:
    m = ctx.pair.candidate
    x0, y0 = m.image_to_panel(0.06 * 1280, 0.4 * 960)  # top-left of the first box
    out = run(ctx, "crop", image="candidate", x=x0, y=y0, w=100, h=60)
    assert "error" not in out.data
    ib = out.data["image_box"]
    assert ib["x"] == pytest.approx(0.06 * 1280, abs=2) and ib["y"] == pytest.approx(
        0.4 * 960, abs=2
    )
    assert ib["w"] == pytest.approx(100 / m.scale, abs=2)  # panel px -> image px
    assert box_colour_share(out.images[0]) > 0.9
    assert max(out.images[0].shape[:2]) == 768 and out.data["zoom"] > 1


def test_pair_frame_is_panel_frame_shifted_by_panel_left(ctx) -> None:
    left = ctx.pair.candidate.panel_left
    a = run(ctx, "crop", image="candidate", x=200, y=300, w=300, h=200, frame="panel")
    b = run(ctx, "crop", image="candidate", x=200 + left, y=300, w=300, h=200, frame="pair")
    assert a.data["image_box"] == b.data["image_box"]


def test_crop_outside_image_is_a_json_error(ctx) -> None:
    out = run(ctx, "crop", image="reference", x=5000, y=5000, w=50, h=50, frame="image")
    assert "outside the reference image" in out.data["error"] and not out.images


def test_bad_frame_is_a_json_error(ctx) -> None:
    out = run(ctx, "crop", image="reference", x=0, y=0, w=50, h=50, frame="slide")
    assert "invalid arguments for crop" in out.data["error"]


def test_matched_crops_show_same_content_side_by_side(ctx) -> None:
    m = ctx.pair.reference
    x0, y0 = m.image_to_panel(0.06 * 1000, 0.4 * 750)
    out = run(ctx, "compare_crops", x=x0, y=y0, w=150, h=80)
    img = out.images[0]
    half = img.shape[1] // 2
    assert box_colour_share(img[:, : half - 8]) > 0.8 and box_colour_share(img[:, half + 8 :]) > 0.8
    assert set(out.data["image_boxes"]) == {"reference", "candidate"}


def test_components_count_boxes_by_colour(ctx, ctx2) -> None:
    full = {"x": 0, "y": 0, "w": 1200, "h": 900}
    ref = run(ctx2, "components", image="reference", colour=BOX_HEX, **full)
    cand = run(ctx2, "components", image="candidate", colour=BOX_HEX, **full)
    assert ref.data["count"] == 3 and cand.data["count"] == 2
    centres = [c["panel_centre"][1] for c in ref.data["components"]]
    assert max(centres) - min(centres) < 2  # boxes on one row


def test_colour_segments_find_box_colour_and_background(ctx) -> None:
    out = run(ctx, "colour_segments", image="reference", x=0, y=0, w=1200, h=900)
    assert out.data["background"] == "FFFFFF" and 0.5 < out.data["background_fraction"] < 1
    colours = [s["colour"] for s in out.data["segments"]]
    assert colours[0] == "FFFFFF" and any(
        max(abs(int(c[i : i + 2], 16) - int(BOX_HEX[i : i + 2], 16)) for i in (0, 2, 4)) < 20
        for c in colours
    )


def test_object_tree_lists_connectors_with_glued_ends(ctx) -> None:
    out = run(ctx, "object_tree", types=["connector"])
    cons = out.data["objects"]
    assert len(cons) == 2 and out.data["counts_by_type"]["autoshape"] == 3
    for c in cons:
        assert c["begin_id"] and c["end_id"] and c["tail_end"] == "triangle"
        assert 0 <= c["panel_box"]["x"] <= 1200


def test_geometry_measures_alignment_distance_and_overlap(ctx) -> None:
    boxes = [
        {"name": "a", "x": 100, "y": 100, "w": 100, "h": 50},
        {"name": "b", "x": 300, "y": 100, "w": 100, "h": 50},
        {"name": "c", "x": 150, "y": 120, "w": 100, "h": 50},
    ]
    out = run(ctx, "geometry", boxes=boxes)
    ab, ac = out.data["pairs"][0], out.data["pairs"][1]
    assert ab["aligned_horizontally"] and ab["centre_distance"] == 200 and ab["gap"] == 100
    assert ab["overlap"] == 0 and ac["overlap"] == pytest.approx(50 * 30 / 5000)


def test_geometry_of_object_ids_uses_their_panel_boxes(ctx) -> None:
    ids = [o.id for o in ctx.object_tree.objects if o.type == "autoshape"]
    out = run(ctx, "geometry", object_ids=ids)
    assert all(p["aligned_horizontally"] for p in out.data["pairs"])
    assert "no object with id 999" in run(ctx, "geometry", object_ids=[999]).data["error"]


def test_small_image_is_read_enlarged_and_tools_answer_in_its_own_pixels(tmp_path) -> None:
    """A 600 px reference is read at twice its size (READ_MIN_SIDE_PX); crops, node boxes and
    the graph still come back in its own pixels and in the same panel frame."""
    from judge.artifact.ooxml import read_object_tree
    from judge.render.prepare import prepare_pair
    from judge.tools.base import ToolContext, read_zoom
    from tests.judge_helpers import flow_deck, flow_image

    ref = flow_image(tmp_path / "reference.png", 3, (600, 450))
    render = flow_image(tmp_path / "render.png", 3, (1280, 960))
    deck = flow_deck(tmp_path / "deck.pptx")
    pair = prepare_pair(ref, render, tmp_path / "pair.png")
    small = ToolContext(pptx=deck, reference_png=ref, render_png=render,
                        pair_png=tmp_path / "pair.png", pair=pair,
                        object_tree=read_object_tree(deck))  # fmt: skip
    assert read_zoom(600, 450) == 2 and read_zoom(1000, 750) == 1 and read_zoom(300, 200) == 3
    assert small.zoom("reference") == 2 and small.zoom("candidate") == 1
    assert small.image("reference").shape[:2] == (900, 1200)
    # a crop named in image pixels is cut where those pixels are, and reported in them
    out = run(small, "crop", image="reference", x=36, y=180, w=132, h=72, frame="image")
    assert out.data["image_box"] == {"x": 36, "y": 180, "w": 132, "h": 72}
    assert out.data["zoom"] == pytest.approx(768 / 132, rel=0.01)  # from its own pixels
    assert box_colour_share(out.images[0]) > 0.7  # the first box (x 36-168, y 180-252)
    # the panel frame is the pair's, whatever the reading zoom
    m = pair.reference
    px, py = m.image_to_panel(36, 180)
    assert out.data["panel_box"]["x"] == pytest.approx(px, abs=1)
    assert out.data["panel_box"]["y"] == pytest.approx(py, abs=1)
    nodes = run(small, "detect_nodes", image="reference", frame="image").data["blobs"]
    assert len(nodes) == 3 and all(b["box"][0] + b["box"][2] <= 600 for b in nodes)
    assert nodes[0]["box"][0] == pytest.approx(36, abs=3)
    g = run(small, "reference_graph").data
    assert g["image_size"] == [600, 450] and len(g["nodes"]) == 3
    assert max(n["box"][0] + n["box"][2] for n in g["nodes"]) <= 600
    assert len(g["edges"]) == 2
