"""CLI commands: pair."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.base import app, guarded
from judge.render.prepare import geometry_path, prepare_pair
from judge.rundir import write_model


@app.command("pair")
def pair_cmd(
    reference: Annotated[Path, typer.Argument(help="Reference image (PNG or any Pillow format).")],
    render: Annotated[Path, typer.Argument(help="Candidate render (PNG), e.g. from judge render.")],
    out: Annotated[Path, typer.Option("--out", help="Pair PNG to write (2404x900).")],
) -> None:
    """Normalise a reference and a render into the side-by-side pair the judge looks at.

    Crops each image to its content (background = median border colour, threshold 10, 2% margin,
    4 px minimum), fits it centred in a 1200x900 white panel, and writes reference | candidate
    4 px apart to --out, plus the geometry (crop boxes, scales) as JSON beside it.

    Example: judge pair tasks/t1/reference.png renders/t1.png --out pair.png
    """

    def run() -> None:
        geometry = prepare_pair(reference, render, out)
        gpath = geometry_path(out)
        write_model(gpath, geometry)
        ref, cand = geometry.reference, geometry.candidate
        typer.echo(f"wrote {out} and {gpath}")
        for name, m in (("reference", ref), ("candidate", cand)):
            box = m.crop_box
            note = " (blank image: kept whole)" if m.empty else ""
            typer.echo(
                f"  {name}: crop {box.w:.0f}x{box.h:.0f} at ({box.x:.0f},{box.y:.0f}) of "
                f"{m.image_width}x{m.image_height}, scale {m.scale:.3f}{note}"
            )

    guarded(run)
