"""Leaderboard, paired task bootstrap and two-configuration comparison."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from scipy.stats import kendalltau
from typer.testing import CliRunner

from cli.app import app
from judge.errors import BenchmarkError
from judge.schema import Usage
from scoring.bootstrap import kendall_tau_b, paired_bootstrap, resampled_means
from scoring.leaderboard import build_leaderboard, compare_configs, load_cases

runner = CliRunner()


def _simple_cases(kit):
    return [
        kit.case("A", "t1", dims=(30.0, 30.0, 30.0)),
        kit.case("A", "t2", gate="semantic"),
        kit.case("A", "t3", gate="artifact"),
        kit.case("A", "t4", gate=None),
        kit.case("B", "t1", dims=(10.0, 20.0, 30.0)),
        kit.case("B", "t2", dims=(20.0, 20.0, 20.0)),
        kit.case("B", "t3", gate="render"),
        kit.case("B", "t4", dims=(5.0, 5.0, 5.0)),
    ]


def test_gated_and_invalid_cases_score_zero_and_errored_cases_are_left_out(runkit):
    board = build_leaderboard(_simple_cases(runkit), n_resamples=200)
    a = next(r for r in board.rows if r.config_id == "A")
    assert a.cases == 4 and a.errors == 1 and a.judged == 3
    assert a.mean_score == pytest.approx(30.0)  # (90 + 0 + 0) / 3
    assert a.validity == pytest.approx(2 / 3)
    assert a.gate_pass == pytest.approx(1 / 3)
    assert a.mean_passed == pytest.approx(90.0)


def test_dimension_means_add_up_to_mean_score(runkit):
    board = build_leaderboard(_simple_cases(runkit), n_resamples=200)
    for r in board.rows:
        assert r.layout + r.text + r.graphics == pytest.approx(r.mean_score)
    b = next(r for r in board.rows if r.config_id == "B")
    assert b.mean_score == pytest.approx((60 + 60 + 0 + 15) / 4)
    assert b.layout == pytest.approx((10 + 20 + 0 + 5) / 4)


def test_costs_sum_known_values_and_stay_unknown_otherwise(runkit):
    cases = [
        runkit.case("A", "t1", usage=Usage(cost_usd=0.25), generation_cost_usd=1.0),
        runkit.case("A", "t2", usage=Usage(cost_usd=0.5)),
        runkit.case("B", "t1"),
    ]
    board = build_leaderboard(cases, n_resamples=50)
    rows = {r.config_id: r for r in board.rows}
    assert rows["A"].judge_cost_usd == pytest.approx(0.75)
    assert rows["A"].generation_cost_usd == pytest.approx(1.0)
    assert rows["B"].judge_cost_usd is None and rows["B"].generation_cost_usd is None


def test_resampled_means_equal_a_loop_over_the_same_drawn_tasks():
    rng = np.random.default_rng(7)
    values = rng.uniform(0, 100, size=(40, 5))
    values[3, 2] = np.nan  # config 2 has no case for task 3
    got = resampled_means(values, 300, np.random.default_rng(123))
    draws = np.random.default_rng(123).integers(0, 40, size=(300, 40))
    expected = np.array([np.nanmean(values[idx], axis=0) for idx in draws])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_vectorised_kendall_tau_matches_scipy_including_ties():
    rng = np.random.default_rng(3)
    reference = rng.integers(0, 6, size=9).astype(float)
    samples = rng.integers(0, 6, size=(50, 9)).astype(float)
    got = kendall_tau_b(samples, reference)
    for row, tau in zip(samples, got, strict=True):
        assert tau == pytest.approx(kendalltau(row, reference).statistic)


def test_bootstrap_interval_is_the_percentile_of_the_resampled_means():
    rng = np.random.default_rng(11)
    values = rng.normal(50, 10, size=(60, 3))
    res = paired_bootstrap(values, n_resamples=2000, rng=np.random.default_rng(5))
    np.testing.assert_allclose(res.ci_low, np.percentile(res.means, 2.5, axis=0))
    np.testing.assert_allclose(res.ci_high, np.percentile(res.means, 97.5, axis=0))
    # roughly mean +- 1.96 sd/sqrt(n)
    half = 1.96 * values.std(axis=0, ddof=1) / np.sqrt(60)
    np.testing.assert_allclose(res.ci_high - res.ci_low, 2 * half, rtol=0.15)


def _spread_cases(kit, means: dict[str, float], n_tasks: int = 30, noise: float = 5.0):
    rng = np.random.default_rng(1)
    task_effect = rng.normal(0, 10, size=n_tasks)
    cases = []
    for cfg, m in means.items():
        for t in range(n_tasks):
            s = float(np.clip(m + task_effect[t] + rng.normal(0, noise), 0, 99))
            cases.append(kit.case(cfg, f"t{t:02d}", dims=(s / 3, s / 3, s / 3)))
    return cases


def test_clearly_separated_configs_rank_stably(runkit):
    board = build_leaderboard(
        _spread_cases(runkit, {"hi": 80, "mid": 50, "lo": 20}), n_resamples=1000, top_k=2
    )
    assert [r.config_id for r in board.rows] == ["hi", "mid", "lo"]
    assert board.rows[0].p_rank1 == pytest.approx(1.0)
    assert board.rows[2].p_top_k == pytest.approx(0.0)
    assert all(p.separated for p in board.adjacent)
    assert board.tau is not None and board.tau.minimum == pytest.approx(1.0)


def test_paired_bootstrap_separates_a_small_consistent_gap_that_unpaired_noise_hides(runkit):
    # b is a + 1 point on every task; task difficulty varies a lot. Pairing shows the gap is real.
    cases = []
    rng = np.random.default_rng(2)
    for t in range(40):
        base = float(rng.uniform(10, 80))
        cases.append(runkit.case("a", f"t{t}", dims=(base, 0.0, 0.0)))
        cases.append(runkit.case("b", f"t{t}", dims=(base + 1.0, 0.0, 0.0)))
    board = build_leaderboard(cases, n_resamples=1000)
    (pair,) = board.adjacent
    assert (pair.upper, pair.lower) == ("b", "a")
    assert (
        pair.separated and pair.ci_low == pytest.approx(1.0) and pair.ci_high == pytest.approx(1.0)
    )
    rows = {r.config_id: r for r in board.rows}
    assert rows["a"].ci_high > rows["b"].ci_low  # the unpaired intervals overlap


def test_identical_configs_are_not_separated_and_share_rank_one(runkit):
    cases = []
    for t in range(20):
        s = 10.0 + t
        cases += [
            runkit.case("x", f"t{t}", dims=(s, 0, 0)),
            runkit.case("y", f"t{t}", dims=(s, 0, 0)),
        ]
    board = build_leaderboard(cases, n_resamples=300)
    assert [r.rank for r in board.rows] == [1, 1]
    assert not board.adjacent[0].separated
    assert all(r.p_rank1 == pytest.approx(1.0) for r in board.rows)


def test_same_seed_gives_the_same_leaderboard_and_another_seed_differs(runkit):
    cases = _spread_cases(runkit, {"p": 50, "q": 52, "r": 48}, noise=15)
    one = build_leaderboard(cases, n_resamples=500, seed=4).to_dict()
    two = build_leaderboard(cases, n_resamples=500, seed=4).to_dict()
    other = build_leaderboard(cases, n_resamples=500, seed=5).to_dict()
    assert one == two
    assert one["rows"] != other["rows"]


def test_config_missing_a_task_is_averaged_over_the_tasks_it_has(runkit):
    cases = [
        runkit.case("A", "t1", dims=(10, 0, 0)),
        runkit.case("A", "t2", dims=(20, 0, 0)),
        runkit.case("B", "t1", dims=(40, 0, 0)),
    ]
    board = build_leaderboard(cases, n_resamples=400)
    rows = {r.config_id: r for r in board.rows}
    assert rows["B"].mean_score == pytest.approx(40.0)
    assert rows["B"].ci_low == pytest.approx(40.0) and rows["B"].ci_high == pytest.approx(40.0)
    assert rows["A"].cases == 2 and rows["B"].cases == 1


def test_pooling_runs_rejects_a_case_judged_twice(runkit, tmp_path):
    one = runkit.write(tmp_path / "one", [runkit.case("A", "t1")])
    two = runkit.write(tmp_path / "two", [runkit.case("A", "t1")])
    with pytest.raises(BenchmarkError, match="A/t1"):
        load_cases([one, two])


def test_pooling_runs_merges_distinct_tasks_of_one_config(runkit, tmp_path):
    one = runkit.write(tmp_path / "one", [runkit.case("A", "t1")])
    two = runkit.write(tmp_path / "two", [runkit.case("A", "t2"), runkit.case("B", "t1")])
    board = build_leaderboard(load_cases([one, two]), n_resamples=50)
    assert {r.config_id: r.cases for r in board.rows} == {"A": 2, "B": 1}


def test_compare_reports_common_pass_difference_and_gained_lost_tasks(runkit):
    cases = [
        runkit.case("A", "t1", dims=(30, 30, 30)),
        runkit.case("B", "t1", dims=(20, 30, 25)),
        runkit.case("A", "t2", dims=(20, 20, 20)),
        runkit.case("B", "t2", dims=(30, 20, 20)),
        runkit.case("A", "t3", gate="semantic"),
        runkit.case("B", "t3", dims=(10, 10, 10)),
        runkit.case("A", "t4", dims=(10, 10, 10)),
        runkit.case("B", "t4", gate="artifact"),
        runkit.case("A", "t5", dims=(10, 10, 10)),
        runkit.case("B", "t5", gate=None),
    ]
    cmp = compare_configs(cases, "A", "B")
    assert cmp.common_tasks == 4  # t5 errored in B
    assert cmp.both_pass == ["t1", "t2"]
    assert cmp.score_diff == pytest.approx(((90 - 75) + (60 - 70)) / 2)
    assert cmp.layout_diff == pytest.approx((10 - 10) / 2)
    assert cmp.graphics_diff == pytest.approx((5 + 0) / 2)
    assert cmp.gained == ["t3"] and cmp.lost == ["t4"]
    assert (cmp.a_better, cmp.b_better) == (1, 1)


def test_compare_names_an_unknown_configuration(runkit):
    with pytest.raises(BenchmarkError, match="'Z'"):
        compare_configs([runkit.case("A", "t1")], "A", "Z")


def test_cli_leaderboard_prints_table_csv_and_json(runkit, tmp_path):
    run = runkit.write(tmp_path / "run", _simple_cases(runkit))
    refused = runner.invoke(app, ["leaderboard", str(run), "--resamples", "200"])
    assert refused.exit_code == 2 and "A/t4" in refused.output  # an errored case, named
    assert "--allow-incomplete" in refused.output and "Traceback" not in refused.output
    table = runner.invoke(
        app, ["leaderboard", str(run), "--resamples", "200", "--allow-incomplete"]
    )
    assert table.exit_code == 0, table.output
    assert "Kendall tau" in table.output and "B" in table.output
    assert "A (incomplete: 1 errored)" in table.output and "B (incomplete" not in table.output
    out = runner.invoke(
        app,
        ["leaderboard", str(run), "--format", "csv", "--resamples", "200", "--allow-incomplete"],
    )
    rows = list(csv.DictReader(io.StringIO(out.output)))
    assert [r["config_id"] for r in rows] == ["A", "B"] or [r["config_id"] for r in rows] == [
        "B",
        "A",
    ]
    assert float(next(r for r in rows if r["config_id"] == "A")["mean_score"]) == pytest.approx(30)
    js = runner.invoke(
        app,
        ["leaderboard", str(run), "--format", "json", "--resamples", "200", "--allow-incomplete"],
    )
    data = json.loads(js.output)
    assert data["resamples"] == 200 and len(data["rows"]) == 2


def test_cli_leaderboard_on_a_folder_without_results_exits_2_with_one_line(tmp_path):
    res = runner.invoke(app, ["leaderboard", str(tmp_path)])
    assert res.exit_code == 2
    assert "results.jsonl" in res.output and "Traceback" not in res.output


def test_cli_compare_prints_gained_and_lost(runkit, tmp_path):
    run = runkit.write(tmp_path / "run", _simple_cases(runkit))
    res = runner.invoke(app, ["compare", str(run), "A", "B"])
    assert res.exit_code == 0, res.output
    assert "gained by B" in res.output and "t2" in res.output


def test_config_with_only_errored_cases_is_listed_last_without_a_mean(runkit):
    cases = [
        runkit.case("A", "t1", dims=(10, 0, 0)),
        runkit.case("A", "t2", dims=(20, 0, 0)),
        runkit.case("Z", "t1", gate=None),
    ]
    board = build_leaderboard(cases, n_resamples=100)
    last = board.rows[-1]
    assert last.config_id == "Z" and last.rank == 2
    assert (last.cases, last.errors, last.mean_score, last.p_rank1) == (1, 1, None, None)
    assert board.adjacent == []


def test_cli_leaderboard_pools_two_runs(runkit, tmp_path):
    one = runkit.write(tmp_path / "one", [runkit.case("A", "t1"), runkit.case("B", "t1")])
    two = runkit.write(tmp_path / "two", [runkit.case("A", "t2"), runkit.case("B", "t2")])
    res = runner.invoke(
        app, ["leaderboard", str(one), str(two), "--format", "json", "--resamples", "100"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["tasks"] == 2 and {r["cases"] for r in data["rows"]} == {2}
    dup = runner.invoke(app, ["leaderboard", str(one), str(one)])
    assert dup.exit_code == 2 and "also in" in dup.output


def test_pooling_runs_scored_under_different_taxonomies_is_an_error(runkit, tmp_path):
    one = runkit.write(tmp_path / "one", [runkit.case("A", "t1", taxonomy_hash="a" * 64)])
    two = runkit.write(tmp_path / "two", [runkit.case("A", "t2", taxonomy_hash="b" * 64)])
    with pytest.raises(BenchmarkError, match="rescore the runs"):
        load_cases([one, two])
