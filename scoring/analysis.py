"""Runs as pandas DataFrames, for notebooks: one row per run, case, round, finding, tool call.

The shape follows inspect_ai's ``evals_df``/``samples_df``: every loader takes one run folder or
several, and every row carries the settings of its run (``run``, ``judge``, ``model``,
``rounds``, ``policy``, ``taxonomy_version``, ``taxonomy_hash``, ``results_file``), so frames of
several runs concatenate and group by configuration *and* judge setting::

    from scoring.analysis import cases_df
    df = cases_df(["runs/builtin", "runs/gpt4o"])
    df.groupby(["judge", "config_id"])["score"].mean()

Columns are typed with pandas' nullable dtypes (``string``, ``Int64``, ``Float64``,
``boolean``, ``category``): a missing score is ``<NA>``, never a float ``nan`` mixed with
numbers or an object column. Every loader returns the columns of its ``*_COLUMNS`` mapping in
that order, also when there are no rows.

``results`` selects the results file of a run: ``None`` reads ``results.jsonl``, a name such as
``results.equal-weights.1a2b3c4d.jsonl`` (written by ``judge rescore``) is looked up in each run
folder. The same reader (:func:`read_run`) serves the study commands (``judge leaderboard``,
``findings``, ``agree``, ``report``), so a notebook and the CLI see the same cases.

Round and tool-call frames read the case folders (``rounds/round-<k>.json`` and
``round-<k>.trajectory.jsonl``); they reflect what was judged, whatever results file is chosen.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from judge.errors import BenchmarkError
from judge.rundir import (
    RESULTS,
    RUN_MANIFEST,
    case_dir,
    check_schema_version,
    first_problem,
    read_results,
    resolve_results,
)
from judge.schema import CaseResult, RoundResult, RunManifest, TrajectoryEvent

RunsArg = str | Path | Sequence[str | Path]
"""One run folder, or several."""

RUN_COLUMNS: dict[str, str] = {
    "run": "string",
    "run_name": "string",
    "judge": "category",
    "model": "string",
    "rounds": "Int64",
    "policy": "category",
    "taxonomy_version": "string",
    "taxonomy_hash": "string",
    "results_file": "string",
}
"""The run settings every row carries (``run`` is the folder as given, ``run_name`` its last
part; ``policy`` and the taxonomy are those the results file was scored with)."""

RUNS_COLUMNS: dict[str, str] = {
    **RUN_COLUMNS,
    "created": "string",
    "package_version": "string",
    "bench": "string",
    "render_dpi": "Int64",
    "n_cases": "Int64",
    "n_errored": "Int64",
    "n_valid": "Int64",
    "n_passed": "Int64",
    "mean_score": "Float64",
    "model_calls": "Int64",
    "cost_usd": "Float64",
    "settings": "string",
}
"""One row per run: its settings, case counts, the mean score over scored cases, and the
backend settings as JSON (``settings``)."""

CASE_COLUMNS: dict[str, str] = {
    **RUN_COLUMNS,
    "case_id": "string",
    "task_id": "string",
    "config_id": "string",
    "valid": "boolean",
    "artifact_failures": "string",
    "gate": "category",
    "errored": "boolean",
    "error": "string",
    "score": "Float64",
    "layout": "Float64",
    "text": "Float64",
    "graphics": "Float64",
    "n_findings": "Int64",
    "votes_pass": "Int64",
    "votes_semantic": "Int64",
    "votes_render": "Int64",
    "votes_errored": "Int64",
    "votes_skipped": "Int64",
    "round_statuses": "string",
    "input_tokens": "Int64",
    "output_tokens": "Int64",
    "model_calls": "Int64",
    "tool_calls": "Int64",
    "cached_calls": "Int64",
    "cost_usd": "Float64",
    "generation_cost_usd": "Float64",
}
"""One row per case (a ``results`` line). Scores are points out of 100 (``<NA>`` when the case
errored); ``artifact_failures`` and ``round_statuses`` are ``;``-joined; usage sums the rounds."""

ROUND_COLUMNS: dict[str, str] = {
    **RUN_COLUMNS,
    "case_id": "string",
    "task_id": "string",
    "config_id": "string",
    "round_index": "Int64",
    "status": "category",
    "copied_from": "Int64",
    "semantic_passed": "boolean",
    "render_passed": "boolean",
    "n_reasons": "Int64",
    "n_findings": "Int64",
    "error": "string",
    "backend": "string",
    "seconds": "Float64",
    "input_tokens": "Int64",
    "output_tokens": "Int64",
    "model_calls": "Int64",
    "tool_calls": "Int64",
    "cached_calls": "Int64",
    "cost_usd": "Float64",
}
"""One row per round file (rounds are numbered from 0; ``copied_from`` is the round a
deterministic backend copied, ``<NA>`` for a judged round; ``semantic_passed``/``render_passed``
are ``<NA>`` when the stage was not reached)."""

FINDING_COLUMNS: dict[str, str] = {
    **RUN_COLUMNS,
    "case_id": "string",
    "task_id": "string",
    "config_id": "string",
    "gate": "category",
    "dimension": "category",
    "category": "string",
    "subtype": "string",
    "tier": "category",
    "fraction": "Float64",
    "multiplier": "Float64",
    "penalty": "Float64",
    "counted": "boolean",
    "support": "Int64",
    "support_rounds": "string",
    "n_observations": "Int64",
}
"""One row per merged finding of a case: ``fraction`` is the 0-1 affected fraction of its
category, ``support`` the number of passing rounds that reported it (``support_rounds`` their
indices, ``;``-joined); ``tier``/``multiplier``/``penalty``/``counted`` come from the case's
score breakdown (``<NA>`` when it has none)."""

TOOL_CALL_COLUMNS: dict[str, str] = {
    **RUN_COLUMNS,
    "case_id": "string",
    "task_id": "string",
    "config_id": "string",
    "round_index": "Int64",
    "stage": "category",
    "seq": "Int64",
    "t": "Float64",
    "tool_name": "string",
    "tool_call_id": "string",
    "arguments": "string",
    "ok": "boolean",
    "error": "string",
}
"""One row per measurement tool call of a trajectory (submits are verdicts, not tool calls):
``arguments`` as JSON, ``t`` seconds since the round started, ``ok`` False when the tool
answered with an error (``error`` holds it), ``<NA>`` when no result was recorded."""


@dataclass(frozen=True)
class RunRecords:
    """One run as read from disk: its folder, manifest, results file and cases."""

    path: Path
    manifest: RunManifest | None
    """``run.json``; None for a folder written without one (hand-made test runs)."""
    results_file: Path
    cases: list[CaseResult]


def read_manifest(run: Path) -> RunManifest | None:
    """``<run>/run.json``, or None when absent; a broken one is an error naming the file."""
    path = Path(run) / RUN_MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise BenchmarkError(f"{path}: not a run manifest: {first_problem(exc)}") from None
    check_schema_version(path, manifest.version)
    return manifest


def read_run(run: str | Path, results: str | Path | None = None) -> RunRecords:
    """Read a run folder with one of its results files (see the module docstring)."""
    folder, path = resolve_results(Path(run), results)
    return RunRecords(
        path=folder,
        manifest=read_manifest(folder),
        results_file=path,
        cases=read_results(folder, path),
    )


def read_runs(runs: RunsArg, results: str | Path | None = None) -> list[RunRecords]:
    """:func:`read_run` for each run folder (one or several)."""
    listed: Iterable[str | Path] = [runs] if isinstance(runs, str | Path) else runs
    out = [read_run(r, results) for r in listed]
    if not out:
        raise BenchmarkError("no run folder given")
    return out


def _run_fields(rec: RunRecords, case: CaseResult | None = None) -> dict[str, Any]:
    m = rec.manifest
    return {
        "run": str(rec.path),
        "run_name": rec.path.name,
        "judge": m.judge if m else None,
        "model": m.model if m else None,
        "rounds": m.rounds if m else None,
        "policy": case.policy if case else (m.policy.name if m else None),
        "taxonomy_version": case.taxonomy_version if case else (m.taxonomy_version if m else None),
        "taxonomy_hash": case.taxonomy_hash if case else (m.taxonomy_hash if m else None),
        "results_file": rec.results_file.name,
    }


def _frame(rows: list[dict[str, Any]], columns: dict[str, str]) -> pd.DataFrame:
    """Rows as a DataFrame with exactly ``columns``, in order, with their dtypes."""
    df = pd.DataFrame(rows, columns=list(columns))
    for name, dtype in columns.items():
        if dtype == "category":
            df[name] = df[name].astype("string").astype("category")
        else:
            df[name] = df[name].astype(dtype)
    return df


def _usage(u: Any) -> dict[str, Any]:
    return {
        "input_tokens": u.input_tokens,
        "output_tokens": u.output_tokens,
        "model_calls": u.model_calls,
        "tool_calls": u.tool_calls,
        "cached_calls": u.cached_calls,
        "cost_usd": u.cost_usd,
    }


def _is_errored(case: CaseResult) -> bool:
    return case.error is not None or case.gate is None


def runs_df(runs: RunsArg, results: str | Path | None = None) -> pd.DataFrame:
    """One row per run (see :data:`RUNS_COLUMNS`)."""
    rows = []
    for rec in read_runs(runs, results):
        m = rec.manifest
        scored = [c.score for c in rec.cases if c.score is not None and not _is_errored(c)]
        costs = [c.usage.cost_usd for c in rec.cases if c.usage.cost_usd is not None]
        rows.append(
            {
                **_run_fields(rec),
                "policy": rec.cases[0].policy if rec.cases else (m.policy.name if m else None),
                "created": m.created if m else None,
                "package_version": m.package_version if m else None,
                "bench": m.bench if m else None,
                "render_dpi": m.render_dpi if m else None,
                "n_cases": len(rec.cases),
                "n_errored": sum(1 for c in rec.cases if _is_errored(c)),
                "n_valid": sum(1 for c in rec.cases if c.valid),
                "n_passed": sum(1 for c in rec.cases if c.gate == "pass"),
                "mean_score": sum(scored) / len(scored) if scored else None,
                "model_calls": sum(c.usage.model_calls for c in rec.cases),
                "cost_usd": sum(costs) if costs else None,
                "settings": json.dumps(m.settings, sort_keys=True, default=str) if m else None,
            }
        )
    return _frame(rows, RUNS_COLUMNS)


def cases_df(runs: RunsArg, results: str | Path | None = None) -> pd.DataFrame:
    """One row per case of every run (see :data:`CASE_COLUMNS`)."""
    rows = []
    for rec in read_runs(runs, results):
        for c in rec.cases:
            votes = c.gate_votes
            rows.append(
                {
                    **_run_fields(rec, c),
                    "case_id": c.case_id,
                    "task_id": c.task_id,
                    "config_id": c.config_id,
                    "valid": c.valid,
                    "artifact_failures": ";".join(c.artifact_failures),
                    "gate": c.gate,
                    "errored": _is_errored(c),
                    "error": c.error,
                    "score": c.score,
                    "layout": c.layout,
                    "text": c.text,
                    "graphics": c.graphics,
                    "n_findings": len(c.findings),
                    "votes_pass": votes.get("pass", 0),
                    "votes_semantic": votes.get("semantic", 0),
                    "votes_render": votes.get("render", 0),
                    "votes_errored": votes.get("errored", 0),
                    "votes_skipped": votes.get("skipped", 0),
                    "round_statuses": ";".join(c.rounds),
                    **_usage(c.usage),
                    "generation_cost_usd": c.generation_cost_usd,
                }
            )
    return _frame(rows, CASE_COLUMNS)


def _round_files(rec: RunRecords, case: CaseResult) -> Iterator[tuple[int, Path]]:
    """``(k, rounds/round-<k>.json)`` of a case, in round order."""
    rounds = case_dir(rec.path, case.config_id, case.task_id).root / "rounds"
    found = []
    for path in rounds.glob("round-*.json"):
        index = path.stem.removeprefix("round-")
        if index.isdigit():
            found.append((int(index), path))
    yield from sorted(found)


def _read_round(path: Path) -> RoundResult:
    try:
        return RoundResult.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise BenchmarkError(f"{path}: not a round file: {first_problem(exc)}") from None


def _round_row(rec: RunRecords, c: CaseResult, r: RoundResult) -> dict[str, Any]:
    reasons = (r.semantic.reasons if r.semantic else []) + (r.render.reasons if r.render else [])
    return {
        **_run_fields(rec, c),
        "case_id": c.case_id,
        "task_id": c.task_id,
        "config_id": c.config_id,
        "round_index": r.round_index,
        "status": r.status,
        "copied_from": r.copied_from,
        "semantic_passed": r.semantic.passed if r.semantic else None,
        "render_passed": r.render.passed if r.render else None,
        "n_reasons": len(reasons),
        "n_findings": len(r.detail.findings) if r.detail else 0,
        "error": r.error,
        "backend": r.backend,
        "seconds": r.seconds,
        **_usage(r.usage),
    }


def rounds_df(runs: RunsArg, results: str | Path | None = None) -> pd.DataFrame:
    """One row per round file of every case (see :data:`ROUND_COLUMNS`)."""
    rows = [
        _round_row(rec, c, _read_round(path))
        for rec in read_runs(runs, results)
        for c in rec.cases
        for _, path in _round_files(rec, c)
    ]
    return _frame(rows, ROUND_COLUMNS)


def findings_df(runs: RunsArg, results: str | Path | None = None) -> pd.DataFrame:
    """One row per merged finding of every case (see :data:`FINDING_COLUMNS`)."""
    rows = []
    for rec in read_runs(runs, results):
        for c in rec.cases:
            penalties = {
                (p.dimension, p.category, p.subtype): p
                for p in (c.breakdown.penalties if c.breakdown else [])
            }
            for f in c.findings:
                p = penalties.get((f.dimension, f.category, f.subtype))
                rows.append(
                    {
                        **_run_fields(rec, c),
                        "case_id": c.case_id,
                        "task_id": c.task_id,
                        "config_id": c.config_id,
                        "gate": c.gate,
                        "dimension": f.dimension,
                        "category": f.category,
                        "subtype": f.subtype,
                        "tier": p.tier if p else None,
                        "fraction": f.fraction,
                        "multiplier": p.multiplier if p else None,
                        "penalty": p.penalty if p else None,
                        "counted": p.counted if p else None,
                        "support": len(f.support),
                        "support_rounds": ";".join(str(k) for k in f.support),
                        "n_observations": len(f.observations),
                    }
                )
    return _frame(rows, FINDING_COLUMNS)


def _events(path: Path) -> Iterator[TrajectoryEvent]:
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield TrajectoryEvent.model_validate_json(line)
            except ValueError as exc:
                raise BenchmarkError(
                    f"{path}:{lineno}: not a trajectory event: {first_problem(exc)}"
                ) from None


def _tool_error(result: Any) -> str | None:
    if isinstance(result, dict) and "error" in result:
        return str(result["error"])
    return None


def _tool_call_rows(rec: RunRecords, c: CaseResult, k: int, traj: Path) -> list[dict[str, Any]]:
    events = list(_events(traj))
    answers = {e.tool_call_id: e.result for e in events if e.kind == "tool_result"}
    rows = []
    for e in events:
        if e.kind != "tool_call":
            continue
        answered = e.tool_call_id is not None and e.tool_call_id in answers
        error = _tool_error(answers.get(e.tool_call_id)) if answered else None
        rows.append(
            {
                **_run_fields(rec, c),
                "case_id": c.case_id,
                "task_id": c.task_id,
                "config_id": c.config_id,
                "round_index": k,
                "stage": e.stage,
                "seq": e.seq,
                "t": e.t,
                "tool_name": e.tool_name,
                "tool_call_id": e.tool_call_id,
                "arguments": json.dumps(e.arguments or {}, sort_keys=True),
                "ok": (error is None) if answered else None,
                "error": error,
            }
        )
    return rows


def tool_calls_df(runs: RunsArg, results: str | Path | None = None) -> pd.DataFrame:
    """One row per measurement tool call in every trajectory (see :data:`TOOL_CALL_COLUMNS`)."""
    rows = []
    for rec in read_runs(runs, results):
        for c in rec.cases:
            for k, path in _round_files(rec, c):
                traj = path.with_name(f"round-{k}.trajectory.jsonl")
                if traj.is_file():
                    rows.extend(_tool_call_rows(rec, c, k, traj))
    return _frame(rows, TOOL_CALL_COLUMNS)


__all__ = [
    "CASE_COLUMNS",
    "FINDING_COLUMNS",
    "RESULTS",
    "ROUND_COLUMNS",
    "RUNS_COLUMNS",
    "RUN_COLUMNS",
    "TOOL_CALL_COLUMNS",
    "RunRecords",
    "cases_df",
    "findings_df",
    "read_manifest",
    "read_run",
    "read_runs",
    "rounds_df",
    "runs_df",
    "tool_calls_df",
]
