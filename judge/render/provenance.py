"""What a render depends on (LibreOffice version, installed fonts), and vetting decks first.

Provenance is cheap and bounded: ``fc-list`` runs once per process; a deck's requested families
are checked against that list (no ``fc-match`` per family), so a deck naming 100,000 fonts costs
a set lookup each, after :func:`judge.artifact.ooxml.fonts_of` has already capped the list.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import zipfile
from collections.abc import Iterable
from pathlib import Path

from judge.errors import RenderError
from judge.schema import RenderProvenance

SOFFICE = os.environ.get("PPTJUDGE_SOFFICE", "soffice")
"""The LibreOffice launcher (as in :mod:`judge.render.pool`)."""
TOOL_TIMEOUT_S = 30.0
"""Seconds for ``soffice --version`` and ``fc-list``."""
DEFAULT_DPI = 150
"""Raster resolution of renders, in pixels per inch of the slide (13.33 in wide -> 2000 px)."""
MAX_PROVENANCE_FONTS = 64
"""Most requested families recorded in a render's provenance."""


# --------------------------------------------------------------------------------------------
# Provenance


@functools.cache
def libreoffice_version() -> str:
    """``soffice --version`` of this machine, e.g. ``LibreOffice 7.4.7.2 40(Build:2)``."""
    exe = shutil.which(SOFFICE)
    if exe is None:
        raise RenderError(f"LibreOffice not found: no {SOFFICE!r} on PATH")
    try:
        out = subprocess.run(
            [exe, "--version"],
            capture_output=True,
            timeout=TOOL_TIMEOUT_S,
            check=True,
            stdin=subprocess.DEVNULL,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        raise RenderError(f"{exe} --version failed: {exc}") from exc
    lines = out.stdout.decode("utf-8", "replace").strip().splitlines()
    if not lines:
        raise RenderError(f"{exe} --version printed nothing")
    return lines[0].strip()


def _run_tool(args: list[str]) -> str:
    try:
        out = subprocess.run(
            args, capture_output=True, timeout=TOOL_TIMEOUT_S, check=True, stdin=subprocess.DEVNULL
        )
    except (subprocess.SubprocessError, OSError) as exc:
        raise RenderError(f"{args[0]} failed (fontconfig is needed for provenance): {exc}") from exc
    return out.stdout.decode("utf-8", "replace")


@functools.cache
def font_list_hash() -> str:
    """sha256 (hex) of the sorted, de-duplicated ``family|style`` lines of ``fc-list``."""
    text = _run_tool(["fc-list", "--format", "%{family}|%{style}\n"])
    lines = sorted({ln.strip() for ln in text.splitlines() if ln.strip()})
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


@functools.cache
def installed_families() -> frozenset[str]:
    """Case-folded family names fontconfig knows on this machine (every name of every font,
    ``fc-list`` once per process)."""
    text = _run_tool(["fc-list", "--format", "%{family}\n"])
    names: set[str] = set()
    for line in text.splitlines():
        names.update(f.strip().casefold() for f in line.split(",") if f.strip())
    return frozenset(names)


def substituted_fonts(requested: Iterable[str]) -> list[str]:
    """Requested families not installed on this machine (LibreOffice draws another font)."""
    have = installed_families()
    out: list[str] = []
    for family in dict.fromkeys(f.strip() for f in requested):
        if family and family.casefold() not in have:
            out.append(family)
    return out


def render_provenance(
    dpi: int = DEFAULT_DPI, requested_fonts: list[str] | None = None
) -> RenderProvenance:
    """What a render made at ``dpi`` depends on, for a deck asking for ``requested_fonts``."""
    requested = list(dict.fromkeys(f.strip() for f in requested_fonts or [] if f.strip()))
    requested = requested[:MAX_PROVENANCE_FONTS]
    return RenderProvenance(
        libreoffice_version=libreoffice_version(),
        font_list_hash=font_list_hash(),
        requested_fonts=requested,
        substituted_fonts=substituted_fonts(requested),
        dpi=dpi,
    )


MAX_VETTED_SVG_BYTES = 16 * 1024 * 1024
"""Largest SVG member a deck may hold to be rendered (it is parsed to vet its references)."""


def vet_deck(src: Path) -> None:
    """Refuse to render a deck holding an SVG that references anything outside itself:
    LibreOffice would read that file (``href="file:///..."``) from the judge's disk. Raises
    RenderError naming the member."""
    from judge.artifact.pictures import image_kind, svg_problem

    try:
        with zipfile.ZipFile(src) as zf:
            for info in zf.infolist():
                if info.is_dir() or info.file_size < 4:
                    continue
                with zf.open(info) as fh:
                    head = fh.read(4096)
                if not (info.filename.lower().endswith(".svg") or b"<svg" in head):
                    continue
                if info.file_size > MAX_VETTED_SVG_BYTES:
                    raise RenderError(f"{src}: refused: SVG {info.filename!r} is too large to vet")
                with zf.open(info) as fh:
                    data = fh.read(MAX_VETTED_SVG_BYTES + 1)
                if image_kind(data, "image/svg+xml") != "svg":
                    continue
                problem = svg_problem(data, f"{src}:{info.filename}")
                if problem:
                    raise RenderError(
                        f"{src}: refused: {info.filename}: {problem} (LibreOffice would read it)"
                    )
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError):
        return  # not a readable zip: LibreOffice will fail to open it and say so
