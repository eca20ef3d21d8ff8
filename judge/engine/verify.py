"""Replay verification: ``judge replay`` re-executes a judged case from its recorded files.

:func:`replay_case` reads a case folder written by ``judge run``, feeds each recorded round's
model answers back through the round graph (:class:`judge.backends.replay.ReplayBackend`), so the
tools run again on the same inputs, and compares: every tool result with the recorded one, the
round's status and verdicts, then the case result re-scored from the replayed rounds. Nothing in
the case folder changes (the replayed rounds are written to a temporary folder).

The steps, in order: refuse a folder with nothing to replay, read the run's manifest and choose
the taxonomy and policy, read the recording, replay each wanted round, re-score.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.backends.replay import ReplayBackend
from judge.engine.executors import LazyPool
from judge.engine.graph import CaseRuntime, make_context, run_round
from judge.engine.runner import DEFAULT_RENDER_TIMEOUT_S
from judge.engine.trajectory import read_trajectory
from judge.errors import BenchmarkError
from judge.render.pool import DEFAULT_DPI
from judge.rundir import RUN_MANIFEST, CaseDir, check_schema_version, first_problem
from judge.schema import (
    ArtifactReport,
    Candidate,
    CaseResult,
    PairGeometry,
    Policy,
    RoundResult,
    Rubric,
    RunManifest,
    Taxonomy,
    TrajectoryEvent,
)
from judge.tools import TOOLS
from judge.tools.base import ToolContext
from judge.tools.python import judge_tools

VERDICT_FIELDS = ("status", "semantic", "render", "detail", "rubric")
"""Round fields compared between the recording and the replay."""
CASE_FIELDS = ("gate", "score", "layout", "text", "graphics", "findings", "rounds")
"""Case result fields that must be reproduced."""


@dataclass
class ToolDiff:
    """A tool result that differs between the recording and the replay."""

    round_index: int
    stage: str
    tool_name: str
    call_index: int
    """Index of the call among the round's tool results."""
    recorded: Any
    """``{"result": ..., "images": [...]}`` as recorded; None when the replay made a call the
    recording never made."""
    replayed: Any
    """The same for the replay; None when the replay never made the recorded call."""

    @property
    def changes(self) -> list[str]:
        """What differs, one line per JSON path (``result.frames[5].overflow: false -> true``),
        or one line saying which side never made the call."""
        if self.replayed is None:
            return ["the replay never made this call (recorded only)"]
        if self.recorded is None:
            return ["the recording never made this call (replay only)"]
        return json_changes(self.recorded, self.replayed)


@dataclass
class ReplayReport:
    case_dir: Path
    rounds: list[int]
    tool_diffs: list[ToolDiff]
    verdict_diffs: list[str]
    """One line per round whose status or verdicts differ."""
    recorded: CaseResult | None
    replayed: CaseResult

    @property
    def reproduced(self) -> bool:
        if self.tool_diffs or self.verdict_diffs:
            return False
        if self.recorded is None:
            return True
        return all(getattr(self.recorded, k) == getattr(self.replayed, k) for k in CASE_FIELDS)


@dataclass
class _Scoring:
    """The taxonomy, policy and round count the case is re-scored under."""

    tax: Taxonomy
    tax_hash: str
    policy: Policy
    total: int
    """Rounds the run judged per case."""
    rubric: Rubric | None = None
    """A ReFigBench run's rubric (its copy in the run folder): rubric rounds, rubric scoring."""
    rubric_hash: str = ""


@dataclass
class _Recording:
    """What the judged case folder holds."""

    cd: CaseDir
    report: ArtifactReport
    pair: PairGeometry
    case: CaseResult | None
    """``case.json`` (None when the run stopped before scoring the case)."""
    rounds: dict[int, RoundResult]
    """Recorded rounds by index."""
    candidate: Candidate


def replay_case(
    case_root: Path,
    round_index: int | None = None,
    taxonomy_path: Path | None = None,
    policy: Policy | None = None,
    render_pool: Any = None,
) -> ReplayReport:
    """Re-execute a case's recorded rounds: tools run again, verdicts are re-derived, the case
    is re-scored. Nothing in the case folder is changed. LibreOffice starts only if a tool
    needs it (the SVG export of text fit); ``render_pool`` may provide a running pool."""
    pool = LazyPool(1, DEFAULT_RENDER_TIMEOUT_S, DEFAULT_DPI, render_pool)
    try:
        return _replay_case(CaseDir(Path(case_root)), round_index, taxonomy_path, policy, pool)
    finally:
        pool.close()


def _replay_case(
    cd: CaseDir,
    round_index: int | None,
    taxonomy_path: Path | None,
    policy: Policy | None,
    pool: LazyPool,
) -> ReplayReport:
    from scoring.case import build_case_result

    _refuse_unjudged(cd)
    scoring = _scoring(cd, taxonomy_path, policy)
    rec = _read_recording(cd, scoring.total)
    wanted = [round_index] if round_index is not None else list(range(scoring.total))
    for k in wanted:
        if k not in rec.rounds:
            raise BenchmarkError(f"{cd.round_json(k)}: round {k} was not recorded")
    ctx = make_context(rec.candidate, cd, rec.pair, export_svg=pool.export_svg)
    tool_diffs: list[ToolDiff] = []
    verdict_diffs: list[str] = []
    replayed_rounds = dict(rec.rounds)
    with tempfile.TemporaryDirectory(prefix="pptjudge-replay-") as tmp:
        for k in wanted:
            old = rec.rounds[k]
            if old.status == "skipped" or not cd.trajectory(k).is_file():
                continue
            scratch = CaseDir(Path(tmp) / f"round-{k}")
            new = _replay_round(rec, k, ctx, scoring, scratch)
            tool_diffs += _tool_diffs(
                k, read_trajectory(cd.trajectory(k)), read_trajectory(scratch.trajectory(k))
            )
            verdict_diffs += _verdict_diffs(k, old, new)
            replayed_rounds[k] = new.model_copy(update={"usage": old.usage})
    ordered = [replayed_rounds[k] for k in sorted(replayed_rounds)]
    if scoring.rubric is not None:
        from scoring.refigbench import refig_case_result

        replayed = refig_case_result(
            rec.candidate, rec.report, ordered, scoring.rubric, scoring.rubric_hash
        )
    else:
        replayed = build_case_result(
            rec.candidate, rec.report, ordered, scoring.tax, scoring.tax_hash, scoring.policy
        )
    return ReplayReport(
        case_dir=cd.root,
        rounds=wanted,
        tool_diffs=tool_diffs,
        verdict_diffs=verdict_diffs,
        recorded=rec.case,
        replayed=replayed,
    )


def _refuse_unjudged(cd: CaseDir) -> None:
    """Raise :class:`BenchmarkError` for a folder with no judged rounds to replay."""
    if cd.stage0.is_file() and not cd.pair_json.is_file():
        try:
            stage0 = ArtifactReport.model_validate_json(cd.stage0.read_text(encoding="utf-8"))
        except ValueError:
            stage0 = None
        if stage0 is not None and not stage0.valid:
            failed = [c.name for c in stage0.checks if not c.passed and not c.skipped]
            raise BenchmarkError(
                f"{cd.root}: the candidate is invalid at Stage 0 ({', '.join(failed)}): "
                "no rounds were judged, nothing to replay"
            )
    if not cd.pair_json.is_file() or not cd.stage0.is_file():
        raise BenchmarkError(f"{cd.root}: not a judged case folder (no stage0.json / pair.json)")


def _run_manifest(run_dir: Path) -> RunManifest | None:
    """The ``run.json`` of the run holding the case (None when the folder was moved alone)."""
    path = run_dir / RUN_MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = RunManifest.model_validate_json(path.read_text())
    except ValueError as exc:
        raise BenchmarkError(f"{path}: not a run manifest: {first_problem(exc)}") from None
    check_schema_version(path, manifest.version)
    return manifest


def _scoring(cd: CaseDir, taxonomy_path: Path | None, policy: Policy | None) -> _Scoring:
    """The run's own taxonomy and policy unless the caller gives others."""
    from taxonomy.loader import load_taxonomy, taxonomy_hash

    run_dir = cd.root.parent.parent.parent
    manifest = _run_manifest(run_dir)
    if taxonomy_path is None and manifest is not None:
        # the taxonomy the run was scored with (its copy in the run folder), not whatever the
        # packaged file says today
        from scoring.rescore import original_taxonomy

        tax, _ = original_taxonomy(run_dir, manifest)
        tax_hash = manifest.taxonomy_hash
    else:
        tax = load_taxonomy(taxonomy_path)
        tax_hash = taxonomy_hash(tax)
    policy = policy or (manifest.policy if manifest else Policy())
    total = manifest.rounds if manifest else len(list(cd.rounds_dir.glob("round-*.json")))
    rubric, digest = None, ""
    if manifest is not None and manifest.protocol == "refigbench":
        from judge.engine.protocol import run_rubric
        from judge.rundir import RUN_RUBRIC

        copy = run_dir / RUN_RUBRIC
        path = copy if copy.is_file() else Path(manifest.rubric_path or "")
        rubric, digest = run_rubric("refigbench", path)
    return _Scoring(tax, tax_hash, policy, total, rubric, digest)


def _read_recording(cd: CaseDir, total: int) -> _Recording:
    """The recorded Stage 0 report, pair, case result and rounds; the inputs must be reachable."""
    report = ArtifactReport.model_validate_json(cd.stage0.read_text(encoding="utf-8"))
    pair = PairGeometry.model_validate_json(cd.pair_json.read_text(encoding="utf-8"))
    recorded_case = None
    if cd.case_json.is_file():
        recorded_case = CaseResult.model_validate_json(cd.case_json.read_text(encoding="utf-8"))
    for recorded_path in (report.path, pair.reference_image):
        if not Path(recorded_path).is_file():
            raise BenchmarkError(
                f"{cd.root}: {recorded_path} (recorded by the run) is not found from "
                f"{Path.cwd()}; start the replay where the run was started"
            )
    case_id = recorded_case.case_id if recorded_case else f"{cd.root.parent.name}/{cd.root.name}"
    config_id, task_id = case_id.split("/", 1)
    candidate = Candidate(
        case_id=case_id,
        task_id=task_id,
        config_id=config_id,
        pptx=report.path,
        reference=pair.reference_image,
    )
    rounds: dict[int, RoundResult] = {}
    for k in range(total):
        if cd.round_json(k).is_file():
            rounds[k] = RoundResult.model_validate_json(cd.round_json(k).read_text())
    return _Recording(cd, report, pair, recorded_case, rounds, candidate)


def _replay_round(
    rec: _Recording, k: int, ctx: ToolContext, scoring: _Scoring, scratch: CaseDir
) -> RoundResult:
    """Round ``k`` judged again from its recorded answers, written under ``scratch``."""
    rt = CaseRuntime(
        candidate=rec.candidate,
        case_dir=scratch,
        backend=ReplayBackend(rec.cd.trajectory(k)),
        taxonomy=scoring.tax,
        taxonomy_hash=scoring.tax_hash,
        policy=scoring.policy,
        tools=judge_tools(TOOLS, sandbox=True),  # recorded run_python scripts run again
        protocol="refigbench" if scoring.rubric is not None else "pptbench",
        rubric=scoring.rubric,
        rubric_hash=scoring.rubric_hash,
        audit=rec.report.audit,
    )
    rt.ctx = ctx
    return run_round(rt, k)


def _tool_results(events: list[TrajectoryEvent]) -> list[TrajectoryEvent]:
    return [e for e in events if e.kind == "tool_result"]


def _tool_diffs(
    k: int, recorded: list[TrajectoryEvent], replayed: list[TrajectoryEvent]
) -> list[ToolDiff]:
    """The tool results of round ``k`` that differ (or exist on one side only), call by call."""
    old_events, new_events = _tool_results(recorded), _tool_results(replayed)
    diffs: list[ToolDiff] = []
    for i in range(max(len(old_events), len(new_events))):
        a = old_events[i] if i < len(old_events) else None
        b = new_events[i] if i < len(new_events) else None
        if a is not None and b is not None and (a.result, a.images) == (b.result, b.images):
            continue
        ref = a or b
        assert ref is not None
        diffs.append(
            ToolDiff(
                round_index=k,
                stage=ref.stage,
                tool_name=ref.tool_name or "",
                call_index=i,
                recorded=None if a is None else {"result": a.result, "images": a.images},
                replayed=None if b is None else {"result": b.result, "images": b.images},
            )
        )
    return diffs


MISSING = object()
"""A key or list item present on one side only."""


def _show(value: Any, limit: int = 80) -> str:
    if value is MISSING:
        return "(absent)"
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_changes(a: Any, b: Any, path: str = "") -> list[str]:
    """Every leaf where two JSON values differ, as ``path: old -> new`` (paths like
    ``result.frames[5].overflow``; a key or item on one side only shows as ``(absent)``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in [*a, *(k for k in b if k not in a)]:
            sub = f"{path}.{key}" if path else str(key)
            out.extend(json_changes(a.get(key, MISSING), b.get(key, MISSING), sub))
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = []
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else MISSING
            y = b[i] if i < len(b) else MISSING
            out.extend(json_changes(x, y, f"{path}[{i}]"))
        return out
    if a is not MISSING and b is not MISSING and a == b:
        return []
    return [f"{path or '(value)'}: {_show(a)} -> {_show(b)}"]


def _verdict_diffs(k: int, recorded: RoundResult, replayed: RoundResult) -> list[str]:
    """One line per round field (status, verdicts) the replay does not reproduce."""
    return [
        f"round {k}: {name} was {_short(getattr(recorded, name))}, "
        f"replay gives {_short(getattr(replayed, name))}"
        for name in VERDICT_FIELDS
        if getattr(recorded, name) != getattr(replayed, name)
    ]


def _short(value: object, limit: int = 160) -> str:
    text = value.model_dump_json() if hasattr(value, "model_dump_json") else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
