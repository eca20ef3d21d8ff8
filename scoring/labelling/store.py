"""The labels store: one SQLite file per run (``RUN/labelling/labels.sqlite``).

* ``labels`` -- one row per (annotator, case id): the label as last given
  (:class:`judge.schema.HumanLabel` fields), when it was first and last written, and how many
  times it was written;
* ``preferences`` -- one row per (annotator, pair id) of an A/B pair set
  (:class:`judge.schema.PreferenceLabel`), with the same timestamps;
* ``label_events`` -- every write of either kind, appended (the audit trail of a study);
* ``meta`` -- the store version and the study's drawn sample.

Every write is its own transaction (``BEGIN IMMEDIATE``) committed before the page is told it is
saved; the journal is a write-ahead log with ``synchronous=FULL``, so a label the page showed as
saved survives a killed server or a power cut, and several servers (one per annotator) can write
at the same time (SQLite serialises the writers, readers never block).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from judge.errors import LabelsError
from judge.rundir import atomic_write_text
from judge.schema import HumanLabel, PreferenceLabel
from scoring.labels_file import (
    LABEL_COLUMNS,
    OPTIONAL_LABEL_COLUMNS,
    SUBTYPE_SEPARATOR,
    format_fractions,
)

STORE_VERSION = "1"
PREFERENCE_COLUMNS = ("pair_id", "annotator", "winner", "reason")
"""Columns of the exported preferences CSV (winner ``a``, ``b`` or ``tie``: the ``pair_id,
winner`` answers ``judge prefs fit --key`` reads)."""
BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another writer's transaction before giving up."""

EXPORT_COLUMNS = (*LABEL_COLUMNS, *OPTIONAL_LABEL_COLUMNS)
"""Columns of the exported labels CSV: the four ``judge agree`` needs, then the optional ones."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS labels (
    annotator TEXT NOT NULL,
    case_id TEXT NOT NULL,
    gate TEXT CHECK (gate IS NULL OR gate IN ('pass', 'fail')),
    gate_stage TEXT,
    gate_reason TEXT NOT NULL DEFAULT '',
    subtypes TEXT NOT NULL DEFAULT '{}',
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    revisions INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (annotator, case_id)
);
CREATE TABLE IF NOT EXISTS preferences (
    annotator TEXT NOT NULL,
    pair_id TEXT NOT NULL,
    choice TEXT CHECK (choice IS NULL OR choice IN ('a', 'b', 'tie')),
    reason TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    revisions INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (annotator, pair_id)
);
CREATE TABLE IF NOT EXISTS label_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    annotator TEXT NOT NULL,
    case_id TEXT NOT NULL,
    at TEXT NOT NULL,
    label TEXT NOT NULL
);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class StoredLabel:
    annotator: str
    case_id: str
    label: HumanLabel
    created: str
    """ISO 8601 UTC of the first write."""
    updated: str
    """ISO 8601 UTC of the last write."""
    revisions: int


class LabelStore:
    """The SQLite labels store of one run. Thread- and process-safe: each call opens its own
    connection."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._tx() as db:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('store_version', ?)",
                (STORE_VERSION,),
            )
            (version,) = db.execute("SELECT value FROM meta WHERE key = 'store_version'").fetchone()
        if version != STORE_VERSION:
            raise LabelsError(
                f"{self.path}: labels store version {version}; this pptjudge reads version "
                f"{STORE_VERSION}"
            )

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[sqlite3.Connection]:
        """One transaction (a write one takes the write lock at once) on a fresh connection;
        sqlite errors name the file."""
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise LabelsError(f"{self.path}: cannot open the labels store: {exc}") from exc
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if db.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
                raise LabelsError(f"{self.path}: the labels store cannot use a write-ahead log")
            db.execute("PRAGMA synchronous = FULL")
            db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise LabelsError(f"{self.path}: labels store error: {exc}") from exc
        finally:
            db.close()

    # -- meta ---------------------------------------------------------------------------------

    def meta_setdefault(self, key: str, value: str) -> str:
        """The stored value of ``key``, storing ``value`` first if there is none (atomic)."""
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (key, value))
            (stored,) = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(stored)

    # -- labels -------------------------------------------------------------------------------

    def save(self, annotator: str, case_id: str, label: HumanLabel) -> StoredLabel:
        """Write ``label`` as given (replacing the annotator's previous label of the case) and
        append it to the audit trail; committed when this returns."""
        now = _now()
        subtypes = json.dumps(label.subtypes, sort_keys=True)
        with self._tx() as db:
            db.execute(
                "INSERT INTO labels (annotator, case_id, gate, gate_stage, gate_reason, subtypes,"
                " created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (annotator, case_id) DO UPDATE SET gate = excluded.gate,"
                " gate_stage = excluded.gate_stage, gate_reason = excluded.gate_reason,"
                " subtypes = excluded.subtypes, updated = excluded.updated,"
                " revisions = revisions + 1",
                (
                    annotator,
                    case_id,
                    label.gate,
                    label.gate_stage,
                    label.gate_reason,
                    subtypes,
                    now,
                    now,
                ),
            )
            db.execute(
                "INSERT INTO label_events (annotator, case_id, at, label) VALUES (?, ?, ?, ?)",
                (annotator, case_id, now, label.model_dump_json()),
            )
            row = db.execute(_SELECT + " WHERE annotator = ? AND case_id = ?", (annotator, case_id))
            stored = self._row(row.fetchone())
        return stored

    def get(self, annotator: str, case_id: str) -> StoredLabel | None:
        rows = self._select(" WHERE annotator = ? AND case_id = ?", (annotator, case_id))
        return rows[0] if rows else None

    def labels(self, annotator: str | None = None) -> list[StoredLabel]:
        """Every stored label (of one annotator), sorted by case id then annotator."""
        if annotator is None:
            return self._select(" ORDER BY case_id, annotator", ())
        return self._select(" WHERE annotator = ? ORDER BY case_id", (annotator,))

    def events(self) -> int:
        """How many writes the audit trail holds."""
        with self._tx(write=False) as db:
            (n,) = db.execute("SELECT COUNT(*) FROM label_events").fetchone()
        return int(n)

    def _select(self, where: str, args: tuple[str, ...]) -> list[StoredLabel]:
        with self._tx(write=False) as db:
            rows = db.execute(_SELECT + where, args).fetchall()
        return [self._row(r) for r in rows]

    def _row(
        self, row: tuple[str, str, str | None, str | None, str, str, str, str, int]
    ) -> StoredLabel:
        annotator, case_id, gate, stage, reason, subtypes, created, updated, revisions = row
        try:
            label = HumanLabel.model_validate(
                {
                    "gate": gate,
                    "gate_stage": stage,
                    "gate_reason": reason,
                    "subtypes": json.loads(subtypes),
                }
            )
        except ValueError as exc:
            raise LabelsError(
                f"{self.path}: the label of {case_id!r} by {annotator!r} is damaged: {exc}"
            ) from None
        return StoredLabel(annotator, case_id, label, created, updated, int(revisions))


@dataclass(frozen=True)
class StoredPreference:
    annotator: str
    pair_id: str
    label: PreferenceLabel
    created: str
    updated: str
    revisions: int


def _save_preference(
    db: sqlite3.Connection, annotator: str, pair_id: str, label: PreferenceLabel
) -> None:
    now = _now()
    db.execute(
        "INSERT INTO preferences (annotator, pair_id, choice, reason, created, updated)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (annotator, pair_id) DO UPDATE SET"
        " choice = excluded.choice, reason = excluded.reason, updated = excluded.updated,"
        " revisions = revisions + 1",
        (annotator, pair_id, label.choice, label.reason, now, now),
    )
    db.execute(
        "INSERT INTO label_events (annotator, case_id, at, label) VALUES (?, ?, ?, ?)",
        (annotator, f"pair:{pair_id}", now, label.model_dump_json()),
    )


class PreferenceStore(LabelStore):
    """The same SQLite file, for A/B preference answers."""

    def save_preference(
        self, annotator: str, pair_id: str, label: PreferenceLabel
    ) -> StoredPreference:
        """Write ``label`` as given; committed when this returns."""
        with self._tx() as db:
            _save_preference(db, annotator, pair_id, label)
        stored = self.get_preference(annotator, pair_id)
        assert stored is not None
        return stored

    def get_preference(self, annotator: str, pair_id: str) -> StoredPreference | None:
        rows = self._select_preferences(
            " WHERE annotator = ? AND pair_id = ?", (annotator, pair_id)
        )
        return rows[0] if rows else None

    def preferences(self, annotator: str | None = None) -> list[StoredPreference]:
        """Every stored answer (of one annotator), sorted by pair id then annotator."""
        if annotator is None:
            return self._select_preferences(" ORDER BY pair_id, annotator", ())
        return self._select_preferences(" WHERE annotator = ? ORDER BY pair_id", (annotator,))

    def _select_preferences(self, where: str, args: tuple[str, ...]) -> list[StoredPreference]:
        with self._tx(write=False) as db:
            rows = db.execute(
                "SELECT annotator, pair_id, choice, reason, created, updated, revisions"
                " FROM preferences" + where,
                args,
            ).fetchall()
        return [
            StoredPreference(a, pid, PreferenceLabel(choice=choice, reason=reason), c, u, int(r))
            for a, pid, choice, reason, c, u, r in rows
        ]


def export_preferences(store: PreferenceStore, out: Path) -> ExportSummary:
    """Write every answered pair to ``out`` (CSV ``pair_id,annotator,winner,reason``)."""
    answers = store.preferences()
    done = [s for s in answers if s.label.choice is not None]
    if not done:
        raise LabelsError(f"{store.path}: no answered pair to export yet")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(PREFERENCE_COLUMNS)
    for s in done:
        writer.writerow([s.pair_id, s.annotator, s.label.choice, s.label.reason])
    atomic_write_text(Path(out), buf.getvalue())
    return ExportSummary(
        path=Path(out),
        rows=len(done),
        annotators=sorted({s.annotator for s in done}),
        cases=len({s.pair_id for s in done}),
        unfinished=len(answers) - len(done),
    )


_SELECT = (
    "SELECT annotator, case_id, gate, gate_stage, gate_reason, subtypes, created, updated,"
    " revisions FROM labels"
)


# ----------------------------------------------------------------------------------------------
# Export


@dataclass(frozen=True)
class ExportSummary:
    path: Path
    rows: int
    annotators: list[str]
    cases: int
    unfinished: int
    """Stored labels without a gate (a form only started): not exported."""


def labels_csv(labels: list[StoredLabel]) -> tuple[str, int]:
    """(CSV text in the ``judge agree`` format with the optional columns, unfinished count)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    unfinished = 0
    for s in labels:
        lab = s.label
        if lab.gate is None:
            unfinished += 1
            continue
        writer.writerow(
            [
                s.case_id,
                s.annotator,
                lab.gate,
                SUBTYPE_SEPARATOR.join(sorted(lab.subtypes)),
                lab.gate_stage or "",
                lab.gate_reason,
                format_fractions(lab.subtypes),
            ]
        )
    return buf.getvalue(), unfinished


def export_labels(store: LabelStore, out: Path) -> ExportSummary:
    """Write every finished label of ``store`` to ``out`` (CSV, atomically)."""
    labels = store.labels()
    text, unfinished = labels_csv(labels)
    done = [s for s in labels if s.label.gate is not None]
    if not done:
        raise LabelsError(f"{store.path}: no finished label to export yet")
    atomic_write_text(Path(out), text)
    return ExportSummary(
        path=Path(out),
        rows=len(done),
        annotators=sorted({s.annotator for s in done}),
        cases=len({s.case_id for s in done}),
        unfinished=unfinished,
    )
