"""Batch orchestration: ``judge run`` over a benchmark, and ``judge replay`` of a case.

:func:`run_bench` judges every candidate of every configuration through the case graph
(:mod:`judge.engine.graph`): Stage 0 and rendering once per case, rounds and cases concurrent up to
the limit, ``run.json`` and ``results.jsonl`` as DESIGN.md says. It is resumable: finished cases
(``case.json``) are not redone, finished rounds (``round-<k>.json``) are reused, every file is
written atomically, and ``results.jsonl`` is rewritten (atomically) from the finished cases, so
it holds each case exactly once. One failing case never stops the batch: it is recorded with its
``error``. The library returns a :class:`RunSummary`; it prints nothing.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judge import __version__
from judge.backends import Backend, BackendSettings, make_backend
from judge.backends.replay import ReplayBackend
from judge.engine.agent import Budgets
from judge.engine.cache import ModelCache
from judge.engine.graph import CaseRuntime, judge_case, make_context, run_round
from judge.engine.trajectory import read_trajectory
from judge.errors import BenchmarkError, PptJudgeError
from judge.render.pool import DEFAULT_DPI
from judge.rundir import (
    RESULTS,
    RUN_MANIFEST,
    RUN_TAXONOMY,
    CaseDir,
    atomic_write_bytes,
    atomic_write_text,
    case_dir,
    check_schema_version,
    first_problem,
    iter_candidates,
    write_model,
)
from judge.schema import (
    ArtifactReport,
    Candidate,
    CaseResult,
    PairGeometry,
    Policy,
    RenderProvenance,
    RenderResult,
    RoundResult,
    RunManifest,
    Taxonomy,
    TrajectoryEvent,
    Usage,
)
from judge.tools import TOOLS

RUN_LOCK = ".lock"
"""Lock file of a run folder (held while ``judge run`` writes it)."""
CACHE_DIR = "cache"
"""Model-call cache folder inside a run directory (default location)."""
RESULTS_FLUSH_S = 2.0
"""Shortest interval between two rewrites of ``results.jsonl`` during a run (seconds); it is
always rewritten at the end."""
DEFAULT_RENDER_TIMEOUT_S = 60.0
"""Seconds LibreOffice may spend on one deck (``judge run --render-timeout``)."""
RESUME_KEYS = ("judge", "model", "base_url", "rounds", "taxonomy_hash")
"""``run.json`` fields a resumed run must share with the new command."""


@dataclass
class RunSettings:
    """How to judge a benchmark (``judge run`` flags)."""

    judge: str = "builtin"
    backend: BackendSettings = field(default_factory=BackendSettings)
    rounds: int = 3
    concurrency: int = 2
    """Rounds judged at the same time, across cases (also the number of cases in flight)."""
    workers: int = 1
    """LibreOffice instances."""
    render_timeout_s: float = DEFAULT_RENDER_TIMEOUT_S
    dpi: int | None = None
    early_stop: bool = False
    max_cost_usd: float | None = None
    taxonomy_path: Path | None = None
    policy: Policy = field(default_factory=Policy)
    budgets: Budgets = field(default_factory=Budgets)
    cache: bool = True
    cache_dir: Path | None = None
    retry_errors: bool = True
    """On resume, judge again the cases whose ``case.json`` records an error, redoing their
    errored rounds (answers already given come from the model-call cache, so this is cheap)."""


@dataclass
class RunSummary:
    """What a run did (the CLI prints it)."""

    run: Path
    results: Path
    cases: int = 0
    judged: int = 0
    """Cases finished by this invocation."""
    reused: int = 0
    """Cases finished by an earlier invocation."""
    unfinished: int = 0
    """Cases left for a later invocation (cost budget)."""
    errors: int = 0
    gates: dict[str, int] = field(default_factory=dict)
    rounds_judged: int = 0
    usage: Usage = field(default_factory=Usage)
    """Usage of this invocation."""
    stopped: str | None = None
    seconds: float = 0.0


@dataclass
class Progress:
    """Callbacks the CLI uses for its progress bar (all optional)."""

    on_start: Callable[[int, int], None] = lambda total, done: None
    """(cases in the benchmark, cases already finished)."""
    on_case: Callable[[Candidate, CaseResult | None], None] = lambda c, r: None
    on_round: Callable[[RoundResult], None] = lambda r: None


class _Budget:
    """Running cost of this invocation against ``--max-cost`` (thread-safe)."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.usage = Usage()
        self.rounds = 0
        self._lock = threading.Lock()

    def add(self, result: RoundResult) -> None:
        with self._lock:
            self.usage = self.usage + result.usage
            self.rounds += 1

    def may_start(self) -> bool:
        if self.limit is None:
            return True
        with self._lock:
            return (self.usage.cost_usd or 0.0) < self.limit


class _LazyPool:
    """The LibreOffice pool, started on the first render (a resumed run whose cases are all
    rendered never starts it). A pool that cannot start is a run problem, not an artifact
    failure: it raises :class:`PptJudgeError` (not :class:`RenderError`) for every case."""

    def __init__(self, workers: int, timeout: float, dpi: int, pool: Any = None) -> None:
        self.workers, self.timeout, self.dpi = workers, timeout, dpi
        self._pool: Any = pool
        self._owned = pool is None
        self._failed: str | None = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        from judge.errors import RenderError
        from judge.render.pool import RenderPool

        with self._lock:
            if self._failed is not None:
                raise PptJudgeError(self._failed)
            if self._pool is None:
                try:
                    self._pool = RenderPool(self.workers, self.timeout, self.dpi)
                except RenderError as exc:
                    self._failed = f"LibreOffice could not start: {exc}"
                    raise PptJudgeError(self._failed) from exc
            return self._pool

    def render(self, pptx: Path, png: Path) -> RenderResult:
        from judge.artifact.ooxml import requested_fonts

        try:
            fonts = requested_fonts(pptx)
        except PptJudgeError:
            fonts = None
        result: RenderResult = self.get().render(pptx, png, requested_fonts=fonts)
        return result

    def export_svg(self, pptx: Path) -> bytes:
        data: bytes = self.get().export_svg(pptx)
        return data

    def close(self) -> None:
        with self._lock:
            if self._pool is not None and self._owned:
                self._pool.close()
                self._pool = None


def manifest_for(
    bench: Path, settings: RunSettings, backend: Backend, tax: Taxonomy, tax_hash: str, dpi: int
) -> RunManifest:
    from taxonomy.loader import DEFAULT_TAXONOMY

    s = settings.backend
    return RunManifest(
        package_version=__version__,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        bench=str(Path(bench).resolve()),
        judge=backend.name,
        model=getattr(backend, "model", None),
        base_url=getattr(backend, "base_url", None),
        rounds=settings.rounds,
        policy=settings.policy,
        taxonomy_path=str(settings.taxonomy_path or DEFAULT_TAXONOMY),
        taxonomy_version=tax.version,
        taxonomy_hash=tax_hash,
        render_dpi=dpi,
        settings={
            **s.public(),
            "budgets": settings.budgets.__dict__,
            "early_stop": settings.early_stop,
            "concurrency": settings.concurrency,
            "max_cost_usd": settings.max_cost_usd,
        },
    )


def _check_resume(path: Path, new: RunManifest) -> RunManifest:
    try:
        old = RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise BenchmarkError(f"{path}: not a run manifest: {first_problem(exc)}") from None
    check_schema_version(path, old.version)
    for key in RESUME_KEYS:
        if getattr(old, key) != getattr(new, key):
            raise BenchmarkError(
                f"{path}: this run was made with {key}={getattr(old, key)!r}, the command asks "
                f"for {getattr(new, key)!r}; resume with the same settings or use a new --out"
            )
    if old.policy != new.policy:
        raise BenchmarkError(f"{path}: this run used policy {old.policy.name!r}; use a new --out")
    return old


def _finished(cd: CaseDir, retry_errors: bool) -> CaseResult | None:
    if not cd.case_json.is_file():
        return None
    try:
        result = CaseResult.model_validate_json(cd.case_json.read_text(encoding="utf-8"))
    except ValueError:
        return None
    if retry_errors and result.error is not None:
        cd.case_json.unlink()
        for path in sorted(cd.rounds_dir.glob("round-*.json")):
            try:
                if RoundResult.model_validate_json(path.read_text()).status == "errored":
                    path.unlink()
            except ValueError:
                path.unlink()
        return None
    return result


def write_results(run: Path, results: list[CaseResult]) -> Path:
    """Rewrite ``results.jsonl`` atomically: one line per finished case, benchmark order."""
    path = Path(run) / RESULTS
    atomic_write_text(path, "".join(r.model_dump_json() + "\n" for r in results))
    return path


def error_result(
    candidate: Candidate, cd: CaseDir, tax: Taxonomy, tax_hash: str, policy: Policy, error: str
) -> CaseResult:
    """The record of a case that could not be judged (an unexpected failure)."""
    from scoring.case import build_case_result

    report = None
    if cd.stage0.is_file():
        try:
            report = ArtifactReport.model_validate_json(cd.stage0.read_text(encoding="utf-8"))
        except ValueError:
            report = None
    result = build_case_result(candidate, report, [], tax, tax_hash, policy, error=error)
    if result.error is None:  # an invalid artifact needs no judging: its result stands
        return result
    return result.model_copy(update={"error": error})


def check_settings(settings: RunSettings) -> None:
    """Refuse flag values that could only make cases error (or be silently replaced), before
    anything is written; the message names the flag."""
    from judge.render.pool import MAX_DPI, MIN_DPI

    b = settings.backend
    checks = [
        (settings.rounds >= 1, f"--rounds must be at least 1, not {settings.rounds}"),
        (
            settings.concurrency >= 1,
            f"--concurrency must be at least 1, not {settings.concurrency}",
        ),
        (settings.workers >= 1, f"--workers must be at least 1, not {settings.workers}"),
        (
            settings.render_timeout_s > 0,
            f"--render-timeout must be positive, not {settings.render_timeout_s}",
        ),
        (
            settings.dpi is None or MIN_DPI <= settings.dpi <= MAX_DPI,
            f"--dpi must be between {MIN_DPI} and {MAX_DPI}, not {settings.dpi}",
        ),
        (
            settings.max_cost_usd is None or settings.max_cost_usd >= 0,
            f"--max-cost must not be negative, not {settings.max_cost_usd}",
        ),
        (
            settings.budgets.max_tool_calls >= 1,
            f"--max-tool-calls must be at least 1, not {settings.budgets.max_tool_calls}",
        ),
        (b.retries >= 0, f"--retries must not be negative, not {b.retries}"),
        (b.timeout_s > 0, f"--timeout must be positive, not {b.timeout_s}"),
        (b.max_tokens >= 1, f"--max-tokens must be at least 1, not {b.max_tokens}"),
        (b.temperature >= 0, f"--temperature must not be negative, not {b.temperature}"),
    ]
    for ok, message in checks:
        if not ok:
            raise BenchmarkError(message)


def run_bench(
    bench: Path,
    out: Path,
    settings: RunSettings,
    progress: Progress | None = None,
    render_pool: Any = None,
) -> RunSummary:
    """Judge a benchmark into the run directory ``out`` (created, or resumed).

    ``render_pool``: a running :class:`judge.render.pool.RenderPool` to use (left open); by default
    the run starts its own on the first render and closes it at the end.
    """
    from taxonomy.loader import load_taxonomy, taxonomy_hash

    t0 = time.perf_counter()
    progress = progress or Progress()
    bench, out = Path(bench), Path(out)
    check_settings(settings)
    tax = load_taxonomy(settings.taxonomy_path)
    tax_hash = taxonomy_hash(tax)
    candidates = list(iter_candidates(bench))
    if not candidates:
        raise BenchmarkError(
            f"{bench}: no candidates to judge (expected candidates/<config>/<task>.pptx)"
        )
    backend = make_backend(settings.judge, settings.backend, tax)
    if settings.max_cost_usd is not None and backend.cost(Usage(input_tokens=1)) is None:
        raise BenchmarkError(
            "--max-cost needs prices to count the cost: give --price-input/--price-output "
            "or --prices FILE"
        )
    dpi = settings.dpi or DEFAULT_DPI
    manifest = manifest_for(bench, settings, backend, tax, tax_hash, dpi)
    out.mkdir(parents=True, exist_ok=True)
    lock = _lock_run(out)
    try:
        return _run_locked(
            bench,
            out,
            settings,
            progress,
            render_pool,
            tax,
            tax_hash,
            candidates,
            backend,
            dpi,
            manifest,
            t0,
        )
    finally:
        lock.close()  # also released by the OS if the process dies


def _lock_run(out: Path) -> Any:
    """Hold an exclusive lock on the run folder: two runs writing one folder would interleave."""
    import fcntl

    fh = (out / RUN_LOCK).open("a")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        fh.close()
        raise BenchmarkError(f"{out}: another `judge run` is writing this run folder") from exc
    return fh


def _run_locked(
    bench: Path,
    out: Path,
    settings: RunSettings,
    progress: Progress,
    render_pool: Any,
    tax: Taxonomy,
    tax_hash: str,
    candidates: list[Candidate],
    backend: Backend,
    dpi: int,
    manifest: RunManifest,
    t0: float,
) -> RunSummary:
    if (out / RUN_MANIFEST).is_file():
        manifest = _check_resume(out / RUN_MANIFEST, manifest)
    else:
        # keep the exact taxonomy file beside the run: rescoring must not depend on the packaged
        # file staying unedited
        atomic_write_bytes(out / RUN_TAXONOMY, Path(manifest.taxonomy_path).read_bytes())
        write_model(out / RUN_MANIFEST, manifest)

    summary = RunSummary(run=out, results=out / RESULTS, cases=len(candidates))
    results: dict[str, CaseResult] = {}
    pending: list[Candidate] = []
    for cand in candidates:
        done = _finished(case_dir(out, cand.config_id, cand.task_id), settings.retry_errors)
        if done is not None:
            results[cand.case_id] = done
            summary.reused += 1
        else:
            pending.append(cand)
    progress.on_start(len(candidates), summary.reused)
    order = {c.case_id: i for i, c in enumerate(candidates)}
    lock = threading.Lock()
    last_flush = [0.0]

    def flush(force: bool = False) -> None:
        with lock:
            now = time.perf_counter()
            if not force and now - last_flush[0] < RESULTS_FLUSH_S:
                return
            last_flush[0] = now
            ordered = sorted(results.values(), key=lambda r: order.get(r.case_id, 0))
        write_results(out, ordered)

    budget = _Budget(settings.max_cost_usd)
    cache = None
    if settings.cache and backend.cache_params() is not None:
        cache = ModelCache(settings.cache_dir or out / CACHE_DIR)
    slots = threading.Semaphore(settings.concurrency)

    def on_round(result: RoundResult) -> None:
        budget.add(result)
        progress.on_round(result)

    pool = _LazyPool(settings.workers, settings.render_timeout_s, dpi, render_pool)

    def judge_one(cand: Candidate) -> CaseResult | None:
        cd = case_dir(out, cand.config_id, cand.task_id)
        if not budget.may_start():
            return None
        if not Path(cand.reference).is_file():
            missing = f"{cand.pptx}: no task {cand.task_id!r} ({cand.reference} is missing)"
            result = error_result(cand, cd, tax, tax_hash, settings.policy, missing)
            write_model(cd.case_json, result)
            return result
        rt = CaseRuntime(
            candidate=cand,
            case_dir=cd,
            backend=backend,
            taxonomy=tax,
            taxonomy_hash=tax_hash,
            policy=settings.policy,
            tools=TOOLS,
            render=pool.render,
            export_svg=pool.export_svg,
            budgets=settings.budgets,
            early_stop=settings.early_stop,
            cache=cache,
            may_start=budget.may_start,
            on_round=on_round,
            slots=slots,
        )
        try:
            return judge_case(rt, settings.rounds, max_concurrency=settings.rounds)
        except Exception as exc:  # noqa: BLE001 - one failing case never stops the batch
            result = error_result(
                cand, cd, tax, tax_hash, settings.policy, f"{type(exc).__name__}: {exc}"
            )
            write_model(cd.case_json, result)
            return result

    try:
        ex = ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="case")
        futures = {ex.submit(judge_one, c): c for c in pending}
        try:
            for fut in as_completed(futures):
                cand = futures[fut]
                result = fut.result()
                if result is None:
                    summary.unfinished += 1
                else:
                    with lock:
                        results[cand.case_id] = result
                    summary.judged += 1
                    flush()
                progress.on_case(cand, result)
        except BaseException:
            ex.shutdown(wait=False, cancel_futures=True)
            raise
        ex.shutdown()
    finally:
        pool.close()
        flush(force=True)

    if summary.unfinished:
        summary.stopped = (
            f"cost budget of ${settings.max_cost_usd:.2f} spent "
            f"(${budget.usage.cost_usd or 0.0:.4f}): {summary.unfinished} case(s) not finished; "
            "rerun the same command with a larger --max-cost to finish them"
        )
    for r in results.values():
        key = r.gate or "error"
        summary.gates[key] = summary.gates.get(key, 0) + 1
        summary.errors += r.error is not None
    summary.rounds_judged = budget.rounds
    summary.usage = budget.usage
    summary.seconds = round(time.perf_counter() - t0, 2)
    _record_provenance(out, candidates, manifest)
    return summary


def _record_provenance(out: Path, candidates: list[Candidate], manifest: RunManifest) -> None:
    """Add the render provenance of the first rendered case to ``run.json`` (once)."""
    if manifest.render_provenance is not None:
        return
    for cand in candidates:
        rj = case_dir(out, cand.config_id, cand.task_id).render_json
        if rj.is_file():
            try:
                prov: RenderProvenance = RenderResult.model_validate_json(rj.read_text()).provenance
            except ValueError:
                continue
            write_model(out / RUN_MANIFEST, manifest.model_copy(update={"render_provenance": prov}))
            return


# ------------------------------------------------------------------------------------------
# judge replay


@dataclass
class ToolDiff:
    """A tool result that differs between the recording and the replay."""

    round_index: int
    stage: str
    tool_name: str
    call_index: int
    """Index of the call among the round's tool results."""
    recorded: Any
    replayed: Any


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
        keys = ("gate", "score", "layout", "text", "graphics", "findings", "rounds")
        return all(getattr(self.recorded, k) == getattr(self.replayed, k) for k in keys)


def _tool_results(events: list[TrajectoryEvent]) -> list[TrajectoryEvent]:
    return [e for e in events if e.kind == "tool_result"]


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
    pool = _LazyPool(1, DEFAULT_RENDER_TIMEOUT_S, DEFAULT_DPI, render_pool)
    try:
        return _replay_case(case_root, round_index, taxonomy_path, policy, pool)
    finally:
        pool.close()


def _replay_case(
    case_root: Path,
    round_index: int | None,
    taxonomy_path: Path | None,
    policy: Policy | None,
    pool: _LazyPool,
) -> ReplayReport:
    from scoring.case import build_case_result
    from taxonomy.loader import load_taxonomy, taxonomy_hash

    cd = CaseDir(Path(case_root))
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
    run_dir = cd.root.parent.parent.parent
    manifest = None
    if (run_dir / RUN_MANIFEST).is_file():
        try:
            manifest = RunManifest.model_validate_json((run_dir / RUN_MANIFEST).read_text())
        except ValueError as exc:
            raise BenchmarkError(
                f"{run_dir / RUN_MANIFEST}: not a run manifest: {first_problem(exc)}"
            ) from None
        check_schema_version(run_dir / RUN_MANIFEST, manifest.version)
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
    ctx = make_context(candidate, cd, pair, export_svg=pool.export_svg)
    wanted = [round_index] if round_index is not None else list(range(total))
    recorded_rounds: dict[int, RoundResult] = {}
    for k in range(total):
        if cd.round_json(k).is_file():
            recorded_rounds[k] = RoundResult.model_validate_json(cd.round_json(k).read_text())
    for k in wanted:
        if k not in recorded_rounds:
            raise BenchmarkError(f"{cd.round_json(k)}: round {k} was not recorded")
    tool_diffs: list[ToolDiff] = []
    verdict_diffs: list[str] = []
    replayed_rounds = dict(recorded_rounds)
    with tempfile.TemporaryDirectory(prefix="pptjudge-replay-") as tmp:
        for k in wanted:
            rec = recorded_rounds[k]
            if rec.status == "skipped" or not cd.trajectory(k).is_file():
                continue
            scratch = CaseDir(Path(tmp) / f"round-{k}")
            rt = CaseRuntime(
                candidate=candidate,
                case_dir=scratch,
                backend=ReplayBackend(cd.trajectory(k)),
                taxonomy=tax,
                taxonomy_hash=tax_hash,
                policy=policy,
                tools=TOOLS,
            )
            rt.ctx = ctx
            new = run_round(rt, k)
            old_events = _tool_results(read_trajectory(cd.trajectory(k)))
            new_events = _tool_results(read_trajectory(scratch.trajectory(k)))
            for i in range(max(len(old_events), len(new_events))):
                a = old_events[i] if i < len(old_events) else None
                b = new_events[i] if i < len(new_events) else None
                if a is None or b is None or (a.result, a.images) != (b.result, b.images):
                    ref = a or b
                    assert ref is not None
                    tool_diffs.append(
                        ToolDiff(
                            round_index=k,
                            stage=ref.stage,
                            tool_name=ref.tool_name or "",
                            call_index=i,
                            recorded=None
                            if a is None
                            else {"result": a.result, "images": a.images},
                            replayed=None
                            if b is None
                            else {"result": b.result, "images": b.images},
                        )
                    )
            for name in ("status", "semantic", "render", "detail"):
                if getattr(rec, name) != getattr(new, name):
                    verdict_diffs.append(
                        f"round {k}: {name} was {_short(getattr(rec, name))}, "
                        f"replay gives {_short(getattr(new, name))}"
                    )
            replayed_rounds[k] = new.model_copy(update={"usage": rec.usage})
    replayed = build_case_result(
        candidate,
        report,
        [replayed_rounds[k] for k in sorted(replayed_rounds)],
        tax,
        tax_hash,
        policy,
    )
    return ReplayReport(
        case_dir=cd.root,
        rounds=wanted,
        tool_diffs=tool_diffs,
        verdict_diffs=verdict_diffs,
        recorded=recorded_case,
        replayed=replayed,
    )


def _short(value: object, limit: int = 160) -> str:
    text = value.model_dump_json() if hasattr(value, "model_dump_json") else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
