"""The Ray executor (``judge run --executor ray``): cases on Ray actors, the run written here.

Roles:

* the **driver** (this process) decides nothing new: :func:`judge.engine.runner.run_bench` hands
  it the pending cases; it sends each case's files to a worker as bytes (no shared file system
  is assumed), writes the case folder files that come back into the run folder, exactly where
  and as the local executor writes them, and reports each case to ``on_result`` (which rewrites
  ``results.jsonl`` and moves the progress bar);
* one **coordinator** actor, placed on the driver's node, holds what is global to the run: the
  ``--max-cost`` budget, the ``--concurrency`` limit on rounds in flight (leases per worker,
  returned when a worker dies), the ``--rate-limit`` request spacing, and the model-call cache
  folder (workers read and write it only through the coordinator);
* **case workers**, ``--ray-workers`` actors, each owning ``--workers`` warm LibreOffice
  instances and the prepared references of the tasks it has seen (the driver gives a worker the
  cases of one task in a row). A worker judges a case in a scratch copy of its case folder with
  :func:`judge.engine.executors.judge_candidate` and returns the folder's files, every recorded
  path translated back to the driver's paths.

A worker lost mid-case (its process killed, its node gone) has the case started again on
another worker, up to ``--case-retries`` times; a case lost on every try is recorded with the
error. Lost workers are replaced, so the run completes, and the summary says what happened.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.backends import make_backend
from judge.engine.cache import ModelCache
from judge.engine.executors import (
    CaseServices,
    CostBudget,
    ExecutorReport,
    LazyPool,
    OnResult,
    RateLimiter,
    RunJob,
    failed,
    judge_candidate,
    missing_task,
    run_cache,
)
from judge.engine.preload import preload
from judge.errors import BenchmarkError, PptJudgeError
from judge.rundir import CaseDir, atomic_write_bytes, case_dir
from judge.schema import Candidate, CaseResult, RoundResult, Rubric, Taxonomy

if TYPE_CHECKING:
    from judge.engine.runner import RunSettings

POLL_S = 0.25
"""Longest wait of the driver for a finished case before it forwards round events (seconds)."""
WORKER_CPUS = 1.0
"""Ray CPUs each case worker reserves (its LibreOffice instances and the judge's tools)."""
OBJECT_STORE_BYTES = 200 * 1024 * 1024
"""Object store of a Ray instance the run starts itself (case files are a few MB each)."""
CLOSE_TIMEOUT_S = 30.0
"""Seconds a worker may take to stop its LibreOffice instances at the end of a run."""
TRANSLATED_SUFFIXES = (".json", ".jsonl")
"""Case folder files whose recorded paths are translated between driver and worker."""


def import_ray() -> Any:
    """Ray, or a clear error naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise BenchmarkError(
            "--executor ray needs Ray: pip install 'pptjudge[ray]' (on every node)"
        ) from exc
    return ray


# ------------------------------------------------------------------------------------------
# case files as bytes, with paths translated


def _escaped(path: str) -> list[str]:
    forms = {json.dumps(path, ensure_ascii=False)[1:-1], json.dumps(path)[1:-1]}
    return sorted(forms)


def translate(data: bytes, pairs: list[tuple[str, str]]) -> bytes:
    """``data`` (JSON text) with every path ``a`` of ``pairs`` replaced by its ``b``, longest
    first, in their JSON-escaped forms."""
    text = data.decode("utf-8")
    for a, b in sorted(pairs, key=lambda p: -len(p[0])):
        if not a or a == b:
            continue
        for src, dst in zip(_escaped(a), _escaped(b), strict=True):
            text = text.replace(src, dst)
    return text.encode("utf-8")


def read_folder(root: Path, pairs: list[tuple[str, str]] | None = None) -> dict[str, bytes]:
    """Every file under ``root`` by POSIX relative path (JSON files translated by ``pairs``)."""
    out: dict[str, bytes] = {}
    if not root.is_dir():
        return out
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.name.startswith(".") and path.name.endswith(".tmp"):
            continue  # an atomic write that never finished
        data = path.read_bytes()
        if pairs and path.suffix in TRANSLATED_SUFFIXES:
            data = translate(data, pairs)
        out[path.relative_to(root).as_posix()] = data
    return out


def _translated(files: dict[str, bytes], pairs: list[tuple[str, str]]) -> dict[str, bytes]:
    return {
        rel: translate(data, pairs) if Path(rel).suffix in TRANSLATED_SUFFIXES else data
        for rel, data in files.items()
    }


def _write_order(rel: str) -> tuple[int, str]:
    """Files that mark progress go last: trajectories before round files, case.json last."""
    if rel == "case.json":
        return (3, rel)
    if rel.startswith("rounds/") and rel.endswith(".json"):
        return (2, rel)
    if rel.startswith("rounds/"):
        return (1, rel)
    return (0, rel)


def write_folder(root: Path, files: dict[str, bytes]) -> int:
    """Write ``files`` under ``root`` atomically, skipping unchanged ones; returns how many were
    written. A relative path that leaves ``root`` is refused."""
    written = 0
    base = root.resolve()
    for rel in sorted(files, key=_write_order):
        target = (root / rel).resolve()
        if base not in target.parents:
            raise PptJudgeError(f"{root}: a worker returned a file outside the case ({rel})")
        if target.is_file() and target.read_bytes() == files[rel]:
            continue
        atomic_write_bytes(target, files[rel])
        written += 1
    return written


@dataclass
class TaskFiles:
    """A task's reference image and approved assets, as bytes (sent once per worker)."""

    task_id: str
    digest: str
    reference: bytes
    assets: dict[str, bytes] = field(default_factory=dict)


def task_files(cand: Candidate) -> TaskFiles:
    reference = Path(cand.reference).read_bytes()
    assets = read_folder(Path(cand.assets_dir)) if cand.assets_dir else {}
    h = hashlib.sha256(reference)
    for rel in sorted(assets):
        h.update(rel.encode() + b"\0" + hashlib.sha256(assets[rel]).digest())
    return TaskFiles(cand.task_id, h.hexdigest()[:16], reference, assets)


@dataclass
class CaseJob:
    """One attempt at a case, as sent to a worker."""

    candidate: Candidate
    """With the driver's paths."""
    case_root: str
    """The case folder on the driver."""
    deck: bytes
    task_key: str
    task: list[Any]
    """``[ObjectRef of TaskFiles]`` (in a list, so the worker fetches it only when new)."""
    files: dict[str, bytes]
    """What the case folder already holds (a resumed case), driver paths."""


@dataclass
class CaseOutput:
    case_id: str
    result_json: str | None
    """The CaseResult (driver paths); None: the cost budget left the case unfinished."""
    files: dict[str, bytes]
    """The case folder after the attempt (driver paths)."""
    seconds: float


# ------------------------------------------------------------------------------------------
# the actors (plain classes, made remote by the driver so that Ray is imported lazily)


class Coordinator:
    """The run's global state, one actor on the driver's node (threaded: blocking calls)."""

    def __init__(
        self, concurrency: int, max_cost: float | None, rate: float | None, cache: str | None
    ) -> None:
        self.budget = CostBudget(max_cost)
        self.limiter = RateLimiter(rate)
        self.cache = ModelCache(Path(cache)) if cache else None
        self.slots = threading.Semaphore(concurrency)
        self.held: dict[str, int] = {}
        self.dead: set[str] = set()
        self.events: list[tuple[str, Any]] = []
        self.lock = threading.Lock()

    def may_start(self) -> bool:
        return self.budget.may_start()

    def add_round(self, result: RoundResult) -> None:
        self.budget.add(result)
        with self.lock:
            self.events.append(("round", result))

    def case_started(self, case_id: str, worker: str, pid: int) -> None:
        with self.lock:
            self.events.append(("started", (case_id, worker, pid)))

    def drain(self) -> list[tuple[str, Any]]:
        with self.lock:
            out, self.events = self.events, []
        return out

    def acquire(self, holder: str) -> bool:
        self.slots.acquire()
        with self.lock:
            if holder in self.dead:  # the worker died while it waited
                self.slots.release()
                return False
            self.held[holder] = self.held.get(holder, 0) + 1
        return True

    def release(self, holder: str) -> None:
        with self.lock:
            if self.held.get(holder, 0) <= 0:
                return
            self.held[holder] -= 1
        self.slots.release()

    def holder_lost(self, holder: str) -> int:
        """Return the slots a lost worker held; returns how many."""
        with self.lock:
            self.dead.add(holder)
            n = self.held.pop(holder, 0)
        for _ in range(n):
            self.slots.release()
        return n

    def reserve(self) -> float:
        return self.limiter.reserve()

    def cache_get(self, key: str) -> Any:
        return self.cache.get(key) if self.cache is not None else None

    def cache_put(self, key: str, message: Any) -> None:
        if self.cache is not None:
            self.cache.put(key, message)

    def stats(self) -> dict[str, Any]:
        lim = self.limiter
        return {"requests": lim.requests, "first": lim.first, "last": lim.last}


class _RemoteSlots:
    """A worker's lease on the coordinator's global limit (``Slots``)."""

    def __init__(self, ray: Any, coord: Any, holder: str) -> None:
        self.ray, self.coord, self.holder = ray, coord, holder

    def acquire(self) -> bool:
        return bool(self.ray.get(self.coord.acquire.remote(self.holder)))

    def release(self) -> None:
        self.ray.get(self.coord.release.remote(self.holder))


class _RemoteCache:
    """The model-call cache through the coordinator (``CallCache``)."""

    def __init__(self, ray: Any, coord: Any) -> None:
        self.ray, self.coord = ray, coord

    def get(self, key: str) -> Any:
        return self.ray.get(self.coord.cache_get.remote(key))

    def put(self, key: str, message: Any) -> None:
        self.ray.get(self.coord.cache_put.remote(key, message))


@dataclass
class WorkerSpec:
    """What a case worker is built from (sent once, at its start; everything picklable)."""

    name: str
    settings: RunSettings
    taxonomy: Taxonomy
    taxonomy_hash: str
    dpi: int
    rubric: Rubric | None = None
    rubric_hash: str = ""
    replay_script: bytes | None = None
    """The ``--replay-from`` file, when the judge is ``replay``."""
    lpips_weights: bytes | None = None
    """The ``--lpips-weights`` file, when given."""


SCRATCH_PREFIX = "pptjudge-ray-"
"""Scratch folders of case workers: ``<tmp>/pptjudge-ray-<pid>-<worker>-<random>``."""


def _remove_dead_scratch() -> None:
    """Delete the scratch folders of workers that were killed (their process is gone)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*"):
        pid = folder.name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue  # alive, another user's


class CaseWorker:
    """A Ray actor judging cases: warm LibreOffice instances, the tasks it has seen."""

    def __init__(self, spec: WorkerSpec, coord: Any) -> None:
        import ray

        preload()
        self.name = spec.name
        self.coord = coord
        _remove_dead_scratch()
        self.root = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-{spec.name}-"))
        s = spec.settings
        if spec.replay_script is not None:
            script = self.root / "replay-script.jsonl"
            script.write_bytes(spec.replay_script)
            s = replace(s, backend=replace(s.backend, replay_source=str(script)))
        if spec.lpips_weights is not None and s.lpips_weights is not None:
            weights = self.root / Path(s.lpips_weights).name
            weights.write_bytes(spec.lpips_weights)
            s = replace(s, lpips_weights=weights)
        self.job = RunJob(
            out=self.root,
            settings=s,
            backend=make_backend(s.judge, s.backend, spec.taxonomy, spec.rubric),
            taxonomy=spec.taxonomy,
            taxonomy_hash=spec.taxonomy_hash,
            dpi=spec.dpi,
            budget=CostBudget(None),
            rubric=spec.rubric,
            rubric_hash=spec.rubric_hash,
        )
        self.pool = LazyPool(s.workers, s.render_timeout_s, spec.dpi)
        self.tasks: dict[str, tuple[Path, Path | None]] = {}
        self.tasks_lock = threading.Lock()
        self.counter = itertools.count()

        def wait_rate() -> None:
            delay = float(ray.get(coord.reserve.remote()))
            if delay > 0:
                time.sleep(delay)

        self.services = CaseServices(
            may_start=lambda: bool(ray.get(coord.may_start.remote())),
            on_round=lambda r: ray.get(coord.add_round.remote(r)),
            slots=_RemoteSlots(ray, coord, spec.name),
            before_request=wait_rate if s.rate_limit else None,
            cache=_RemoteCache(ray, coord) if run_cache(self.job) is not None else None,
        )

    def pid(self) -> int:
        return os.getpid()

    def _task(self, job: CaseJob) -> tuple[Path, Path | None]:
        """The task's files in this worker (written once; the Stage 0 reference screen is
        cached by path and mtime, so later cases of the task reuse it)."""
        import ray

        with self.tasks_lock:
            if job.task_key in self.tasks:
                return self.tasks[job.task_key]
            files: TaskFiles = ray.get(job.task[0])
            folder = self.root / "tasks" / files.digest / files.task_id
            atomic_write_bytes(folder / "reference.png", files.reference)
            assets = None
            if files.assets or job.candidate.assets_dir:
                assets = folder / "assets"
                assets.mkdir(parents=True, exist_ok=True)
                write_folder(assets, files.assets)
            self.tasks[job.task_key] = (folder / "reference.png", assets)
            return self.tasks[job.task_key]

    def judge(self, job: CaseJob) -> CaseOutput:
        t0 = time.perf_counter()
        cand = job.candidate
        self.coord.case_started.remote(cand.case_id, self.name, os.getpid())
        reference, assets = self._task(job)
        scratch = self.root / f"job-{next(self.counter)}"
        try:
            deck = scratch / "candidates" / cand.config_id / Path(cand.pptx).name
            atomic_write_bytes(deck, job.deck)
            cd = CaseDir(scratch / "cases" / cand.config_id / cand.task_id)
            pairs = [(job.case_root, str(cd.root)), (cand.pptx, str(deck))]
            pairs.append((cand.reference, str(reference)))
            if cand.assets_dir and assets is not None:
                pairs.append((cand.assets_dir, str(assets)))
            back = [(b, a) for a, b in pairs]
            write_folder(cd.root, _translated(job.files, pairs))
            local = cand.model_copy(
                update={
                    "pptx": str(deck),
                    "reference": str(reference),
                    "assets_dir": str(assets) if cand.assets_dir and assets else None,
                }
            )
            result = judge_candidate(local, cd, self.job, self.services, self.pool)
            text = None
            if result is not None:
                text = translate(result.model_dump_json().encode(), back).decode()
            return CaseOutput(
                case_id=cand.case_id,
                result_json=text,
                files=read_folder(cd.root, back),
                seconds=round(time.perf_counter() - t0, 3),
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def close(self) -> None:
        self.pool.close()
        shutil.rmtree(self.root, ignore_errors=True)


# ------------------------------------------------------------------------------------------
# the driver


@dataclass
class RayHooks:
    """Observation points for tests and tools (called in the driver's thread)."""

    on_case_started: Callable[[str, int], None] = lambda case_id, pid: None
    """(case id, process id of the worker that started it), soon after the start."""


@dataclass
class _Attempt:
    cand: Candidate
    tries: int = 0
    """Attempts lost so far."""
    avoid: set[str] = field(default_factory=set)
    """Workers that lost this case."""
    last_error: str = ""


@dataclass
class _Worker:
    name: str
    actor: Any
    pid: int | None = None
    task: str | None = None
    """The task whose cases it is being given."""
    seen: set[str] = field(default_factory=set)
    inflight: int = 0
    alive: bool = True


class _Queue:
    """Pending cases grouped by task; retries first, never on a worker that lost them."""

    def __init__(self, cands: list[Candidate]) -> None:
        self.by_task: dict[str, deque[_Attempt]] = {}
        for c in sorted(cands, key=lambda c: (c.task_id, c.config_id)):
            self.by_task.setdefault(c.task_id, deque()).append(_Attempt(c))
        self.retry: deque[_Attempt] = deque()

    def __len__(self) -> int:
        return len(self.retry) + sum(len(q) for q in self.by_task.values())

    def take(self, w: _Worker, busy_tasks: set[str]) -> _Attempt | None:
        for a in list(self.retry):
            if w.name not in a.avoid:
                self.retry.remove(a)
                return a
        if w.task is None or not self.by_task.get(w.task):
            open_tasks = [t for t, q in self.by_task.items() if q]
            if not open_tasks:
                return None
            free = [t for t in open_tasks if t not in busy_tasks] or open_tasks
            w.task = max(free, key=lambda t: (t in w.seen, len(self.by_task[t])))
        return self.by_task[w.task].popleft()

    def drain(self) -> list[_Attempt]:
        out = list(self.retry) + [a for q in self.by_task.values() for a in q]
        self.retry.clear()
        self.by_task.clear()
        return out


class RayExecutor:
    """Judge the pending cases on Ray (see the module docstring)."""

    def __init__(self, hooks: RayHooks | None = None) -> None:
        self.hooks = hooks or RayHooks()

    def run(self, job: RunJob, pending: list[Candidate], on_result: OnResult) -> ExecutorReport:
        ray = import_ray()
        started = connect(ray, job.settings.ray_address, job.settings.ray_workers)
        try:
            return _Drive(ray, job, on_result, self.hooks).run(pending)
        finally:
            if started:
                ray.shutdown()


def connect(ray: Any, address: str | None, workers: int | None) -> bool:
    """Join ``address``, or start a small local Ray instance (no dashboard, no usage stats);
    True when this call started Ray (the caller shuts it down). A Ray already initialised in
    this process (a test's cluster) is used as it is."""
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        if address:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        else:
            cpus = max(workers or 0, os.cpu_count() or 1)
            ray.init(
                num_cpus=cpus,
                include_dashboard=False,
                object_store_memory=OBJECT_STORE_BYTES,
                log_to_driver=False,
                configure_logging=False,
            )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or "a local instance"
        raise BenchmarkError(f"--executor ray: cannot start or join Ray ({where}): {exc}") from exc
    return True


class _Drive:
    """One run on Ray: the coordinator, the workers, the scheduling loop."""

    def __init__(self, ray: Any, job: RunJob, on_result: OnResult, hooks: RayHooks) -> None:
        self.ray, self.job, self.on_result, self.hooks = ray, job, on_result, hooks
        self.s = job.settings
        self.report = ExecutorReport()
        self.workers: list[_Worker] = []
        self.inflight: dict[Any, tuple[_Attempt, _Worker]] = {}
        self.task_refs: dict[str, tuple[str, Any]] = {}
        self.names = itertools.count()
        self.replacements = 0
        self.coord: Any = None
        self.replay: bytes | None = None

    # -- set-up ---------------------------------------------------------------------------

    def _worker_count(self) -> int:
        cpus = float(self.ray.cluster_resources().get("CPU", 0))
        n = self.s.ray_workers or max(1, int(cpus // WORKER_CPUS))
        if n * WORKER_CPUS > cpus:
            raise BenchmarkError(
                f"--ray-workers {n} needs {n * WORKER_CPUS:g} CPUs; the Ray cluster has {cpus:g}"
            )
        return n

    def _start_coordinator(self, n: int) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        cache = run_cache(self.job)
        here = self.ray.get_runtime_context().get_node_id()
        remote = self.ray.remote(Coordinator)
        threads = max(32, 4 * n * self.s.concurrency * self.s.rounds)
        self.coord = remote.options(
            num_cpus=0,
            max_concurrency=threads,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=here, soft=False),
        ).remote(
            self.s.concurrency, self.s.max_cost_usd, self.s.rate_limit,
            str(cache.folder.resolve()) if cache is not None else None,
        )  # fmt: skip

    def _spawn(self) -> _Worker:
        name = f"w{next(self.names)}"
        j = self.job
        spec = WorkerSpec(
            name, self.s, j.taxonomy, j.taxonomy_hash, j.dpi, j.rubric, j.rubric_hash, self.replay
        )
        if self.s.lpips_weights is not None:
            spec.lpips_weights = Path(self.s.lpips_weights).read_bytes()
        remote = self.ray.remote(CaseWorker)
        actor = remote.options(
            num_cpus=WORKER_CPUS, max_restarts=0, max_concurrency=self.s.concurrency + 2
        ).remote(spec, self.coord)
        w = _Worker(name=name, actor=actor)
        self.workers.append(w)
        return w

    def _replay_script(self) -> bytes | None:
        if self.s.judge != "replay" or not self.s.backend.replay_source:
            return None
        src = Path(self.s.backend.replay_source)
        if not src.is_file():
            raise BenchmarkError(
                f"{src}: --executor ray replays from one script file (it is sent to the "
                "workers); a run or case folder is not"
            )
        return src.read_bytes()

    # -- the loop -------------------------------------------------------------------------

    def run(self, pending: list[Candidate]) -> ExecutorReport:
        self.replay = self._replay_script()
        todo = []
        for cand in pending:
            problem = missing_task(cand)
            if problem is None:
                todo.append(cand)
            else:
                self._record_error(_Attempt(cand), problem)
        if not todo:
            return self.report
        n = self._worker_count()
        self._start_coordinator(n)
        try:
            for _ in range(n):
                self._spawn()
            self._loop(_Queue(todo))
        finally:
            self._close()
        self.report.notes.insert(0, f"ray: {n} worker(s), {self.s.workers} LibreOffice each")
        if self.s.concurrency < n:
            self.report.notes.insert(
                1,
                f"ray: --concurrency {self.s.concurrency} is global: at most that many rounds "
                f"were judged at once by the {n} workers (raise it to at least {n})",
            )
        return self.report

    def _loop(self, queue: _Queue) -> None:
        while len(queue) or self.inflight:
            self._dispatch(queue)
            if not self.inflight and queue.retry:  # every live worker lost it once: any may try
                for a in queue.retry:
                    a.avoid.clear()
                self._dispatch(queue)
            if not self.inflight:
                for a in queue.drain():
                    self._record_error(a, f"no Ray worker left to judge it ({a.last_error})")
                break
            ready, _ = self.ray.wait(list(self.inflight), num_returns=1, timeout=POLL_S)
            self._forward_events()
            for ref in ready:
                self._finish(ref, queue)
        self._forward_events()

    def _dispatch(self, queue: _Queue) -> None:
        for w in self.workers:
            while w.alive and w.inflight < self.s.concurrency and len(queue):
                busy = {x.task for x in self.workers if x is not w and x.alive and x.task}
                a = queue.take(w, busy)
                if a is None:
                    break
                if not self.job.budget.may_start():
                    self.on_result(a.cand, None)  # budget spent: left for a later run
                    continue
                job = self._case_job(a.cand)
                if job is None:
                    continue
                w.seen.add(a.cand.task_id)
                w.inflight += 1
                self.inflight[w.actor.judge.remote(job)] = (a, w)

    def _case_job(self, cand: Candidate) -> CaseJob | None:
        cd = case_dir(self.job.out, cand.config_id, cand.task_id)
        try:
            if cand.task_id not in self.task_refs:
                files = task_files(cand)
                ref = self.ray.put(files)
                self.task_refs[cand.task_id] = (f"{files.task_id}-{files.digest}", ref)
            key, ref = self.task_refs[cand.task_id]
            deck = Path(cand.pptx).read_bytes()
        except OSError as exc:
            self._record_error(_Attempt(cand), f"cannot read the case's files: {exc}")
            return None
        return CaseJob(
            candidate=cand,
            case_root=str(cd.root),
            deck=deck,
            task_key=key,
            task=[ref],
            files=read_folder(cd.root),
        )

    def _forward_events(self) -> None:
        if self.coord is None:
            return
        try:
            events = self.ray.get(self.coord.drain.remote())
        except self.ray.exceptions.RayError:
            return
        for kind, data in events:
            if kind == "round":
                self.job.budget.add(data)
                self.job.on_round(data)
            elif kind == "started":
                case_id, name, pid = data
                for w in self.workers:
                    if w.name == name:
                        w.pid = pid
                self.hooks.on_case_started(case_id, pid)

    def _finish(self, ref: Any, queue: _Queue) -> None:
        a, w = self.inflight.pop(ref)
        w.inflight -= 1
        try:
            out: CaseOutput = self.ray.get(ref)
        except self.ray.exceptions.RayTaskError as exc:  # the attempt failed, the worker lives
            cause = getattr(exc, "cause", None) or exc
            self._lost(a, w, f"{type(cause).__name__} on {w.name}: {cause}", queue)
            return
        except self.ray.exceptions.RayError as exc:  # the worker is gone
            self._worker_died(w, exc)
            self._lost(a, w, f"worker {w.name} lost: {type(exc).__name__}", queue)
            return
        cd = case_dir(self.job.out, a.cand.config_id, a.cand.task_id)
        write_folder(cd.root, out.files)
        result = None
        if out.result_json is not None:
            result = CaseResult.model_validate_json(out.result_json)
        self.on_result(a.cand, result)

    def _worker_died(self, w: _Worker, exc: Exception) -> None:
        if not w.alive:
            return
        w.alive = False
        self.report.workers_lost += 1
        pid = f" (pid {w.pid})" if w.pid else ""
        self.report.notes.append(f"worker {w.name}{pid} lost: {type(exc).__name__}")
        with contextlib.suppress(self.ray.exceptions.RayError):
            self.ray.get(self.coord.holder_lost.remote(w.name))
        limit = len(self.workers) * (self.s.case_retries + 1)
        if self.replacements < limit:
            self.replacements += 1
            new = self._spawn()
            self.report.notes.append(f"worker {new.name} started in place of {w.name}")

    def _lost(self, a: _Attempt, w: _Worker, reason: str, queue: _Queue) -> None:
        a.tries += 1
        a.avoid.add(w.name)
        a.last_error = reason
        if a.tries > self.s.case_retries:
            self._record_error(a, f"lost on {a.tries} attempt(s); last: {reason}")
            return
        self.report.retried += 1
        self.report.notes.append(f"{a.cand.case_id}: {reason}; started again on another worker")
        queue.retry.append(a)

    def _record_error(self, a: _Attempt, error: str) -> None:
        cand = a.cand
        result = failed(cand, case_dir(self.job.out, cand.config_id, cand.task_id), self.job, error)
        if a.tries:
            self.report.notes.append(f"{cand.case_id}: recorded with its error ({error})")
        self.on_result(cand, result)

    def _close(self) -> None:
        if self.coord is not None and self.s.rate_limit:
            with contextlib.suppress(self.ray.exceptions.RayError):
                st = self.ray.get(self.coord.stats.remote())
                self.report.count_requests(st["requests"], st["first"], st["last"])
        closing = {}
        for w in self.workers:
            if w.alive:
                closing[w.actor.close.remote()] = w
        if closing:
            self.ray.wait(list(closing), num_returns=len(closing), timeout=CLOSE_TIMEOUT_S)
        for w in self.workers:
            with contextlib.suppress(self.ray.exceptions.RayError):
                self.ray.kill(w.actor)
        if self.coord is not None:
            self.ray.kill(self.coord)
