"""Where generation files live, what an episode cost, and reading generation records back.

Layout under the benchmark folder (per configuration and task)::

    BENCH/candidates/<config>/<task>.pptx              the deck (only when the agent submitted)
    BENCH/generation/<config>/<task>.json              GenerationRecord
    BENCH/generation/<config>/<task>.trajectory.jsonl  TrajectoryEvent lines (stage "generate")
    BENCH/generation/<config>/<task>.py                the program that last changed the deck
    BENCH/generation/<config>/images/<sha256>.png      images of the trajectories
    BENCH/generation/<config>/work/<task>/             the sandbox folder (--keep-work only)
    BENCH/generation/.cache/                           model-answer cache

The judge reads records through :func:`read_record` (``judge run`` fills ``generation_cost_usd``
from them); nothing here imports LangChain or starts a process.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judge.errors import BenchmarkError
from judge.schema import GenerationPrices, GenerationRecord, GenerationTokens

TOKENS_PER_PRICE_UNIT = 1_000_000
"""Prices are USD per million tokens, as providers publish them."""


@dataclass(frozen=True)
class GenerationPaths:
    """Where one task's generation files go (all under the benchmark folder)."""

    bench: Path
    config_id: str
    task_id: str

    @property
    def folder(self) -> Path:
        return self.bench / "generation" / self.config_id

    @property
    def record(self) -> Path:
        return self.folder / f"{self.task_id}.json"

    @property
    def trajectory(self) -> Path:
        return self.folder / f"{self.task_id}.trajectory.jsonl"

    @property
    def images(self) -> Path:
        return self.folder / "images"

    @property
    def program(self) -> Path:
        return self.folder / f"{self.task_id}.py"

    @property
    def work(self) -> Path:
        return self.folder / "work" / self.task_id

    @property
    def candidate(self) -> Path:
        return self.bench / "candidates" / self.config_id / f"{self.task_id}.pptx"

    def rel(self, path: Path) -> str:
        return str(path.relative_to(self.bench))


def generation_paths(bench: Path, config_id: str, task_id: str) -> GenerationPaths:
    return GenerationPaths(Path(bench), config_id, task_id)


def generation_cost(tokens: GenerationTokens, prices: GenerationPrices) -> float | None:
    """USD of an episode: uncached input at the input rate, cached input at the cached rate
    (the input rate when none is given), output -- reasoning included, as OpenAI counts it --
    at the output rate. None when no price is known."""
    if prices.input is None and prices.output is None and prices.cached_input is None:
        return None
    rate_in = prices.input or 0.0
    rate_cached = prices.cached_input if prices.cached_input is not None else rate_in
    uncached = max(0, tokens.input - tokens.cached_input)
    usd = uncached * rate_in + tokens.cached_input * rate_cached
    usd += tokens.output * (prices.output or 0.0)
    return usd / TOKENS_PER_PRICE_UNIT


def load_generation_prices(path: Path, model: str) -> GenerationPrices:
    """A price table (the ``judge run --prices`` format, plus an optional ``cached_input``)."""
    from judge.backends import load_prices

    p = load_prices(path, model)
    return GenerationPrices(input=p.input_per_m, output=p.output_per_m, cached_input=p.cached_per_m)


RETRIED_STATUSES = frozenset({"model_error"})
"""Records a rerun generates again (the endpoint may be back); every other record is final."""


def read_record(path: Path) -> GenerationRecord | None:
    """A generation record on disk, or None when there is none (or it cannot be read)."""
    try:
        return GenerationRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def task_ids(bench: Path) -> list[str]:
    """Every task of a benchmark (a folder of ``tasks/`` holding ``reference.png``), sorted."""
    tasks = Path(bench) / "tasks"
    if not tasks.is_dir():
        raise BenchmarkError(f"{bench}: a benchmark needs a tasks/ folder")
    return sorted(p.name for p in tasks.iterdir() if (p / "reference.png").is_file())


def record_path(bench: Path, config_id: str, task_id: str) -> Path:
    return generation_paths(bench, config_id, task_id).record


def generation_records(bench: Path) -> dict[tuple[str, str], GenerationRecord]:
    """Every readable generation record of a benchmark, by (config_id, task_id)."""
    root = Path(bench) / "generation"
    out: dict[tuple[str, str], GenerationRecord] = {}
    if not root.is_dir():
        return out
    for cfg in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for path in sorted(cfg.glob("*.json")):
            rec = read_record(path)
            if rec is not None:
                out[(rec.config_id, rec.task_id)] = rec
    return out
