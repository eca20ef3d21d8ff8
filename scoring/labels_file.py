"""The human labels file that ``judge agree`` and ``judge report --labels`` read.

CSV, UTF-8, header row, one row per case and annotator::

    case_id,annotator,gate,subtypes
    cfgA/task01,alice,pass,label_typo;arrow_style
    cfgA/task01,bob,fail,

``gate`` is ``pass`` or ``fail`` (the human's call on the whole gate sequence: artifact, semantic,
render); ``subtypes`` is a ``;``-separated list of taxonomy subtype names (may be empty).

Optional columns (written by ``judge label export``; files without them read as before):
``gate_stage`` (``artifact``, ``semantic``, ``render`` or empty: the stage the annotator thinks
fails), ``gate_reason`` (which node or edge, free text) and ``fractions``
(``subtype=0.25;other=0.5``: affected fraction 0-1 of a listed subtype's category).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

from judge.errors import LabelsError

LABEL_COLUMNS = ("case_id", "annotator", "gate", "subtypes")
OPTIONAL_LABEL_COLUMNS = ("gate_stage", "gate_reason", "fractions")
"""Read when present (``judge label export`` writes them); older files lack them."""
GATE_VALUES = {"pass": True, "fail": False}
GATE_STAGES = ("artifact", "semantic", "render")
SUBTYPE_SEPARATOR = ";"
FRACTION_SEPARATOR = "="

# ----------------------------------------------------------------------------------------------
# Labels


@dataclass(frozen=True)
class Label:
    case_id: str
    annotator: str
    gate_pass: bool
    subtypes: frozenset[str]
    line: int
    """Line of the labels file (1 = header)."""
    gate_stage: str | None = None
    """The stage the annotator thinks fails (``gate_stage`` column), when given."""
    gate_reason: str = ""
    """Which node or edge fails, in the annotator's words (``gate_reason`` column)."""
    fractions: tuple[tuple[str, float], ...] = ()
    """(subtype, affected fraction 0-1) pairs of the ``fractions`` column, sorted by name."""


def format_fractions(fractions: dict[str, float | None]) -> str:
    """The ``fractions`` cell: ``name=0.25;other=0.5`` for the subtypes that have one."""
    return SUBTYPE_SEPARATOR.join(
        f"{k}{FRACTION_SEPARATOR}{v:g}" for k, v in sorted(fractions.items()) if v is not None
    )


def parse_fractions(
    cell: str, subtypes: frozenset[str], where: str
) -> tuple[tuple[str, float], ...]:
    """The pairs of a ``fractions`` cell; each must name a listed subtype and be in 0-1."""
    out: dict[str, float] = {}
    for part in (p.strip() for p in cell.split(SUBTYPE_SEPARATOR)):
        if not part:
            continue
        name, sep, value = (x.strip() for x in part.partition(FRACTION_SEPARATOR))
        try:
            frac = float(value) if sep else math.nan
        except ValueError:
            frac = math.nan
        if not 0.0 <= frac <= 1.0:
            raise LabelsError(f"{where}: fractions: {part!r} is not subtype=fraction (0-1)")
        if name not in subtypes:
            raise LabelsError(f"{where}: fractions: {name!r} is not in this row's subtypes")
        out[name] = frac
    return tuple(sorted(out.items()))


def run_subtypes(run: Path) -> set[str] | None:
    """The subtype names of the taxonomy a run keeps beside ``run.json`` (None if it has none)."""
    from judge.rundir import RUN_TAXONOMY
    from taxonomy.loader import load_taxonomy

    copy = Path(run) / RUN_TAXONOMY
    return set(load_taxonomy(copy).subtypes()) if copy.is_file() else None


def _fit_row(path: Path, line: int, row: list[str], header: list[str]) -> list[str]:
    """The row with as many fields as the header; a row that lacks a required column or has
    more fields than the header is a :class:`LabelsError` saying so (an empty trailing
    ``subtypes`` may be left out)."""
    if len(row) > len(header):
        extra = ", ".join(repr(v) for v in row[len(header) :])
        raise LabelsError(
            f"{path}:{line}: {len(row)} fields, the header has {len(header)} "
            f"({','.join(header)}): extra value(s) {extra} (separate subtypes with "
            f"{SUBTYPE_SEPARATOR!r}, not ',', or quote the field)"
        )
    lacking = header[len(row) :]
    if [c for c in lacking if c in LABEL_COLUMNS and c != "subtypes"]:
        raise LabelsError(
            f"{path}:{line}: {len(row)} field(s), the header has {len(header)}: missing "
            f"{', '.join(lacking)} (a row is {','.join(header)})"
        )
    return row + [""] * len(lacking)


def read_labels(
    path: Path, known_cases: set[str] | None = None, known_subtypes: set[str] | None = None
) -> list[Label]:
    """Read and check a labels CSV; errors name the file and line.

    ``known_cases``: when given, a label naming a case not in it is an error (the study
    commands leave it out: :func:`agreement_report` reports and skips such labels instead).
    ``known_subtypes``: when given, a label naming a subtype not in it is an error (a typo
    would otherwise only lower the issue-set agreement).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise LabelsError(f"{path}: labels file not found") from exc
    except OSError as exc:
        raise LabelsError(f"{path}: cannot read the labels file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise LabelsError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    reader = csv.reader(text.splitlines())
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration as exc:
        raise LabelsError(
            f"{path}: empty file, expected a header {','.join(LABEL_COLUMNS)}"
        ) from exc
    missing = [c for c in LABEL_COLUMNS if c not in header]
    if missing:
        raise LabelsError(
            f"{path}:1: missing column(s) {', '.join(missing)} "
            f"(header must have {','.join(LABEL_COLUMNS)})"
        )
    col = {c: header.index(c) for c in (*LABEL_COLUMNS, *OPTIONAL_LABEL_COLUMNS) if c in header}
    labels: list[Label] = []
    seen: dict[tuple[str, str], int] = {}
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        row = _fit_row(path, line, row, header)
        lab = _row_label({c: row[i] for c, i in col.items()}, f"{path}:{line}", line, known_cases)
        key = (lab.case_id, lab.annotator)
        if key in seen:
            raise LabelsError(
                f"{path}:{line}: annotator {lab.annotator!r} labels case {lab.case_id!r} twice "
                f"(first on line {seen[key]})"
            )
        seen[key] = line
        unknown = sorted(lab.subtypes - known_subtypes) if known_subtypes is not None else []
        if unknown:
            raise LabelsError(
                f"{path}:{line}: unknown subtype(s) {', '.join(map(repr, unknown))} "
                "(not in the run's taxonomy)"
            )
        labels.append(lab)
    if not labels:
        raise LabelsError(f"{path}: no label rows")
    return labels


def _row_label(cells: dict[str, str], where: str, line: int, known_cases: set[str] | None) -> Label:
    """One checked label from the cells of a row, by column name."""
    case_id = cells["case_id"].strip()
    annotator = cells["annotator"].strip()
    gate = cells["gate"].strip().lower()
    if not case_id:
        raise LabelsError(f"{where}: empty case_id")
    if not annotator:
        raise LabelsError(f"{where}: empty annotator for case {case_id!r}")
    if gate not in GATE_VALUES:
        raise LabelsError(f"{where}: gate must be 'pass' or 'fail', got {cells['gate']!r}")
    if known_cases is not None and case_id not in known_cases:
        raise LabelsError(f"{where}: case {case_id!r} is not in the run")
    subtypes = frozenset(s.strip() for s in cells["subtypes"].split(SUBTYPE_SEPARATOR) if s.strip())
    stage = cells.get("gate_stage", "").strip().lower()
    if stage and stage not in GATE_STAGES:
        raise LabelsError(
            f"{where}: gate_stage must be {', '.join(GATE_STAGES)} or empty, got {stage!r}"
        )
    return Label(
        case_id,
        annotator,
        GATE_VALUES[gate],
        subtypes,
        line,
        gate_stage=stage or None,
        gate_reason=cells.get("gate_reason", "").strip(),
        fractions=parse_fractions(cells.get("fractions", ""), subtypes, where),
    )
