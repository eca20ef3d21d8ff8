"""The output folder of a benchmark writer: made ready once, the same way by every writer."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from judge.errors import BenchmarkError


def ready_out(
    out: Path,
    force: bool,
    outputs: Sequence[str] = ("tasks", "candidates"),
    files: Sequence[str] = (),
) -> None:
    """Refuse an ``out`` that is not a directory, or a non-empty one unless ``force``; with
    ``force``, remove the generated ``outputs`` folders and ``files`` (nothing else of it)."""
    if out.exists() and not out.is_dir():
        raise BenchmarkError(f"{out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not force:
            raise BenchmarkError(f"{out}: directory is not empty (use --force to replace it)")
        for sub in outputs:
            shutil.rmtree(out / sub, ignore_errors=True)
        for name in files:
            (out / name).unlink(missing_ok=True)
