"""The taxonomy file, its loader/validator, hash, diff, findings check and CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from judge.errors import TaxonomyError
from judge.schema import CategoryFraction, DetailVerdict, Finding
from taxonomy.loader import (
    DEFAULT_TAXONOMY,
    diff_taxonomies,
    load_taxonomy,
    parse_taxonomy,
    taxonomy_hash,
    validate_findings,
)

runner = CliRunner()

ISSUE_SUBTYPES = """node_spacing alignment panel_proportion node_position unexpected_wrap overflow
clipping text_overlap font_size font_style text_alignment text_color missing_shape extra_shape
node_fill node_stroke corner_radius missing_connector extra_connector endpoint_attachment
connector_routing arrowhead_style dash_style line_width missing_icon substituted_icon node_shadow
line_shadow""".split()

BRIEF_EXTRAS = """text_content line_spacing text_rendering icon_position icon_rendering
malformed_icon extra_icon grid_error connector_shadow""".split()

PACKAGED = DEFAULT_TAXONOMY.read_text(encoding="utf-8")


def _edited(tmp_path: Path, old: str, new: str, name: str = "tax.yaml") -> Path:
    """Write the packaged taxonomy with one exact text edit (it must apply once)."""
    assert PACKAGED.count(old) == 1, old
    path = tmp_path / name
    path.write_text(PACKAGED.replace(old, new), encoding="utf-8")
    return path


def _line_of(path: Path, needle: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)


def _error(path: Path) -> str:
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy(path)
    return str(info.value)


# ---------------------------------------------------------------------------- packaged file


def test_packaged_taxonomy_has_every_subtype_the_issue_lists():
    tax = load_taxonomy()
    names = set(tax.subtypes())
    assert set(ISSUE_SUBTYPES) <= names
    assert set(BRIEF_EXTRAS) <= names


def test_packaged_taxonomy_numbers_follow_the_protocol():
    tax = load_taxonomy()
    assert tax.tiers == {"high": 3.0, "medium": 1.5, "low": 0.5, "diagnostic": 0.0}
    assert [(s.max_ratio, s.multiplier) for s in tax.staircase] == [
        (0.10, 1.0),
        (0.25, 1.5),
        (0.50, 2.0),
        (1.00, 3.0),
    ]
    assert [d.name for d in tax.dimensions] == ["layout", "text", "graphics"]
    assert sum(d.weight for d in tax.dimensions) == 100
    assert all(d.cap <= d.weight for d in tax.dimensions)


def test_issue_tier_examples_are_tiered_as_the_issue_says():
    tax = load_taxonomy()
    tiers = {name: st.tier for name, (_, _, st) in tax.subtypes().items()}
    for name in ("missing_shape", "extra_shape", "missing_connector", "extra_connector"):
        assert tiers[name] == "high", name
    for name in (
        "text_alignment",
        "unexpected_wrap",
        "text_rendering",
        "endpoint_attachment",
        "missing_icon",
        "extra_icon",
        "substituted_icon",
        "malformed_icon",
        "grid_error",
    ):
        assert tiers[name] == "medium", name
    for name in (
        "font_size",
        "font_style",
        "node_spacing",
        "node_fill",
        "corner_radius",
        "arrowhead_style",
        "dash_style",
        "line_width",
        "icon_position",
        "icon_rendering",
    ):
        assert tiers[name] == "low", name
    for name in ("node_shadow", "connector_shadow", "line_shadow"):
        assert tiers[name] == "diagnostic", name


def test_every_subtype_has_a_one_line_description():
    tax = load_taxonomy()
    for name, (_, _, st) in tax.subtypes().items():
        assert st.description.strip() and "\n" not in st.description, name


def test_subtype_lookup_returns_its_dimension_and_category():
    tax = load_taxonomy()
    dim, cat, st = tax.subtype("endpoint_attachment")
    assert (dim, cat, st.tier) == ("graphics", "connectors", "medium")
    with pytest.raises(KeyError):
        tax.subtype("no_such_subtype")
    assert ("text", "fit") in {(d, c.name) for d, c in tax.categories()}


# ---------------------------------------------------------------------------- hash


def test_hash_ignores_comments_and_whitespace(tmp_path):
    path = tmp_path / "t.yaml"
    text = "# a new comment\n\n" + PACKAGED.replace("weight: 30\n", "weight: 30.0   # same\n")
    path.write_text(text, encoding="utf-8")
    assert taxonomy_hash(load_taxonomy(path)) == taxonomy_hash(load_taxonomy())


def test_hash_changes_when_a_description_or_number_changes(tmp_path):
    base = taxonomy_hash(load_taxonomy())
    a = _edited(tmp_path, "medium: 1.5\n", "medium: 1.25\n", "a.yaml")
    b = _edited(tmp_path, "Text runs out of its shape", "Text spills out of its shape", "b.yaml")
    assert taxonomy_hash(load_taxonomy(a)) != base
    assert taxonomy_hash(load_taxonomy(b)) != base


# ---------------------------------------------------------------------------- validation


def test_unknown_key_is_an_error_naming_file_line_and_key(tmp_path):
    path = _edited(tmp_path, "    weight: 40\n", "    weight: 40\n    colour: red\n")
    msg = _error(path)
    assert f"{path}:{_line_of(path, 'colour: red')}:" in msg
    assert "dimensions[graphics].colour" in msg and "unknown key" in msg


def test_duplicate_subtype_across_the_file_is_an_error(tmp_path):
    extra = (
        '          - {name: node_fill, tier: low, description: "Duplicate of a graphics one."}\n'
    )
    anchor = "          - {name: line_spacing,"
    path = _edited(tmp_path, anchor, extra + anchor)
    msg = _error(path)
    # The inserted copy (text dimension) comes first in the file; the graphics one is the repeat.
    first = _line_of(path, "Duplicate of a graphics one")
    second = _line_of(path, '{name: node_fill, tier: low, description: "Fill')
    assert f"{path}:{second}: dimensions[graphics].categories[nodes].subtypes[node_fill]" in msg
    assert f"duplicate subtype 'node_fill' (first defined at line {first}" in msg


def test_weights_not_summing_to_100_is_an_error(tmp_path):
    path = _edited(tmp_path, "    weight: 40\n", "    weight: 45\n")
    assert "weights must sum to 100, got 105" in _error(path)


def test_non_monotone_staircase_is_an_error(tmp_path):
    path = _edited(
        tmp_path,
        "{max_ratio: 0.50, multiplier: 2.0}",
        "{max_ratio: 0.50, multiplier: 1.2}",
    )
    msg = _error(path)
    assert f"{path}:{_line_of(path, 'multiplier: 1.2')}: staircase[2].multiplier" in msg
    assert "not monotone" in msg


def test_staircase_bounds_out_of_order_are_an_error(tmp_path):
    path = _edited(
        tmp_path, "{max_ratio: 0.25, multiplier: 1.5}", "{max_ratio: 0.05, multiplier: 1.5}"
    )
    assert "staircase[1].max_ratio: max_ratio 0.05 must be above" in _error(path)


def test_staircase_must_end_at_one(tmp_path):
    path = _edited(
        tmp_path, "{max_ratio: 1.00, multiplier: 3.0}", "{max_ratio: 0.90, multiplier: 3.0}"
    )
    assert "the last step must cover rho up to 1.0" in _error(path)


def test_negative_base_is_an_error(tmp_path):
    path = _edited(tmp_path, "  low: 0.5\n", "  low: -0.5\n")
    msg = _error(path)
    assert f"{path}:{_line_of(path, 'low: -0.5')}: tiers.low" in msg
    assert "non-negative" in msg


def test_nonzero_diagnostic_base_is_an_error(tmp_path):
    path = _edited(tmp_path, "  diagnostic: 0.0\n", "  diagnostic: 0.1\n")
    assert "diagnostic findings are never penalised" in _error(path)


def test_cap_above_weight_is_an_error(tmp_path):
    path = _edited(
        tmp_path,
        "    cap: 24\n    categories:\n      - name: spacing",
        "    cap: 31\n    categories:\n      - name: spacing",
    )
    msg = _error(path)
    assert f"{path}:{_line_of(path, 'cap: 31')}: dimensions[layout].cap: cap 31 is above" in msg


def test_yaml_duplicate_key_is_an_error_with_both_lines(tmp_path):
    path = _edited(tmp_path, "  high: 3.0\n", "  high: 3.0\n  high: 2.0\n")
    first = _line_of(path, "high: 3.0")
    assert _error(path) == f"{path}:{first + 1}: duplicate key 'high' (first at line {first})"


def test_unknown_tier_is_an_error(tmp_path):
    path = _edited(tmp_path, "{name: z_order, tier: low,", "{name: z_order, tier: lowest,")
    msg = _error(path)
    assert "subtypes[z_order].tier" in msg and f":{_line_of(path, 'lowest')}:" in msg


def test_missing_required_key_points_at_its_parent(tmp_path):
    path = _edited(tmp_path, "    weight: 40\n", "")
    assert "dimensions[graphics].weight: required key 'weight' is missing" in _error(path)


def test_every_problem_is_reported_at_once(tmp_path):
    text = PACKAGED.replace("    weight: 40\n", "    weight: 41\n").replace(
        "  low: 0.5\n", "  low: -1\n"
    )
    with pytest.raises(TaxonomyError) as err:
        parse_taxonomy(text, Path("x.yaml"))
    msg = str(err.value)
    assert msg.startswith("x.yaml: invalid taxonomy (2 problems)")


def test_missing_file_error_names_the_file(tmp_path):
    assert f"{tmp_path / 'nope.yaml'}: cannot read the taxonomy" in _error(tmp_path / "nope.yaml")


def test_broken_yaml_error_names_the_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text('version: "1"\ntiers: {high: 3\nstaircase: []\n', encoding="utf-8")
    assert _error(path).startswith(f"{path}:")


# ---------------------------------------------------------------------------- findings check


def _finding(dim, cat, sub):
    return Finding(dimension=dim, category=cat, subtype=sub, location="node A", description="d")


def test_valid_findings_have_no_problems():
    detail = DetailVerdict(
        findings=[_finding("graphics", "connectors", "dash_style")],
        fractions=[CategoryFraction(dimension="graphics", category="connectors", fraction=0.2)],
    )
    assert validate_findings(detail, load_taxonomy()) == []


def test_unknown_subtype_wrong_place_and_missing_fraction_are_reported():
    detail = DetailVerdict(
        findings=[
            _finding("graphics", "connectors", "dashed_line"),
            _finding("layout", "spacing", "dash_style"),
            _finding("text", "fit", "overflow"),
        ],
        fractions=[
            CategoryFraction(dimension="graphics", category="connectors", fraction=0.2),
            CategoryFraction(dimension="layout", category="spacing", fraction=0.1),
            CategoryFraction(dimension="layout", category="spacing", fraction=0.3),
            CategoryFraction(dimension="layout", category="gaps", fraction=0.3),
        ],
    )
    errors = validate_findings(detail, load_taxonomy())
    assert any("unknown subtype 'dashed_line'" in e for e in errors)
    assert any(
        "'dash_style' belongs to graphics/connectors, not layout/spacing" in e for e in errors
    )
    assert any("text/fit has findings but no affected fraction" in e for e in errors)
    assert any("layout/spacing has 2 fractions" in e for e in errors)
    assert any("unknown category layout/gaps" in e for e in errors)
    assert len(errors) == 5


# ---------------------------------------------------------------------------- diff


def test_diff_lists_added_removed_retiered_and_numbers(tmp_path):
    new_line = (
        '          - {name: arrow_label_gap, tier: low, description: "Label far from its arrow."}\n'
    )
    text = (
        PACKAGED.replace("          - {name: z_order,", new_line + "          - {name: zz,", 1)
        .replace("{name: dash_style, tier: low,", "{name: dash_style, tier: medium,")
        .replace("  high: 3.0\n", "  high: 4.0\n")
        .replace('version: "1.0.0"', 'version: "1.1.0"')
    )
    path = tmp_path / "new.yaml"
    path.write_text(text, encoding="utf-8")
    d = diff_taxonomies(load_taxonomy(), load_taxonomy(path))
    assert "layout/overlap/arrow_label_gap (low)" in d.added
    assert "layout/overlap/zz (low)" in d.added
    assert "layout/overlap/z_order (low)" in d.removed
    assert d.retiered == ["dash_style: low -> medium"]
    assert "tiers.high: 3.0 -> 4.0" in d.numbers and "version: 1.0.0 -> 1.1.0" in d.numbers
    assert not d.empty


def test_diff_of_identical_content_is_empty(tmp_path):
    path = tmp_path / "same.yaml"
    path.write_text("# only a comment differs\n" + PACKAGED, encoding="utf-8")
    assert diff_taxonomies(load_taxonomy(), load_taxonomy(path)).empty


# ---------------------------------------------------------------------------- CLI


def test_cli_validate_accepts_the_packaged_file():
    result = runner.invoke(app, ["taxonomy", "validate", str(DEFAULT_TAXONOMY)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"ok: {DEFAULT_TAXONOMY}: pptbench 1.0.0")


def test_cli_validate_prints_problems_and_exits_1(tmp_path):
    path = _edited(tmp_path, "    weight: 40\n", "    weight: 45\n")
    result = runner.invoke(app, ["taxonomy", "validate", str(path)])
    assert result.exit_code == 1
    assert "weights must sum to 100" in result.output


def test_cli_show_lists_subtypes_with_tier_and_hash():
    result = runner.invoke(app, ["taxonomy", "show"])
    assert result.exit_code == 0, result.output
    assert taxonomy_hash(load_taxonomy()) in result.output
    assert "graphics: weight 40, cap 32" in result.output
    assert "endpoint_attachment" in result.output and "medium" in result.output


def test_cli_diff_reports_retiered_subtype(tmp_path):
    path = _edited(tmp_path, "{name: dash_style, tier: low,", "{name: dash_style, tier: medium,")
    result = runner.invoke(app, ["taxonomy", "diff", str(DEFAULT_TAXONOMY), str(path)])
    assert result.exit_code == 0, result.output
    assert "re-tiered:\n  dash_style: low -> medium" in result.output


def test_cli_show_of_bad_file_is_one_clear_error(tmp_path):
    path = _edited(tmp_path, "  low: 0.5\n", "  low: -0.5\n")
    result = runner.invoke(app, ["taxonomy", "show", str(path)])
    assert result.exit_code == 2
    assert "error:" in result.output and "tiers.low" in result.output
    assert "Traceback" not in result.output


def test_cli_show_json_is_the_canonical_form_the_hash_is_taken_of():
    import hashlib

    result = runner.invoke(app, ["taxonomy", "show", "--json"])
    assert result.exit_code == 0, result.output
    digest = hashlib.sha256(result.output.rstrip("\n").encode("utf-8")).hexdigest()
    assert digest == taxonomy_hash(load_taxonomy())


def test_cli_diff_shows_a_staircase_step_old_and_new_side_by_side(tmp_path):
    path = _edited(
        tmp_path,
        "{max_ratio: 1.00, multiplier: 3.0}",
        "{max_ratio: 1.00, multiplier: 2.5}",
    )
    bumped = path.read_text(encoding="utf-8").replace('version: "1.0.0"', 'version: "1.0.1"')
    path.write_text(bumped, encoding="utf-8")
    result = runner.invoke(app, ["taxonomy", "diff", str(DEFAULT_TAXONOMY), str(path)])
    assert result.exit_code == 0, result.output
    assert "  staircase[3]: old rho<=1 x3 | new rho<=1 x2.5\n" in result.output
    assert "warning" not in result.output


def test_cli_diff_warns_when_content_changed_but_version_did_not(tmp_path):
    path = _edited(tmp_path, "{name: dash_style, tier: low,", "{name: dash_style, tier: medium,")
    result = runner.invoke(app, ["taxonomy", "diff", str(DEFAULT_TAXONOMY), str(path)])
    assert result.exit_code == 0, result.output
    assert "warning: the content changed but version is still '1.0.0'" in result.output
    assert diff_taxonomies(load_taxonomy(), load_taxonomy(path)).version_unchanged


def test_cli_diff_of_a_comment_only_change_does_not_warn(tmp_path):
    path = tmp_path / "same.yaml"
    path.write_text("# only a comment differs\n" + PACKAGED, encoding="utf-8")
    result = runner.invoke(app, ["taxonomy", "diff", str(DEFAULT_TAXONOMY), str(path)])
    assert result.exit_code == 0 and "no differences" in result.output
    assert "warning" not in result.output
