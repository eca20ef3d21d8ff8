"""Joined analytics (scoring/behaviour.py) and the whole path: generate -> run -> leaderboard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats
from typer.testing import CliRunner

from cli.app import app
from judge.sandbox import available
from judge.schema import CaseResult, GenerationRecord
from scoring.behaviour import average_ranks, behaviour, pearson, spearman
from tests.conftest import RunKit
from tests.fake_openai import Reply, serve
from tests.gen_helpers import DECK_CODE, make_tasks, per_task, run_python, tool

runner = CliRunner()


def record(cfg: str, task: str, reviews: int, revisions: int, cost: float) -> GenerationRecord:
    return GenerationRecord(
        config_id=cfg,
        task_id=task,
        model="m",
        status="submitted",
        candidate=f"candidates/{cfg}/{task}.pptx",
        trajectory=f"generation/{cfg}/{task}.trajectory.jsonl",
        reviews=reviews,
        revisions=revisions,
        cost_usd=cost,
    )


def case(cfg: str, task: str, score: float) -> CaseResult:
    c = RunKit.case(cfg, task, dims=(score / 3, score / 3, score / 3))
    assert isinstance(c, CaseResult)
    return c


def test_correlations_match_scipy_on_a_constructed_example() -> None:
    # four configurations x two tasks: (reviews, revisions, score) per task
    table = {
        "a": [(0, 3, 40.0), (1, 1, 50.0)],
        "b": [(2, 2, 60.0), (2, 4, 70.0)],
        "c": [(4, 1, 80.0), (3, 1, 75.0)],
        "d": [(1, 5, 50.0), (1, 3, 60.0)],  # ties b's revisions mean (3.0)
    }
    records = {}
    cases = []
    for cfg, tasks in table.items():
        for i, (rev, revi, score) in enumerate(tasks):
            records[(cfg, f"t{i}")] = record(cfg, f"t{i}", rev, revi, 0.5)
            cases.append(case(cfg, f"t{i}", score))
    rep = behaviour(cases, records)
    rows = {r.config_id: r for r in rep.rows}
    assert rows["a"].mean_reviews == 0.5 and rows["b"].mean_revisions == 3.0
    assert rows["c"].mean_score == pytest.approx(77.5)
    assert rows["a"].cost_usd == pytest.approx(1.0)
    assert rows["a"].cost_per_point == pytest.approx(1.0 / 90.0)
    reviews = [0.5, 2.0, 3.5, 1.0]
    revisions = [2.0, 3.0, 1.0, 4.0]
    means = [45.0, 65.0, 77.5, 55.0]
    assert rep.reviews.pearson == pytest.approx(stats.pearsonr(reviews, means).statistic)
    assert rep.reviews.spearman == pytest.approx(stats.spearmanr(reviews, means).statistic)
    assert rep.revisions.pearson == pytest.approx(stats.pearsonr(revisions, means).statistic)
    assert rep.revisions.spearman == pytest.approx(stats.spearmanr(revisions, means).statistic)


def test_spearman_uses_average_ranks_for_ties_like_scipy() -> None:
    x = [1.0, 2.0, 2.0, 3.0, 5.0, 5.0]
    y = [2.0, 1.0, 4.0, 3.0, 6.0, 5.0]
    assert list(average_ranks(__import__("numpy").array(x))) == list(stats.rankdata(x))
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic)


def test_no_correlation_from_two_configurations_or_a_constant() -> None:
    assert pearson([1.0, 2.0], [3.0, 4.0]) is None
    assert spearman([1.0, 1.0, 1.0], [3.0, 4.0, 5.0]) is None


@pytest.mark.slow
@pytest.mark.skipif(available() is not None, reason=f"no sandbox: {available()}")
def test_generate_then_run_fills_gen_cost_and_behaviour(tmp_path: Path) -> None:
    bench = make_tasks(tmp_path, n_tasks=2)
    good, failed = sorted(p.name for p in (bench / "tasks").iterdir())
    scripts = {
        good: [
            run_python(
                DECK_CODE,
                prompt_tokens=200_000,
                cached_tokens=0,
                completion_tokens=10_000,
                reasoning_tokens=4_000,
            ),
            tool("render", prompt_tokens=250_000, cached_tokens=200_000, completion_tokens=2_000),
            tool("submit", prompt_tokens=260_000, cached_tokens=250_000, completion_tokens=100),
        ],
        failed: [Reply(content="no.", prompt_tokens=1000, completion_tokens=10)] * 3,
    }
    # by hand: good: (710000 - 450000) x $2.5 + 450000 x $1.25 + 12100 x $10 = $1.3335
    #          failed: 3 x (1000 x $2.5 + 10 x $10) = $0.0078
    cost_good = (260_000 * 2.5 + 450_000 * 1.25 + 12_100 * 10.0) / 1e6
    cost_failed = 3 * (1000 * 2.5 + 10 * 10.0) / 1e6
    with serve(per_task(bench, scripts)) as fake:
        gen = runner.invoke(
            app,
            [
                "generate", str(bench), "--config", "cfgA", "--model", "fake-model",
                "--base-url", fake.base_url, "--api-key", "k", "--effort", "low",
                "--price-input", "2.5", "--price-output", "10", "--price-cached-input", "1.25",
                "--concurrency", "1", "--retries", "0",
            ],
        )  # fmt: skip
    assert gen.exit_code == 0, gen.output
    assert "submitted 1" in gen.output and "no_submit 1" in gen.output
    assert all(r["reasoning_effort"] == "low" for r in fake.requests)

    out = tmp_path / "run"
    judged = runner.invoke(app, ["run", str(bench), "--out", str(out), "--rounds", "1"])
    assert judged.exit_code == 0, judged.output
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    by_task = {x["task_id"]: x for x in lines}
    assert by_task[good]["valid"] is True
    assert by_task[good]["generation_cost_usd"] == pytest.approx(cost_good)
    assert by_task[failed]["gate"] == "artifact" and by_task[failed]["score"] == 0
    assert by_task[failed]["artifact_failures"][0] == "opens"

    board = runner.invoke(app, ["leaderboard", str(out), "--format", "json"])
    assert board.exit_code == 0, board.output
    (row,) = json.loads(board.output)["rows"]
    assert row["generation_cost_usd"] == pytest.approx(cost_good + cost_failed)
    table = runner.invoke(app, ["leaderboard", str(out)])
    assert f"${cost_good + cost_failed:.2f}" in table.output

    beh = runner.invoke(app, ["behaviour", str(out), "--json"])
    assert beh.exit_code == 0, beh.output
    (brow,) = json.loads(beh.output)["rows"]
    assert brow["mean_reviews"] == 0.5 and brow["mean_revisions"] == 0.5
    assert brow["submitted"] == 1 and brow["tasks"] == 2
    assert brow["cost_usd"] == pytest.approx(cost_good + cost_failed)
    text = runner.invoke(app, ["behaviour", str(out)])
    assert "reviews vs score" in text.output and "cfgA" in text.output
    given = runner.invoke(app, ["behaviour", str(out), "--bench", str(bench)])
    assert given.exit_code == 0 and given.output == text.output

    rep = runner.invoke(
        app, ["report", str(out), "--out", str(tmp_path / "rep"), "--resamples", "50"]
    )
    assert rep.exit_code == 0, rep.output
    html = (tmp_path / "rep" / "index.html").read_text()
    scatter = html[html.index('id="reviews-vs-score"') :]
    assert "<svg" in scatter and "cfgA: 0.50" in scatter
