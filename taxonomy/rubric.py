"""Load, validate and hash the ReFigBench rubric file (``taxonomy/refigbench.yaml``).

The rubric is maintainer-edited data like the taxonomy, and is read with the taxonomy loader's
YAML machinery: every problem is reported as ``FILE:LINE: key.path: message``, duplicate keys are
refused, and the hash (:func:`rubric_hash`) is the sha256 of the canonical JSON of the *parsed*
content (comments and formatting never change it). Its schema is :class:`judge.schema.Rubric`;
on top of it the loader checks: axis names snake_case and unique, maxima summing to 100, level
anchors from fraction 1.0 strictly down to 0.0, gate checks named in
:data:`judge.schema.CHECK_NAMES`, and ``choices`` naming keys the file has.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judge.errors import TaxonomyError
from judge.schema import CHECK_NAMES, Rubric
from taxonomy.loader import (
    NAME_PATTERN,
    SUM_TOLERANCE,
    TOTAL_POINTS,
    _locate,
    invalid,
    load_yaml_mapping,
    read_data_file,
    validation_problems,
)

DEFAULT_RUBRIC = Path(__file__).resolve().parent / "refigbench.yaml"
"""The packaged ReFigBench rubric used when no file is given."""


def _problem(path: Path, raw: Any, loc: tuple[Any, ...], message: str) -> str:
    line, where = _locate(raw, loc)
    return f"{path}:{line}: {where}: {message}"


def _check_levels(rubric: Rubric, add: Any) -> None:
    for i, axis in enumerate(rubric.axes):
        fracs = [lv.fraction for lv in axis.levels]
        if not fracs:
            add(("axes", i, "levels"), f"axis {axis.name!r} has no level anchors")
            continue
        if fracs[0] != 1.0:
            add(("axes", i, "levels", 0, "fraction"), "the first anchor must be fraction 1.0")
        if fracs[-1] != 0.0:
            add(
                ("axes", i, "levels", len(fracs) - 1, "fraction"),
                "the last anchor must be fraction 0.0",
            )
        for j in range(1, len(fracs)):
            if fracs[j] >= fracs[j - 1]:
                add(
                    ("axes", i, "levels", j, "fraction"),
                    f"fraction {fracs[j]} must be below the previous anchor's {fracs[j - 1]}",
                )
        for j, lv in enumerate(axis.levels):
            if "\n" in lv.anchor.strip():
                add(("axes", i, "levels", j, "anchor"), "the anchor must be one line")


def _check_consistency(path: Path, raw: Any, rubric: Rubric) -> list[str]:
    """Checks the schema cannot express; ``FILE:LINE: key: message`` lines."""
    problems: list[str] = []

    def add(loc: tuple[Any, ...], message: str) -> None:
        problems.append(_problem(path, raw, loc, message))

    if not rubric.version.strip():
        add(("version",), "version must not be empty")
    for i, check in enumerate(rubric.gate):
        if check not in CHECK_NAMES:
            add(("gate", i), f"unknown Stage 0 check {check!r} (known: {', '.join(CHECK_NAMES)})")
    if not rubric.gate:
        add(("gate",), "the gate needs at least one Stage 0 check")
    names: list[str] = []
    for i, axis in enumerate(rubric.axes):
        if not NAME_PATTERN.match(axis.name):
            add(("axes", i, "name"), f"axis name {axis.name!r} is not snake_case")
        if axis.name in names:
            add(("axes", i, "name"), f"axis {axis.name!r} is defined twice")
        names.append(axis.name)
    total = sum(a.max_points for a in rubric.axes)
    if abs(total - TOTAL_POINTS) > SUM_TOLERANCE:
        detail = " + ".join(f"{a.name} {a.max_points:g}" for a in rubric.axes)
        add(("axes",), f"maxima must sum to {TOTAL_POINTS:g}, got {total:g} ({detail})")
    _check_levels(rubric, add)
    if rubric.cap.cap_score > TOTAL_POINTS:
        add(("cap", "cap_score"), f"cap_score {rubric.cap.cap_score:g} is above {TOTAL_POINTS:g}")
    for i, choice in enumerate(rubric.choices):
        head = choice.split("[", 1)[0].split(".", 1)[0]
        if not isinstance(raw, dict) or head not in raw:
            add(("choices", i), f"{choice!r} names no key of this file")
    return problems


def _fail(path: Path, problems: list[str]) -> TaxonomyError:
    return invalid(path, "rubric", problems)


def parse_rubric(text: str, path: Path) -> Rubric:
    """Parse and validate rubric YAML ``text`` (``path`` only names the file in messages)."""
    raw = load_yaml_mapping(text, path, "rubric")
    try:
        rubric = Rubric.model_validate(raw)
    except ValidationError as exc:
        raise _fail(path, validation_problems(exc, path, raw)) from None
    problems = _check_consistency(path, raw, rubric)
    if problems:
        raise _fail(path, problems)
    return rubric


def load_rubric(path: Path | str | None = None) -> Rubric:
    """Load and validate a rubric file; ``None`` loads the packaged ``refigbench.yaml``.

    Raises :class:`TaxonomyError` naming the file, line and key path of every problem.
    """
    file = Path(path) if path is not None else DEFAULT_RUBRIC
    return parse_rubric(read_data_file(file, "rubric"), file)


def rubric_hash(rubric: Rubric) -> str:
    """sha256 (64 hex digits) of the canonical JSON of the rubric's parsed content."""
    text = json.dumps(
        rubric.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rubric_listing(rubric: Rubric) -> str:
    """The axes and their anchors as markdown (the rubric prompt's ``{rubric}`` slot)."""
    lines: list[str] = []
    for axis in rubric.axes:
        lines.append(f"### `{axis.name}` (0-{axis.max_points:g} points)")
        lines.append(axis.description)
        for lv in axis.levels:
            lines.append(f"- {lv.fraction * axis.max_points:g} points: {lv.anchor}")
        lines.append("")
    cap = rubric.cap
    lines.append(
        f"Cap (applied by pptjudge, not by you): pictures covering >= {cap.picture_area_min:.0%} "
        f"of the slide with at most {cap.max_native_objects} native objects cap the score at "
        f"{cap.cap_score:g}."
    )
    return "\n".join(lines)
