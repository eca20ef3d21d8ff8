"""The builtin policy, driven through its tools on generated, LibreOffice-rendered cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from generation.benchmark import write_benchmark
from judge.backends.builtin import SUBMIT, BuiltinJudgeModel
from judge.engine.graph import make_context
from judge.render.prepare import prepare_pair
from judge.rundir import CaseDir
from judge.schema import Candidate, DetailVerdict, GateVerdict
from judge.tools import TOOLS
from taxonomy.loader import load_taxonomy
from tests.conftest import needs_shared, shared_path


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory, render_pool: Any) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("builtin")
    bench = root / "bench"
    labels = write_benchmark(
        bench,
        5,
        1,
        variants={"c": ["faithful_connectors"], "r": ["reversed_edge"], "w": ["wrong_fill"]},
    )
    out = {}
    for lab in labels:
        pptx = bench / "candidates" / lab.config_id / f"{lab.task_id}.pptx"
        ref = bench / "tasks" / lab.task_id / "reference.png"
        cd = CaseDir(root / "run" / lab.config_id / lab.task_id)
        cd.root.mkdir(parents=True)
        render_pool.render(pptx, cd.render_png)  # type: ignore[attr-defined]
        pair = prepare_pair(ref, cd.render_png, cd.pair_png)
        cand = Candidate(
            case_id=lab.case_id,
            task_id=lab.task_id,
            config_id=lab.config_id,
            pptx=str(pptx),
            reference=str(ref),
        )
        out[lab.variant] = make_context(cand, cd, pair, render_pool.export_svg)
    return out


def drive(ctx: object, stage: str) -> tuple[dict, list]:
    """A minimal stage loop: call the tools the policy asks for until it submits."""
    model = BuiltinJudgeModel(ctx, stage, load_taxonomy())  # type: ignore[arg-type]
    messages: list = [HumanMessage(content="judge")]
    for _ in range(10):
        ai = model.invoke(messages)
        assert isinstance(ai, AIMessage) and ai.tool_calls
        messages.append(ai)
        for call in ai.tool_calls:
            if call["name"] == SUBMIT:
                return call["args"], messages
            res = TOOLS[call["name"]].call(ctx, call["args"])  # type: ignore[arg-type]
            messages.append(ToolMessage(content=json.dumps(res.data), tool_call_id=call["id"]))
    raise AssertionError("the builtin policy never submitted")


@pytest.mark.slow
def test_faithful_deck_passes_semantic_gate(cases: dict) -> None:
    verdict, _ = drive(cases["faithful_connectors"], "semantic")
    assert GateVerdict.model_validate(verdict).passed


@pytest.mark.slow
def test_reversed_arrow_fails_semantic_gate(cases: dict) -> None:
    verdict, _ = drive(cases["reversed_edge"], "semantic")
    v = GateVerdict.model_validate(verdict)
    assert not v.passed
    assert any("reversed" in r.evidence for r in v.reasons)


@pytest.mark.slow
def test_policy_is_deterministic(cases: dict) -> None:
    a, ma = drive(cases["reversed_edge"], "semantic")
    b, mb = drive(cases["reversed_edge"], "semantic")
    assert a == b
    assert [m.content for m in ma] == [m.content for m in mb]


@pytest.mark.slow
def test_faithful_deck_passes_render_gate_and_gives_valid_detail(cases: dict) -> None:
    verdict, _ = drive(cases["faithful_connectors"], "render")
    assert GateVerdict.model_validate(verdict).passed
    detail, _ = drive(cases["faithful_connectors"], "detail")
    assert DetailVerdict.model_validate(detail).findings == []


@pytest.mark.slow
def test_wrong_fill_gives_taxonomy_findings_naming_node_fill(cases: dict) -> None:
    detail, _ = drive(cases["wrong_fill"], "detail")
    v = DetailVerdict.model_validate(detail)
    tax = load_taxonomy()
    assert v.findings, "a wrong fill must give findings"
    for f in v.findings:
        assert f.subtype in tax.subtypes()
    assert "node_fill" in {f.subtype for f in v.findings}


FIXTURE_BENCH = Path(__file__).resolve().parents[1] / "fixtures" / "bench"
TASK = "s7-flow02"


@pytest.mark.slow
@pytest.mark.skipif(not (FIXTURE_BENCH / "labels.jsonl").is_file(), reason="no fixtures/bench")
def test_judge_run_with_builtin_matches_fixture_labels(tmp_path: Path, render_pool: object) -> None:
    """The real graph (Stage 0, LibreOffice, rounds) with the builtin backend on one fixture task:
    faithful free lines pass, a wrong fill passes with a node_fill finding, overflowing text
    fails the render gate."""
    import shutil

    from judge.engine.runner import RunSettings, run_bench
    from judge.rundir import read_results

    bench = tmp_path / "bench"
    shutil.copytree(FIXTURE_BENCH / "tasks" / TASK, bench / "tasks" / TASK)
    configs = ("agent-careful", "agent-sloppy", "agent-wrong")
    for cfg in configs:
        (bench / "candidates" / cfg).mkdir(parents=True)
        shutil.copy(FIXTURE_BENCH / "candidates" / cfg / f"{TASK}.pptx", bench / "candidates" / cfg)
    run = tmp_path / "run"
    run_bench(bench, run, RunSettings(judge="builtin"), render_pool=render_pool)
    results = {c.config_id: c for c in read_results(run)}
    assert results["agent-careful"].gate == "pass"
    assert results["agent-sloppy"].gate == "pass"
    assert "node_fill" in {f.subtype for f in results["agent-sloppy"].findings}
    assert results["agent-wrong"].gate == "render"
    assert results["agent-wrong"].gate_votes == {"render": 3}


REAL_DECKS = shared_path("real-decks")
SOME_REAL = ("poi_shapes.pptx", "poi_table_test.pptx", "poi_SmartArt.pptx", "poi_rain.pptx")


@pytest.mark.slow
@needs_shared("real-decks")
def test_real_decks_get_verdicts_not_crashes(tmp_path: Path, render_pool: object) -> None:
    """Decks the judge was not built for (tables, SmartArt, pictures): every stage submits a
    valid verdict against a generated reference."""
    from generation.diagram import make_diagram
    from generation.draw import draw_reference

    ref = tmp_path / "reference.png"
    draw_reference(make_diagram("real", 3)).save(ref)
    verdicts = 0
    for name in SOME_REAL:
        deck = REAL_DECKS / name
        assert deck.is_file(), f"{deck} missing"
        cd = CaseDir(tmp_path / deck.stem)
        cd.root.mkdir()
        render_pool.render(deck, cd.render_png)  # type: ignore[attr-defined]
        pair = prepare_pair(ref, cd.render_png, cd.pair_png)
        cand = Candidate(
            case_id=f"real/{deck.stem}",
            task_id=deck.stem,
            config_id="real",
            pptx=str(deck),
            reference=str(ref),
        )
        ctx = make_context(cand, cd, pair, render_pool.export_svg)  # type: ignore[attr-defined]
        GateVerdict.model_validate(drive(ctx, "semantic")[0])
        GateVerdict.model_validate(drive(ctx, "render")[0])
        DetailVerdict.model_validate(drive(ctx, "detail")[0])
        verdicts += 3
    assert verdicts == 3 * len(SOME_REAL)
