"""Rescore a finished run from its frozen files, under its own or another taxonomy and policy.

No model is called and nothing is rendered: for every case listed in ``results.jsonl`` the
rescorer reads ``stage0.json`` and ``rounds/round-<k>.json`` (k < the run's round count) and
rebuilds the results line with :func:`scoring.case.build_case_result`.

* **Identity** (no ``--taxonomy``, or one whose content hash equals the run's, and a policy with
  the run's settings): every rebuilt score must equal the recorded one exactly; differences are
  reported as mismatches and nothing is written.
* **Any other configuration**: the new lines go to ``results.<policy>.<hash8>.jsonl`` beside
  ``results.jsonl`` (which is never touched), and the report gives per-configuration mean S
  before and after and Kendall's tau between the two configuration rankings.

Frozen-file rules: a round file that does not exist counts as ``skipped`` (never judged; the
engine writes every round it judges). A case recorded with an error and no round files (it
failed before judging) keeps its recorded error. A missing ``stage0.json`` means Stage 0 left
no report; the recorded rounds are then scored as judged. An unreadable file makes that case an
error and the batch goes on.

The original taxonomy is ``<run>/taxonomy.yaml`` when the run kept a copy, else the
``taxonomy_path`` of ``run.json``; either must still hash to the run's recorded hash.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pydantic import ValidationError
from scipy.stats import kendalltau

from judge.errors import BenchmarkError, TaxonomyError
from judge.rundir import (
    CASES,
    RESULTS,
    RUN_MANIFEST,
    RUN_RUBRIC,
    RUN_TAXONOMY,
    atomic_write_text,
    case_dir,
    check_schema_version,
)
from judge.schema import (
    ArtifactReport,
    CaseGate,
    CaseResult,
    Policy,
    RecordedCase,
    RoundResult,
    Rubric,
    RunManifest,
    Taxonomy,
)
from scoring.case import build_case_result
from scoring.policy import resolve_policy, same_settings
from scoring.refigbench import refig_case_result
from taxonomy.loader import DEFAULT_TAXONOMY, load_taxonomy, taxonomy_hash

HASH_PREFIX_CHARS = 8
"""Characters of the taxonomy hash in a rescored results file name (enough to tell variants
apart in one run folder)."""


def read_recorded(run: Path) -> list[RecordedCase]:
    """The run's recorded results (last line per case wins, as resumed runs append)."""
    path = run / RESULTS
    if not path.is_file():
        raise BenchmarkError(f"{path}: no results.jsonl (is {run} a run directory?)")
    by_case: dict[str, RecordedCase] = {}
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = RecordedCase.model_validate_json(line)
            except ValidationError as exc:
                raise BenchmarkError(
                    f"{path}:{lineno}: not a results line: {_short(exc)}"
                ) from None
            by_case[rec.case_id] = rec
    return list(by_case.values())


class CaseSummary(NamedTuple):
    """What the report needs of one rescored case (cheap to send back from a worker)."""

    case_id: str
    config_id: str
    gate: CaseGate | None
    score: float | None
    layout: float | None
    text: float | None
    graphics: float | None
    error: str | None

    @classmethod
    def of(cls, r: CaseResult) -> CaseSummary:
        return cls(r.case_id, r.config_id, r.gate, r.score, r.layout, r.text, r.graphics, r.error)


@dataclass
class ConfigShift:
    """Mean S of one configuration before and after rescoring, over the cases both sides
    scored (a case scored on one side only would make the delta a change of case mix)."""

    config_id: str
    cases: int
    scored_before: int
    scored_after: int
    mean_before: float | None
    """Mean recorded S of the ``compared`` cases."""
    mean_after: float | None
    """Mean rescored S of the same cases."""
    compared: int = 0
    """Cases with a score on both sides (the means' cases)."""

    @property
    def delta(self) -> float | None:
        if self.mean_before is None or self.mean_after is None:
            return None
        return self.mean_after - self.mean_before


@dataclass
class RescoreReport:
    """What :func:`rescore_run` did and what moved."""

    run: Path
    taxonomy_source: str
    """The taxonomy file used (or a note that the run's original was used)."""
    taxonomy_version: str
    taxonomy_hash: str
    recorded_taxonomy_hash: str
    policy: Policy
    recorded_policy: Policy
    identity: bool
    """True when taxonomy and policy equal the run's: then scores must reproduce exactly."""
    summaries: list[CaseSummary] = field(default_factory=list)
    """The rescored cases' outcomes, in ``results.jsonl`` order."""
    lines: list[str] = field(default_factory=list)
    """The rescored results as JSON lines (what the rescored results file holds)."""
    recorded: list[RecordedCase] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    """Identity only: cases whose rebuilt result differs from the recorded one."""
    changed: int = 0
    """Cases whose result differs from the recorded one (``score_changed + split_changed``)."""
    score_changed: int = 0
    """Cases whose score, gate or scored/errored state differs."""
    split_changed: int = 0
    """Cases with the same gate and score whose layout/text/graphics split differs."""
    one_sided: list[str] = field(default_factory=list)
    """Cases scored on one side only, left out of :attr:`configs`' deltas."""
    errors: list[str] = field(default_factory=list)
    """``case_id: error`` for every rescored case that could not be scored."""
    configs: list[ConfigShift] = field(default_factory=list)
    kendall_tau: float | None = None
    """Kendall's tau between the configuration rankings by mean S before and after; None with
    fewer than two configurations or a constant ranking."""
    output: Path | None = None
    """The rescored results file (None for identity rescoring)."""
    seconds: float = 0.0

    @property
    def results(self) -> list[CaseResult]:
        """The rescored results in full (parsed from :attr:`lines` on each access)."""
        return [CaseResult.model_validate_json(line) for line in self.lines]


def _read_manifest(run: Path) -> RunManifest:
    path = run / RUN_MANIFEST
    try:
        manifest = RunManifest.model_validate_json(path.read_bytes())
        check_schema_version(path, manifest.version)
        return manifest
    except FileNotFoundError:
        raise BenchmarkError(f"{path}: no run.json (is {run} a run directory?)") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BenchmarkError(f"{path}: not a run manifest: {where}: {first['msg']}") from None


def original_taxonomy(run: Path, manifest: RunManifest) -> tuple[Taxonomy, str]:
    """The taxonomy the run was scored with, and where it was found.

    Raises :class:`TaxonomyError` when neither the run's copy nor ``taxonomy_path`` hashes to
    the run's recorded ``taxonomy_hash`` (the file was edited since).
    """
    candidates: list[Path] = []
    if (run / RUN_TAXONOMY).is_file():
        candidates.append(run / RUN_TAXONOMY)
    if manifest.taxonomy_path:
        p = Path(manifest.taxonomy_path)
        candidates.append(p if p.is_absolute() else run / p)
        if not p.is_absolute():
            candidates.append(p)
    else:
        candidates.append(DEFAULT_TAXONOMY)
    tried: list[str] = []
    for path in candidates:
        if not path.is_file():
            tried.append(f"{path} (missing)")
            continue
        tax = load_taxonomy(path)
        h = taxonomy_hash(tax)
        if h == manifest.taxonomy_hash:
            return tax, str(path)
        tried.append(f"{path} (hash {h[:HASH_PREFIX_CHARS]})")
    raise TaxonomyError(
        f"{run / RUN_MANIFEST}: the run was scored with taxonomy hash "
        f"{manifest.taxonomy_hash[:HASH_PREFIX_CHARS]}, but none of its files match: "
        f"{'; '.join(tried)}; pass --taxonomy FILE to rescore under a given file"
    )


def _file_names(n_rounds: int) -> tuple[str, list[str]]:
    """The Stage 0 and round file names relative to a case folder, from :mod:`judge.rundir`."""
    proto = case_dir(Path("run"), "config", "task")
    stage0 = str(proto.stage0.relative_to(proto.root))
    return stage0, [str(proto.round_json(k).relative_to(proto.root)) for k in range(n_rounds)]


READ_CHUNK = 1 << 20
"""Bytes per read() call; frozen verdict files are a few KB, so one call reads them whole."""


def _read_bytes(path: str) -> bytes:
    """A whole file, with fewer system calls than ``open().read()`` (no fstat, no buffer).

    A short read of a regular file means end of file, so small files take one read() call.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, READ_CHUNK)
            chunks.append(chunk)
            if len(chunk) < READ_CHUNK:
                return b"".join(chunks)
    finally:
        os.close(fd)


def _read_case(
    run: Path, recorded: RecordedCase, names: tuple[str, list[str]]
) -> tuple[ArtifactReport | None, list[RoundResult], str | None]:
    """Stage 0 report, round results and a read error (if any) of one recorded case.

    ``names`` comes from :func:`_file_names`; paths are joined as strings because pathlib
    parsing was a fifth of the time of rescoring a large run.
    """
    # The layout of judge.rundir.case_dir, joined as strings (the tests read runs written
    # through case_dir, so a layout change there fails them).
    root = os.path.join(run, CASES, recorded.config_id, recorded.task_id)
    stage0_name, round_names = names
    stage0_path = os.path.join(root, stage0_name)
    report: ArtifactReport | None = None
    try:
        report = ArtifactReport.model_validate_json(_read_bytes(stage0_path))
    except FileNotFoundError:
        report = None
    except (ValidationError, OSError) as exc:
        return None, [], f"cannot read {stage0_path}: {_short(exc)}"
    rounds: list[RoundResult] = []
    found = 0
    for k, name in enumerate(round_names):
        path = os.path.join(root, name)
        try:
            data = _read_bytes(path)
        except FileNotFoundError:
            rounds.append(RoundResult(case_id=recorded.case_id, round_index=k, status="skipped"))
            continue
        except OSError as exc:
            return report, [], f"cannot read {path}: {_short(exc)}"
        try:
            rnd = RoundResult.model_validate_json(data)
        except ValidationError as exc:
            return report, [], f"cannot read {path}: {_short(exc)}"
        if rnd.round_index != k or rnd.case_id != recorded.case_id:
            wrong = f"holds round {rnd.round_index} of {rnd.case_id!r}"
            return report, [], f"{path}: {wrong}, expected round {k} of {recorded.case_id!r}"
        rounds.append(rnd)
        found += 1
    if found == 0:
        # Nothing was judged: the recorded outcome (an error before judging, or an invalid
        # artifact) is all there is.
        return report, [], recorded.error if recorded.error else None
    return report, rounds, None


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        e = exc.errors()[0]
        return f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
    return str(exc)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _differs(a: RecordedCase, b: CaseSummary) -> bool:
    return (a.gate, a.score, a.layout, a.text, a.graphics, a.error is None) != (
        b.gate,
        b.score,
        b.layout,
        b.text,
        b.graphics,
        b.error is None,
    )


def _describe(r: RecordedCase | CaseSummary) -> str:
    if r.error is not None:
        return f"error ({r.error})"
    return (
        f"gate {r.gate}, S {r.score!r} (layout {r.layout!r}, text {r.text!r}, "
        f"graphics {r.graphics!r})"
    )


def config_shifts(
    before: Sequence[RecordedCase | CaseSummary], after: Sequence[RecordedCase | CaseSummary]
) -> list[ConfigShift]:
    """Per-configuration mean S before and after, over the cases both sides scored."""
    cases: dict[str, set[str]] = defaultdict(set)
    scored: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for side, rows in enumerate((before, after)):
        for r in rows:
            if side == 0:
                cases[r.config_id].add(r.case_id)
            if r.score is not None:
                scored[(r.config_id, side)][r.case_id] = r.score
    configs = sorted(set(cases) | {c for c, _ in scored})
    out = []
    for cid in configs:
        b, a = scored[(cid, 0)], scored[(cid, 1)]
        both = [k for k in b if k in a]
        out.append(
            ConfigShift(
                cid,
                len(cases[cid]),
                len(b),
                len(a),
                _mean([b[k] for k in both]),
                _mean([a[k] for k in both]),
                compared=len(both),
            )
        )
    return out


def one_sided(
    before: Sequence[RecordedCase | CaseSummary], after: Sequence[RecordedCase | CaseSummary]
) -> list[str]:
    """Cases scored on one side only (left out of the deltas), one line each."""
    old = {r.case_id: r for r in before}
    lines = []
    for new in after:
        was = old.get(new.case_id)
        if was is None or (was.score is None) == (new.score is None):
            continue
        if new.score is None:
            lines.append(f"{new.case_id}: scored {was.score:.2f} before, not now: {new.error}")
        else:
            lines.append(f"{new.case_id}: not scored before ({was.error}), now {new.score:.2f}")
    return lines


def ranking_tau(shifts: list[ConfigShift]) -> float | None:
    """Kendall's tau between the mean-S rankings before and after; None when undefined."""
    pairs = [
        (s.mean_before, s.mean_after)
        for s in shifts
        if s.mean_before is not None and s.mean_after is not None
    ]
    before = [p[0] for p in pairs]
    after = [p[1] for p in pairs]
    if len(pairs) < 2 or len(set(before)) < 2 or len(set(after)) < 2:
        return None
    tau = float(kendalltau(before, after).statistic)
    return None if math.isnan(tau) else tau


def rescored_path(run: Path, policy: Policy, tax_hash: str) -> Path:
    """``<run>/results.<policy>.<hash8>.jsonl``."""
    return run / f"results.{policy.name}.{tax_hash[:HASH_PREFIX_CHARS]}.jsonl"


PARALLEL_MIN_CASES = 2000
"""Runs with fewer cases are rescored in-process: forking workers costs more than it saves."""

SLICES_PER_WORKER = 4
"""Each worker gets several contiguous slices of the cases so uneven slices balance out."""


@dataclass(frozen=True)
class _Job:
    """Everything a worker needs; set as a module global before forking (never pickled)."""

    run: Path
    recorded: list[RecordedCase]
    names: tuple[str, list[str]]
    tax: Taxonomy
    tax_hash: str
    policy: Policy
    rubric: Rubric | None = None
    """A ReFigBench run's rubric: its cases are rescored by :mod:`scoring.refigbench`."""
    rubric_hash: str = ""


_JOB: _Job | None = None


def _rescore_case(job: _Job, old: RecordedCase) -> CaseResult:
    stage0, rounds, read_error = _read_case(job.run, old, job.names)
    if job.rubric is not None:
        new = refig_case_result(old, stage0, rounds, job.rubric, job.rubric_hash, read_error)
        new.usage, new.generation_cost_usd = old.usage, old.generation_cost_usd
        new.fidelity, new.complexity = old.fidelity, old.complexity
        return new
    new = build_case_result(old, stage0, rounds, job.tax, job.tax_hash, job.policy, read_error)
    new.audit = stage0.audit if stage0 is not None else None
    new.fidelity, new.complexity = old.fidelity, old.complexity
    if stage0 is None and not rounds:
        # No Stage 0 report and nothing judged: keep what was recorded about the artifact.
        new.valid = old.valid
        new.artifact_failures = list(old.artifact_failures)
        if old.gate == "artifact":
            new.gate, new.error = "artifact", None
            new.score = new.layout = new.text = new.graphics = 0.0
    new.usage = old.usage
    new.generation_cost_usd = old.generation_cost_usd
    return new


def _rescore_slice(bounds: tuple[int, int]) -> tuple[list[CaseSummary], list[str]]:
    """Rescore ``recorded[a:b]`` of the current job (in a forked worker or in-process).

    Returns summaries and JSON lines rather than models: sending 18,000 nested pydantic models
    back from a worker costs more (unpickling) than scoring them.
    """
    job = _JOB
    if job is None:
        raise RuntimeError("no rescoring job is set")
    summaries, lines = [], []
    # The loop allocates tens of small objects per case and frees them at once (no cycles):
    # the cyclic garbage collector would rescan the live run data thousands of times, which
    # measured as 40% of the scoring time. It is paused for the loop and restored after.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for old in job.recorded[bounds[0] : bounds[1]]:
            new = _rescore_case(job, old)
            summaries.append(CaseSummary.of(new))
            lines.append(new.model_dump_json() + "\n")
    finally:
        if was_enabled:
            gc.enable()
    return summaries, lines


def _run_job(job: _Job, workers: int) -> tuple[list[CaseSummary], list[str]]:
    """Rescore every case of ``job``, in forked worker processes when it pays off."""
    global _JOB
    n = len(job.recorded)
    can_fork = "fork" in multiprocessing.get_all_start_methods()
    _JOB = job
    try:
        if workers <= 1 or n < PARALLEL_MIN_CASES or not can_fork:
            return _rescore_slice((0, n))
        n_slices = workers * SLICES_PER_WORKER
        bounds = [(n * i // n_slices, n * (i + 1) // n_slices) for i in range(n_slices)]
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_rescore_slice, bounds)
        summaries = [r for part in parts for r in part[0]]
        lines = [x for part in parts for x in part[1]]
        return summaries, lines
    finally:
        _JOB = None


def _refig_job(
    job: _Job, manifest: RunManifest, taxonomy: Path | None, policies: list[str] | None
) -> _Job:
    """A ReFigBench run is rescored under its own rubric (the copy kept in the run)."""
    from dataclasses import replace

    from taxonomy.rubric import load_rubric, rubric_hash

    if taxonomy is not None or policies:
        raise BenchmarkError(
            f"{job.run}: a ReFigBench run is scored by its rubric, not a taxonomy or policy; "
            "rescore it without --taxonomy/--policy"
        )
    copy = job.run / RUN_RUBRIC
    rubric = load_rubric(copy if copy.is_file() else manifest.rubric_path)
    return replace(job, rubric=rubric, rubric_hash=rubric_hash(rubric))


def default_workers() -> int:
    """Worker processes for rescoring: one per CPU core."""
    return os.cpu_count() or 1


def rescore_run(
    run: Path,
    taxonomy: Path | None = None,
    policies: list[str] | None = None,
    workers: int | None = None,
) -> RescoreReport:
    """Recompute every case of a finished run from its frozen files (see the module docstring).

    ``taxonomy`` None uses the run's own taxonomy; ``policies`` (preset names, combined) empty
    or None uses the run's policy; ``workers`` processes share the cases (default: one per core;
    runs under :data:`PARALLEL_MIN_CASES` cases stay in-process). Raises
    :class:`BenchmarkError` or :class:`TaxonomyError` when the run or taxonomy cannot be read;
    per-case problems land in ``errors``.
    """
    start = time.perf_counter()
    run = Path(run)
    manifest = _read_manifest(run)
    recorded = read_recorded(run)
    if taxonomy is None:
        tax, source = original_taxonomy(run, manifest)
    else:
        tax, source = load_taxonomy(taxonomy), str(taxonomy)
    tax_hash = taxonomy_hash(tax)
    policy = resolve_policy(policies) if policies else manifest.policy
    identity = tax_hash == manifest.taxonomy_hash and same_settings(policy, manifest.policy)

    report = RescoreReport(
        run=run,
        taxonomy_source=source,
        taxonomy_version=tax.version,
        taxonomy_hash=tax_hash,
        recorded_taxonomy_hash=manifest.taxonomy_hash,
        policy=policy,
        recorded_policy=manifest.policy,
        identity=identity,
        recorded=recorded,
    )
    tax.subtypes()  # build the lookup before forking, so workers inherit it
    job = _Job(run, recorded, _file_names(manifest.rounds), tax, tax_hash, policy)
    if manifest.protocol == "refigbench":
        job = _refig_job(job, manifest, taxonomy, policies)
        report.identity = True
        rubric_version = job.rubric.version if job.rubric is not None else "?"
        report.taxonomy_source = f"{run / RUN_RUBRIC} (ReFigBench rubric {rubric_version})"
    report.summaries, report.lines = _run_job(
        job, default_workers() if workers is None else workers
    )
    for old, new in zip(recorded, report.summaries, strict=True):
        if new.error is not None:
            report.errors.append(f"{new.case_id}: {new.error}")
        if _differs(old, new):
            report.changed += 1
            if (old.gate, old.score, old.error is None) == (new.gate, new.score, new.error is None):
                report.split_changed += 1
            else:
                report.score_changed += 1
            if identity:
                report.mismatches.append(
                    f"{old.case_id}: recorded {_describe(old)}; rescored {_describe(new)}"
                )
    report.configs = config_shifts(recorded, report.summaries)
    report.one_sided = one_sided(recorded, report.summaries)
    report.kendall_tau = ranking_tau(report.configs)
    if not identity:
        out = rescored_path(run, policy, tax_hash)
        if out.name == RESULTS:
            raise BenchmarkError(f"{out}: refusing to overwrite the run's results")
        atomic_write_text(out, "".join(report.lines))
        report.output = out
    report.seconds = time.perf_counter() - start
    return report
