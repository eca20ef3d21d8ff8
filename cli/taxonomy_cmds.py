"""CLI commands: taxonomy (show, validate, diff)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.base import EXIT_FAIL, app, fail, guarded
from judge.errors import TaxonomyError
from judge.schema import Taxonomy
from taxonomy.loader import (
    DEFAULT_TAXONOMY,
    canonical_json,
    diff_taxonomies,
    load_taxonomy,
    taxonomy_hash,
)

taxonomy_app = typer.Typer(
    help="Show, validate and compare issue-taxonomy files (the scoring data).",
    no_args_is_help=True,
)
app.add_typer(taxonomy_app, name="taxonomy")


def _render(tax: Taxonomy, path: Path) -> str:
    lines = [
        f"{tax.name} {tax.version}  ({path})",
        f"hash {taxonomy_hash(tax)}",
        "tiers: " + ", ".join(f"{t} {b:g}" for t, b in tax.tiers.items()),
        "staircase m(rho): "
        + ", ".join(f"rho<={s.max_ratio:g} x{s.multiplier:g}" for s in tax.staircase),
    ]
    for dim in tax.dimensions:
        lines.append("")
        lines.append(f"{dim.name}: weight {dim.weight:g}, cap {dim.cap:g}")
        for cat in dim.categories:
            lines.append(f"  {cat.name}" + (f" -- {cat.description}" if cat.description else ""))
            width = max(len(s.name) for s in cat.subtypes) if cat.subtypes else 0
            for st in cat.subtypes:
                base = tax.tiers.get(st.tier, 0.0)
                lines.append(f"    {st.name:<{width}}  {st.tier:<10} {base:>4g}  {st.description}")
    return "\n".join(lines)


@taxonomy_app.command("show")
def show_cmd(
    file: Annotated[
        Path | None,
        typer.Argument(help="Taxonomy YAML file; default: the packaged taxonomy/pptbench.yaml."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the canonical JSON the hash is computed from.")
    ] = False,
) -> None:
    """Print a taxonomy: tiers, staircase, weights, caps, every subtype with tier and description.

    Example: judge taxonomy show taxonomy/pptbench.yaml
    """
    path = file if file is not None else DEFAULT_TAXONOMY
    tax = guarded(lambda: load_taxonomy(path))
    typer.echo(canonical_json(tax) if as_json else _render(tax, path))


@taxonomy_app.command("validate")
def validate_cmd(
    file: Annotated[Path, typer.Argument(help="Taxonomy YAML file to check.", show_default=False)],
) -> None:
    """Check a taxonomy file; print every problem as FILE:LINE: key: message (exit 1 if any).

    Checks the schema (unknown or missing keys, tiers), YAML duplicate keys, duplicate subtypes
    across the file, weights summing to 100, caps within weights, a monotone staircase ending at
    rho 1.0, non-negative ordered tier bases.

    Example: judge taxonomy validate taxonomy/pptbench.yaml
    """
    if not file.is_file():  # nothing to check: "could not do", not "the file has problems"
        fail(f"{file}: {'is a folder' if file.is_dir() else 'no such file'}")
    try:
        tax = load_taxonomy(file)
    except TaxonomyError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_FAIL) from None
    n = len(tax.subtypes())
    typer.echo(
        f"ok: {file}: {tax.name} {tax.version}, {len(tax.categories())} categories, {n} subtypes, "
        f"hash {taxonomy_hash(tax)[:12]}"
    )


@taxonomy_app.command("diff")
def diff_cmd(
    old: Annotated[Path, typer.Argument(help="The old taxonomy file.", show_default=False)],
    new: Annotated[Path, typer.Argument(help="The new taxonomy file.", show_default=False)],
) -> None:
    """Show what changed between two taxonomies: subtypes added, removed, re-tiered or moved,
    descriptions reworded, and every changed number (bases, weights, caps; a staircase step as
    old | new). Warns when the content changed but `version` did not.

    Example: judge taxonomy diff runs/main/taxonomy.yaml taxonomy/pptbench.yaml
    """

    def go() -> list[str]:
        new_tax = load_taxonomy(new)
        d = diff_taxonomies(load_taxonomy(old), new_tax)
        if d.empty:
            return [f"no differences (hash {d.old_hash[:12]})"]
        out = [f"hash {d.old_hash[:12]} -> {d.new_hash[:12]}"]
        for title, items in (
            ("added", d.added),
            ("removed", d.removed),
            ("re-tiered", d.retiered),
            ("moved", d.moved),
            ("description changed", d.described),
            ("numbers changed", d.numbers),
        ):
            if items:
                out.append(f"{title}:")
                out.extend(f"  {item}" for item in items)
        if len(out) == 1:
            out.append("only the order of entries changed")
        if d.version_unchanged:
            out.append(
                f"warning: the content changed but version is still {new_tax.version!r}: "
                f"bump `version` in {new} (runs record it beside the hash)"
            )
        return out

    typer.echo("\n".join(guarded(go)))
