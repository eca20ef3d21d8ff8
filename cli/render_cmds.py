"""CLI commands: render."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from cli.base import EXIT_FAIL, app, guarded
from judge.artifact.ooxml import requested_fonts
from judge.errors import PptJudgeError, RenderError
from judge.render.pool import DEFAULT_DPI, RenderPool
from judge.rundir import atomic_write_bytes, write_model
from judge.schema import RenderResult

DEFAULT_TIMEOUT_S = 60.0
"""Seconds one deck may take before its LibreOffice instance is killed and restarted."""


def deck_fonts(path: Path) -> list[str]:
    """The font families a deck asks for (theme and runs), read safely; [] when unreadable
    (the render then fails and says why)."""
    try:
        return requested_fonts(path)
    except PptJudgeError:
        return []


@app.command("render")
def render_cmd(
    decks: Annotated[list[Path], typer.Argument(help="PPTX decks to render (slide 1 of each).")],
    out: Annotated[
        Path, typer.Option("--out", help="Folder for <stem>.png and <stem>.render.json.")
    ],
    dpi: Annotated[int, typer.Option(help="Raster resolution, pixels per inch of slide.")] = (
        DEFAULT_DPI
    ),
    workers: Annotated[
        int | None,
        typer.Option(
            help="LibreOffice instances in parallel (default: one per deck, at most one per CPU)."
        ),
    ] = None,
    timeout: Annotated[
        float, typer.Option(help="Seconds per deck before its instance is killed and restarted.")
    ] = DEFAULT_TIMEOUT_S,
    svg: Annotated[bool, typer.Option("--svg", help="Also write <stem>.svg (LibreOffice SVG).")] = (
        False
    ),
) -> None:
    """Render decks with warm, supervised headless LibreOffice instances (PPTX -> PDF -> PNG).

    Starts the instances once for all decks, writes one PNG per deck plus a JSON record with
    its size, time and render provenance (LibreOffice version, font-list hash, requested and
    substituted fonts). Prints one OK/FAIL line per deck; a failed deck does not stop the
    others. Exit 0 when all rendered, 1 when any failed, 2 when rendering could not start.

    Example: judge render candidates/cfg/*.pptx --out renders --dpi 150 --workers 2
    """

    def run() -> int:
        n = workers if workers is not None else max(1, min(len(decks), os.cpu_count() or 1))
        failed = 0
        with RenderPool(workers=n, timeout=timeout, dpi=dpi) as pool:
            results = pool.render_many(decks, out, dpi=dpi, requested_fonts=deck_fonts)
            for deck, res in zip(decks, results, strict=True):
                if isinstance(res, RenderResult) and svg:
                    try:
                        atomic_write_bytes(out / f"{deck.stem}.svg", pool.export_svg(deck))
                    except RenderError as exc:
                        res = exc
                if isinstance(res, RenderError):
                    failed += 1
                    reason = str(res).removeprefix(f"{deck}: ")  # errors name the deck
                    typer.echo(f"FAIL {deck}: {reason}")
                    continue
                write_model(out / f"{deck.stem}.render.json", res)
                subst = res.provenance.substituted_fonts
                note = f", substituted fonts: {', '.join(subst)}" if subst else ""
                typer.echo(
                    f"OK   {deck} -> {res.png} ({res.width_px}x{res.height_px}, "
                    f"{res.seconds:.2f} s{note})"
                )
        return failed

    if guarded(run):
        raise typer.Exit(EXIT_FAIL)
