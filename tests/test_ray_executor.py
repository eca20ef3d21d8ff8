"""The Ray executor (judge.engine.ray_executor): the fixture benchmark on a local Ray cluster
gives the local executor's results line for line, survives a killed worker, and resumes runs
either way. One module-scoped Ray instance (2 CPUs, no dashboard) serves every test here, and
two of the fixture's three tasks (every gate among their eight cases) keep the runs short."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.backends import BackendSettings, Prices
from judge.engine.executors import RateLimiter
from judge.engine.ray_executor import RayExecutor, RayHooks, import_ray, translate, write_folder
from judge.engine.runner import RunSettings, RunSummary, run_bench
from judge.errors import BenchmarkError, PptJudgeError
from judge.rundir import RESULTS
from taxonomy.loader import load_taxonomy
from tests.fake_openai import Reply, serve, stage_of, submit
from tests.judge_helpers import detail_args

ray = pytest.importorskip("ray")
TAX = load_taxonomy()

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "bench"
TASKS = ("s7-flow00", "s7-flow02")
"""Their eight cases end at every gate: pass, artifact, semantic and render."""
TIMING_KEYS = {"seconds", "t", "created"}
"""JSON fields that measure time: they differ between any two runs."""


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=100 * 1024 * 1024,
        log_to_driver=False,
        configure_logging=False,
    )
    try:
        yield
    finally:
        ray.shutdown()


def settings(**kw: Any) -> RunSettings:
    return RunSettings(judge="builtin", **kw)


def ray_settings(**kw: Any) -> RunSettings:
    return settings(**{"executor": "ray", "ray_workers": 2, **kw})


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    """The fixture benchmark's tasks ``TASKS`` with every configuration's candidates for them."""
    root = tmp_path_factory.mktemp("bench")
    for task in TASKS:
        shutil.copytree(FIXTURE / "tasks" / task, root / "tasks" / task)
        for cfg in sorted(p.name for p in (FIXTURE / "candidates").iterdir()):
            (root / "candidates" / cfg).mkdir(parents=True, exist_ok=True)
            shutil.copy(FIXTURE / "candidates" / cfg / f"{task}.pptx", root / "candidates" / cfg)
    return root


@pytest.fixture(scope="module")
def local_run(bench, tmp_path_factory, render_pool) -> tuple[Path, RunSummary]:
    out = tmp_path_factory.mktemp("local") / "run"
    return out, run_bench(bench, out, settings(), render_pool=render_pool)


@pytest.fixture(scope="module")
def ray_run(bench, tmp_path_factory, ray_cluster) -> tuple[Path, RunSummary]:
    out = tmp_path_factory.mktemp("ray") / "run"
    return out, run_bench(bench, out, ray_settings())


def without_timings(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k not in TIMING_KEYS}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    if isinstance(data, str) and data.startswith("rendered "):
        return data.split(" in ")[0]  # "rendered WxH px in 0.29 s"
    return data


def case_files(run: Path, *copied_from: Path) -> dict[str, Any]:
    """Every case folder file: JSON parsed (run path and timings removed), others as bytes.
    ``copied_from``: the runs this one was copied from (their paths stay in copied files)."""

    def text(path: Path) -> str:
        data = path.read_text()
        for root in (run, *copied_from):
            data = data.replace(str(root), "RUN")
        return data

    out: dict[str, Any] = {}
    for path in sorted((run / "cases").rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(run).as_posix()
        if path.suffix == ".json":
            out[rel] = without_timings(json.loads(text(path)))
        elif path.suffix == ".jsonl":
            out[rel] = [without_timings(json.loads(x)) for x in text(path).splitlines()]
        else:
            out[rel] = path.read_bytes()
    return out


def lines(run: Path) -> list[str]:
    return (run / RESULTS).read_text().splitlines()


def forget(run: Path, cases: list[str], keep: tuple[str, ...] = ()) -> None:
    """Undo cases of a finished run: delete their folders, or keep only the files ``keep``
    names (a case stopped after rendering)."""
    for case in cases:
        folder = run / "cases" / case
        for path in sorted(folder.rglob("*"), reverse=True):
            if path.is_file() and path.name not in keep:
                path.unlink()
    remaining = [x for x in lines(run) if json.loads(x)["case_id"] not in cases]
    (run / RESULTS).write_text("".join(x + "\n" for x in remaining))


@pytest.mark.slow
def test_ray_run_gives_the_local_results_line_for_line(local_run, ray_run) -> None:
    (local, local_summary), (remote, summary) = local_run, ray_run
    assert summary.judged == local_summary.judged == 8
    assert set(summary.gates) == {"pass", "artifact", "semantic", "render"}
    assert lines(remote) == lines(local)
    assert summary.gates == local_summary.gates
    assert case_files(remote) == case_files(local)  # same files, same content but timings
    assert summary.retried == 0 and "ray: 2 worker(s)" in summary.executor_notes[0]


@pytest.mark.slow
def test_worker_killed_mid_case_is_retried_on_another_worker(
    bench, local_run, ray_cluster, tmp_path
) -> None:
    careful = tmp_path / "bench"
    shutil.copytree(bench / "tasks", careful / "tasks")
    cfg = "candidates/agent-careful"
    shutil.copytree(bench / cfg, careful / cfg)
    killed: list[tuple[str, int]] = []

    def kill_first(case_id: str, pid: int) -> None:
        if not killed:  # the first case a worker starts also starts its LibreOffice: mid-case
            killed.append((case_id, pid))
            os.kill(pid, signal.SIGKILL)

    out = tmp_path / "run"
    summary = run_bench(careful, out, ray_settings(), executor=RayExecutor(RayHooks(kill_first)))
    assert killed
    assert summary.retried >= 1
    assert summary.errors == 0 and summary.judged == 2
    assert any(f"(pid {killed[0][1]}) lost" in n for n in summary.executor_notes)
    # the replacement worker deleted the killed worker's scratch folder
    assert not list(Path(tempfile.gettempdir()).glob(f"pptjudge-ray-{killed[0][1]}-*"))
    want = [x for x in lines(local_run[0]) if '"config_id":"agent-careful"' in x]
    assert lines(out) == want


@pytest.mark.slow
def test_a_case_lost_on_every_try_is_recorded_with_its_error(ray_cluster, tmp_path) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(FIXTURE / "tasks" / "s7-flow00", bench / "tasks" / "s7-flow00")
    cfg = bench / "candidates" / "agent-careful"
    cfg.mkdir(parents=True)
    shutil.copy(FIXTURE / "candidates" / "agent-careful" / "s7-flow00.pptx", cfg)

    def kill_every(case_id: str, pid: int) -> None:
        os.kill(pid, signal.SIGKILL)

    out = tmp_path / "run"
    hooks = RayHooks(kill_every)
    summary = run_bench(
        bench, out, ray_settings(ray_workers=1, case_retries=1), executor=RayExecutor(hooks)
    )
    (line,) = lines(out)
    result = json.loads(line)
    assert result["error"].startswith("lost on 2 attempt(s)")
    assert summary.errors == 1 and summary.retried == 1
    assert any("recorded with its error" in n for n in summary.executor_notes)


@pytest.mark.slow
def test_ray_resumes_a_run_started_locally(bench, local_run, ray_cluster, tmp_path) -> None:
    out = tmp_path / "run"
    shutil.copytree(local_run[0], out)
    forget(out, ["agent-careful/s7-flow02", "agent-wrong/s7-flow02"])
    forget(out, ["agent-sloppy/s7-flow00"], keep=("stage0.json", "render.png", "render.json"))
    summary = run_bench(bench, out, ray_settings(rate_limit=600))
    assert (summary.reused, summary.judged) == (5, 3)
    assert lines(out) == lines(local_run[0])
    assert case_files(out, local_run[0]) == case_files(local_run[0])
    # the global rate limit spaced every model request of both workers 0.1 s apart
    assert summary.requests > 1
    assert summary.request_span_s >= (summary.requests - 1) * 0.1 - 1e-6


@pytest.mark.slow
def test_local_resumes_a_run_started_on_ray(
    bench, local_run, ray_run, render_pool, tmp_path
) -> None:
    out = tmp_path / "run"
    shutil.copytree(ray_run[0], out)
    forget(out, ["agent-cheat/s7-flow00", "agent-sloppy/s7-flow02"])
    summary = run_bench(bench, out, settings(), render_pool=render_pool)
    assert (summary.reused, summary.judged) == (6, 2)
    assert lines(out) == lines(local_run[0])


def passing(request: dict[str, Any]) -> Reply:
    if stage_of(request) == "detail":
        return submit(detail_args(TAX))
    return submit({"passed": True})


def openai_settings(url: str, **kw: Any) -> RunSettings:
    backend = BackendSettings(
        model="fake", base_url=url, api_key="k", backoff_cap_s=0.05, prices=Prices(1.0, 4.0)
    )
    return RunSettings(judge="openai", backend=backend, **kw)


@pytest.fixture
def small_bench(tmp_path) -> Path:
    """Task s7-flow00 with two configurations (a passing and a failing candidate)."""
    bench = tmp_path / "bench"
    shutil.copytree(FIXTURE / "tasks" / "s7-flow00", bench / "tasks" / "s7-flow00")
    for cfg in ("agent-careful", "agent-wrong"):
        (bench / "candidates" / cfg).mkdir(parents=True)
        shutil.copy(FIXTURE / "candidates" / cfg / "s7-flow00.pptx", bench / "candidates" / cfg)
    return bench


@pytest.mark.slow
def test_ray_workers_answer_from_the_model_call_cache_of_a_local_run(
    small_bench, ray_cluster, render_pool, tmp_path
) -> None:
    with serve(passing) as fake:
        local = tmp_path / "local"
        run_bench(small_bench, local, openai_settings(fake.base_url), render_pool=render_pool)
        sent = len(fake.requests)
        summary = run_bench(
            small_bench,
            tmp_path / "ray",
            openai_settings(fake.base_url, executor="ray", cache_dir=local / "cache"),
        )
        assert len(fake.requests) == sent  # every answer came from the driver's cache folder
    assert summary.usage.model_calls == summary.usage.cached_calls > 0

    def verdicts(run: Path) -> list[dict[str, Any]]:  # usage differs: cached calls cost nothing
        return [{k: v for k, v in json.loads(x).items() if k != "usage"} for x in lines(run)]

    assert verdicts(tmp_path / "ray") == verdicts(local)


@pytest.mark.slow
def test_ray_run_stops_at_the_global_cost_budget_and_a_rerun_finishes(
    small_bench, ray_cluster, tmp_path
) -> None:
    out = tmp_path / "run"
    with serve(passing) as fake:
        kw: dict[str, Any] = {"executor": "ray", "ray_workers": 1, "concurrency": 1}
        first = run_bench(
            small_bench, out, openai_settings(fake.base_url, max_cost_usd=0.001, **kw)
        )
        assert first.unfinished >= 1 and first.stopped and "cost budget" in first.stopped
        assert (first.usage.cost_usd or 0.0) >= 0.001
        second = run_bench(small_bench, out, openai_settings(fake.base_url, **kw))
    assert second.unfinished == 0 and second.errors == 0
    assert len(lines(out)) == 2


@pytest.mark.slow
def test_cli_run_joins_an_existing_cluster_by_address(local_run, ray_cluster, tmp_path) -> None:
    import subprocess

    bench = tmp_path / "bench"
    shutil.copytree(FIXTURE / "tasks" / "s7-flow00", bench / "tasks" / "s7-flow00")
    (bench / "candidates" / "agent-wrong").mkdir(parents=True)
    shutil.copy(
        FIXTURE / "candidates" / "agent-wrong" / "s7-flow00.pptx",
        bench / "candidates" / "agent-wrong",
    )
    address = ray.get_runtime_context().gcs_address  # the module's cluster, joined by the CLI
    judge = str(Path(sys.executable).parent / "judge")
    args = [judge, "run", str(bench), "--out", str(tmp_path / "run"), "--judge", "builtin"]
    args += ["--executor", "ray", "--address", address, "--ray-workers", "1"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "ray: 1 worker(s), 1 LibreOffice each" in done.stdout
    want = [x for x in lines(local_run[0]) if '"case_id":"agent-wrong/s7-flow00"' in x]
    assert lines(tmp_path / "run") == want
    assert ray.is_initialized()  # the cluster it joined is left running


def test_rate_limiter_spaces_requests_evenly_across_callers() -> None:
    now = [100.0]
    limiter = RateLimiter(120, clock=lambda: now[0])  # one every 0.5 s
    waits = [limiter.reserve() for _ in range(4)]
    assert waits == [0.0, 0.5, 1.0, 1.5]
    now[0] = 110.0  # idle for a while: no burst is saved up
    assert [limiter.reserve(), limiter.reserve()] == [0.0, 0.5]
    assert RateLimiter(None).reserve() == 0.0


def test_paths_are_translated_in_their_json_escaped_form() -> None:
    data = json.dumps({"png": "/w/job-1/cases/c/t/render.png", "note": 'at "/w/job-1"'}).encode()
    out = json.loads(translate(data, [("/w/job-1/cases/c/t", "/runs/a b/cases/c/t")]))
    assert out["png"] == "/runs/a b/cases/c/t/render.png"
    assert out["note"] == 'at "/w/job-1"'


def test_a_returned_file_outside_the_case_folder_is_refused(tmp_path) -> None:
    with pytest.raises(PptJudgeError, match="outside the case"):
        write_folder(tmp_path / "case", {"../../escape.json": b"{}"})
    assert not (tmp_path / "escape.json").exists()


def test_missing_ray_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(BenchmarkError, match=r"pip install 'pptjudge\[ray\]'"):
        import_ray()
