"""Findings -> points: hand-computed scores, policy variants, and the ranker's properties.

Packaged taxonomy numbers used below: high 3.0, medium 1.5, low 0.5, diagnostic 0; m(rho) = 1 for
rho <= 0.10, 1.5 <= 0.25, 2 <= 0.50, 3 above; layout 30 (cap 24), text 30 (cap 24), graphics 40
(cap 32).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.errors import ScoringError
from judge.schema import (
    Candidate,
    CategoryFraction,
    DetailVerdict,
    Finding,
    GateVerdict,
    MergedFinding,
    RoundResult,
    RoundStatus,
)
from scoring.case import build_case_result
from scoring.policy import PRESETS, resolve_policy
from scoring.rank import multiplier, rank
from taxonomy.loader import load_taxonomy, taxonomy_hash

TAX = load_taxonomy()
TAX_HASH = taxonomy_hash(TAX)
PROTOCOL = resolve_policy([])
CAND = Candidate(case_id="cfg/t1", task_id="t1", config_id="cfg", pptx="c.pptx", reference="r.png")


def mf(subtype: str, fraction: float, support=(0,)) -> MergedFinding:
    dim, cat, _ = TAX.subtype(subtype)
    return MergedFinding(
        dimension=dim, category=cat, subtype=subtype, fraction=fraction, support=list(support)
    )


# ---------------------------------------------------------------------------- the staircase


@pytest.mark.parametrize(
    ("rho", "m"),
    [
        (0.0, 1.0),
        (0.10, 1.0),
        (0.1001, 1.5),
        (0.25, 1.5),
        (0.50, 2.0),
        (0.51, 3.0),
        (1.0, 3.0),
        (1 / 4, 1.5),
        (0.1 * 3 / 3, 1.0),
        (5 / 10, 2.0),
    ],
)
def test_staircase_multiplier_at_and_between_bounds(rho, m):
    assert multiplier(TAX, rho) == m


def test_fraction_one_ulp_above_a_bound_stays_on_the_step():
    # 3 * 0.1 + 0.2 = 0.5000000000000001: a count ratio meant as exactly one half.
    assert multiplier(TAX, 3 * 0.1 + 0.2) == 2.0
    assert multiplier(TAX, 0.5 + 1e-12) == 2.0
    assert multiplier(TAX, 2 / 20) == 1.0


# ---------------------------------------------------------------------------- hand-computed


def test_no_findings_score_100():
    b = rank([], TAX, PROTOCOL)
    assert (b.score, b.layout, b.text, b.graphics) == (100.0, 30.0, 30.0, 40.0)


def test_hand_computed_mixed_case():
    findings = [
        mf("missing_shape", 0.2),  # high 3.0 x m(0.2)=1.5  = 4.5   graphics
        mf("dash_style", 0.6),  # low 0.5 x m(0.6)=3      = 1.5   graphics
        mf("overflow", 0.3),  # medium 1.5 x m(0.3)=2     = 3.0   text
        mf("node_spacing", 0.05),  # low 0.5 x m(0.05)=1   = 0.5   layout
        mf("node_shadow", 0.9),  # diagnostic 0 x 3        = 0.0   graphics
    ]
    b = rank(findings, TAX, PROTOCOL)
    # layout 30 - 0.5 = 29.5; text 30 - 3.0 = 27.0; graphics 40 - (4.5 + 1.5 + 0) = 34.0
    assert (b.layout, b.text, b.graphics) == (29.5, 27.0, 34.0)
    assert b.score == 90.5  # 29.5 + 27.0 + 34.0
    assert [p.penalty for p in b.penalties] == [4.5, 1.5, 3.0, 0.5, 0.0]
    assert {d.name: d.points_lost for d in b.dimensions} == {
        "layout": 0.5,
        "text": 3.0,
        "graphics": 6.0,
    }


def test_dimension_loss_stops_at_its_cap():
    findings = [mf(s, 0.8) for s in ("missing_shape", "extra_shape", "missing_connector")]
    findings.append(mf("extra_connector", 0.8))
    b = rank(findings, TAX, PROTOCOL)
    # 4 high x 3.0 x m(0.8)=3 = 36 > cap 32 -> graphics 40 - 32 = 8; S = 30 + 30 + 8 = 68
    assert (b.graphics, b.score) == (8.0, 68.0)
    assert b.dimensions[2].points_lost == 32.0


def test_every_dimension_at_its_cap_leaves_the_floor_of_20():
    findings = [
        mf(s, 1.0)
        for s in (
            "node_position",
            "containment",
            "node_overlap",
            "aspect_distortion",
            "panel_proportion",
            "panel_arrangement",
        )
    ]
    findings += [
        mf(s, 1.0)
        for s in (
            "overflow",
            "clipping",
            "text_overlap",
            "unexpected_wrap",
            "text_alignment",
            "math_notation",
        )
    ]
    findings += [
        mf(s, 1.0) for s in ("missing_shape", "extra_shape", "missing_connector", "extra_connector")
    ]
    b = rank(findings, TAX, PROTOCOL)
    # each medium at rho 1: 1.5 x 3 = 4.5; six of them = 27 > cap 24; graphics 4 x 9 = 36 > 32
    assert (b.layout, b.text, b.graphics, b.score) == (6.0, 6.0, 8.0, 20.0)


def test_unit_multiplier_ignores_prevalence():
    findings = [mf("missing_shape", 0.9), mf("overflow", 0.4)]
    b = rank(findings, TAX, resolve_policy(["unit-multiplier"]))
    # 3.0 x 1 + 1.5 x 1 -> graphics 37, text 28.5; S = 30 + 28.5 + 37 = 95.5
    assert (b.graphics, b.text, b.score) == (37.0, 28.5, 95.5)


def test_category_max_keeps_the_largest_penalty_per_category():
    findings = [mf("dash_style", 0.3), mf("missing_connector", 0.3), mf("node_fill", 0.3)]
    b = rank(findings, TAX, resolve_policy(["category-max"]))
    # connectors: dash 0.5 x 2 = 1 (dropped), missing_connector 3 x 2 = 6 (kept); nodes: fill 1
    assert [p.counted for p in b.penalties] == [False, True, True]
    assert b.graphics == 33.0  # 40 - (6 + 1)
    assert rank(findings, TAX, PROTOCOL).graphics == 32.0  # 40 - (1 + 6 + 1)


def test_equal_weights_averages_the_retained_fractions():
    findings = [mf("overflow", 0.3), mf("missing_shape", 0.05)]
    b = rank(findings, TAX, resolve_policy(["equal-weights"]))
    # retained: layout 30/30 = 1, text (30 - 3)/30 = 0.9, graphics (40 - 3)/40 = 0.925
    # S = 100 x (1 + 0.9 + 0.925) / 3 = 94.1666...
    assert b.score == pytest.approx(94.16666666666667)
    assert b.layout + b.text + b.graphics == b.score
    assert b.text == pytest.approx(30.0)  # 100/3 x 0.9


def test_diagnostic_finding_costs_nothing():
    b = rank([mf("connector_shadow", 1.0), mf("line_shadow", 1.0)], TAX, PROTOCOL)
    assert b.score == 100.0 and all(p.penalty == 0 for p in b.penalties)


def test_unknown_subtype_cannot_be_scored():
    f = MergedFinding(
        dimension="text", category="fit", subtype="spillage", fraction=0.1, support=[0]
    )
    with pytest.raises(ScoringError, match="subtype 'spillage'"):
        rank([f], TAX, PROTOCOL)


def test_finding_counts_where_the_taxonomy_places_its_subtype():
    # Reported under text/fit, but the taxonomy puts dash_style in graphics/connectors.
    f = MergedFinding(
        dimension="text", category="fit", subtype="dash_style", fraction=0.1, support=[0]
    )
    b = rank([f], TAX, PROTOCOL)
    assert (b.text, b.graphics) == (30.0, 39.5)


def test_policies_combine_and_conflicts_are_refused():
    p = resolve_policy(["unit-multiplier", "vote-3", "protocol"])
    assert (p.name, p.vote_threshold, p.unit_multiplier) == ("vote-3+unit-multiplier", 3, True)
    with pytest.raises(ScoringError, match="conflict"):
        resolve_policy(["vote-1", "vote-3"])
    with pytest.raises(ScoringError, match="unknown policy 'vote-9'"):
        resolve_policy(["vote-9"])
    assert resolve_policy([]).name == "protocol"


# ---------------------------------------------------------------------------- properties

SUBTYPES = sorted(TAX.subtypes())
DIAGNOSTIC = [n for n, (_, _, s) in TAX.subtypes().items() if s.tier == "diagnostic"]
POLICY_NAMES = [n for n in PRESETS if not n.startswith("vote-")]
OK = GateVerdict(passed=True)


def _round(k: int, status: RoundStatus, subs: list[str], fr: dict) -> RoundResult:
    findings = []
    for i, sub in enumerate(subs):
        dim, cat, _ = TAX.subtype(sub)
        findings.append(
            Finding(dimension=dim, category=cat, subtype=sub, location=f"n{i}", description="x")
        )
    return RoundResult(
        case_id=CAND.case_id,
        round_index=k,
        status=status,
        semantic=OK,
        render=OK,
        detail=DetailVerdict(
            findings=findings,
            fractions=[
                CategoryFraction(dimension=d, category=c, fraction=v) for (d, c), v in fr.items()
            ],
        ),
    )


@st.composite
def passing_rounds(draw) -> list[tuple[list[str], dict]]:
    """Three rounds' (subtypes, fractions); the status is chosen by the test."""
    out = []
    for _ in range(3):
        subs = draw(st.lists(st.sampled_from(SUBTYPES), max_size=12))
        cats = sorted({TAX.subtype(s)[:2] for s in subs})
        out.append((subs, {c: draw(st.floats(0.0, 1.0)) for c in cats}))
    return out


def _score(spec, policy_names, statuses=("pass", "pass", "pass")):
    rounds = [_round(k, statuses[k], subs, fr) for k, (subs, fr) in enumerate(spec)]
    return build_case_result(CAND, None, rounds, TAX, TAX_HASH, resolve_policy(policy_names))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(passing_rounds(), st.sampled_from(POLICY_NAMES), st.sampled_from(["pass", "semantic"]))
def test_score_stays_in_0_100_and_dimensions_add_up(spec, policy, third):
    res = _score(spec, [policy], ("pass", "pass", third))
    assert res.score is not None and 0.0 <= res.score <= 100.0
    assert res.layout + res.text + res.graphics == res.score
    assert res.breakdown is not None
    for d in res.breakdown.dimensions:
        assert 0.0 <= d.points_lost <= d.cap and d.score == d.weight - d.points_lost


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(passing_rounds(), st.sampled_from(POLICY_NAMES), st.data())
def test_adding_a_finding_never_raises_the_score(spec, policy, data):
    before = _score(spec, [policy]).score
    k = data.draw(st.integers(0, 2))
    sub = data.draw(st.sampled_from(SUBTYPES))
    subs, fr = spec[k]
    cat = TAX.subtype(sub)[:2]
    new_fr = dict(fr)
    if cat not in new_fr:
        new_fr[cat] = data.draw(st.floats(0.0, 1.0))
    spec2 = list(spec)
    spec2[k] = ([*subs, sub], new_fr)
    assert _score(spec2, [policy]).score <= before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(passing_rounds(), st.sampled_from(POLICY_NAMES), st.data())
def test_raising_a_fraction_never_raises_the_score(spec, policy, data):
    k = data.draw(st.integers(0, 2))
    subs, fr = spec[k]
    if not fr:
        return
    cat = data.draw(st.sampled_from(sorted(fr)))
    spec2 = list(spec)
    spec2[k] = (subs, {**fr, cat: data.draw(st.floats(fr[cat], 1.0))})
    assert _score(spec2, [policy]).score <= _score(spec, [policy]).score


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(passing_rounds(), st.sampled_from(POLICY_NAMES), st.data())
def test_a_diagnostic_finding_never_changes_the_score(spec, policy, data):
    k = data.draw(st.integers(0, 2))
    sub = data.draw(st.sampled_from(DIAGNOSTIC))
    subs, fr = spec[k]
    cat = TAX.subtype(sub)[:2]
    new_fr = dict(fr)
    if cat not in new_fr:
        new_fr[cat] = data.draw(st.floats(0.0, 1.0))
    spec2 = list(spec)
    spec2[k] = ([*subs, sub], new_fr)
    # A new category fraction in round k only touches round k's findings of that category: none.
    assert _score(spec2, [policy]).score == _score(spec, [policy]).score
