"""Extra fields of every results line: object audit, fidelity and reference complexity.

:func:`with_diagnostics` adds them to a finished :class:`~judge.schema.CaseResult` (both
protocols): ``audit`` from the Stage 0 report, ``fidelity`` from the case's normalised pair
(cases that reached it), ``complexity`` of the task's reference. They are diagnostics: they
never change a score, and a diagnostic that cannot be computed is left null (the case stands).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from judge.errors import PptJudgeError
from judge.rundir import CaseDir
from judge.schema import ArtifactReport, Candidate, CaseResult, ComplexityMetrics, PairGeometry

_COMPLEXITY: dict[tuple[str, int, int], ComplexityMetrics] = {}
_LOCK = threading.Lock()


def reference_complexity_cached(png: Path) -> ComplexityMetrics:
    """:func:`scoring.complexity.reference_complexity`, once per file version per process."""
    from scoring.complexity import reference_complexity

    st = png.stat()
    key = (str(png.resolve()), st.st_size, st.st_mtime_ns)
    with _LOCK:
        hit = _COMPLEXITY.get(key)
    if hit is None:
        hit = reference_complexity(png)
        with _LOCK:
            _COMPLEXITY[key] = hit
    return hit


def with_diagnostics(
    result: CaseResult,
    candidate: Candidate,
    cd: CaseDir,
    report: ArtifactReport | None,
    lpips_weights: Path | None = None,
) -> CaseResult:
    """``result`` with its audit, fidelity and complexity fields filled where computable."""
    from scoring.fidelity import case_fidelity

    update: dict[str, object] = {}
    if report is not None and report.audit is not None:
        update["audit"] = report.audit
    if cd.pair_png.is_file() and cd.pair_json.is_file():
        try:
            pair = PairGeometry.model_validate_json(cd.pair_json.read_text(encoding="utf-8"))
            update["fidelity"] = case_fidelity(cd.pair_png, pair, lpips_weights)
        except (PptJudgeError, ValueError):
            pass
    ref = Path(candidate.reference)
    if ref.is_file():
        with contextlib.suppress(PptJudgeError):
            update["complexity"] = reference_complexity_cached(ref)
    return result.model_copy(update=update) if update else result
