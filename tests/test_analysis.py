"""scoring.analysis: runs as typed DataFrames, and the worked example of docs/analysis.md."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from judge.backends import BackendSettings
from judge.engine.runner import RunSettings, run_bench
from judge.errors import BenchmarkError
from judge.rundir import read_results
from scoring.analysis import (
    CASE_COLUMNS,
    FINDING_COLUMNS,
    ROUND_COLUMNS,
    RUNS_COLUMNS,
    TOOL_CALL_COLUMNS,
    cases_df,
    findings_df,
    rounds_df,
    runs_df,
    tool_calls_df,
)
from taxonomy.loader import load_taxonomy
from tests.judge_helpers import detail_args, script_lines

TAX = load_taxonomy()
DOC = Path(__file__).resolve().parents[1] / "docs" / "analysis.md"


def script(fraction: float) -> str:
    """Semantic: one object_tree call and one call with bad arguments; then pass; a finding."""
    return script_lines(
        {"stage": "semantic", "kind": "tool_call", "tool_name": "object_tree", "arguments": {}},
        {"stage": "semantic", "kind": "tool_call", "tool_name": "crop", "arguments": {"x": -1}},
        {"stage": "semantic", "kind": "submit", "arguments": {"passed": True}},
        {"stage": "render", "kind": "submit", "arguments": {"passed": True}},
        {"stage": "detail", "kind": "submit", "arguments": detail_args(TAX, fraction)},
    )


@pytest.fixture(scope="module")
def two_runs(judge_bench: Path, render_pool, tmp_path_factory) -> tuple[Path, Path]:
    """The tiny benchmark judged twice through the real graph: 3 rounds with a small finding,
    1 round with a widespread one (replay scripts; real Stage 0, LibreOffice, tools)."""
    root = tmp_path_factory.mktemp("analysis")
    runs = []
    for name, rounds, fraction in (("fx", 3, 0.2), ("fx-model", 1, 0.6)):
        path = root / f"{name}.jsonl"
        path.write_text(script(fraction), encoding="utf-8")
        backend = BackendSettings(replay_source=str(path))
        settings = RunSettings(judge="replay", rounds=rounds, backend=backend)
        run_bench(judge_bench, root / "runs" / name, settings, render_pool=render_pool)
        runs.append(root / "runs" / name)
    return runs[0], runs[1]


def test_every_loader_returns_its_typed_columns_even_without_rows(runkit, tmp_path) -> None:
    run = runkit.write(tmp_path / "empty", [])
    for loader, columns in (
        (runs_df, RUNS_COLUMNS),
        (cases_df, CASE_COLUMNS),
        (rounds_df, ROUND_COLUMNS),
        (findings_df, FINDING_COLUMNS),
        (tool_calls_df, TOOL_CALL_COLUMNS),
    ):
        df = loader(run)
        assert list(df.columns) == list(columns), loader.__name__
        assert {c: str(t) for c, t in df.dtypes.items()} == columns, loader.__name__


@pytest.mark.slow
def test_cases_df_has_one_typed_row_per_case_with_run_settings(two_runs) -> None:
    fx, one = two_runs
    df = cases_df([fx, one])
    assert len(df) == len(read_results(fx)) + len(read_results(one)) == 6
    assert {c: str(t) for c, t in df.dtypes.items()} == CASE_COLUMNS
    assert set(df["rounds"]) == {3, 1} and set(df["judge"]) == {"replay"}
    empty = df[df["config_id"] == "empty"]
    assert (empty["gate"] == "artifact").all() and (~empty["valid"]).all()
    good = df[(df["config_id"] == "good")].set_index("run_name")
    assert good.loc["fx", "score"] > good.loc["fx-model", "score"]  # the wider finding costs
    assert good.loc["fx", "votes_pass"] == 3 and good.loc["fx-model", "votes_pass"] == 1


@pytest.mark.slow
def test_rounds_findings_and_tool_calls_frames(two_runs) -> None:
    fx, one = two_runs
    rounds = rounds_df([fx, one])
    judged = rounds[rounds["config_id"] != "empty"]
    assert judged.groupby("run_name").size().to_dict() == {"fx": 6, "fx-model": 2}
    assert sorted(judged[judged["run_name"] == "fx"]["round_index"].unique()) == [0, 1, 2]
    assert judged["semantic_passed"].all() and (judged["n_findings"] == 1).all()
    # one script file: deterministic, rounds 1-2 are copies of round 0 and cost nothing
    fx_rounds = judged[judged["run_name"] == "fx"]
    assert (fx_rounds[fx_rounds["round_index"] > 0]["copied_from"] == 0).all()
    assert fx_rounds[fx_rounds["round_index"] == 0]["copied_from"].isna().all()
    assert (fx_rounds[fx_rounds["round_index"] > 0]["model_calls"] == 0).all()

    findings = findings_df([fx, one])
    sub = detail_args(TAX)["findings"][0]["subtype"]
    assert set(findings["subtype"]) == {sub}
    wide = findings[findings["run_name"] == "fx-model"]
    assert (wide["fraction"] == 0.6).all() and wide["penalty"].notna().all()
    assert findings[findings["run_name"] == "fx"]["support"].tolist() == [3, 3]

    calls = tool_calls_df([fx, one])
    assert set(calls["tool_name"]) == {"object_tree", "crop"}
    assert len(calls) == 2 * (6 + 2)  # two calls per judged round
    crop = calls[calls["tool_name"] == "crop"]
    assert (~crop["ok"]).all() and crop["error"].str.contains("invalid arguments").all()
    assert calls[calls["tool_name"] == "object_tree"]["ok"].all()
    assert json.loads(crop["arguments"].iloc[0]) == {"x": -1}


@pytest.mark.slow
def test_runs_df_and_a_rescored_results_file(two_runs) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    fx, _ = two_runs
    runs = runs_df(fx)
    assert runs.loc[0, "n_cases"] == 3 and runs.loc[0, "n_passed"] == 2
    assert json.loads(runs.loc[0, "settings"]) is not None
    out = CliRunner().invoke(app, ["rescore", str(fx), "--policy", "equal-weights"])
    assert out.exit_code == 0, out.output
    (name,) = [p.name for p in fx.glob("results.equal-weights.*.jsonl")]
    rescored = cases_df(fx, results=name)
    assert set(rescored["policy"]) == {"equal-weights"} and set(rescored["results_file"]) == {name}
    with pytest.raises(BenchmarkError, match="no such results file"):
        cases_df(fx, results="results.nope.jsonl")


def doc_code(path: Path) -> str:
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1
    return blocks[0]


@pytest.mark.slow
def test_the_worked_example_of_docs_analysis_runs(two_runs, tmp_path) -> None:
    fx, one = two_runs
    (tmp_path / "runs").mkdir()
    for run in (fx, one):
        shutil.copytree(run, tmp_path / "runs" / run.name)
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(out):
            namespace: dict[str, object] = {}
            exec(compile(doc_code(DOC), str(DOC), "exec"), namespace)  # noqa: S102
    finally:
        os.chdir(cwd)
    text = out.getvalue()
    table = namespace["table"]
    assert isinstance(table, pd.DataFrame)
    assert set(table.index) == {"empty", "good", "swapped"}
    assert table.loc["good", "change"] < 0 and table.loc["empty", "change"] == 0
    assert "2 of 3 cases changed score" in text and "gate changes: 0" in text
    assert "scores-by-judge.png" in text or "fx-model" in text
