"""Which protocol a run judges with: PPTBench (default) or the ReFigBench rubric.

The runner asks this module for the run's rubric (ReFigBench only) and for the ``run.json``
fields that record it; everything else about a ReFigBench run (the rubric round graph, its
scoring) lives in :mod:`judge.engine.graph` and :mod:`scoring.refigbench`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.schema import ProtocolName, Rubric

PROTOCOLS: tuple[ProtocolName, ...] = ("pptbench", "refigbench")


def run_rubric(protocol: str, rubric_path: Path | None) -> tuple[Rubric | None, str]:
    """The run's ReFigBench rubric and its hash; (None, "") for a PPTBench run."""
    if protocol != "refigbench":
        return None, ""
    from taxonomy.rubric import load_rubric, rubric_hash

    rubric = load_rubric(rubric_path)
    return rubric, rubric_hash(rubric)


def manifest_fields(protocol: ProtocolName, rubric_path: Path | None) -> dict[str, Any]:
    """``run.json`` fields naming the protocol (and the rubric file, version and hash)."""
    from taxonomy.rubric import DEFAULT_RUBRIC

    fields: dict[str, Any] = {"protocol": protocol}
    rubric, digest = run_rubric(protocol, rubric_path)
    if rubric is not None:
        fields.update(
            rubric_path=str(rubric_path or DEFAULT_RUBRIC),
            rubric_version=rubric.version,
            rubric_hash=digest,
        )
    return fields
