"""Rescoring reports: deltas over the cases both sides scored, one-sided cases listed, and
score/gate changes counted apart from dimension-split-only changes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from judge.rundir import read_results
from scoring.rescore import rescore_run
from taxonomy.loader import DEFAULT_TAXONOMY
from tests.test_rescore import build_run, make_round, write_case, write_run

runner = CliRunner()


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("deltas") / "run")


@pytest.fixture()
def run(frozen: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(frozen, tmp_path / "run"))


def _without_a_used_subtype(run: Path, out: Path) -> tuple[Path, str]:
    """The packaged taxonomy minus one subtype that some (not all) scored cases reported."""
    cases = [c for c in read_results(run) if c.score is not None]
    counts: dict[str, int] = {}
    for c in cases:
        for s in {f.subtype for f in c.findings}:
            counts[s] = counts.get(s, 0) + 1
    target = min(counts, key=lambda s: (counts[s], s))
    text = DEFAULT_TAXONOMY.read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines(keepends=True) if f"{{name: {target}," not in ln]
    assert len(lines) == len(text.splitlines()) - 1
    out.write_text("".join(lines).replace('version: "1.0.0"', 'version: "1.0.1-x"'))
    return out, target


def test_deltas_are_over_cases_both_sides_scored_and_one_sided_cases_are_listed(
    run: Path, tmp_path: Path
) -> None:
    tax, dropped = _without_a_used_subtype(run, tmp_path / "dropped.yaml")
    rep = rescore_run(run, tax)
    lost = {c.case_id for c in read_results(run) if dropped in {f.subtype for f in c.findings}}
    lost = {cid for cid in lost if next(r for r in rep.summaries if r.case_id == cid).score is None}
    assert lost, "dropping a reported subtype leaves some cases unscored"
    assert {line.split(":", 1)[0] for line in rep.one_sided} == lost
    old = {r.case_id: r for r in rep.recorded}
    for c in rep.configs:
        both: list[tuple[float, float]] = [
            (float(old[s.case_id].score or 0.0), float(s.score))
            for s in rep.summaries
            if s.config_id == c.config_id
            and s.score is not None
            and old[s.case_id].score is not None
        ]
        assert c.compared == len(both)
        assert c.mean_before == pytest.approx(sum(b for b, _ in both) / len(both))
        assert c.mean_after == pytest.approx(sum(a for _, a in both) / len(both))
    out = runner.invoke(app, ["rescore", str(run), "--taxonomy", str(tax)])
    assert out.exit_code == 0, out.output
    assert f"{len(lost)} cases scored on one side only, left out of the deltas below:" in out.output
    assert "(means over the cases scored on both sides)" in out.output
    assert "study it with: judge leaderboard" in out.output


def _with_clean_passes(run: Path) -> Path:
    """Add two passes without findings: 100 points either way, split 30/30/40 under the
    protocol and 33.3 each under equal weights (a split-only change)."""
    import random

    results = read_results(run)
    for task in ("t8", "t9"):
        rounds = [make_round(f"alpha/{task}", k, "pass", [], random.Random(k)) for k in range(3)]
        results.append(write_case(run, "alpha", task, rounds))
    return write_run(run, results)


def test_score_changes_are_counted_apart_from_split_only_changes(run: Path) -> None:
    _with_clean_passes(run)
    rep = rescore_run(run, None, ["equal-weights"])
    old = {r.case_id: r for r in rep.recorded}
    score = split = 0
    for new in rep.summaries:
        was = old[new.case_id]
        same_score = (was.gate, was.score, was.error is None) == (
            new.gate,
            new.score,
            new.error is None,
        )
        dims_differ = (was.layout, was.text, was.graphics) != (new.layout, new.text, new.graphics)
        score += not same_score
        split += same_score and dims_differ
    assert (rep.score_changed, rep.split_changed) == (score, split)
    assert split >= 2 and score > 0
    assert rep.changed == score + split
    out = runner.invoke(app, ["rescore", str(run), "--policy", "equal-weights"])
    match = re.search(r"; (\d+) of (\d+) cases changed score or gate", out.output)
    assert match and int(match.group(1)) == score
    assert f"; {split} more changed only their layout/text/graphics split" in out.output
