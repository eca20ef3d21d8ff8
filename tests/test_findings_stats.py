"""Findings analytics: per subtype, per dimension, per stage."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli.app import app
from judge.schema import FindingPenalty, MergedFinding, Observation, ScoreBreakdown
from scoring.findings_stats import findings_report

runner = CliRunner()


def _mf(dim, cat, sub, fraction, support, observations=0):
    obs = [
        Observation(round_index=r, location="x", description="y", affected_count=1, fraction=0.1)
        for r in range(observations)
    ]
    return MergedFinding(
        dimension=dim,
        category=cat,
        subtype=sub,
        fraction=fraction,
        support=support,
        observations=obs,
    )


def _pen(dim, cat, sub, penalty, counted=True):
    return FindingPenalty(
        dimension=dim,
        category=cat,
        subtype=sub,
        tier="medium",
        base=penalty,
        fraction=0.2,
        multiplier=1.0,
        penalty=penalty,
        counted=counted,
    )


def _cases(kit):
    typo = ("text", "labels", "typo")
    gap = ("layout", "spacing", "uneven_gap")
    return [
        kit.case(
            "A",
            "t1",
            findings=[_mf(*typo, 0.2, [0, 1], observations=3), _mf(*gap, 0.5, [2])],
            breakdown=ScoreBreakdown(
                score=80,
                layout=20,
                text=30,
                graphics=30,
                penalties=[_pen(*typo, 4.0), _pen(*gap, 6.0)],
            ),
        ),
        kit.case(
            "A",
            "t2",
            findings=[_mf(*typo, 0.4, [1])],
            breakdown=ScoreBreakdown(
                score=80,
                layout=30,
                text=20,
                graphics=30,
                penalties=[_pen(*typo, 10.0), _pen(*gap, 99.0, counted=False)],
            ),
        ),
        # gated: its findings (if any were recorded) do not count
        kit.case("A", "t3", gate="semantic", findings=[_mf(*typo, 1.0, [0])]),
        kit.case("B", "t1", gate="render", rounds=["render", "render", "skipped"]),
        kit.case("B", "t2", gate="artifact", artifact_failures=["one_slide", "no_macros"]),
        kit.case("B", "t3", gate=None, rounds=["errored", "pass", "errored"]),
    ]


def test_per_subtype_cases_occurrences_fraction_penalty_and_single_round_share(runkit):
    rep = findings_report(_cases(runkit))
    subs = {s.subtype: s for s in rep.subtypes}
    typo = subs["typo"]
    assert (typo.cases, typo.occurrences) == (2, 3 + 1)
    assert typo.mean_fraction == pytest.approx(0.3)
    assert typo.penalty == pytest.approx(14.0)
    assert typo.single_round_share == pytest.approx(0.5)
    gap = subs["uneven_gap"]
    assert (gap.cases, gap.penalty, gap.single_round_share) == (1, pytest.approx(6.0), 1.0)
    assert [s.subtype for s in rep.subtypes] == ["typo", "uneven_gap"]  # by penalty


def test_dimension_penalty_shares_add_to_one_and_skip_uncounted(runkit):
    rep = findings_report(_cases(runkit))
    shares = {d.dimension: d for d in rep.dimensions}
    assert shares["text"].share == pytest.approx(14 / 20)
    assert shares["layout"].share == pytest.approx(6 / 20)
    assert shares["graphics"].share == pytest.approx(0.0)


def test_stage_failure_counts_from_gates_and_round_statuses(runkit):
    st = findings_report(_cases(runkit)).stages
    assert (st.artifact_cases, st.semantic_cases, st.render_cases) == (1, 1, 1)
    assert (st.passed_cases, st.errored_cases) == (2, 1)
    # rounds: t1,t2 ppp; t3 p s s; B/t1 r r k; B/t3 e p e
    assert (st.semantic_rounds, st.render_rounds, st.skipped_rounds) == (2, 2, 1)
    assert (st.passed_rounds, st.errored_rounds) == (8, 2)
    assert st.artifact_checks == {"no_macros": 1, "one_slide": 1}


def test_no_penalties_gives_no_shares(runkit):
    rep = findings_report([runkit.case("A", "t1")])
    assert all(d.share is None for d in rep.dimensions)
    assert rep.subtypes == []


def test_cli_findings_text_and_json(runkit, tmp_path):
    run = runkit.write(tmp_path / "run", _cases(runkit))
    res = runner.invoke(app, ["findings", str(run)])
    assert res.exit_code == 0, res.output
    assert "typo" in res.output and "text 14.0 pts (70%)" in res.output
    res = runner.invoke(app, ["findings", str(run), "--format", "json"])
    data = json.loads(res.output)
    assert data["stages"]["render_rounds"] == 2
