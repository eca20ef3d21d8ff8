"""Shared pytest fixtures (each area adds its own below, keeping them small)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.render.pool import RenderPool


@pytest.fixture(autouse=True)
def _fresh_reference_readings() -> Iterator[None]:
    """Each test starts without reference readings kept by another (judge.tools.base.memo keeps
    them per process; a test that changes the reader must not meet an earlier test's)."""
    from judge.tools.base import clear_shared_readings

    clear_shared_readings()
    yield


# --- shared data outside the repository (real decks, real figures) ---

SHARED_ENV = "PPTJUDGE_SHARED"
"""Environment variable naming the shared data folder (holding ``real-decks/``,
``real-figures/``); without it the folder is looked for beside the clone (``../shared``)."""


def shared_folder() -> Path:
    """Where the shared data folder is looked for: ``$PPTJUDGE_SHARED``, else ``../shared``."""
    given = os.environ.get(SHARED_ENV)
    if given:
        return Path(given).expanduser().resolve()
    return Path(__file__).resolve().parents[2] / "shared"


def shared_path(name: str) -> Path:
    """A sub-folder of the shared data folder (``real-decks``, ``real-figures``)."""
    return shared_folder() / name


def shared_skip_reason(name: str) -> str:
    """Why a test skips: which folder was looked for, and how to point at another one."""
    return (
        f"needs the shared data folder {shared_path(name)} (looked for via ${SHARED_ENV}, "
        f"else ../shared beside the clone); set {SHARED_ENV}=/path/to/shared to run it"
    )


def needs_shared(name: str) -> pytest.MarkDecorator:
    """Skip unless ``<shared>/<name>`` is a folder, with a reason naming where it was looked for."""
    return pytest.mark.skipif(not shared_path(name).is_dir(), reason=shared_skip_reason(name))


@pytest.fixture(scope="session")
def render_pool() -> Iterator[RenderPool]:
    """ONE warm LibreOffice pool (2 instances, 60 s per file) shared by every test session-wide.

    Starting it costs ~1.5 s; tests that use it are ``@pytest.mark.slow``. Tests may crash or
    time out its instances: the pool restarts them.
    """
    with RenderPool(workers=2, timeout=60.0) as pool:
        yield pool


# --- study area (leaderboard, agreement, findings, report): build run dirs from the contracts ---


class RunKit:
    """Builds CaseResult records and writes run directories in the judge/rundir.py layout."""

    @staticmethod
    def case(config: str, task: str, gate: str | None = "pass", **kw: Any) -> Any:
        """A CaseResult; score/layout/text/graphics default to zeros unless the gate passes."""
        from judge.schema import CaseResult

        rounds = kw.pop("rounds", None)
        if rounds is None:
            rounds = {"pass": ["pass"] * 3, "artifact": [], None: []}.get(
                gate, ["pass", gate, gate]
            )
        votes: dict[str, int] = {}
        for s in rounds:
            votes[s] = votes.get(s, 0) + 1
        dims = kw.pop("dims", (30.0, 30.0, 30.0) if gate == "pass" else (0.0, 0.0, 0.0))
        data: dict[str, object] = {
            "case_id": f"{config}/{task}",
            "task_id": task,
            "config_id": config,
            "valid": gate != "artifact",
            "artifact_failures": ["one_slide"] if gate == "artifact" else [],
            "gate": gate,
            "gate_votes": votes,
            "rounds": rounds,
            "layout": dims[0],
            "text": dims[1],
            "graphics": dims[2],
            "score": sum(dims),
        }
        if gate is None:
            data.update(score=None, layout=None, text=None, graphics=None, error="backend down")
        data.update(kw)
        return CaseResult.model_validate(data)

    @staticmethod
    def write(run: object, cases: list, round_results: list | None = None) -> object:
        """Write run.json, results.jsonl, case.json and round files under ``run``."""
        from pathlib import Path

        from judge.rundir import RESULTS, RUN_MANIFEST, case_dir, write_model
        from judge.schema import RunManifest

        run = Path(str(run))
        run.mkdir(parents=True, exist_ok=True)
        write_model(
            run / RUN_MANIFEST,
            RunManifest(
                package_version="0.1.0",
                created="2026-11-29T00:00:00Z",
                bench="bench",
                judge="builtin",
                rounds=3,
                taxonomy_path="taxonomy/pptbench.yaml",
                taxonomy_version="test",
                taxonomy_hash="0" * 64,
                render_dpi=96,
            ),
        )
        with (run / RESULTS).open("w", encoding="utf-8") as fh:
            for c in cases:
                fh.write(c.model_dump_json() + "\n")
                write_model(case_dir(run, c.config_id, c.task_id).case_json, c)
        for r in round_results or []:
            cfg, task = r.case_id.split("/", 1)
            write_model(case_dir(run, cfg, task).round_json(r.round_index), r)
        return run


@pytest.fixture
def runkit() -> RunKit:
    return RunKit()


# --- judge engine area (graph, runner): one tiny benchmark, its reference rendered once ---


@pytest.fixture(scope="session")
def judge_bench(tmp_path_factory: pytest.TempPathFactory, render_pool: RenderPool):
    """A benchmark in the DESIGN.md layout: task ``flow`` (reference = LibreOffice render of a
    three-box flowchart deck) and candidates ``good`` (that deck), ``swapped`` (labels swapped)
    and ``empty`` (one text box: fails Stage 0). Read-only: copy before writing into it."""
    import shutil

    from pptx import Presentation
    from pptx.util import Inches

    from tests.judge_helpers import flow_deck

    root = tmp_path_factory.mktemp("judge_bench")
    bench = root / "bench"
    task = bench / "tasks" / "flow"
    task.mkdir(parents=True)
    good = flow_deck(root / "good.pptx")
    render_pool.render(good, task / "reference.png")
    for cfg in ("good", "swapped", "empty"):
        (bench / "candidates" / cfg).mkdir(parents=True)
    shutil.copy(good, bench / "candidates" / "good" / "flow.pptx")
    flow_deck(bench / "candidates" / "swapped" / "flow.pptx", ("Train", "Encode", "Decode"))
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    slide.shapes.add_textbox(Inches(1), Inches(1), Inches(3), Inches(1)).text_frame.text = "x"
    prs.save(str(bench / "candidates" / "empty" / "flow.pptx"))
    return bench


# --- labelling area: one real builtin run of fixtures/bench (two tasks, all four configs) ---

LABEL_TASKS = ("s7-flow00", "s7-flow01")
LABEL_CONFIGS = ("agent-careful", "agent-sloppy", "agent-wrong", "agent-cheat")


@pytest.fixture(scope="session")
def fixture_run(tmp_path_factory: pytest.TempPathFactory, render_pool: RenderPool):
    """A run folder: the builtin judge (real Stage 0, LibreOffice, tools, graph) on two tasks of
    fixtures/bench x four configurations = 8 cases, 6 with a rendered pair (agent-cheat fails
    Stage 0 before rendering). Read-only: copy it before writing into it (``shutil.copytree``)."""
    import shutil
    from pathlib import Path

    from judge.engine.runner import RunSettings, run_bench

    src = Path(__file__).resolve().parent.parent / "fixtures" / "bench"
    if not (src / "labels.jsonl").is_file():
        pytest.skip("no fixtures/bench")
    root = tmp_path_factory.mktemp("fixture_run")
    bench = root / "bench"
    for task in LABEL_TASKS:
        shutil.copytree(src / "tasks" / task, bench / "tasks" / task)
        for cfg in LABEL_CONFIGS:
            (bench / "candidates" / cfg).mkdir(parents=True, exist_ok=True)
            shutil.copy(src / "candidates" / cfg / f"{task}.pptx", bench / "candidates" / cfg)
    run = root / "run"
    run_bench(bench, run, RunSettings(judge="builtin", early_stop=True), render_pool=render_pool)
    return run
