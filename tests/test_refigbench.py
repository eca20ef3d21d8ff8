"""The ReFigBench rubric file, its scoring (gate, axes, raster-paste cap) and the object audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.engine.graph import with_render_check
from judge.errors import TaxonomyError
from judge.schema import Candidate, RoundResult, RubricVerdict
from scoring.audit import audit_rows, config_audits
from scoring.refigbench import cap_applies, refig_case_result, verdict_problems
from taxonomy.rubric import DEFAULT_RUBRIC, load_rubric, parse_rubric, rubric_hash
from tests.decks import Pic, diagram_image, make_deck


def _validate(deck: Path, reference: Path):
    from judge.artifact.gate import validate

    report = validate(deck, reference=reference)
    return with_render_check(report, True, "rendered")  # the render check is the engine's


def _full_marks(rubric, k: int = 0, scale: float = 1.0) -> RoundResult:
    axes = [
        {"axis": a.name, "points": a.max_points * scale, "rationale": "as the reference"}
        for a in rubric.axes
    ]
    return RoundResult(
        case_id="c/t",
        round_index=k,
        status="pass",
        rubric=RubricVerdict.model_validate({"axes": axes}),
    )


def _cand(deck: Path, ref: Path, config: str = "c") -> Candidate:
    return Candidate(
        case_id=f"{config}/t", task_id="t", config_id=config, pptx=str(deck), reference=str(ref)
    )


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    path = tmp_path / "reference.png"
    path.write_bytes(diagram_image(seed=2, size=(1200, 900)))
    return path


def test_packaged_rubric_has_the_published_maxima_and_marks_our_choices() -> None:
    rubric = load_rubric()
    assert [(a.name, a.max_points) for a in rubric.axes] == [
        ("text_accuracy", 20),
        ("structure", 30),
        ("geometry", 15),
        ("editability", 25),
        ("visual_detail", 10),
    ]
    assert rubric.cap.picture_area_min == 0.85 and rubric.cap.cap_score == 50
    assert "cap.max_native_objects" in rubric.choices and "axes[*].levels" in rubric.choices


def test_rubric_hash_ignores_comments_but_not_numbers() -> None:
    text = DEFAULT_RUBRIC.read_text(encoding="utf-8")
    base = rubric_hash(parse_rubric(text, DEFAULT_RUBRIC))
    assert rubric_hash(parse_rubric("# note\n" + text, DEFAULT_RUBRIC)) == base
    edited = text.replace("cap_score: 50", "cap_score: 40")
    assert rubric_hash(parse_rubric(edited, DEFAULT_RUBRIC)) != base


def test_maxima_not_summing_to_100_is_an_error_naming_file_and_line() -> None:
    text = DEFAULT_RUBRIC.read_text(encoding="utf-8").replace("max_points: 30", "max_points: 35")
    with pytest.raises(TaxonomyError) as err:
        parse_rubric(text, Path("r.yaml"))
    assert "maxima must sum to 100, got 105" in str(err.value)
    assert "r.yaml:" in str(err.value)


def test_unknown_gate_check_and_unordered_anchors_are_errors() -> None:
    text = DEFAULT_RUBRIC.read_text(encoding="utf-8")
    text = text.replace("gate: [opens,", "gate: [opnes,").replace(
        "{fraction: 0.75", "{fraction: 1.0", 1
    )
    with pytest.raises(TaxonomyError) as err:
        parse_rubric(text, Path("r.yaml"))
    msg = str(err.value)
    assert "unknown Stage 0 check 'opnes'" in msg
    line = next(
        i
        for i, ln in enumerate(text.splitlines(), 1)
        if '{fraction: 1.0, anchor: "one or two' in ln
    )
    assert f"r.yaml:{line}:" in msg


def test_verdict_must_score_every_axis_once_within_its_maximum() -> None:
    rubric = load_rubric()
    v = RubricVerdict.model_validate(
        {
            "axes": [
                {"axis": "text_accuracy", "points": 25, "rationale": "x"},
                {"axis": "colour", "points": 1, "rationale": "x"},
            ]
        }
    )
    problems = verdict_problems(v, rubric)
    assert any("above the maximum 20" in p for p in problems)
    assert any("unknown axis 'colour'" in p for p in problems)
    assert any("'structure' scored 0 times" in p for p in problems)


def test_pasted_reference_deck_passes_the_gate_and_is_capped_at_50(
    tmp_path: Path, reference: Path
) -> None:
    rubric = load_rubric()
    deck = make_deck(
        tmp_path / "paste.pptx",
        n_shapes=0,
        connectors=False,
        pictures=[Pic(reference.read_bytes(), (0.0, 0.0, 1.0, 1.0))],
    )
    report = _validate(deck, reference)
    assert "no_reference_copy" in report.failures  # PPTBench: invalid
    rounds = [_full_marks(rubric, k) for k in range(3)]
    result = refig_case_result(_cand(deck, reference), report, rounds, rubric, "h")
    assert result.gate == "pass" and result.valid
    assert result.refigbench is not None and result.refigbench.raw_score == 100.0
    assert result.refigbench.cap_applied and result.score == 50.0


def test_native_deck_is_not_capped_and_axes_are_round_means(
    tmp_path: Path, reference: Path
) -> None:
    rubric = load_rubric()
    deck = make_deck(tmp_path / "native.pptx", n_shapes=6)
    report = _validate(deck, reference)
    rounds = [_full_marks(rubric, 0), _full_marks(rubric, 1, 0.5)]
    rounds.append(RoundResult(case_id="c/t", round_index=2, status="errored", error="x"))
    result = refig_case_result(_cand(deck, reference), report, rounds, rubric, "h")
    assert result.refigbench is not None and result.refigbench.rounds_scored == 2
    assert result.refigbench.axes["structure"] == 22.5  # (30 + 15) / 2
    assert not result.refigbench.cap_applied and result.score == 75.0
    assert not cap_applies(report.audit, rubric)


def test_two_slide_deck_fails_the_rubric_gate_with_score_0(tmp_path: Path, reference: Path) -> None:
    rubric = load_rubric()
    deck = make_deck(tmp_path / "two.pptx", n_slides=2)
    report = _validate(deck, reference)
    result = refig_case_result(_cand(deck, reference), report, [], rubric, "h")
    assert result.gate == "artifact" and result.score == 0.0
    assert result.artifact_failures == ["one_slide"]


def test_no_round_verdict_is_an_error_not_a_score(tmp_path: Path, reference: Path) -> None:
    rubric = load_rubric()
    deck = make_deck(tmp_path / "native.pptx")
    report = _validate(deck, reference)
    rounds = [RoundResult(case_id="c/t", round_index=0, status="errored", error="down")]
    result = refig_case_result(_cand(deck, reference), report, rounds, rubric, "h")
    assert result.score is None and result.error == "no round gave a valid rubric verdict"


def test_audit_counts_a_deck_without_connectors(tmp_path: Path, reference: Path) -> None:
    rubric = load_rubric()
    with_cx = make_deck(tmp_path / "a.pptx", n_shapes=4, connectors=True)
    without = make_deck(tmp_path / "b.pptx", n_shapes=4, connectors=False)
    cases = []
    for config, deck in (("glued", with_cx), ("loose", without), ("loose2", without)):
        report = _validate(deck, reference)
        cand = _cand(deck, reference, config)
        cases.append(refig_case_result(cand, report, [_full_marks(rubric)], rubric, "h"))
    rows = {r.config_id: r for r in audit_rows(cases)}
    assert (rows["glued"].connectors, rows["glued"].shapes, rows["glued"].text_boxes) == (3, 4, 1)
    assert rows["loose"].connectors == 0 and rows["loose"].no_connector
    assert rows["loose"].picture_area_ratio == 0.0
    audits = config_audits(list(rows.values()))
    assert audits["loose"].without_connectors == 1.0 and audits["loose"].median_connectors == 0
    assert audits["glued"].without_connectors == 0.0 and audits["glued"].median_connectors == 3
