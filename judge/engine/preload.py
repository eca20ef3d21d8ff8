"""Import, before case threads start, every module case code imports inside a function.

Python's import lock is per module. Two threads that first import a package whose modules
import each other in a cycle can each hold one module's lock and wait for the other's: Python
then raises ``_DeadlockError`` in one of them and leaves a half-initialised module in
``sys.modules``, so every later case fails too. python-pptx is such a package (a matplotlib
benchmark run lost all 120 cases to it, each failing ``opens``). Importing these modules once in
the thread that starts the pool removes the race; :func:`preload` is called by the local
executor and by each Ray worker before they judge.

``tests/test_preload.py`` checks that :data:`LAZY_IMPORTS` names every function-level import of
``judge``, ``scoring`` and ``taxonomy`` (except :data:`NOT_PRELOADED`), so a new lazy import
cannot be forgotten here.
"""

from __future__ import annotations

import importlib

LAZY_IMPORTS: tuple[str, ...] = (
    "PIL", "cv2", "dataclasses", "fcntl", "pypdfium2", "scipy.spatial",
    "pptx", "pptx.enum.shapes", "pptx.shapes.autoshape",
    "generation.records",
    "judge.artifact.gate", "judge.artifact.ooxml", "judge.artifact.pictures",
    "judge.artifact.renderscreen", "judge.backends.builtin", "judge.backends.builtin_rubric",
    "judge.backends.openai", "judge.backends.replay", "judge.engine.protocol", "judge.errors",
    "judge.render.pool", "judge.render.prepare", "judge.rundir", "judge.sandbox", "judge.schema",
    "judge.tools.blobtests", "judge.tools.colour", "judge.tools.evidence",
    "judge.tools.graphread", "judge.tools.graphs", "judge.tools.nodes", "judge.tools.nodetext",
    "judge.tools.ocr",
    "judge.tools.python",
    "scoring.aggregate", "scoring.case", "scoring.complexity", "scoring.diagnostics",
    "scoring.fidelity", "scoring.leaderboard", "scoring.refigbench", "scoring.report.protocols",
    "scoring.rescore", "scoring.tiers", "taxonomy.loader", "taxonomy.rubric",
)  # fmt: skip
"""Modules imported lazily by case code, imported up front by :func:`preload`."""
NOT_PRELOADED: frozenset[str] = frozenset(
    ("ray", "ray.util.scheduling_strategies", "judge.engine.ray_executor", "torch", "lpips",
     "rapidocr", "uno")
)  # fmt: skip
"""Lazy imports left lazy: optional and heavy (Ray, LPIPS's torch), imported under a lock of
their own (the OCR engine), or only in the one thread that drives a run."""


def preload() -> list[str]:
    """Import :data:`LAZY_IMPORTS`; returns the names that could not be imported (optional
    extras that are not installed). A module that fails to import in any other way is left to
    fail where a case imports it, with that case's own error, rather than stopping the run."""
    missing = []
    for name in LAZY_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - see the docstring
            missing.append(name)
    return missing
