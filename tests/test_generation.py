"""The synthetic benchmark generator: determinism, deck structure, labelled defects, rendering.

Seeds used here: 3, 5, 21 and the committed fixture's 7. Seed 1234 is reserved for measuring the
built-in judge and must never be used (or tuned on) in tests.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageFilter
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.oxml.ns import qn
from typer.testing import CliRunner

from cli.app import app
from generation.benchmark import (
    ANNOTATORS,
    DEFAULT_CONFIGS,
    read_labels_jsonl,
    simulated_labels_csv,
    write_benchmark,
)
from generation.deck import EMU_PER_PX, build_deck
from generation.diagram import (
    CANVAS_H,
    CANVAS_W,
    SIDE_INDEX,
    Diagram,
    make_diagram,
    text_width,
)
from generation.draw import reference_png_bytes
from generation.variants import (
    ARTIFACT,
    DETACH_GAP_PX,
    FAITHFUL,
    MISALIGN_PX,
    STAGE3,
    VARIANTS,
    Built,
)
from judge.render.prepare import prepare_pair
from judge.rundir import iter_candidates
from judge.schema import CaseLabel, PairGeometry, Task, TruthGraph
from scoring.agreement import read_labels

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "bench"
TEST_SEED = 21
"""Diagram seed for the per-variant tests: two panels, motifs with elbows and dashed edges."""
FAITHFUL_MAX_MAD = 1.5
"""Largest mean absolute difference (0-255) between the two panels of prepare_pair, both blurred
by :data:`BLUR_PX`, for a reference and the LibreOffice render of its faithful deck (measured
0.3-0.5; another diagram's reference gives ~5)."""
BLUR_PX = 3
"""Gaussian blur radius (panel pixels) before comparing: forgives antialiasing and 1 px stroke
differences, keeps anything the size of a node, label or arrow."""


# ----------------------------------------------------------------------------------------------
# helpers


def _walk(shapes: Any) -> list[Any]:
    out = []
    for shp in shapes:
        out.append(shp)
        if shp.shape_type == MSO_SHAPE_TYPE.GROUP:
            out.extend(_walk(shp.shapes))
    return out


def _deck_graph(data: bytes) -> dict[str, Any]:
    """What a deck draws, read back with python-pptx: nodes by label and glued edges."""
    prs = Presentation(io.BytesIO(data))
    assert len(prs.slides) == 1
    shapes = _walk(prs.slides[0].shapes)
    nodes = {s.shape_id: s for s in shapes if s.name.startswith("Node ") and "group" not in s.name}
    labels: dict[int, str] = {}
    for s in shapes:
        if s.name.startswith("Node ") and "group" not in s.name and s.text_frame.text:
            labels[s.shape_id] = s.text_frame.text
        if s.name.startswith("Label "):
            node = next(n for n in nodes.values() if n.name == "Node " + s.name.split()[1])
            labels[node.shape_id] = s.text_frame.text
    edges = {}
    for s in shapes:
        if not s.name.startswith("Edge "):
            continue
        el = s._element
        st = el.find(f".//{qn('a:stCxn')}")
        en = el.find(f".//{qn('a:endCxn')}")
        ln = el.find(f".//{qn('a:ln')}")
        tail = ln.find(qn("a:tailEnd"))
        dash = ln.find(qn("a:prstDash"))
        edges[s.name] = {
            "begin": None if st is None else (labels[int(st.get("id"))], int(st.get("idx"))),
            "end": None if en is None else (labels[int(en.get("id"))], int(en.get("idx"))),
            "tail": None if tail is None else tail.get("type"),
            "dash": None if dash is None else dash.get("val"),
            "width": int(ln.get("w")),
            "kind": el.tag.split("}")[1],
        }
    return {
        "data": data,
        "prs": prs,
        "shapes": shapes,
        "nodes": nodes,
        "labels": labels,
        "edges": edges,
    }


def _build(name: str, d: Diagram, style: str = "connectors", seed: int = 0) -> tuple[Built, bytes]:
    variant = VARIANTS[name]
    rng = np.random.default_rng(seed)
    ref = reference_png_bytes(d) if name == "pasted_reference" else b""  # drawing costs ~0.3 s
    built = variant.make(d, variant.fixed_style or style, rng, ref)  # type: ignore[arg-type]
    return built, build_deck(built.diagram, built.options)


@pytest.fixture(scope="module")
def diagram() -> Diagram:
    d = make_diagram("t21", TEST_SEED)
    assert any(e.route == "elbow" for e in d.edges) and any(e.dashed for e in d.edges)
    return d


@pytest.fixture(scope="module")
def faithful_graph(diagram: Diagram) -> dict[str, Any]:
    return _deck_graph(_build("faithful_connectors", diagram)[1])


@pytest.fixture(scope="module")
def small_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "b5"
    write_benchmark(out, seed=5, n_tasks=3)
    return out


# ----------------------------------------------------------------------------------------------
# layout and truth


@pytest.mark.parametrize("seed", range(0, 40))
def test_layout_never_overlaps_nodes_or_crosses_edges_through_nodes(seed: int):
    d = make_diagram(f"t{seed}", seed)
    boxes = {n.id: (n.x, n.y, n.x + n.w, n.y + n.h) for n in d.nodes}
    for a in d.nodes:
        assert 0 < a.x and a.x + a.w < CANVAS_W and 0 < a.y and a.y + a.h < CANVAS_H
        for b in d.nodes:
            if a.id < b.id:
                ax0, ay0, ax1, ay1 = boxes[a.id]
                bx0, by0, bx1, by1 = boxes[b.id]
                assert ax1 < bx0 or bx1 < ax0 or ay1 < by0 or by1 < ay0, (a.label, b.label)
    glue = [(e.src, e.src_side) for e in d.edges] + [(e.dst, e.dst_side) for e in d.edges]
    assert len(glue) == len(set(glue)), "two edges share a glue point"
    for e in d.edges:
        pts = d.route_points(e)
        for (x0, y0), (x1, y1) in itertools.pairwise(pts):
            for t in np.linspace(0.05, 0.95, 40):
                x, y = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
                for nid, (bx0, by0, bx1, by1) in boxes.items():
                    if nid not in (e.src, e.dst):
                        assert not (bx0 < x < bx1 and by0 < y < by1), (e, nid)
    assert any(e.dashed for e in d.edges)
    assert d.free_cells, "no room left for an extra-node defect"


def test_truth_graph_lists_every_node_and_edge_in_reference_pixels(diagram: Diagram):
    truth = diagram.to_truth()
    assert {n.label for n in truth.nodes} == {n.label for n in diagram.nodes}
    ids = {n.id for n in truth.nodes}
    for e in truth.edges:
        assert e.src in ids and e.dst in ids
        dst = next(n for n in truth.nodes if n.id == e.dst)
        x, y = e.points[-1]  # the arrowhead end lies on the dst box outline
        b = dst.box
        assert b.x <= x <= b.x2 and b.y <= y <= b.y2
        assert x in (b.x, b.x2) or y in (b.y, b.y2)
    assert len(truth.panels) == len({n.panel for n in diagram.nodes})


# ----------------------------------------------------------------------------------------------
# determinism and the benchmark layout


def test_same_seed_writes_identical_files(tmp_path: Path):
    a = tmp_path / "a"
    b = tmp_path / "b"
    write_benchmark(a, seed=3, n_tasks=2)
    write_benchmark(b, seed=3, n_tasks=2)
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        if rel.name != "bench.json":  # records the output path
            assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_different_seeds_give_different_references():
    assert reference_png_bytes(make_diagram("x", 3)) != reference_png_bytes(make_diagram("x", 5))


def test_benchmark_has_the_design_layout_and_one_label_per_case(small_bench: Path):
    cands = list(iter_candidates(small_bench))
    assert len(cands) == 3 * len(DEFAULT_CONFIGS)
    labels = {lb.case_id: lb for lb in read_labels_jsonl(small_bench / "labels.jsonl")}
    assert set(labels) == {c.case_id for c in cands}
    for task_dir in sorted((small_bench / "tasks").iterdir()):
        with Image.open(task_dir / "reference.png") as im:
            assert im.size == (CANVAS_W, CANVAS_H)
        Task.model_validate_json((task_dir / "task.json").read_text())
        truth = TruthGraph.model_validate_json((task_dir / "truth.json").read_text())
        assert truth.task_id == task_dir.name
    for lb in labels.values():
        assert lb.variant in DEFAULT_CONFIGS[lb.config_id]
        if lb.gate == "artifact":
            assert lb.artifact_failures == [VARIANTS[lb.variant].artifact_check]
        if lb.gate == "pass" and lb.variant not in FAITHFUL:
            assert lb.subtypes, lb.case_id
        if lb.gate != "pass":
            assert not lb.subtypes


def test_labels_csv_is_readable_by_judge_agree(small_bench: Path):
    cases = {lb.case_id for lb in read_labels_jsonl(small_bench / "labels.jsonl")}
    rows = read_labels(small_bench / "labels.csv", known_cases=cases)
    assert len(rows) == len(cases) * len(ANNOTATORS)


def test_simulated_annotators_mostly_agree_with_the_truth():
    labels = [
        CaseLabel(
            case_id=f"c/{i}",
            task_id=str(i),
            config_id="c",
            variant="wrong_fill" if i % 2 else "reversed_edge",
            style="connectors",
            gate="pass" if i % 2 else "semantic",
            subtypes=["node_fill"] if i % 2 else [],
        )
        for i in range(200)
    ]
    text = simulated_labels_csv(labels, seed=5)
    rows = [line.split(",") for line in text.splitlines()[1:]]
    truth = {lb.case_id: lb for lb in labels}
    agree = sum((r[2] == "pass") == (truth[r[0]].gate == "pass") for r in rows) / len(rows)
    assert 0.85 < agree < 1.0  # mostly, not always
    assert text == simulated_labels_csv(labels, seed=5)


def test_synth_command_writes_a_benchmark_and_refuses_to_overwrite(tmp_path: Path):
    out = tmp_path / "b"
    runner = CliRunner()
    res = runner.invoke(app, ["synth", str(out), "--seed", "3", "--tasks", "1"])
    assert res.exit_code == 0, res.output
    assert (out / "labels.csv").is_file() and len(list(out.rglob("*.pptx"))) == 4
    res = runner.invoke(app, ["synth", str(out), "--seed", "3", "--tasks", "1"])
    assert res.exit_code == 2 and "not empty" in res.output


def test_committed_fixture_is_what_its_readme_command_makes(tmp_path: Path):
    manifest = json.loads((FIXTURE / "bench.json").read_text())
    assert manifest["seed"] == 7
    assert f"--seed 7 --tasks {manifest['tasks']}" in (FIXTURE / "README.md").read_text()
    fresh = tmp_path / "fresh"
    write_benchmark(fresh, seed=7, n_tasks=manifest["tasks"])
    assert (fresh / "labels.jsonl").read_bytes() == (FIXTURE / "labels.jsonl").read_bytes()
    refs = sorted((FIXTURE / "tasks").glob("*/reference.png"))
    assert len(refs) == manifest["tasks"], "every fixture task has a reference.png"
    for ref in refs:
        assert ref.read_bytes() == (fresh / ref.relative_to(FIXTURE)).read_bytes()
    size = sum(p.stat().st_size for p in FIXTURE.rglob("*") if p.is_file())
    assert size < 2_000_000


# ----------------------------------------------------------------------------------------------
# deck structure


def test_faithful_connector_deck_glues_every_edge_to_its_nodes(
    diagram: Diagram, faithful_graph: dict[str, Any]
):
    g = faithful_graph
    assert len(g["nodes"]) == len(diagram.nodes)
    assert len(g["edges"]) == len(diagram.edges)
    for e in diagram.edges:
        rec = g["edges"][f"Edge {e.id}"]
        assert rec["kind"] == "cxnSp"
        assert rec["begin"] == (diagram.node(e.src).label, SIDE_INDEX[e.src_side])
        assert rec["end"] == (diagram.node(e.dst).label, SIDE_INDEX[e.dst_side])
        assert rec["tail"] == "triangle"
        assert (rec["dash"] == "dash") == e.dashed
    prs = g["prs"]
    assert prs.slide_width * 9 == prs.slide_height * 16


def test_freelines_deck_has_arrowheads_but_no_glue(diagram: Diagram):
    g = _deck_graph(_build("faithful_freelines", diagram)[1])
    assert len(g["edges"]) == len(diagram.edges)
    for e in diagram.edges:
        rec = g["edges"][f"Edge {e.id}"]
        assert rec["begin"] is None and rec["end"] is None and rec["tail"] == "triangle"
        assert rec["kind"] == ("sp" if e.route == "elbow" else "cxnSp")  # freeform vs line


def test_groups_deck_groups_each_node_with_its_label(diagram: Diagram):
    g = _deck_graph(_build("faithful_groups", diagram)[1])
    groups = [s for s in g["shapes"] if s.shape_type == MSO_SHAPE_TYPE.GROUP]
    assert len(groups) == len(diagram.nodes)
    assert all(len(grp.shapes) == 2 for grp in groups)
    assert sorted(g["labels"].values()) == sorted(n.label for n in diagram.nodes)
    assert all(rec["begin"] and rec["end"] for rec in g["edges"].values())


# ----------------------------------------------------------------------------------------------
# defects differ from the faithful deck exactly where labelled


def test_reversed_edge_swaps_begin_and_end(diagram: Diagram, faithful_graph: dict[str, Any]):
    built, data = _build("reversed_edge", diagram, seed=4)
    g = _deck_graph(data)
    changed = [k for k in g["edges"] if g["edges"][k] != faithful_graph["edges"][k]]
    assert len(changed) == 1
    new, old = g["edges"][changed[0]], faithful_graph["edges"][changed[0]]
    assert (new["begin"], new["end"]) == (old["end"], old["begin"])
    (defect,) = built.defects
    assert defect.target == f'edge "{old["begin"][0]}" -> "{old["end"][0]}"'


def test_missing_node_drops_one_node_and_only_its_edges(
    diagram: Diagram, faithful_graph: dict[str, Any]
):
    built, data = _build("missing_node", diagram, seed=1)
    g = _deck_graph(data)
    lost = set(faithful_graph["labels"].values()) - set(g["labels"].values())
    assert len(lost) == 1 and built.defects[0].target == f'node "{lost.pop()}"'
    kept = {
        k
        for k, v in faithful_graph["edges"].items()
        if built.defects[0].target[6:-1] not in (v["begin"][0], v["end"][0])
    }
    assert set(g["edges"]) == kept
    assert [x.subtype for x in built.defects] == ["missing_shape"] + ["missing_connector"] * (
        len(faithful_graph["edges"]) - len(kept)
    )


def test_extra_node_adds_one_labelled_node_and_edge(
    diagram: Diagram, faithful_graph: dict[str, Any]
):
    built, data = _build("extra_node", diagram, seed=2)
    g = _deck_graph(data)
    added = set(g["labels"].values()) - set(faithful_graph["labels"].values())
    assert len(added) == 1 and len(g["edges"]) == len(faithful_graph["edges"]) + 1
    assert built.defects[0].target == f'node "{added.pop()}"'


def test_rewired_endpoint_keeps_the_start_and_moves_the_end(
    diagram: Diagram, faithful_graph: dict[str, Any]
):
    built, data = _build("rewired_endpoint", diagram, seed=3)
    g = _deck_graph(data)
    changed = [k for k in g["edges"] if g["edges"][k] != faithful_graph["edges"][k]]
    assert len(changed) == 1
    new, old = g["edges"][changed[0]], faithful_graph["edges"][changed[0]]
    assert new["begin"][0] == old["begin"][0] and new["end"][0] != old["end"][0]
    assert built.defects[0].subtype == "endpoint_attachment"


def test_changed_label_changes_exactly_one_label(diagram: Diagram, faithful_graph: dict[str, Any]):
    _, data = _build("changed_label", diagram, seed=5)
    g = _deck_graph(data)
    before, after = faithful_graph["labels"], g["labels"]
    assert sum(before[k] != after[k] for k in before) == 1


def test_overflow_variant_makes_most_labels_run_out_of_their_boxes(diagram: Diagram):
    built, data = _build("overflowing_text", diagram)
    regular, _ = diagram.font_files()
    spilling = [
        n
        for n in built.diagram.nodes
        if not n.wrap and text_width(n.label, regular, n.font_px) > n.w + 4
    ]
    assert len(spilling) / len(diagram.nodes) > 0.5
    assert [n.label for n in built.diagram.nodes] == [n.label for n in diagram.nodes]
    frames = [s.text_frame for s in _deck_graph(data)["nodes"].values()]
    assert sum(f.word_wrap is False for f in frames) == len(spilling)
    assert VARIANTS["overflowing_text"].gate == "render"


def _node_props(data: bytes) -> list[tuple[Any, ...]]:
    g = _deck_graph(data)
    out = []
    for nid in sorted(g["nodes"]):
        s = g["nodes"][nid]
        run: Any = None
        for shp in g["shapes"]:  # the label run (in the shape or in the grouped text box)
            is_label = shp.shape_id == nid or shp.name == "Label " + s.name.split()[1]
            if is_label and shp.text_frame.text:
                run = shp.text_frame.paragraphs[0].runs[0].font
        out.append(
            (
                (s.left, s.top),
                str(s.fill.fore_color.rgb),
                str(s.line.color.rgb),
                s.line.width,
                s.auto_shape_type,
                run.size,
                run.bold,
                str(run.color.rgb),
            )
        )
    return out


STAGE3_CHANGES = {
    # variant: (index in _node_props tuple that changes | edge key that changes)
    "shifted_layout": ("node", 0),
    "wrong_fill": ("node", 1),
    "wrong_stroke": ("node", 2),
    "corner_radius": ("node", 4),
    "wrong_font_size": ("node", 5),
    "font_style": ("node", 6),
    "text_color": ("node", 7),
    "dash_lost": ("edge", "dash"),
    "arrowhead_style": ("edge", "tail"),
    "line_width": ("edge", "width"),
}


@pytest.mark.parametrize("name", STAGE3)
def test_stage3_defect_changes_only_its_property_and_keeps_the_graph(
    name: str, diagram: Diagram, faithful_graph: dict[str, Any]
):
    built, data = _build(name, diagram, seed=6)
    g = _deck_graph(data)
    assert VARIANTS[name].gate == "pass" and built.defects[0].subtype
    assert g["labels"] == faithful_graph["labels"]
    for k, old in faithful_graph["edges"].items():  # same directed, glued connections
        assert (g["edges"][k]["begin"][0], g["edges"][k]["end"][0]) == (
            old["begin"][0],
            old["end"][0],
        )
    faithful = _node_props(faithful_graph["data"])
    mine = _node_props(data)
    kind, key = STAGE3_CHANGES[name]
    if kind == "node":
        changed = {
            i for a, b in zip(faithful, mine, strict=True) for i in range(len(a)) if a[i] != b[i]
        }
        if name == "wrong_stroke":
            changed.discard(3)  # colour and width change together
        assert changed == {key}, changed
    else:
        assert mine == faithful
        diffs = {
            f
            for k, old in faithful_graph["edges"].items()
            for f in old
            if g["edges"][k][f] != old[f]
        }
        assert diffs == {key}, diffs


def test_artifact_variants_fail_exactly_their_stage0_check(diagram: Diagram, tmp_path: Path):
    from judge.artifact.gate import validate

    ref = tmp_path / "reference.png"
    ref.write_bytes(reference_png_bytes(diagram))
    for name in (*ARTIFACT, *FAITHFUL):
        deck = tmp_path / f"{name}.pptx"
        deck.write_bytes(_build(name, diagram)[1])
        report = validate(deck, reference=ref)
        failed = [c.name for c in report.checks if not c.passed and not c.skipped]
        expected = [VARIANTS[name].artifact_check] if VARIANTS[name].artifact_check else []
        assert failed == expected, (name, failed)


# ----------------------------------------------------------------------------------------------
# rendering


@pytest.mark.slow
def test_faithful_decks_render_like_their_reference(
    request: pytest.FixtureRequest, diagram: Diagram, tmp_path: Path
):
    try:
        pool = request.getfixturevalue("render_pool")
    except pytest.FixtureLookupError:
        pytest.skip("no render_pool fixture in tests/conftest.py (judge/render/pool.py not ready)")
    ref = tmp_path / "reference.png"
    ref.write_bytes(reference_png_bytes(diagram))
    other = tmp_path / "other.png"
    other.write_bytes(reference_png_bytes(make_diagram("o", 5)))
    for name in FAITHFUL:
        deck = tmp_path / f"{name}.pptx"
        deck.write_bytes(_build(name, diagram)[1])
        png = tmp_path / f"{name}.png"
        pool.render(deck, png)
        mad = _blurred_panel_mad(prepare_pair(ref, png, tmp_path / f"{name}-pair.png"))
        assert mad < FAITHFUL_MAX_MAD, (name, mad)
    # the measure can fail: another diagram's reference is far from this render
    mad = _blurred_panel_mad(prepare_pair(other, png, tmp_path / "other-pair.png"))
    assert mad > 2 * FAITHFUL_MAX_MAD


def _blurred_panel_mad(geo: PairGeometry) -> float:
    with Image.open(geo.pair_image) as pair:
        blurred = pair.convert("RGB").filter(ImageFilter.GaussianBlur(BLUR_PX))
    arr = np.asarray(blurred).astype(np.float64)
    left = arr[:, : geo.panel_width]
    right = arr[:, geo.candidate.panel_left : geo.candidate.panel_left + geo.panel_width]
    return float(np.abs(left - right).mean())


def test_wrapped_labels_narrow_the_text_not_the_box(
    diagram: Diagram, faithful_graph: dict[str, Any]
):
    built, data = _build("wrapped_labels", diagram)
    g = _deck_graph(data)
    assert built.defects[0].subtype == "unexpected_wrap"
    assert _node_props(data) == _node_props(faithful_graph["data"])  # boxes, colours, fonts
    widened = [s for s in g["nodes"].values() if s.text_frame.margin_left > 4 * EMU_PER_PX]
    frames = len(diagram.nodes) + len(diagram.panels)
    assert 1 <= len(widened) < frames / 2  # a Stage 3 finding: Stage 2 fails from 50%


def test_misaligned_moves_every_other_chain_node_vertically(diagram: Diagram):
    built, _ = _build("misaligned", diagram)
    moved = [
        (a.y - b.y, a.x - b.x)
        for a, b in zip(built.diagram.nodes, diagram.nodes, strict=True)
        if (a.x, a.y) != (b.x, b.y)
    ]
    chain = [n for n in diagram.nodes if n.row == diagram.chain_row]
    assert len(moved) == len(chain) // 2
    assert all(abs(dy) == MISALIGN_PX and dx == 0 for dy, dx in moved)


def test_detached_ends_stop_short_of_the_nodes(diagram: Diagram):
    built, data = _build("detached_ends", diagram, style="connectors")
    assert built.options.style == "freelines"
    g = _deck_graph(data)
    for e in diagram.edges:
        rec = g["edges"][f"Edge {e.id}"]
        assert rec["begin"] is None and rec["end"] is None
    checked = 0
    for shp in _walk(g["prs"].slides[0].shapes):
        if shp.name.startswith("Edge ") and shp.shape_type == MSO_SHAPE_TYPE.LINE:
            checked += 1
            e = next(x for x in diagram.edges if f"Edge {x.id}" == shp.name)
            (x0, y0), (x1, y1) = diagram.route_points(e)[0], diagram.route_points(e)[-1]
            bx, by = shp.begin_x / EMU_PER_PX, shp.begin_y / EMU_PER_PX
            ex, ey = shp.end_x / EMU_PER_PX, shp.end_y / EMU_PER_PX
            assert np.hypot(bx - x0, by - y0) == pytest.approx(DETACH_GAP_PX, abs=1)
            assert np.hypot(ex - x1, ey - y1) == pytest.approx(DETACH_GAP_PX, abs=1)
    assert checked >= 3


def test_synth_config_option_picks_the_variants(tmp_path: Path):
    out = tmp_path / "c"
    res = CliRunner().invoke(
        app, ["synth", str(out), "--seed", "3", "--tasks", "2", "--config", "x=misaligned,macro"]
    )
    assert res.exit_code == 0, res.output
    labels = read_labels_jsonl(out / "labels.jsonl")
    assert {lb.variant for lb in labels} == {"misaligned", "macro"}
    res = CliRunner().invoke(app, ["synth", str(tmp_path / "d"), "--config", "x=nope"])
    assert res.exit_code == 2 and "unknown variant" in res.output
