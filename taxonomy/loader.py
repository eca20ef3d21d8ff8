"""Load, validate, hash and compare taxonomy files; check Stage 3 findings against one.

The taxonomy file (``taxonomy/pptbench.yaml`` by default) is YAML edited by maintainers. Its
schema is :class:`judge.schema.Taxonomy`; on top of the schema the loader checks consistency
(exactly the three dimensions, weights summing to 100, caps within weights, a monotone staircase
ending at 1.0, ordered non-negative tier bases, subtype names unique across the whole file, YAML
duplicate keys). Every problem is reported as ``FILE:LINE: key.path: message``.

The hash (:func:`taxonomy_hash`) is the sha256 of a canonical JSON dump of the *parsed* content,
not of the file bytes: comments, whitespace, key order and number spelling (``3`` vs ``3.0``) do
not change it; every name, tier, number, description and the order of lists does.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from judge.errors import TaxonomyError
from judge.schema import DetailVerdict, Taxonomy, TaxonomySubtype, Tier

DEFAULT_TAXONOMY = Path(__file__).resolve().parent / "pptbench.yaml"
"""The packaged taxonomy used when no file is given."""

DIMENSION_NAMES = ("layout", "text", "graphics")
"""The three dimensions every taxonomy must define, once each (the results line has a field per
dimension)."""

TOTAL_POINTS = 100.0
"""Dimension weights must sum to this: S is a score out of 100."""

SUM_TOLERANCE = 1e-9
"""Float slack when checking that weights sum to 100 (decimal weights like 33.3 do not add up
exactly in binary)."""

TIER_ORDER: tuple[Tier, ...] = ("high", "medium", "low", "diagnostic")
"""Tiers from most to least severe: their bases must be non-increasing in this order."""

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
"""Category and subtype names: snake_case identifiers (they appear in prompts and JSON keys)."""


# --------------------------------------------------------------------------------------------
# YAML with line numbers and duplicate-key detection


class _Map(dict[str, Any]):
    """A YAML mapping that remembers the line (1-based) of itself and of each key."""

    line: int = 0
    lines: dict[Any, int]


class _Seq(list[Any]):
    """A YAML sequence that remembers the line of itself and of each item."""

    line: int = 0
    lines: dict[int, int]


class _DuplicateKey(Exception):
    def __init__(self, key: object, first: int, second: int) -> None:
        super().__init__(key)
        self.key = key
        self.first = first
        self.second = second


class _LineLoader(yaml.SafeLoader):
    """SafeLoader building :class:`_Map`/:class:`_Seq` and refusing duplicate keys."""


def _construct_map(loader: _LineLoader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    out = _Map()
    out.line = node.start_mark.line + 1
    out.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in out.lines:
            raise _DuplicateKey(key, out.lines[key], line)
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = line
    return out


def _construct_seq(loader: _LineLoader, node: yaml.SequenceNode) -> _Seq:
    out = _Seq()
    out.line = node.start_mark.line + 1
    out.lines = {}
    for i, item in enumerate(node.value):
        out.append(loader.construct_object(item, deep=True))
        out.lines[i] = item.start_mark.line + 1
    return out


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)


def _locate(raw: Any, loc: tuple[Any, ...]) -> tuple[int, str]:
    """The line and a readable key path (``dimensions[layout].weight``) of ``loc`` in ``raw``.

    List items are named by their ``name`` key when they have one. The line is that of the
    deepest part of ``loc`` present in the file (a missing key points at its parent).
    """
    line = getattr(raw, "line", 0)
    parts: list[str] = []
    node = raw
    for step in loc:
        if isinstance(node, _Seq) and isinstance(step, int) and 0 <= step < len(node):
            item = node[step]
            label = item.get("name") if isinstance(item, dict) else None
            parts.append(f"[{label}]" if isinstance(label, str) else f"[{step}]")
            line = node.lines.get(step, line)
            node = item
        elif isinstance(node, _Map) and step in node:
            parts.append(f".{step}" if parts else str(step))
            line = node.lines.get(step, line)
            node = node[step]
        else:
            if isinstance(step, int):
                parts.append(f"[{step}]")
            elif step != "[key]":
                parts.append(f".{step}" if parts else str(step))
            node = None
    return line, "".join(parts) or "(top level)"


# --------------------------------------------------------------------------------------------
# Loading and validation


def _problem(path: Path, raw: Any, loc: tuple[Any, ...], message: str) -> str:
    line, where = _locate(raw, loc)
    return f"{path}:{line}: {where}: {message}"


Problem = tuple[tuple[Any, ...], str]
"""A consistency problem: the key path it is about (located in the file later) and the text."""


def _check_consistency(path: Path, raw: Any, tax: Taxonomy) -> list[str]:
    """Checks the pydantic schema cannot express; returns ``FILE:LINE: key: message`` lines."""
    found: list[Problem] = []
    if not tax.version.strip():
        found.append((("version",), "version must not be empty"))
    found += _check_tiers(tax)
    found += _check_staircase(tax)
    found += _check_dimensions(tax)
    found += _check_names(tax, raw)
    return [_problem(path, raw, loc, message) for loc, message in found]


def _check_tiers(tax: Taxonomy) -> list[Problem]:
    """Tiers: all four, non-negative, ordered, diagnostic never penalises."""
    out: list[Problem] = []
    for tier in TIER_ORDER:
        if tier not in tax.tiers:
            out.append((("tiers",), f"tier {tier!r} has no base"))
        elif tax.tiers[tier] < 0 or not math.isfinite(tax.tiers[tier]):
            out.append(
                (("tiers", tier), f"base must be a non-negative number, got {tax.tiers[tier]}")
            )
    present = [t for t in TIER_ORDER if t in tax.tiers and tax.tiers[t] >= 0]
    for hi, lo in itertools.pairwise(present):
        if tax.tiers[hi] < tax.tiers[lo]:
            out.append(
                (("tiers", lo), f"{lo} ({tax.tiers[lo]}) must not exceed {hi} ({tax.tiers[hi]})")
            )
    if tax.tiers.get("diagnostic", 0.0) != 0.0:
        out.append(
            (("tiers", "diagnostic"), "diagnostic findings are never penalised: base must be 0")
        )
    return out


def _check_staircase(tax: Taxonomy) -> list[Problem]:
    """Staircase: strictly increasing bounds, non-decreasing multipliers, ends at 1.0."""
    out: list[Problem] = []
    steps = tax.staircase
    if not steps:
        out.append((("staircase",), "the staircase needs at least one step"))
    for i in range(1, len(steps)):
        if steps[i].max_ratio <= steps[i - 1].max_ratio:
            out.append(
                (
                    ("staircase", i, "max_ratio"),
                    f"max_ratio {steps[i].max_ratio} must be above the previous step's "
                    f"{steps[i - 1].max_ratio} (the staircase is not monotone)",
                )
            )
        if steps[i].multiplier < steps[i - 1].multiplier:
            out.append(
                (
                    ("staircase", i, "multiplier"),
                    f"multiplier {steps[i].multiplier} is below the previous step's "
                    f"{steps[i - 1].multiplier} (the staircase is not monotone)",
                )
            )
    if steps and steps[-1].max_ratio != 1.0:
        out.append(
            (
                ("staircase", len(steps) - 1, "max_ratio"),
                f"the last step must cover rho up to 1.0, got {steps[-1].max_ratio}",
            )
        )
    return out


def _check_dimensions(tax: Taxonomy) -> list[Problem]:
    """Dimensions: exactly the three, weights sum to 100, caps within weights."""
    out: list[Problem] = []
    names: list[str] = [d.name for d in tax.dimensions]
    for i, name in enumerate(names):
        if name in names[:i]:
            out.append((("dimensions", i, "name"), f"dimension {name!r} is defined twice"))
    for dname in DIMENSION_NAMES:
        if dname not in names:
            out.append((("dimensions",), f"dimension {dname!r} is missing"))
    total = sum(d.weight for d in tax.dimensions)
    if abs(total - TOTAL_POINTS) > SUM_TOLERANCE:
        detail = " + ".join(f"{d.name} {d.weight:g}" for d in tax.dimensions)
        out.append(
            (("dimensions",), f"weights must sum to {TOTAL_POINTS:g}, got {total:g} ({detail})")
        )
    for i, dim in enumerate(tax.dimensions):
        if dim.cap > dim.weight:
            out.append(
                (
                    ("dimensions", i, "cap"),
                    f"cap {dim.cap:g} is above the weight {dim.weight:g} (a dimension cannot "
                    "lose more points than it has)",
                )
            )
    return out


def _check_names(tax: Taxonomy, raw: Any) -> list[Problem]:
    """Categories and subtypes: names, uniqueness (subtypes across the whole file), one-line
    descriptions; a duplicate subtype names the line of its first definition (from ``raw``)."""
    out: list[Problem] = []
    seen: dict[str, tuple[Any, ...]] = {}
    for i, dim in enumerate(tax.dimensions):
        cat_names: list[str] = []
        for j, cat in enumerate(dim.categories):
            cloc = ("dimensions", i, "categories", j)
            if not NAME_PATTERN.match(cat.name):
                out.append(((*cloc, "name"), f"category name {cat.name!r} is not snake_case"))
            if cat.name in cat_names:
                out.append(((*cloc, "name"), f"category {cat.name!r} appears twice in {dim.name}"))
            cat_names.append(cat.name)
            if not cat.subtypes:
                out.append(((*cloc, "subtypes"), f"category {cat.name!r} has no subtypes"))
            for k, st in enumerate(cat.subtypes):
                out += _check_subtype(st, (*cloc, "subtypes", k), seen, raw)
        if not dim.categories:
            out.append(
                (("dimensions", i, "categories"), f"dimension {dim.name!r} has no categories")
            )
    return out


def _check_subtype(
    st: TaxonomySubtype, sloc: tuple[Any, ...], seen: dict[str, tuple[Any, ...]], raw: Any
) -> list[Problem]:
    """One subtype's name and description; ``seen`` (name -> key path) is updated."""
    out: list[Problem] = []
    if not NAME_PATTERN.match(st.name):
        out.append(((*sloc, "name"), f"subtype name {st.name!r} is not snake_case"))
    if "\n" in st.description.strip():
        out.append(((*sloc, "description"), "the description must be one line"))
    if st.name in seen:
        first_line, first_where = _locate(raw, seen[st.name])
        out.append(
            (
                (*sloc, "name"),
                f"duplicate subtype {st.name!r} (first defined at line {first_line}, "
                f"{first_where})",
            )
        )
    else:
        seen[st.name] = sloc
    return out


def invalid(path: Path, what: str, problems: list[str]) -> TaxonomyError:
    """One error listing every problem of a data file (``what``: "taxonomy", "rubric")."""
    head = f"{path}: invalid {what} ({len(problems)} problem{'s' if len(problems) != 1 else ''})"
    return TaxonomyError("\n".join([head, *problems]))


def _raise(path: Path, problems: list[str]) -> None:
    raise invalid(path, "taxonomy", problems)


def load_yaml_mapping(text: str, path: Path, what: str) -> dict[str, Any]:
    """The top-level mapping of a data file's YAML, its nodes carrying line numbers; duplicate
    keys, YAML errors and a non-mapping top level raise :class:`TaxonomyError` with FILE:LINE."""
    try:
        raw = yaml.load(text, Loader=_LineLoader)  # noqa: S506 - SafeLoader subclass
    except _DuplicateKey as exc:
        raise TaxonomyError(
            f"{path}:{exc.second}: duplicate key {exc.key!r} (first at line {exc.first})"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise TaxonomyError(f"{where}: not valid YAML: {problem}") from None
    if not isinstance(raw, dict):
        raise TaxonomyError(f"{path}:1: the {what} must be a YAML mapping at the top level")
    return raw


def validation_problems(exc: ValidationError, path: Path, raw: Any) -> list[str]:
    """Pydantic's errors as ``FILE:LINE: key.path: message`` lines."""
    problems = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = f"unknown key {loc[-1]!r}"
        elif err["type"] == "missing":
            msg = f"required key {loc[-1]!r} is missing"
        problems.append(_problem(path, raw, loc, msg))
    return problems


def parse_taxonomy(text: str, path: Path) -> Taxonomy:
    """Parse and validate taxonomy YAML ``text`` (``path`` is only used in messages)."""
    raw = load_yaml_mapping(text, path, "taxonomy")
    try:
        tax = Taxonomy.model_validate(raw)
    except ValidationError as exc:
        raise invalid(path, "taxonomy", validation_problems(exc, path, raw)) from None
    problems = _check_consistency(path, raw, tax)
    if problems:
        _raise(path, problems)
    return tax


def read_data_file(file: Path, what: str) -> str:
    """The UTF-8 text of a maintainer's data file (``what``: "taxonomy", "rubric"), or a
    :class:`TaxonomyError` naming the file."""
    try:
        return file.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaxonomyError(f"{file}: cannot read the {what}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise TaxonomyError(f"{file}: not UTF-8 text: {exc}") from None


def load_taxonomy(path: Path | str | None = None) -> Taxonomy:
    """Load and validate a taxonomy file; ``None`` loads the packaged ``taxonomy/pptbench.yaml``.

    Raises :class:`TaxonomyError` naming the file, line and key path of every problem.
    """
    file = Path(path) if path is not None else DEFAULT_TAXONOMY
    return parse_taxonomy(read_data_file(file, "taxonomy"), file)


def canonical_json(tax: Taxonomy) -> str:
    """The canonical JSON of a taxonomy's content: sorted keys, no whitespace, floats as floats."""
    return json.dumps(
        tax.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def taxonomy_hash(tax: Taxonomy) -> str:
    """sha256 (64 hex digits) of :func:`canonical_json`: stable under comments and formatting."""
    return hashlib.sha256(canonical_json(tax).encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------------------
# Stage 3 verdicts against the taxonomy


def validate_findings(detail: DetailVerdict, tax: Taxonomy) -> list[str]:
    """Problems of a Stage 3 verdict under ``tax``, as messages the model can act on.

    Empty when the verdict is valid. Checks: every subtype exists and sits under the dimension
    and category the finding names; every category with a finding has exactly one affected
    fraction; fractions name categories that exist.
    """
    errors: list[str] = []
    known_categories = {(d, c.name) for d, c in tax.categories()}
    for i, f in enumerate(detail.findings):
        try:
            dim, cat, _ = tax.subtype(f.subtype)
        except KeyError:
            errors.append(
                f"finding {i} ({f.location}): unknown subtype {f.subtype!r}; use one of the "
                f"subtypes listed for {f.dimension}/{f.category}"
                if (f.dimension, f.category) in known_categories
                else f"finding {i} ({f.location}): unknown subtype {f.subtype!r}"
            )
            continue
        if (dim, cat) != (f.dimension, f.category):
            errors.append(
                f"finding {i} ({f.location}): subtype {f.subtype!r} belongs to {dim}/{cat}, "
                f"not {f.dimension}/{f.category}"
            )
    seen: dict[tuple[str, str], int] = {}
    for fr in detail.fractions:
        key = (fr.dimension, fr.category)
        if key not in known_categories:
            errors.append(f"fraction for unknown category {fr.dimension}/{fr.category}")
        seen[key] = seen.get(key, 0) + 1
    for (d_name, c_name), n in seen.items():
        if n > 1:
            errors.append(f"category {d_name}/{c_name} has {n} fractions; give exactly one")
    needed = sorted({(f.dimension, f.category) for f in detail.findings})
    for dim_name, cat_name in needed:
        if (dim_name, cat_name) in known_categories and (dim_name, cat_name) not in seen:
            errors.append(
                f"category {dim_name}/{cat_name} has findings but no affected fraction; add "
                "one fraction (affected elements / elements of that kind in the reference)"
            )
    return errors


# --------------------------------------------------------------------------------------------
# Comparing two taxonomies


@dataclass
class TaxonomyDiff:
    """What changed from one taxonomy to another (every list holds readable lines)."""

    added: list[str] = field(default_factory=list)
    """``dimension/category/subtype (tier)`` present only in the new taxonomy."""
    removed: list[str] = field(default_factory=list)
    retiered: list[str] = field(default_factory=list)
    """``subtype: old tier -> new tier``."""
    moved: list[str] = field(default_factory=list)
    """``subtype: old dimension/category -> new dimension/category``."""
    described: list[str] = field(default_factory=list)
    """Subtypes (and ``category dim/name``) whose description changed (the prompts show it)."""
    numbers: list[str] = field(default_factory=list)
    """Changed bases, staircase steps, weights, caps and the version."""
    old_hash: str = ""
    new_hash: str = ""

    version_unchanged: bool = False
    """The content (hash) changed but ``version`` did not: the file header asks for a bump."""

    @property
    def empty(self) -> bool:
        return self.old_hash == self.new_hash


def diff_taxonomies(old: Taxonomy, new: Taxonomy) -> TaxonomyDiff:
    """Compare two taxonomies: subtypes added/removed/re-tiered/moved, numbers changed."""
    out = TaxonomyDiff(old_hash=taxonomy_hash(old), new_hash=taxonomy_hash(new))
    if old.version != new.version:
        out.numbers.append(f"version: {old.version} -> {new.version}")
    elif not out.empty:
        out.version_unchanged = True
    for tier in TIER_ORDER:
        a, b = old.tiers.get(tier), new.tiers.get(tier)
        if a != b:
            out.numbers.append(f"tiers.{tier}: {a} -> {b}")
    for i in range(max(len(old.staircase), len(new.staircase))):
        a_step = old.staircase[i] if i < len(old.staircase) else None
        b_step = new.staircase[i] if i < len(new.staircase) else None
        if a_step != b_step:

            def show(s: Any) -> str:
                return "(none)" if s is None else f"rho<={s.max_ratio:g} x{s.multiplier:g}"

            out.numbers.append(f"staircase[{i}]: old {show(a_step)} | new {show(b_step)}")
    for name in DIMENSION_NAMES:
        try:
            a_dim = old.dimension(name)
            b_dim = new.dimension(name)
        except KeyError:
            continue
        if a_dim.weight != b_dim.weight:
            out.numbers.append(f"{name}.weight: {a_dim.weight:g} -> {b_dim.weight:g}")
        if a_dim.cap != b_dim.cap:
            out.numbers.append(f"{name}.cap: {a_dim.cap:g} -> {b_dim.cap:g}")
    a_cats = {(d, c.name): c for d, c in old.categories()}
    b_cats = {(d, c.name): c for d, c in new.categories()}
    for key, cat in a_cats.items():
        if key not in b_cats:
            out.removed.append(f"category {key[0]}/{key[1]}")
        elif cat.description != b_cats[key].description:
            out.described.append(f"category {key[0]}/{key[1]}")
    for key in b_cats:
        if key not in a_cats:
            out.added.append(f"category {key[0]}/{key[1]}")
    a_sub, b_sub = old.subtypes(), new.subtypes()
    for name, (d, c, st) in b_sub.items():
        if name not in a_sub:
            out.added.append(f"{d}/{c}/{name} ({st.tier})")
    for name, (d, c, st) in a_sub.items():
        if name not in b_sub:
            out.removed.append(f"{d}/{c}/{name} ({st.tier})")
            continue
        d2, c2, st2 = b_sub[name]
        if st.tier != st2.tier:
            out.retiered.append(f"{name}: {st.tier} -> {st2.tier}")
        if (d, c) != (d2, c2):
            out.moved.append(f"{name}: {d}/{c} -> {d2}/{c2}")
        if st.description != st2.description:
            out.described.append(name)
    return out
