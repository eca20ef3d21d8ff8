"""Agreement statistics, checked against independent computations."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa
from statsmodels.stats.proportion import proportion_confint
from typer.testing import CliRunner

from cli.app import app
from judge.errors import LabelsError
from judge.schema import MergedFinding
from scoring.agreement import (
    agreement_report,
    agreement_text,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha_nominal,
    read_labels,
    wilson_interval,
)

runner = CliRunner()


def _labels_file(tmp_path, rows, header="case_id,annotator,gate,subtypes"):
    path = tmp_path / "labels.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("k,n", [(7, 10), (0, 12), (12, 12), (31, 57), (1, 1)])
def test_wilson_interval_matches_statsmodels(k, n):
    low, high = wilson_interval(k, n)
    ref_low, ref_high = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert low == pytest.approx(ref_low, abs=1e-12)
    assert high == pytest.approx(ref_high, abs=1e-12)


def test_fleiss_kappa_matches_statsmodels():
    rng = np.random.default_rng(0)
    fails = rng.integers(0, 4, size=25)
    table = np.stack([fails, 3 - fails], axis=1)
    assert fleiss_kappa(table) == pytest.approx(sm_fleiss_kappa(table, method="fleiss"))
    # the textbook table (Fleiss 1971 style): 4 categories, 5 raters
    table2 = np.array([[5, 0, 0, 0], [2, 3, 0, 0], [0, 1, 4, 0], [1, 1, 1, 2], [0, 0, 5, 0]])
    assert fleiss_kappa(table2) == pytest.approx(sm_fleiss_kappa(table2, method="fleiss"))


def test_krippendorff_alpha_matches_the_krippendorff_package_with_missing_ratings():
    rng = np.random.default_rng(1)
    data = rng.integers(0, 2, size=(4, 30)).astype(float)  # raters x units
    data[rng.random(size=data.shape) < 0.25] = np.nan
    units = [[int(v) for v in data[:, u] if not np.isnan(v)] for u in range(data.shape[1])]
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert krippendorff_alpha_nominal(units) == pytest.approx(expected)


def test_cohen_kappa_worked_by_hand():
    # judge: 5 fail, 5 pass; humans: 4 fail, 6 pass; 7 agree. po = .7, pe = .5*.4 + .5*.6 = .5
    judge = ["f", "f", "f", "f", "f", "p", "p", "p", "p", "p"]
    human = ["f", "f", "f", "p", "p", "f", "p", "p", "p", "p"]
    assert cohen_kappa(judge, human) == pytest.approx(0.4)


def test_cohen_kappa_of_an_unbalanced_pair_uses_both_marginals():
    # a: 7 f / 3 p; b: 4 f / 6 p; 7 agree. po = .7, pe = .7*.4 + .3*.6 = .46 -> kappa .24/.54
    a, b = list("fffffffppp"), list("ffffpppppp")
    assert cohen_kappa(a, b) == pytest.approx(4 / 9)
    assert cohen_kappa(a, b) == pytest.approx(0.4444, abs=1e-4)


def test_cohen_kappa_is_symmetric():
    rng = np.random.default_rng(3)
    for _ in range(20):
        a = list(rng.choice(["f", "p", "x"], size=25, p=[0.6, 0.3, 0.1]))
        b = list(rng.choice(["f", "p", "x"], size=25, p=[0.2, 0.5, 0.3]))
        assert cohen_kappa(a, b) == pytest.approx(cohen_kappa(b, a))


def test_cohen_kappa_matches_statsmodels_on_contingency_tables():
    from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

    rng = np.random.default_rng(11)
    cats = ["f", "p", "x"]
    for _ in range(20):
        a = list(rng.choice(cats, size=40, p=[0.7, 0.2, 0.1]))
        b = [x if rng.random() < 0.6 else str(rng.choice(cats)) for x in a]
        table = np.zeros((3, 3))
        for x, y in zip(a, b, strict=True):
            table[cats.index(x), cats.index(y)] += 1
        assert cohen_kappa(a, b) == pytest.approx(sm_cohens_kappa(table).kappa)


def _hand_run(kit):
    """10 cases; the judge fails c0-c4. Human majorities fail c0-c2 and c5 (see the table)."""
    cases = []
    for i in range(10):
        if i < 2:
            cases.append(kit.case("cfg", f"c{i}", gate="semantic"))
        elif i < 4:
            cases.append(kit.case("cfg", f"c{i}", gate="render"))
        elif i == 4:
            cases.append(kit.case("cfg", f"c{i}", gate="artifact"))
        else:
            cases.append(kit.case("cfg", f"c{i}"))
    return cases


HUMAN_FAILS = {0, 1, 2, 5}


def _hand_labels(tmp_path):
    rows = []
    for i in range(10):
        calls = ["fail", "fail", "pass"] if i in HUMAN_FAILS else ["pass", "pass", "fail"]
        if i in (0, 6):
            calls = ["fail"] * 3 if i == 0 else ["pass"] * 3
        for who, call in zip(("ann", "bob", "cy"), calls, strict=True):
            rows.append(f"cfg/c{i},{who},{call},")
    return _labels_file(tmp_path, rows)


def test_judge_vs_human_majority_agreement_kappa_and_gate_errors(runkit, tmp_path):
    cases = _hand_run(runkit)
    path = _hand_labels(tmp_path)
    rep = agreement_report(cases, read_labels(path), labels_file=str(path))
    b = rep.judge_vs_humans
    assert (b.cases, b.agree) == (10, 7)
    assert b.kappa == pytest.approx(0.4)
    assert b.extra_gates == 2  # c3, c4: judge fails, humans pass
    assert b.missed_gates == 1  # c5: judge passes, humans fail
    low, high = proportion_confint(7, 10, alpha=0.05, method="wilson")
    assert (b.ci_low, b.ci_high) == (pytest.approx(low), pytest.approx(high))


def test_annotator_unanimity_fleiss_and_alpha_among_humans(runkit, tmp_path):
    cases = _hand_run(runkit)
    rep = agreement_report(cases, read_labels(_hand_labels(tmp_path)))
    assert rep.annotator_unanimity == pytest.approx(2 / 10)
    table = np.array(
        [
            [3, 0] if i == 0 else [0, 3] if i == 6 else ([2, 1] if i in HUMAN_FAILS else [1, 2])
            for i in range(10)
        ]
    )
    assert rep.fleiss_kappa == pytest.approx(sm_fleiss_kappa(table))
    data = np.array([[0 if j < row[0] else 1 for j in range(3)] for row in table]).T.astype(float)
    assert rep.krippendorff_alpha == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    )


def test_human_ties_are_left_out_and_counted(runkit, tmp_path):
    cases = [runkit.case("cfg", "a"), runkit.case("cfg", "b")]
    path = _labels_file(
        tmp_path, ["cfg/a,x,pass,", "cfg/a,y,fail,", "cfg/b,x,pass,", "cfg/b,y,pass,"]
    )
    rep = agreement_report(cases, read_labels(path))
    assert rep.human_ties == 1 and rep.judge_vs_humans.cases == 1


def _finding(subtype: str, support: list[int]) -> MergedFinding:
    return MergedFinding(
        dimension="text", category="labels", subtype=subtype, fraction=0.2, support=support
    )


def test_issue_sets_exact_match_and_jaccard_among_annotators_and_with_the_judge(runkit, tmp_path):
    cases = [
        runkit.case("cfg", "a", findings=[_finding("typo", [0, 1]), _finding("font", [2])]),
        runkit.case("cfg", "b", findings=[]),
        runkit.case("cfg", "c", gate="semantic"),  # gated: not an issue-set case
    ]
    path = _labels_file(
        tmp_path,
        [
            "cfg/a,x,pass,typo;font",
            "cfg/a,y,pass,typo",
            "cfg/b,x,pass,",
            "cfg/b,y,pass,",
            "cfg/c,x,fail,typo",
            "cfg/c,y,fail,",
        ],
    )
    s = agreement_report(cases, read_labels(path)).issue_sets
    assert s.cases == 2
    assert s.annotator_pairs == 2
    assert s.annotator_exact == pytest.approx(0.5)  # a differs, b both empty
    assert s.annotator_jaccard == pytest.approx((0.5 + 1.0) / 2)
    assert s.judge_pairs == 4
    assert s.judge_exact == pytest.approx(3 / 4)  # a: x equal, y not; b: both equal
    assert s.judge_jaccard == pytest.approx((1.0 + 0.5 + 1.0 + 1.0) / 4)


def test_single_round_unanimity_and_vote_threshold_counts(runkit, tmp_path):
    cases = [
        runkit.case("cfg", "a", rounds=["pass", "pass", "pass"]),
        runkit.case("cfg", "b", rounds=["pass", "pass", "semantic"]),
        runkit.case("cfg", "c", gate="semantic", rounds=["pass", "semantic", "render"]),
        runkit.case("cfg", "d", gate="semantic", rounds=["semantic", "semantic", "skipped"]),
        runkit.case("cfg", "e", rounds=["pass", "pass", "skipped"]),
        runkit.case("cfg", "f", gate="artifact"),
    ]
    path = _labels_file(tmp_path, ["cfg/a,x,pass,", "cfg/c,x,pass,", "cfg/d,x,fail,"])
    rep = agreement_report(cases, read_labels(path))
    # decided rounds: a ppp (unanimous), b pps, c psr, d ss (unanimous), e pp (unanimous)
    assert rep.repeatability_cases == 5
    assert rep.single_round_unanimity == pytest.approx(3 / 5)
    assert rep.cases_with_skipped_rounds == 2
    by_t = {t.threshold: t for t in rep.thresholds}
    assert by_t[1].passing == 4  # a b c e
    assert by_t[2].passing == 3  # a b e
    assert (by_t[3].passing, by_t[3].undetermined) == (1, 1)  # a; e could still reach 3
    assert by_t[1].undetermined == 1  # d: its skipped round could have passed
    assert by_t[1].human_agreement == pytest.approx(1.0)  # a, c agree; d undetermined
    assert by_t[2].human_agreement == pytest.approx(2 / 3)  # c fails at 2; humans pass c


def test_second_run_majority_vs_majority(runkit, tmp_path):
    first = [runkit.case("cfg", "a"), runkit.case("cfg", "b"), runkit.case("cfg", "c")]
    second = [
        runkit.case("cfg", "a"),
        runkit.case("cfg", "b", gate="semantic"),
        runkit.case("cfg", "c", gate=None),
    ]
    path = _labels_file(tmp_path, ["cfg/a,x,pass,"])
    rep = agreement_report(first, read_labels(path), second=second)
    assert rep.second_run is not None
    assert (rep.second_run.cases, rep.second_run.agree) == (2, 1)
    assert rep.second_run.missed_gates == 1


def test_labels_naming_an_unknown_case_fail_with_file_and_line(tmp_path):
    path = _labels_file(tmp_path, ["cfg/a,x,pass,", "cfg/zzz,x,pass,"])
    with pytest.raises(LabelsError, match=r"labels\.csv:3: case 'cfg/zzz' is not in the run"):
        read_labels(path, known_cases={"cfg/a"})


def test_bad_gate_value_fails_with_file_and_line(tmp_path):
    path = _labels_file(tmp_path, ["cfg/a,x,maybe,"])
    with pytest.raises(LabelsError, match=r"labels\.csv:2: gate must be 'pass' or 'fail'"):
        read_labels(path)


def test_missing_columns_are_named(tmp_path):
    path = _labels_file(tmp_path, ["cfg/a,x"], header="case_id,annotator")
    with pytest.raises(LabelsError, match="missing column\\(s\\) gate, subtypes"):
        read_labels(path)


def test_duplicate_label_names_both_lines(tmp_path):
    path = _labels_file(tmp_path, ["cfg/a,x,pass,", "cfg/a,x,fail,"])
    with pytest.raises(LabelsError, match=r":3: .*first on line 2"):
        read_labels(path)


def test_cli_agree_prints_statistics_and_json(runkit, tmp_path):
    run = runkit.write(tmp_path / "run", _hand_run(runkit))
    labels = _hand_labels(tmp_path)
    res = runner.invoke(app, ["agree", str(run), "--labels", str(labels)])
    assert res.exit_code == 0, res.output
    assert "Cohen's kappa 0.400" in res.output and "Fleiss" in res.output
    res = runner.invoke(
        app,
        ["agree", str(run), "--labels", str(labels), "--second-run", str(run), "--format", "json"],
    )
    data = json.loads(res.output)
    assert data["second_run"]["rate"] == 1.0


def test_cli_agree_on_unknown_case_exits_2_naming_file_and_line(runkit, tmp_path):
    run = runkit.write(tmp_path / "run", [runkit.case("cfg", "a")])
    labels = _labels_file(tmp_path, ["cfg/nope,x,pass,"])
    res = runner.invoke(app, ["agree", str(run), "--labels", str(labels)])
    assert res.exit_code == 2
    assert "labels.csv:2" in res.output and "cfg/nope" in res.output


def test_pairwise_cohen_kappas_match_statsmodels(runkit, tmp_path):
    from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

    cases = _hand_run(runkit)
    rep = agreement_report(cases, read_labels(_hand_labels(tmp_path)))
    calls = {who: {} for who in ("ann", "bob", "cy")}
    for i in range(10):
        row = ["fail", "fail", "pass"] if i in HUMAN_FAILS else ["pass", "pass", "fail"]
        if i in (0, 6):
            row = ["fail"] * 3 if i == 0 else ["pass"] * 3
        for who, call in zip(calls, row, strict=True):
            calls[who][i] = call
    assert [(p.a, p.b) for p in rep.pairwise_kappas] == [
        ("ann", "bob"),
        ("ann", "cy"),
        ("bob", "cy"),
    ]
    for p in rep.pairwise_kappas:
        table = np.zeros((2, 2))
        for i in range(10):
            table[int(calls[p.a][i] == "pass"), int(calls[p.b][i] == "pass")] += 1
        assert p.cases == 10
        assert p.kappa == pytest.approx(sm_cohens_kappa(table).kappa)
    assert "pairwise Cohen's kappa: ann-bob 1.000 (10/10 agree)" in agreement_text(rep)


def test_pairwise_kappa_uses_only_cases_both_labelled(tmp_path):
    from scoring.agreement import pairwise_kappas

    path = _labels_file(
        tmp_path, ["A/1,x,pass,", "A/2,x,fail,", "A/3,x,pass,", "A/1,y,pass,", "A/2,y,fail,"]
    )
    (pair,) = pairwise_kappas(read_labels(path))
    assert (pair.cases, pair.agree, pair.kappa) == (2, 2, pytest.approx(1.0))


def test_optional_columns_gate_reason_and_fractions_are_read(tmp_path):
    path = _labels_file(
        tmp_path,
        [
            "A/1,x,pass,node_fill;z_order,,,node_fill=0.25",
            'A/2,x,fail,,semantic,"edge ""a"" -> ""b"" reversed",',
        ],
        header="case_id,annotator,gate,subtypes,gate_stage,gate_reason,fractions",
    )
    first, second = read_labels(path)
    assert first.fractions == (("node_fill", 0.25),) and first.gate_stage is None
    assert second.gate_stage == "semantic" and second.gate_reason == 'edge "a" -> "b" reversed'
    old = read_labels(_labels_file(tmp_path, ["A/1,x,pass,node_fill"]))  # four columns
    assert old[0].fractions == () and old[0].gate_reason == ""


@pytest.mark.parametrize(
    "cells,message",
    [
        ("pass,node_fill,,,node_fill=2", "not subtype=fraction"),
        ("pass,node_fill,,,node_fill", "not subtype=fraction"),
        ("pass,,,,node_fill=0.5", "not in this row's subtypes"),
        ("fail,,maybe,,", "gate_stage must be"),
    ],
)
def test_bad_optional_columns_fail_with_file_and_line(tmp_path, cells, message):
    path = _labels_file(
        tmp_path,
        [f"A/1,x,{cells}"],
        header="case_id,annotator,gate,subtypes,gate_stage,gate_reason,fractions",
    )
    with pytest.raises(LabelsError, match=rf"labels\.csv:2: .*{message}"):
        read_labels(path)
