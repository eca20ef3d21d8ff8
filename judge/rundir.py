"""Paths of the on-disk layouts (benchmark and run directories) and atomic writes.

Benchmark (input)::

    <bench>/tasks/<task_id>/reference.png
    <bench>/tasks/<task_id>/task.json            optional
    <bench>/tasks/<task_id>/assets/...           optional
    <bench>/candidates/<config_id>/<task_id>.pptx

Run (output of ``judge run``)::

    <run>/run.json                               RunManifest
    <run>/taxonomy.yaml                          copy of the taxonomy the run was scored with
    <run>/results.jsonl                          one CaseResult per line
    <run>/cases/<config_id>/<task_id>/stage0.json       ArtifactReport
    <run>/cases/<config_id>/<task_id>/render.png        LibreOffice render (full resolution)
    <run>/cases/<config_id>/<task_id>/render.json       RenderResult
    <run>/cases/<config_id>/<task_id>/pair.png          normalised pair (1200x900 panels)
    <run>/cases/<config_id>/<task_id>/pair.json         PairGeometry
    <run>/cases/<config_id>/<task_id>/rounds/round-<k>.json             RoundResult
    <run>/cases/<config_id>/<task_id>/rounds/round-<k>.trajectory.jsonl TrajectoryEvent lines
    <run>/cases/<config_id>/<task_id>/images/<sha256>.png               images of trajectories
    <run>/cases/<config_id>/<task_id>/case.json         CaseResult
    <run>/labelling/labels.sqlite                human labels of `judge label` (SQLite, WAL)
    <run>/labelling/secret                       per-run key of the page's opaque case ids
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ValidationError

from judge.errors import BenchmarkError
from judge.schema import SCHEMA_VERSION, Candidate, CaseResult, Task

RUN_MANIFEST = "run.json"
RUN_TAXONOMY = "taxonomy.yaml"
RUN_RUBRIC = "rubric.yaml"
"""Copy of the ReFigBench rubric kept in a ``--protocol refigbench`` run folder."""
"""A copy of the taxonomy file the run was scored with (so later edits never orphan a run)."""
RESULTS = "results.jsonl"
CANDIDATE_SUFFIXES = (".pptx", ".pptm")
"""Candidate deck extensions (any case): a macro-enabled or upper-case-named deck is judged (and
fails Stage 0 if it must), never silently left out of its configuration's mean."""
CASES = "cases"
LABELLING = "labelling"
"""Folder of the human labelling study (`judge label`): its SQLite store and id secret."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so a reader never sees a partial file (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def write_model(path: Path, model: BaseModel) -> None:
    """Write a contract as indented JSON, atomically."""
    atomic_write_text(path, model.model_dump_json(indent=2) + "\n")


@dataclass(frozen=True)
class CaseDir:
    """The folder of one case inside a run."""

    root: Path

    @property
    def stage0(self) -> Path:
        return self.root / "stage0.json"

    @property
    def render_png(self) -> Path:
        return self.root / "render.png"

    @property
    def render_json(self) -> Path:
        return self.root / "render.json"

    @property
    def pair_png(self) -> Path:
        return self.root / "pair.png"

    @property
    def pair_json(self) -> Path:
        return self.root / "pair.json"

    @property
    def rounds_dir(self) -> Path:
        return self.root / "rounds"

    def round_json(self, k: int) -> Path:
        return self.rounds_dir / f"round-{k}.json"

    def trajectory(self, k: int) -> Path:
        return self.rounds_dir / f"round-{k}.trajectory.jsonl"

    @property
    def images_dir(self) -> Path:
        return self.root / "images"

    @property
    def case_json(self) -> Path:
        return self.root / "case.json"


def case_dir(run: Path, config_id: str, task_id: str) -> CaseDir:
    return CaseDir(Path(run) / CASES / config_id / task_id)


def resolve_results(run: Path, results: str | Path | None = None) -> tuple[Path, Path]:
    """The run folder and the results file to read: ``results.jsonl`` by default, or
    ``results`` (a rescored ``results.<policy>.<hash8>.jsonl``), looked up in the run folder
    when it is a bare name."""
    run = Path(run)
    if not run.exists():
        raise BenchmarkError(f"{run}: no such run folder")
    if not run.is_dir():
        raise BenchmarkError(
            f"{run}: a file, not a run folder (the --out folder of `judge run`; read a rescored "
            "file with: RUN --results results.<policy>.<hash8>.jsonl)"
        )
    if results is None:
        path = run / RESULTS
        if not path.is_file():
            raise BenchmarkError(f"{path}: no results.jsonl (is {run} a run directory?)")
        return run, path
    given = Path(results)
    path = given if given.parent != Path() or given.is_absolute() else run / given
    if not path.is_file():
        found = sorted(p.name for p in run.glob("results*.jsonl"))
        raise BenchmarkError(
            f"{path}: no such results file (in {run}: {', '.join(found) or 'none'})"
        )
    return run, path


def read_results(run: Path, results: str | Path | None = None) -> list[CaseResult]:
    """Read ``results.jsonl`` of a run (or the results file ``results``, see
    :func:`resolve_results`); the last line per case wins (resumed runs append)."""
    run, path = resolve_results(Path(run), results)
    by_case: dict[str, CaseResult] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                res = CaseResult.model_validate_json(line)
            except ValueError as exc:
                raise BenchmarkError(
                    f"{path}:{lineno}: not a results line: {first_problem(exc)}"
                ) from None
            check_schema_version(f"{path}:{lineno}", res.version)
            by_case[res.case_id] = res
    return list(by_case.values())


def first_problem(exc: ValueError) -> str:
    """One line for a failed record validation: the first problem, and how many more."""
    if not isinstance(exc, ValidationError):
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    errors = exc.errors()
    if not errors:
        return exc.title
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"])
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where + ': ' if where else ''}{first['msg']}{more}"


def check_schema_version(where: str | Path, version: int) -> None:
    """Refuse a record written by another on-disk schema (another pptjudge version)."""
    if version != SCHEMA_VERSION:
        raise BenchmarkError(
            f"{where}: written with schema version {version}; this pptjudge reads version "
            f"{SCHEMA_VERSION} (judge the benchmark again with this version)"
        )


def load_task(bench: Path, task_id: str) -> Task:
    folder = Path(bench) / "tasks" / task_id
    meta = folder / "task.json"
    if meta.is_file():
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise BenchmarkError(f"{meta}: not JSON: {exc}") from exc
        data.setdefault("id", task_id)
        return Task.model_validate(data)
    return Task(id=task_id)


def iter_candidates(bench: Path) -> Iterator[Candidate]:
    """Every candidate of every configuration, sorted by (config_id, task_id).

    A candidate whose task has no ``reference.png`` is still yielded (its ``reference`` path does
    not exist): the runner records it as an errored case and the batch goes on. A task that
    ``judge generate`` recorded without a deck (``generation/<config>/<task>.json``) is yielded
    with ``missing`` set: it fails Stage 0 and scores 0 instead of leaving the mean.
    """
    bench = Path(bench)
    tasks_dir = bench / "tasks"
    cands_dir = bench / "candidates"
    if not tasks_dir.is_dir() or not cands_dir.is_dir():
        raise BenchmarkError(f"{bench}: a benchmark needs tasks/ and candidates/ folders")
    for config in sorted(p for p in cands_dir.iterdir() if p.is_dir()):
        seen: dict[str, Path] = {}
        for pptx in sorted(config.iterdir()):
            if pptx.suffix.lower() not in CANDIDATE_SUFFIXES:
                continue
            task_id = pptx.stem
            if task_id in seen:
                raise BenchmarkError(
                    f"{pptx}: a second candidate for task {task_id!r} (also {seen[task_id].name})"
                )
            seen[task_id] = pptx
        failed = _failed_generations(bench, config.name)
        for task_id in failed:  # no deck: the case fails Stage 0 and scores 0
            seen.setdefault(task_id, config / f"{task_id}.pptx")
        for task_id, pptx in sorted(seen.items()):
            ref = tasks_dir / task_id / "reference.png"
            assets = tasks_dir / task_id / "assets"
            # absolute paths: the run records them, and `judge replay` must find the files
            # from whatever folder it is started in
            yield Candidate(
                case_id=f"{config.name}/{task_id}",
                task_id=task_id,
                config_id=config.name,
                pptx=str(pptx.resolve()),
                reference=str(ref.resolve()),
                assets_dir=str(assets.resolve()) if assets.is_dir() else None,
                missing=None if pptx.is_file() else failed.get(task_id),
            )


def _failed_generations(bench: Path, config_id: str) -> dict[str, str]:
    """Tasks ``judge generate`` recorded without a deck for a configuration: task id -> why."""
    folder = bench / "generation" / config_id
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("candidate") is None and "status" in data:
            why = data.get("reason") or data["status"]
            out[path.stem] = f"no candidate deck: the generation agent failed ({why})"
    return out
