"""Batch orchestration: ``judge run`` over a benchmark (``judge replay`` is :mod:`.verify`).

:func:`run_bench` judges every candidate of every configuration through the case graph
(:mod:`judge.engine.graph`): Stage 0 and rendering once per case, rounds and cases concurrent up to
the limit, ``run.json`` and ``results.jsonl`` as DESIGN.md says. It is resumable: finished cases
(``case.json``) are not redone, finished rounds (``round-<k>.json``) are reused, every file is
written atomically, and ``results.jsonl`` is rewritten (atomically) from the finished cases, so
it holds each case exactly once. One failing case never stops the batch: it is recorded with its
``error``. The library returns a :class:`RunSummary`; it prints nothing.

The batch reads top to bottom in :func:`run_bench`: check the flags, load the taxonomy, list the
candidates, lock the folder, then :func:`_run_locked`: start or resume the manifest, skip the
finished cases, hand the pending ones to the executor (:mod:`judge.engine.executors`: local
threads by default, or Ray actors), sum up. Whatever the executor, this process alone writes the
run folder.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judge import __version__
from judge.backends import Backend, BackendSettings, make_backend
from judge.engine.agent import Budgets
from judge.engine.executors import (
    EXECUTORS,
    CostBudget,
    Executor,
    LocalExecutor,
    RunJob,
)
from judge.engine.protocol import PROTOCOLS, manifest_fields, run_rubric
from judge.engine.summary import (
    ErrorGroup,
    copy_reason,
    cost_free_reason,
    group_errors,
    prices_known,
    setting_notes,
    usd,
)
from judge.errors import BenchmarkError
from judge.render.pool import DEFAULT_DPI
from judge.rundir import (
    RESULTS,
    RUN_MANIFEST,
    RUN_RUBRIC,
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
    Candidate,
    CaseResult,
    Policy,
    ProtocolName,
    RenderProvenance,
    RenderResult,
    RoundResult,
    Rubric,
    RunManifest,
    Taxonomy,
    Usage,
)

RUN_LOCK = ".lock"
"""Lock file of a run folder (held while ``judge run`` writes it)."""
RESULTS_FLUSH_S = 2.0
"""Shortest interval between two rewrites of ``results.jsonl`` during a run (seconds); it is
always rewritten at the end."""
DEFAULT_RENDER_TIMEOUT_S = 60.0
"""Seconds LibreOffice may spend on one deck (``judge run --render-timeout``)."""
DEFAULT_CASE_TIMEOUT_S = 1800.0
"""Overall deadline of one case, seconds (Stage 0, renders and every round)."""
DEFAULT_CASE_RETRIES = 2
"""``judge run --case-retries``: new attempts of a case whose Ray worker died under it."""
RESUME_KEYS = ("judge", "model", "base_url", "rounds", "taxonomy_hash", "protocol", "rubric_hash")
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
    protocol: ProtocolName = "pptbench"
    """``refigbench``: the ReFigBench rubric instead of the PPTBench gates."""
    rubric_path: Path | None = None
    """The rubric file (``--rubric``); default ``taxonomy/refigbench.yaml``."""
    lpips_weights: Path | None = None
    """Local LPIPS weights for the fidelity diagnostics (``--lpips-weights``)."""
    retry_errors: bool = True
    """On resume, judge again the cases whose ``case.json`` records an error, redoing their
    errored rounds (answers already given come from the model-call cache, so this is cheap)."""
    case_timeout_s: float = DEFAULT_CASE_TIMEOUT_S
    """Overall deadline of one case (seconds from its start): past it no new round starts and
    the case is recorded as the judge's error (retried by the next run)."""
    judge_sandbox: bool = False
    """Offer the model judge ``run_python`` (its own scripts, sandboxed; judge/tools/python.py)."""
    rate_limit: float | None = None
    """Model requests per minute across the whole run (every Ray worker); None: no limit."""
    executor: str = "local"
    """``local`` (threads of this process) or ``ray`` (:mod:`judge.engine.ray_executor`)."""
    ray_address: str | None = None
    """Ray cluster to join (``ray://host:10001``, ``host:6379`` or ``auto``); None: start a
    local Ray instance for this run."""
    ray_workers: int | None = None
    """Ray worker actors (each with ``workers`` LibreOffice instances); None: one per CPU of
    the cluster."""
    case_retries: int = DEFAULT_CASE_RETRIES
    """Times a case is started again on another worker after its worker was lost (Ray)."""


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
    """Rounds judged by this invocation (model or policy really asked)."""
    rounds_copied: int = 0
    """Rounds of this invocation recorded as copies of round 0 (deterministic backend)."""
    rounds_skipped: int = 0
    """Rounds of this invocation left out by early stop."""
    copy_reason: str | None = None
    """Why rounds are copied (None when the backend judges every round)."""
    usage: Usage = field(default_factory=Usage)
    """Usage of this invocation (copies cost nothing)."""
    cost_free: str | None = None
    """Why the run has no model cost (builtin, replay); None for a model endpoint."""
    prices_known: bool = False
    """True when the backend can price its calls (then ``usage.cost_usd`` is never None)."""
    notes: list[str] = field(default_factory=list)
    """Flags that did nothing with this backend (also sent to ``Progress.on_note``)."""
    executor: str = "local"
    executor_notes: list[str] = field(default_factory=list)
    """What the executor wants said (Ray: workers, lost workers, retried cases)."""
    retried: int = 0
    """Case attempts started again after their (Ray) worker was lost."""
    requests: int = 0
    """Model requests the ``--rate-limit`` let through (0 without it)."""
    request_span_s: float = 0.0
    """Seconds between the first and the last of them."""
    error_groups: list[ErrorGroup] = field(default_factory=list)
    """Errored cases of the run (reused ones too) grouped by cause, largest group first."""
    stopped: str | None = None
    seconds: float = 0.0


@dataclass
class Progress:
    """Callbacks the CLI uses for its progress bar (all optional)."""

    on_start: Callable[[int, int], None] = lambda total, done: None
    """(cases in the benchmark, cases already finished)."""
    on_case: Callable[[Candidate, CaseResult | None], None] = lambda c, r: None
    on_round: Callable[[RoundResult], None] = lambda r: None
    on_note: Callable[[str], None] = lambda text: None
    """A flag that does nothing with this backend (said before judging starts)."""


def make_executor(settings: RunSettings) -> Executor:
    """The executor ``--executor`` names (Ray is imported only when asked for)."""
    if settings.executor == "ray":
        from judge.engine.ray_executor import RayExecutor

        return RayExecutor()
    return LocalExecutor()


def manifest_for(
    bench: Path, settings: RunSettings, backend: Backend, tax: Taxonomy, tax_hash: str, dpi: int
) -> RunManifest:
    from taxonomy.loader import DEFAULT_TAXONOMY

    s = settings.backend
    return RunManifest(
        **manifest_fields(settings.protocol, settings.rubric_path),
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
            "judge_sandbox": settings.judge_sandbox,
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
        (
            settings.rate_limit is None or settings.rate_limit > 0,
            f"--rate-limit must be positive, not {settings.rate_limit}",
        ),
        (
            settings.executor in EXECUTORS,
            f"--executor must be one of {', '.join(EXECUTORS)}, not {settings.executor!r}",
        ),
        (
            settings.ray_workers is None or settings.ray_workers >= 1,
            f"--ray-workers must be at least 1, not {settings.ray_workers}",
        ),
        (
            settings.case_retries >= 0,
            f"--case-retries must not be negative, not {settings.case_retries}",
        ),
        (
            settings.protocol in PROTOCOLS,
            f"--protocol must be pptbench or refigbench, not {settings.protocol!r}",
        ),
        (
            settings.lpips_weights is None or Path(settings.lpips_weights).is_file(),
            f"--lpips-weights: no file {settings.lpips_weights}",
        ),
    ]
    for ok, message in checks:
        if not ok:
            raise BenchmarkError(message)
    if settings.judge_sandbox:
        from judge.sandbox import available

        if (reason := available()) is not None:
            raise BenchmarkError(f"--judge-sandbox: the sandbox cannot run here: {reason}")


def run_bench(
    bench: Path,
    out: Path,
    settings: RunSettings,
    progress: Progress | None = None,
    render_pool: Any = None,
    executor: Executor | None = None,
) -> RunSummary:
    """Judge a benchmark into the run directory ``out`` (created, or resumed).

    ``render_pool``: a running :class:`judge.render.pool.RenderPool` to use (left open); by default
    the run starts its own on the first render and closes it at the end (local executor).
    ``executor``: where cases are judged; default the one ``settings.executor`` names.
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
    backend = make_backend(
        settings.judge,
        settings.backend,
        tax,
        run_rubric(settings.protocol, settings.rubric_path)[0],
    )
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
        run = _Run(
            out=out,
            settings=settings,
            progress=progress,
            tax=tax,
            tax_hash=tax_hash,
            backend=backend,
            dpi=dpi,
            render_pool=render_pool,
            executor=executor or make_executor(settings),
            candidates=candidates,
            budget=CostBudget(settings.max_cost_usd),
            generation_costs=generation_costs(bench),
        )
        run.rubric, run.rubric_hash = run_rubric(settings.protocol, settings.rubric_path)
        return _run_locked(run, manifest, t0)
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


@dataclass
class _Run:
    """One locked invocation of :func:`run_bench`: what every case of the batch shares."""

    out: Path
    settings: RunSettings
    progress: Progress
    tax: Taxonomy
    tax_hash: str
    backend: Backend
    dpi: int
    render_pool: Any
    """A running RenderPool given by the caller (local executor), or None."""
    executor: Executor
    candidates: list[Candidate]
    """The whole benchmark, in benchmark order."""
    budget: CostBudget
    rubric: Rubric | None = None
    """The ReFigBench rubric (``--protocol refigbench``)."""
    rubric_hash: str = ""
    results: dict[str, CaseResult] = field(default_factory=dict)
    """Finished cases by case id (reused and judged)."""
    generation_costs: dict[str, float | None] = field(default_factory=dict)
    """``generation_cost_usd`` by case id, from ``BENCH/generation/`` (``judge generate``)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _last_flush: float = 0.0

    def flush(self, force: bool = False) -> None:
        """Rewrite ``results.jsonl``, at most every :data:`RESULTS_FLUSH_S` unless forced."""
        order = {c.case_id: i for i, c in enumerate(self.candidates)}
        with self._lock:
            now = time.perf_counter()
            if not force and now - self._last_flush < RESULTS_FLUSH_S:
                return
            self._last_flush = now
            ordered = sorted(self.results.values(), key=lambda r: order.get(r.case_id, 0))
        write_results(self.out, ordered)

    def record(self, cand: Candidate, result: CaseResult) -> None:
        if cand.case_id in self.generation_costs:
            cost = self.generation_costs[cand.case_id]
            result = result.model_copy(update={"generation_cost_usd": cost})
        with self._lock:
            self.results[cand.case_id] = result

    def job(self) -> RunJob:
        """What the executor needs to judge this run's cases."""
        return RunJob(
            out=self.out,
            settings=self.settings,
            backend=self.backend,
            taxonomy=self.tax,
            taxonomy_hash=self.tax_hash,
            dpi=self.dpi,
            budget=self.budget,
            on_round=self.progress.on_round,
            render_pool=self.render_pool,
            rubric=self.rubric,
            rubric_hash=self.rubric_hash,
        )


def generation_costs(bench: Path) -> dict[str, float | None]:
    """The generation cost of every case that ``judge generate`` recorded, by case id."""
    from generation.records import generation_records

    return {f"{c}/{t}": rec.cost_usd for (c, t), rec in generation_records(bench).items()}


def _start_run(out: Path, manifest: RunManifest) -> RunManifest:
    """Check a resumed run's manifest, or write a new run's manifest and taxonomy copy."""
    if (out / RUN_MANIFEST).is_file():
        return _check_resume(out / RUN_MANIFEST, manifest)
    # keep the exact taxonomy file beside the run: rescoring must not depend on the packaged
    # file staying unedited
    atomic_write_bytes(out / RUN_TAXONOMY, Path(manifest.taxonomy_path).read_bytes())
    if manifest.rubric_path is not None:
        atomic_write_bytes(out / RUN_RUBRIC, Path(manifest.rubric_path).read_bytes())
    write_model(out / RUN_MANIFEST, manifest)
    return manifest


def _pending(run: _Run, summary: RunSummary) -> list[Candidate]:
    """The candidates still to judge; finished ones go into ``run.results``."""
    pending: list[Candidate] = []
    for cand in run.candidates:
        cd = case_dir(run.out, cand.config_id, cand.task_id)
        done = _finished(cd, run.settings.retry_errors)
        if done is not None:
            run.record(cand, done)
            summary.reused += 1
        else:
            pending.append(cand)
    return pending


def _judge_all(run: _Run, pending: list[Candidate], summary: RunSummary) -> None:
    """Judge the pending cases on the executor; ``results.jsonl`` kept current."""

    def on_result(cand: Candidate, result: CaseResult | None) -> None:
        if result is None:
            summary.unfinished += 1
        else:
            run.record(cand, result)
            summary.judged += 1
            run.flush()
        run.progress.on_case(cand, result)

    try:
        report = run.executor.run(run.job(), pending, on_result)
    finally:
        run.flush(force=True)
    summary.executor = run.settings.executor
    summary.retried = report.retried
    summary.executor_notes = report.notes
    summary.requests, summary.request_span_s = report.requests, report.request_span_s


def _summarise(run: _Run, summary: RunSummary, t0: float) -> None:
    """Fill the summary's totals from the finished cases and the budget."""
    if summary.unfinished:
        summary.stopped = (
            f"cost budget of {usd(run.settings.max_cost_usd or 0.0)} spent "
            f"(${run.budget.usage.cost_usd or 0.0:.4f}): {summary.unfinished} case(s) not "
            "finished; rerun the same command with a larger --max-cost to finish them"
        )
    for r in run.results.values():
        key = r.gate or "error"
        summary.gates[key] = summary.gates.get(key, 0) + 1
        summary.errors += r.error is not None
    summary.error_groups = group_errors(run.out, run.results.values(), run.candidates)
    summary.rounds_judged = run.budget.rounds
    summary.rounds_copied = run.budget.copied
    summary.rounds_skipped = run.budget.skipped
    summary.copy_reason = copy_reason(run.backend)
    summary.cost_free = cost_free_reason(run.backend)
    summary.prices_known = prices_known(run.backend)
    usage = run.budget.usage
    if summary.prices_known and usage.cost_usd is None:  # nothing judged (resumed): $0, known
        usage = usage.model_copy(update={"cost_usd": 0.0})
    summary.usage = usage
    summary.seconds = round(time.perf_counter() - t0, 2)


def _run_locked(run: _Run, manifest: RunManifest, t0: float) -> RunSummary:
    manifest = _start_run(run.out, manifest)
    summary = RunSummary(run=run.out, results=run.out / RESULTS, cases=len(run.candidates))
    summary.notes = setting_notes(run.backend, run.settings.early_stop)
    for note in summary.notes:
        run.progress.on_note(note)
    pending = _pending(run, summary)
    run.progress.on_start(len(run.candidates), summary.reused)
    _judge_all(run, pending, summary)
    _summarise(run, summary, t0)
    _record_provenance(run.out, run.candidates, manifest)
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
