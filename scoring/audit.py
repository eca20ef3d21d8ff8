"""The ReFigBench object audit: what each candidate is built of, and per configuration.

Per candidate (from the Stage 0 :class:`~judge.schema.ObjectAudit`, which counts every slide
object by its own type, group members included): native text boxes, shapes (autoshapes),
connectors (``p:cxnSp``: the only objects that stay attached to nodes when nodes move; straight
lines and freeforms are counted apart as ``lines``), groups, tables, pictures, the picture area
over the canvas area (0-1), and whether the deck has no native connector at all.

Per configuration: the share of its decks without a connector, the median connector count and
the mean picture area share. Decks whose file could not be read have no audit and are left out.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from judge.rundir import case_dir
from judge.schema import ArtifactReport, CaseResult, ObjectAudit

AUDIT_COLUMNS = (
    "text_boxes",
    "shapes",
    "connectors",
    "lines",
    "groups",
    "tables",
    "pictures",
    "picture_area_ratio",
    "no_connector",
)
"""Columns of a per-candidate audit row, in display order."""


@dataclass(frozen=True)
class AuditRow:
    """The audit of one candidate."""

    case_id: str
    config_id: str
    task_id: str
    text_boxes: int
    shapes: int
    connectors: int
    lines: int
    """Straight lines and freeforms (editable, but not glued to nodes)."""
    groups: int
    tables: int
    pictures: int
    picture_area_ratio: float
    """Picture area (clipped to the slide) over the slide area, 0-1."""
    native_objects: int
    """Native editable components (what the raster-paste cap counts)."""

    @property
    def no_connector(self) -> bool:
        return self.connectors == 0


@dataclass(frozen=True)
class ConfigAudit:
    """The audit of one configuration's decks."""

    config_id: str
    decks: int
    """Decks with an audit (readable files)."""
    without_connectors: float | None
    """Share of those decks with no native connector, 0-1 (None without decks)."""
    median_connectors: float | None
    mean_picture_area: float | None


def audit_row(case: CaseResult, audit: ObjectAudit) -> AuditRow:
    return AuditRow(
        case_id=case.case_id,
        config_id=case.config_id,
        task_id=case.task_id,
        text_boxes=audit.text_boxes,
        shapes=audit.autoshapes,
        connectors=audit.connectors,
        lines=audit.lines,
        groups=audit.groups,
        tables=audit.tables,
        pictures=audit.pictures,
        picture_area_ratio=audit.picture_area_ratio,
        native_objects=audit.editable_components,
    )


def case_audit(case: CaseResult, run: Path | None = None) -> ObjectAudit | None:
    """The audit on the results line, else the one in the case's ``stage0.json`` (runs made
    before results lines carried it), else None."""
    if case.audit is not None:
        return case.audit
    if run is None:
        return None
    path = case_dir(run, case.config_id, case.task_id).stage0
    if not path.is_file():
        return None
    try:
        report = ArtifactReport.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError:
        return None
    return report.audit


def audit_rows(cases: Sequence[CaseResult], run: Path | None = None) -> list[AuditRow]:
    """One row per case that has an audit, in the order given."""
    rows = []
    for case in cases:
        audit = case_audit(case, run)
        if audit is not None:
            rows.append(audit_row(case, audit))
    return rows


def config_audits(rows: Sequence[AuditRow]) -> dict[str, ConfigAudit]:
    """Per configuration (sorted by name): share without connectors, median connectors."""
    by_config: dict[str, list[AuditRow]] = {}
    for row in rows:
        by_config.setdefault(row.config_id, []).append(row)
    out: dict[str, ConfigAudit] = {}
    for config in sorted(by_config):
        group = by_config[config]
        out[config] = ConfigAudit(
            config_id=config,
            decks=len(group),
            without_connectors=sum(r.no_connector for r in group) / len(group),
            median_connectors=float(statistics.median(r.connectors for r in group)),
            mean_picture_area=sum(r.picture_area_ratio for r in group) / len(group),
        )
    return out


def audit_table(rows: Sequence[AuditRow]) -> str:
    """The per-configuration audit as a fixed-width text table."""
    audits = config_audits(rows)
    head = f"{'config':<24} {'decks':>5} {'no connector':>12} {'median conn':>11} {'picture':>8}"
    lines = [head]
    for a in audits.values():
        share = "-" if a.without_connectors is None else f"{a.without_connectors:.0%}"
        median = "-" if a.median_connectors is None else f"{a.median_connectors:g}"
        pic = "-" if a.mean_picture_area is None else f"{a.mean_picture_area:.0%}"
        lines.append(f"{a.config_id:<24} {a.decks:>5} {share:>12} {median:>11} {pic:>8}")
    return "\n".join(lines)
