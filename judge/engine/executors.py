"""Executors: where the cases of a ``judge run`` are judged, while the driver writes the run.

The driver (:func:`judge.engine.runner.run_bench`) decides which cases are pending, owns the
run folder and ``results.jsonl`` and calls ``on_result`` for each finished case. An executor
judges the pending cases:

* :class:`LocalExecutor` (the default) -- threads of this process, one LibreOffice pool;
* :class:`judge.engine.ray_executor.RayExecutor` -- Ray actors on a cluster, each with its own
  warm LibreOffice instances; case files travel as bytes and the driver writes what comes back.

Both judge a case with :func:`judge_candidate` against the same :class:`CaseServices` contract
(cost budget, the global limit on rounds in flight, the global model-request rate limit, the
model-call cache), so a case gives the same files and the same result wherever it ran.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from judge.backends import Backend
from judge.engine.cache import CallCache, ModelCache
from judge.engine.graph import CaseRuntime, Slots, judge_case
from judge.engine.preload import preload
from judge.errors import PptJudgeError, RendererUnavailable
from judge.rundir import CaseDir, case_dir, write_model
from judge.schema import (
    Candidate,
    CaseResult,
    Policy,
    ProtocolName,
    RenderResult,
    RoundResult,
    Rubric,
    Taxonomy,
    Usage,
)
from judge.tools import TOOLS

if TYPE_CHECKING:
    from judge.engine.runner import RunSettings

EXECUTORS = ("local", "ray")
"""Values of ``judge run --executor``."""
SECONDS_PER_MINUTE = 60.0
CACHE_DIR = "cache"
"""Model-call cache folder inside a run directory (default location)."""


class LazyPool:
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
                raise RendererUnavailable(self._failed)
            if self._pool is None:
                try:
                    self._pool = RenderPool(self.workers, self.timeout, self.dpi)
                except RenderError as exc:
                    self._failed = f"LibreOffice could not start: {exc}"
                    raise RendererUnavailable(self._failed) from exc
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

    def render_pictures(self, deck: bytes) -> bytes:
        """Stage 0's picture-only render (PNG bytes) of deck bytes built in memory."""
        from judge.artifact.renderscreen import SCREEN_DPI

        png: bytes = self.get().render_bytes(deck, dpi=SCREEN_DPI, name="picture-only deck")
        return png

    def close(self) -> None:
        with self._lock:
            if self._pool is not None and self._owned:
                self._pool.close()
                self._pool = None


class RateLimiter:
    """At most ``per_minute`` model requests per minute, evenly spaced (thread-safe).

    :meth:`reserve` books the next free send time and returns how long the caller must wait
    for it (seconds); the first request goes at once. ``per_minute`` None: no limit.
    """

    def __init__(
        self, per_minute: float | None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval = SECONDS_PER_MINUTE / per_minute if per_minute else 0.0
        self.clock = clock
        self.requests = 0
        """Requests booked so far."""
        self.first: float | None = None
        self.last: float | None = None
        """Booked send times (clock seconds) of the first and the latest request."""
        self._next = 0.0
        self._lock = threading.Lock()

    def reserve(self) -> float:
        with self._lock:
            now = self.clock()
            at = max(now, self._next) if self.interval else now
            self._next = at + self.interval
            self.requests += 1
            if self.first is None:
                self.first = at
            self.last = at
            return at - now

    def wait(self) -> None:
        """Block until this request may be sent."""
        delay = self.reserve()
        if delay > 0:
            time.sleep(delay)


class CostBudget:
    """Running cost of this invocation against ``--max-cost`` (thread-safe)."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.usage = Usage()
        self.rounds = 0
        """Rounds judged (the model or policy really asked)."""
        self.copied = 0
        """Rounds recorded as copies of round 0 (deterministic backend)."""
        self.skipped = 0
        """Rounds left out by early stop."""
        self._lock = threading.Lock()

    def add(self, result: RoundResult) -> None:
        with self._lock:
            self.usage = self.usage + result.usage
            if result.copied_from is not None:
                self.copied += 1
            elif result.status == "skipped":
                self.skipped += 1
            else:
                self.rounds += 1

    def may_start(self) -> bool:
        if self.limit is None:
            return True
        with self._lock:
            return (self.usage.cost_usd or 0.0) < self.limit


@dataclass
class CaseServices:
    """What a case uses that is shared by the whole run (one instance per executor process)."""

    may_start: Callable[[], bool]
    """False once the run's cost budget is spent."""
    on_round: Callable[[RoundResult], None]
    """Counts a written round (cost, progress)."""
    slots: Slots
    """The limit on rounds judged at the same time, across the run (``--concurrency``)."""
    before_request: Callable[[], None] | None = None
    """Waits for the run's model-request rate limit (``--rate-limit``); None: no limit."""
    cache: CallCache | None = None


@dataclass
class RunJob:
    """The run a driver hands to an executor (the same for every case)."""

    out: Path
    settings: RunSettings
    backend: Backend
    taxonomy: Taxonomy
    taxonomy_hash: str
    dpi: int
    budget: CostBudget
    on_round: Callable[[RoundResult], None] = lambda r: None
    """The driver's progress callback per round (called after the budget counted it)."""
    render_pool: Any = None
    """A running RenderPool for the local executor (left open); None: start one."""
    rubric: Rubric | None = None
    """The ReFigBench rubric (``--protocol refigbench``)."""
    rubric_hash: str = ""


@dataclass
class ExecutorReport:
    """What an executor says about a run beyond the results (the CLI prints ``notes``)."""

    retried: int = 0
    """Case attempts started again after their worker was lost."""
    workers_lost: int = 0
    notes: list[str] = field(default_factory=list)
    requests: int = 0
    """Model requests booked by the rate limiter (0 without ``--rate-limit``)."""
    request_span_s: float = 0.0
    """Seconds from the first booked request to the last."""

    def count_requests(self, requests: int, first: float | None, last: float | None) -> None:
        self.requests = requests
        if first is not None and last is not None:
            self.request_span_s = round(last - first, 4)


class Renderer(Protocol):
    """What a case needs from LibreOffice (:class:`LazyPool`)."""

    def render(self, pptx: Path, png: Path) -> RenderResult: ...

    def export_svg(self, pptx: Path) -> bytes: ...

    def render_pictures(self, deck: bytes) -> bytes: ...


OnResult = Callable[[Candidate, CaseResult | None], None]
"""The driver's handler of a finished case (None: left unfinished by the cost budget)."""


class Executor(Protocol):
    def run(self, job: RunJob, pending: list[Candidate], on_result: OnResult) -> ExecutorReport:
        """Judge ``pending`` and call ``on_result`` for each, in the driver's thread."""
        ...


def error_result(
    candidate: Candidate,
    cd: CaseDir,
    tax: Taxonomy,
    tax_hash: str,
    policy: Policy,
    error: str,
    protocol: ProtocolName = "pptbench",
) -> CaseResult:
    """The record of a case that could not be judged (an unexpected failure)."""
    from judge.schema import ArtifactReport
    from scoring.case import build_case_result

    report = None
    if cd.stage0.is_file():
        try:
            report = ArtifactReport.model_validate_json(cd.stage0.read_text(encoding="utf-8"))
        except ValueError:
            report = None
    result = build_case_result(candidate, report, [], tax, tax_hash, policy, error=error)
    if result.error is None:  # an invalid artifact needs no judging: its result stands
        return result.model_copy(update={"protocol": protocol})
    return result.model_copy(update={"error": error, "protocol": protocol})


def missing_task(cand: Candidate) -> str | None:
    """Why a candidate cannot be judged before anything runs (its task has no reference)."""
    if Path(cand.reference).is_file():
        return None
    return f"{cand.pptx}: no task {cand.task_id!r} ({cand.reference} is missing)"


def failed(cand: Candidate, cd: CaseDir, job: RunJob, error: str) -> CaseResult:
    """Record (``case.json``) and return the errored result of a case."""
    s = job.settings
    result = error_result(cand, cd, job.taxonomy, job.taxonomy_hash, s.policy, error, s.protocol)
    write_model(cd.case_json, result)
    return result


def judge_candidate(
    cand: Candidate, cd: CaseDir, job: RunJob, services: CaseServices, pool: Renderer
) -> CaseResult | None:
    """Judge one case into ``cd`` (a run's case folder, or a Ray worker's scratch copy of it);
    None when the cost budget left it unfinished. Never raises for a case: an unexpected
    failure is recorded as the case's ``error``."""
    from judge.tools.python import judge_tools

    s = job.settings
    if not services.may_start():
        return None
    problem = missing_task(cand)
    if problem is not None:
        return failed(cand, cd, job, problem)
    rt = CaseRuntime(
        candidate=cand,
        case_dir=cd,
        backend=job.backend,
        taxonomy=job.taxonomy,
        taxonomy_hash=job.taxonomy_hash,
        policy=s.policy,
        tools=judge_tools(TOOLS, s.judge_sandbox),
        render=pool.render,
        export_svg=pool.export_svg,
        render_pictures=pool.render_pictures,
        budgets=s.budgets,
        early_stop=s.early_stop,
        cache=services.cache,
        before_request=services.before_request,
        may_start=services.may_start,
        on_round=services.on_round,
        slots=services.slots,
        protocol=s.protocol,
        rubric=job.rubric,
        rubric_hash=job.rubric_hash,
        lpips_weights=s.lpips_weights,
        deadline=time.monotonic() + s.case_timeout_s,
    )
    try:
        return judge_case(rt, s.rounds, max_concurrency=s.rounds)
    except Exception as exc:  # noqa: BLE001 - one failing case never stops the batch
        return failed(cand, cd, job, f"{type(exc).__name__}: {exc}")


def run_cache(job: RunJob) -> ModelCache | None:
    """The run's model-call cache folder, when the backend caches (and ``--no-cache`` is off)."""
    s = job.settings
    if not s.cache or job.backend.cache_params() is None:
        return None
    return ModelCache(s.cache_dir or job.out / CACHE_DIR)


class LocalExecutor:
    """Cases on threads of this process (``--concurrency`` at a time), one LibreOffice pool."""

    def run(self, job: RunJob, pending: list[Candidate], on_result: OnResult) -> ExecutorReport:
        preload()
        s = job.settings
        limiter = RateLimiter(s.rate_limit)

        def on_round(result: RoundResult) -> None:
            job.budget.add(result)
            job.on_round(result)

        services = CaseServices(
            may_start=job.budget.may_start,
            on_round=on_round,
            slots=threading.Semaphore(s.concurrency),
            before_request=limiter.wait if s.rate_limit else None,
            cache=run_cache(job),
        )
        pool = LazyPool(s.workers, s.render_timeout_s, job.dpi, job.render_pool)

        def one(cand: Candidate) -> CaseResult | None:
            cd = case_dir(job.out, cand.config_id, cand.task_id)
            return judge_candidate(cand, cd, job, services, pool)

        try:
            ex = ThreadPoolExecutor(max_workers=s.concurrency, thread_name_prefix="case")
            futures = {ex.submit(one, c): c for c in pending}
            try:
                for fut in as_completed(futures):
                    on_result(futures[fut], fut.result())
            except BaseException:
                ex.shutdown(wait=False, cancel_futures=True)
                raise
            ex.shutdown()
        finally:
            pool.close()
        report = ExecutorReport()
        if s.rate_limit:
            report.count_requests(limiter.requests, limiter.first, limiter.last)
        return report
