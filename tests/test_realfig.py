"""The real-figure benchmark: specs, deck constructions, variants and the written layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generation.realfig.bench import SPECS, fold_of, write_realfig_benchmark
from generation.realfig.deck import Construction, build_deck
from generation.realfig.model import shared_figures_dir
from generation.realfig.variants import VARIANTS
from judge.artifact.ooxml import read_object_tree
from judge.render.pool import RenderPool

FIGURES = shared_figures_dir()
needs_figures = pytest.mark.skipif(
    not (FIGURES / "dev01" / "reference.png").is_file(),
    reason=f"{FIGURES} is absent (set PPTJUDGE_SHARED to the shared folder)",
)


def test_every_spec_is_consistent_and_sized_like_its_figure() -> None:
    assert len(SPECS) == 16
    for fig in SPECS:
        assert fig.check() == [], fig.id
        assert len([n for n in fig.nodes if n.label]) >= 3, fig.id


def test_a_handmade_deck_is_what_a_person_builds_and_reads_as_the_same_graph(
    tmp_path: Path,
) -> None:
    """``handmade``: the default 16:9 slide whatever the figure's shape, no connector glued,
    edge labels in white boxes. Its object tree reads the same edges as the ``shapes`` deck's
    (the white label boxes are text, not nodes)."""
    from judge.tools.treeread import read_tree_graph

    fig = next(f for f in SPECS if f.id == "dev14")  # portrait, two-line edge labels
    graphs = {}
    for how in ("shapes", "handmade"):
        deck = tmp_path / f"{how}.pptx"
        deck.write_bytes(build_deck(fig, how))
        tree = read_object_tree(deck)
        g = read_tree_graph(tree, (1600, 900))
        names = {n.id: n.label for n in g.nodes}
        graphs[how] = {(names[e.src], names[e.dst], e.direction) for e in g.edges}
        if how == "handmade":
            assert round(tree.slide_width_pt / tree.slide_height_pt, 3) == round(16 / 9, 3)
            assert all(o.begin_id is None and o.end_id is None for o in tree.objects)
            labels = [o for o in tree.objects if o.type == "text_box" and "->" in o.text]
            assert labels and all(o.fill_rgb == "FFFFFF" for o in labels), labels
            assert len(g.nodes) == len(fig.nodes), sorted(names.values())
    assert graphs["handmade"] == graphs["shapes"]


def test_folds_split_the_figures_in_two_halves() -> None:
    folds = [fold_of(f.id) for f in SPECS]
    assert folds.count(0) == folds.count(1) == 8


def test_every_variant_builds_for_every_figure_and_the_tree_reads_it(tmp_path: Path) -> None:
    for fig in (SPECS[2], SPECS[9], SPECS[15]):  # nested boxes, merges, open sources
        for name, v in VARIANTS.items():
            built = v.make(fig, "shapes" if len(name) % 2 else "overlay")
            nowrap = frozenset(k for k, w in built.wrap.items() if not w)
            deck = tmp_path / f"{fig.id}-{name}.pptx"
            deck.write_bytes(build_deck(built.fig, built.construction, nowrap))
            tree = read_object_tree(deck)
            texts = " ".join(o.text for o in tree.objects)
            labels = [n.label for n in built.fig.nodes if n.label]
            assert all(lab.split()[0] in texts for lab in labels), (fig.id, name)
            if v.gate == "semantic":
                assert built.defects, (fig.id, name)


def test_defects_change_what_they_say() -> None:
    fig = SPECS[0]  # dev01: a fan-out and a merge
    rev = VARIANTS["reversed_edge"].make(fig, "shapes")
    before = {(e.src, e.dst) for e in fig.edges}
    after = {(e.src, e.dst) for e in rev.fig.edges}
    assert len(before - after) == 1 and len(after - before) == 1
    (s, d), (s2, d2) = next(iter(before - after)), next(iter(after - before))
    assert (s, d) == (d2, s2)
    miss = VARIANTS["missing_node"].make(fig, "shapes")
    assert len(miss.fig.nodes) == len(fig.nodes) - 1
    extra = VARIANTS["extra_node"].make(fig, "shapes")
    new = extra.fig.nodes[-1]
    assert new.label not in {n.label for n in fig.nodes}
    assert all(
        new.box[0] >= n.box[0] + n.box[2] or n.box[0] >= new.box[0] + new.box[2]
        or new.box[1] >= n.box[1] + n.box[3] or n.box[1] >= new.box[1] + new.box[3]
        for n in fig.nodes
    )  # fmt: skip


@needs_figures
def test_benchmark_layout_copies_references_and_labels_gates(tmp_path: Path) -> None:
    labels = write_realfig_benchmark(tmp_path / "b", figures=["dev01", "dev08"])
    assert len(labels) == 2 * len(VARIANTS)
    for fig in ("dev01", "dev08"):
        ref = tmp_path / "b" / "tasks" / fig / "reference.png"
        assert ref.read_bytes() == (FIGURES / fig / "reference.png").read_bytes()
        for name in VARIANTS:
            assert (tmp_path / "b" / "candidates" / name / f"{fig}.pptx").is_file()
    gates = {lb.variant: lb.gate for lb in labels}
    assert gates["faithful_shapes"] == gates["layout_shift"] == "pass"
    assert gates["wrong_endpoint"] == gates["changed_label"] == "semantic"
    manifest = json.loads((tmp_path / "b" / "bench.json").read_text())
    assert manifest["folds"] == {"dev01": 0, "dev08": 1}


def test_replacement_words_resemble_no_word_of_the_figure() -> None:
    """An extra or changed node's word must not read as present: "Scheduler" is one letter
    from "Schedules" in dev06's "TensorIR Schedules"."""
    import re

    from generation.realfig.variants import DISTINCT_LABEL_DISTANCE, _unused_word
    from judge.tools.graphread import label_distance

    for fig in SPECS:
        word = _unused_word(fig)
        texts = [n.label for n in fig.nodes] + [t.text for t in fig.texts]
        for w in (w for t in texts for w in re.split(r"[^\w']+", t) if w):
            assert label_distance(word, w) > DISTINCT_LABEL_DISTANCE, (fig.id, word, w)


@needs_figures
def test_hand_builder_changes_edit_what_they_say(tmp_path: Path) -> None:
    """The robustness benchmark: each change edits its own aspect of a faithful deck (heads,
    line widths, fonts, slide size with the figure centred, PowerPoint's default thin lines,
    shadows, PowerPoint's default colours, a 16:9 slide) and every case is labelled pass."""
    import zipfile

    from generation.realfig.robust import (
        FONT_FACE,
        MARGIN_SCALE,
        OFFICE_FILL,
        OFFICE_LINE,
        THICK_FACTOR,
        THIN_PT,
        WIDE_ASPECT,
        write_robust_benchmark,
    )

    labels = write_robust_benchmark(tmp_path / "b", figures=["dev13"])
    changes = ("heads", "thick", "font", "margin", "thin", "shadow", "office", "wide")
    assert {lb.config_id for lb in labels} == {
        f"{c}_{h}" for c in changes for h in ("shapes", "handmade")
    }
    assert {lb.gate for lb in labels} == {"pass"}

    def tree(config: str) -> Any:
        return read_object_tree(tmp_path / "b" / "candidates" / config / "dev13.pptx")

    base = tmp_path / "base.pptx"
    base.write_bytes(build_deck(next(f for f in SPECS if f.id == "dev13"), "shapes"))
    before = read_object_tree(base)
    lines = ("connector", "line", "freeform")
    heads = {o.tail_end for o in tree("heads_shapes").objects if o.type in lines}
    assert heads == {"stealth"}
    widths = sorted(o.line_width_pt for o in before.objects if o.line_width_pt)
    thick = sorted(o.line_width_pt for o in tree("thick_shapes").objects if o.line_width_pt)
    assert thick == pytest.approx([w * THICK_FACTOR for w in widths], rel=0.01)
    thin = {o.line_width_pt for o in tree("thin_shapes").objects if o.line_width_pt}
    assert thin == {THIN_PT}
    slide = "ppt/slides/slide1.xml"

    def xml(config: str) -> str:
        with zipfile.ZipFile(tmp_path / "b" / "candidates" / config / "dev13.pptx") as z:
            return z.read(slide).decode()

    assert "tailEnd" in xml("thin_shapes") and 'len="' not in xml("thin_shapes")  # medium heads
    shadowed = xml("shadow_shapes")
    assert shadowed.count("<a:outerShdw") == shadowed.count("<p:spPr") > 0
    texts = [o for o in tree("font_shapes").objects if o.text.strip()]
    assert texts and all(set(o.font_names) == {FONT_FACE} for o in texts if o.font_names)
    moved = tree("margin_shapes")
    assert moved.slide_width_pt == pytest.approx(before.slide_width_pt * MARGIN_SCALE, rel=1e-3)
    # the figure is centred: every box keeps its place relative to the slide's centre
    for a, b in zip(before.objects, moved.objects, strict=True):
        ca = (a.bbox.x + a.bbox.w / 2 - 0.5) * before.slide_width_pt
        cb = (b.bbox.x + b.bbox.w / 2 - 0.5) * moved.slide_width_pt
        assert cb == pytest.approx(ca, abs=0.5)
    wide = tree("wide_shapes")  # dev13 is portrait: the slide widens, the height stays
    assert wide.slide_width_pt / wide.slide_height_pt == pytest.approx(WIDE_ASPECT, rel=1e-3)
    assert wide.slide_height_pt == pytest.approx(before.slide_height_pt, rel=1e-3)
    for a, b in zip(before.objects, wide.objects, strict=True):
        ca = (a.bbox.x + a.bbox.w / 2 - 0.5) * before.slide_width_pt
        cb = (b.bbox.x + b.bbox.w / 2 - 0.5) * wide.slide_width_pt
        assert cb == pytest.approx(ca, abs=0.5)
    office = tree("office_shapes").objects
    ellipses = [o for o in office if o.type == "autoshape"]
    assert ellipses and all(
        (o.fill_rgb, o.line_rgb, o.text_rgb) == (OFFICE_FILL, OFFICE_LINE, "FFFFFF")
        for o in ellipses
    )
    plain = [o for o in office if o.type == "text_box"]  # "input", "output", edge labels
    assert plain and all(o.fill_rgb is None and o.text_rgb != "FFFFFF" for o in plain)
    assert {o.line_rgb for o in office if o.type in lines} == {OFFICE_FILL}


@needs_figures
@pytest.mark.slow
def test_hand_builder_changes_leave_a_faithful_deck_faithful(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    """dev13 redrawn with thick lines, and on a larger slide with large stealth heads, is read
    as the reference's graph: no discrepancy is confirmed."""
    from generation.realfig.robust import restyle
    from judge.tools.semantic import semantic_comparison
    from tests.judge_helpers import rendered_case

    fig = next(f for f in SPECS if f.id == "dev13")
    ref = FIGURES / "dev13" / "reference.png"
    plan: list[tuple[Construction, list[str]]] = [
        ("shapes", ["thick"]),
        ("handmade", ["margin", "heads"]),
    ]
    for how, changes in plan:
        deck = build_deck(fig, how)
        for change in changes:
            deck = restyle(deck, change)
        path = tmp_path / f"{how}.pptx"
        path.write_bytes(deck)
        ctx = rendered_case(render_pool, tmp_path, how, ref, path)
        confirmed = [d for d in semantic_comparison(ctx)["discrepancies"] if d["confirmed"]]
        assert confirmed == [], (how, confirmed)
