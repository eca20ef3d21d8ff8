"""Bradley-Terry preferences (hand-solved examples), blinded pair export, paired comparison."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from judge.errors import BenchmarkError
from scoring.paired import paired_compare
from scoring.prefs import (
    Preference,
    bradley_terry,
    elo,
    fit_bradley_terry,
    read_preferences,
    win_matrix,
)


def _prefs(*rows: tuple[str, str, str, str]) -> list[Preference]:
    return [Preference(*r) for r in rows]


def test_two_configs_three_wins_to_one_give_strength_ratio_3() -> None:
    prefs = _prefs(*[(f"t{i}", "A", "B", "a") for i in range(3)], ("t3", "A", "B", "b"))
    fit = fit_bradley_terry(prefs, resamples=50)
    ratings = {r.config_id: r.rating for r in fit.rows}
    # p_A / p_B = 3: Elo difference 400 log10 3 split around 1000
    assert ratings["A"] == pytest.approx(1000 + 200 * math.log10(3), abs=1e-6)
    assert ratings["B"] == pytest.approx(1000 - 200 * math.log10(3), abs=1e-6)


def test_chain_example_solved_by_hand() -> None:
    # A-B: A 2 wins, B 1; B-C: B 2, C 1 (no A-C games). Likelihood equations:
    # A: 2 = 3 pA/(pA+pB) -> pA = 2 pB; C: 1 = 3 pC/(pB+pC) -> pC = pB/2 (B's holds then).
    prefs = _prefs(
        ("t1", "A", "B", "a"),
        ("t2", "A", "B", "a"),
        ("t3", "B", "A", "a"),
        ("t4", "B", "C", "a"),
        ("t5", "C", "B", "b"),
        ("t6", "C", "B", "a"),
    )
    configs = ["A", "B", "C"]
    p = bradley_terry(*win_matrix(prefs, configs))
    assert p / p[1] == pytest.approx([2.0, 1.0, 0.5], abs=1e-8)
    assert elo(p) == pytest.approx([1000 + 400 * math.log10(2), 1000, 1000 - 400 * math.log10(2)])
    assert elo(p).mean() == pytest.approx(1000.0)


def test_a_tie_is_half_a_win_to_each_side() -> None:
    # A 2 wins, B 1 win, 2 ties -> A 3, B 2 of 5: p_A / p_B = 1.5
    prefs = _prefs(
        ("t1", "A", "B", "a"),
        ("t2", "A", "B", "a"),
        ("t3", "A", "B", "b"),
        ("t4", "A", "B", "tie"),
        ("t5", "B", "A", "tie"),
    )
    p = bradley_terry(*win_matrix(prefs, ["A", "B"]))
    assert p[0] / p[1] == pytest.approx(1.5)


def test_fit_is_invariant_to_which_side_a_config_was_shown_on() -> None:
    prefs = _prefs(
        ("t1", "A", "B", "a"),
        ("t2", "A", "C", "b"),
        ("t3", "B", "C", "tie"),
        ("t4", "C", "A", "a"),
        ("t5", "B", "A", "b"),
        ("t1", "C", "B", "b"),
    )
    swapped = [
        Preference(p.task_id, p.config_b, p.config_a, {"a": "b", "b": "a"}.get(p.winner, "tie"))
        for p in prefs
    ]
    f1 = fit_bradley_terry(prefs, prior=0.5, resamples=200, seed=3)
    f2 = fit_bradley_terry(swapped, prior=0.5, resamples=200, seed=3)
    assert [(r.config_id, round(r.rating, 9), r.ci_low) for r in f1.rows] == [
        (r.config_id, round(r.rating, 9), r.ci_low) for r in f2.rows
    ]


def test_bootstrap_is_seeded_and_kendall_tau_compares_with_the_judge() -> None:
    prefs = _prefs(
        *[(f"t{i}", "A", "B", "a") for i in range(6)],
        *[(f"t{i}", "B", "C", "a") for i in range(6)],
        ("t0", "C", "A", "a"),
    )
    judge = {"A": 80.0, "B": 60.0, "C": 70.0}
    f1 = fit_bradley_terry(
        prefs, prior=0.5, resamples=300, rng=np.random.default_rng(7), judge_scores=judge
    )
    f2 = fit_bradley_terry(
        prefs, prior=0.5, resamples=300, rng=np.random.default_rng(7), judge_scores=judge
    )
    assert [r.config_id for r in f1.rows] == ["A", "B", "C"]
    low = f1.rows[0].ci_low
    assert low is not None and low == f2.rows[0].ci_low and low < f1.rows[0].rating
    # preferences A > B > C, judge A > C > B: one discordant pair of three -> tau 1/3
    assert f1.tau == pytest.approx(1 / 3) and f1.tau_configs == 3


def test_preferences_file_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "prefs.csv"
    path.write_text("task_id,config_a,config_b,winner\nt1,A,B,a\nt2,A,B,left\n")
    with pytest.raises(BenchmarkError, match=r"prefs.csv:3: winner must be a, b or tie"):
        read_preferences(path)


def test_labelled_pairs_are_unblinded_with_the_key(tmp_path: Path) -> None:
    key = tmp_path / "key.csv"
    key.write_text("pair_id,task_id,config_a,config_b\np0001,t1,X,Y\n")
    labels = tmp_path / "labels.csv"
    labels.write_text("pair_id,winner\np0001,b\n")
    assert read_preferences(labels, key=key) == [Preference("t1", "X", "Y", "b")]


def test_paired_difference_has_a_seeded_task_bootstrap_interval(runkit, tmp_path: Path) -> None:
    cases = []
    for i, (sa, sb) in enumerate([(90, 80), (70, 70), (60, 40), (50, 45)]):
        cases.append(runkit.case("A", f"t{i}", dims=(sa / 3,) * 3))
        cases.append(runkit.case("B", f"t{i}", dims=(sb / 3,) * 3))
    cases.append(runkit.case("A", "t9", dims=(10, 10, 10)))  # B has no t9: not shared
    cmp1 = paired_compare(cases, "A", "B", resamples=500, seed=1)
    cmp2 = paired_compare(cases, "A", "B", resamples=500, seed=1)
    row = cmp1.rows[0]
    assert row.tasks == 4 and row.mean_diff == pytest.approx((10 + 0 + 20 + 5) / 4)
    assert row.ci_low is not None and row.ci_high is not None and row.mean_diff is not None
    assert 0.0 <= row.ci_low <= row.mean_diff <= row.ci_high <= 20.0
    assert cmp1 == cmp2
