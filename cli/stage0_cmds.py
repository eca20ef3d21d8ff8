"""CLI commands: stage0 (``judge validate``)."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from cli.base import EXIT_FAIL, EXIT_OK, app, fail, guarded
from judge.artifact.gate import validate
from judge.artifact.ooxml import requested_fonts
from judge.artifact.renderscreen import SCREEN_DPI
from judge.errors import PptJudgeError, RenderError, RendererUnavailable
from judge.render.pool import DEFAULT_DPI, RenderPool
from judge.schema import ArtifactReport, CheckResult, RenderResult

RENDER_TIMEOUT_S = 60.0
"""Seconds LibreOffice may take on the candidate before it is killed (the renders check fails)."""


def _status(check: CheckResult) -> str:
    """PASS, FAIL, or SKIP (not run: after a failed open it counts as failed; ``--no-render``
    counts as passed)."""
    if check.skipped:
        return "SKIP"
    return "PASS" if check.passed else "FAIL"


def format_report(report: ArtifactReport) -> str:
    """The human-readable report: a verdict line, one line per check, then the audit."""
    failed = [c for c in report.checks if not c.passed and not c.skipped]
    unchecked = [c for c in report.checks if not c.passed and c.skipped]
    verdict = f"INVALID ({len(failed)} of {len(report.checks)} checks failed"
    verdict += f", {len(unchecked)} not checked)" if unchecked else ")"
    if report.valid:
        verdict = "VALID"
    lines = [f"{report.path}: {verdict} in {report.seconds:.2f} s"]
    width = max((len(c.name) for c in report.checks), default=0)
    for c in report.checks:
        lines.append(f"  {_status(c)} {c.name:<{width}}  {c.detail}")
    a = report.audit
    if a is not None:
        lines.append(
            f"  audit: {a.text_boxes} text boxes, {a.autoshapes} autoshapes, {a.connectors} "
            f"connectors, {a.lines} lines/freeforms, {a.groups} groups, {a.tables} tables, "
            f"{a.pictures} pictures, {a.charts} charts, {a.other} other; "
            f"{a.editable_components} editable components; pictures cover "
            f"{a.picture_area_ratio:.0%} of the slide"
        )
    return "\n".join(lines)


@app.command("validate")
def validate_cmd(
    candidate: Annotated[Path, typer.Argument(help="The candidate PPTX (one slide expected).")],
    reference: Annotated[
        Path | None,
        typer.Option("--reference", help="The task's reference PNG; pictures are screened."),
    ] = None,
    assets: Annotated[
        Path | None,
        typer.Option("--assets", help="Folder of approved task assets (allowed if unchanged)."),
    ] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the ArtifactReport as JSON.")
    ] = False,
    no_render: Annotated[
        bool, typer.Option("--no-render", help="Skip the LibreOffice renders check.")
    ] = False,
    dpi: Annotated[int, typer.Option(help="Render resolution, pixels per inch of slide.")] = (
        DEFAULT_DPI
    ),
) -> None:
    """Stage 0 artifact gate: is the candidate a valid, safe, single-slide editable deck?

    Runs every check (opens, safe_to_read, one_slide, editable_components,
    no_external_relationships, no_embedded_fonts, no_embedded_objects, no_activex, no_macros,
    object_bounds, no_reference_copy, fully_screened, no_rendered_copy, renders) and prints
    one PASS/FAIL line each plus an object audit. With --reference, a deck that draws pictures
    is rendered a second time with only its pictures and that render is screened too.
    Exit 0 valid, 1 invalid, 2 could not check (missing file, unreadable reference, LibreOffice
    would not start).

    Example: judge validate candidates/gpt/task01.pptx --reference tasks/task01/reference.png
    """
    if not candidate.exists():
        fail(f"{candidate}: no such file")
    if reference is not None and not reference.is_file():
        fail(f"{reference}: no such reference image")
    if assets is not None and not assets.is_dir():
        fail(f"{assets}: no such assets folder")

    def run() -> ArtifactReport:
        if no_render:
            return validate(candidate, reference, assets, None)
        with contextlib.ExitStack() as stack:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pptjudge-v-")))
            pools: list[RenderPool] = []

            def pool() -> RenderPool:
                # Started only when a safe, opened deck gets this far (hostile files never do).
                if not pools:
                    try:
                        pools.append(
                            stack.enter_context(
                                RenderPool(workers=1, timeout=RENDER_TIMEOUT_S, dpi=dpi)
                            )
                        )
                    except RenderError as exc:  # the machine, not the candidate: could not check
                        raise RendererUnavailable(f"LibreOffice did not start: {exc}") from None
                return pools[0]

            def render(pptx: Path) -> RenderResult:
                fonts: list[str] | None
                try:
                    fonts = requested_fonts(pptx)
                except PptJudgeError:
                    fonts = None
                return pool().render(pptx, tmp / "render.png", dpi=dpi, requested_fonts=fonts)

            def render_pictures(deck: bytes) -> bytes:
                return pool().render_bytes(deck, dpi=SCREEN_DPI, name="picture-only deck")

            return validate(candidate, reference, assets, render, render_pictures)

    report = guarded(run)
    if json_out:
        typer.echo(report.model_dump_json(indent=2))
    else:
        typer.echo(format_report(report))
    raise typer.Exit(EXIT_OK if report.valid else EXIT_FAIL)
