"""Stage 0, the artifact gate: deterministic checks that a candidate is a valid artifact.

:func:`validate` runs the checks of :data:`judge.schema.CHECK_NAMES` in order and returns an
:class:`~judge.schema.ArtifactReport` (valid = every check passed). A file that cannot be
checked at all (missing, unreadable) raises :class:`~judge.errors.PackageError`; a broken or
hostile file gives an invalid report. Rendering is injected as a callback so this module does
not depend on LibreOffice.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from judge.artifact import pictures as picture_parts
from judge.artifact.copydetect import DecodeBudget, ReferenceScreen, ScreenResult
from judge.artifact.ooxml import LoadedSlide, load_slide
from judge.artifact.package import Relationship, SafePackage, open_package
from judge.artifact.parts import DeckParts
from judge.artifact.renderscreen import RenderPictures, pictures_only_deck, screen_render
from judge.errors import (
    ImagePrepError,
    PackageError,
    PackageStructureError,
    RenderError,
    RendererUnavailable,
    UnsafePackageError,
)
from judge.render.prepare import border_background, content_box, load_rgb
from judge.schema import (
    CHECK_NAMES,
    ArtifactReport,
    CheckResult,
    ObjectAudit,
    RenderResult,
    SlideObject,
)

MIN_EDITABLE_COMPONENTS = 3
"""The protocol's minimum of native editable components (PPTBench Stage 0)."""
BOUNDS_TOLERANCE = 0.02
"""How far (fraction of the slide width/height) a shape may reach past a slide edge before it
is reported: anti-aliasing, outline widths and hand placement overshoot by a little."""
MAX_PICTURE_CANVAS_FRACTION = 0.5
"""A single picture covering more than this fraction of the slide is flagged as a raster stand-in
for the diagram ("a picture covering most of the canvas")."""
SCREEN_CACHE_SIZE = 8
"""Prepared reference screens kept in memory (a few tasks' references, ~0.5 MB each)."""
MAX_LISTED = 8
"""Most offenders named in one check's detail."""
MAX_PARTS_LISTED = 50
"""Most offenders kept in a check's ``parts`` list (the rest are counted): a deck with 1,500
off-slide shapes must not make a 12 MB report."""
MAX_STAGE0_SECONDS = 60.0
"""Stage 0's time limit for one candidate (the render screen's own render excluded): past it no
more pictures are decoded and the deck fails ``fully_screened``."""

Render = Callable[[Path], RenderResult]

EDITABLE_TYPES = frozenset({"text_box", "autoshape", "connector", "line", "freeform", "table"})
"""Object types that count as native editable components (placeholders count when they hold
text, see :func:`audit_objects`)."""

P_NS = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
REL_BASE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
FONT_REL_TYPES = frozenset({REL_BASE + "font"})
EMBED_REL_SUFFIXES = ("/oleObject", "/package", "/embeddings")
"""Relationship types (by suffix) that embed another document or attachment."""
ACTIVEX_REL_SUFFIXES = ("/control", "/activeXControl", "/activeXControlBinary")
MACRO_REL_SUFFIXES = (
    "/vbaProject",
    "/vbaProjectSignature",
    "/wordVbaData",
    "/keyMapCustomizations",
)
FONT_CONTENT_MARKERS = ("fontdata", "obfuscatedfont", "font-ttf", "x-font", "font/", "opentype")
"""Substrings of content types of font parts (``application/x-fontdata``, ...)."""
EMBED_CONTENT_MARKERS = ("oleobject",)
EMBED_EXTENSIONS = (".docx", ".xlsx", ".pptx", ".xls", ".doc", ".ppt", ".docm", ".xlsm")
"""Office documents anywhere in the package are attachments."""
ACTIVEX_CONTENT_MARKERS = ("activex",)
MACRO_CONTENT_MARKERS = ("vbaproject", "macroenabled", "vbadata")
FONT_EXTENSIONS = (".fntdata", ".odttf", ".ttf", ".otf", ".eot", ".woff", ".woff2")
EMBED_PREFIXES = ("ppt/embeddings/",)
ACTIVEX_PREFIXES = ("ppt/activeX/", "ppt/activex/")


def _ok(name: str, detail: str) -> CheckResult:
    return CheckResult(name=name, passed=True, detail=detail)


def _fail(name: str, detail: str, parts: list[str] | None = None) -> CheckResult:
    listed = list(parts or [])
    if len(listed) > MAX_PARTS_LISTED:
        more = len(listed) - MAX_PARTS_LISTED
        listed = [*listed[:MAX_PARTS_LISTED], f"... and {more} more"]
    return CheckResult(name=name, passed=False, detail=detail, parts=listed)


def _skip(name: str, why: str, passed: bool = False) -> CheckResult:
    return CheckResult(name=name, passed=passed, detail=why, skipped=True)


def _listing(items: list[str]) -> str:
    head = "; ".join(items[:MAX_LISTED])
    more = len(items) - MAX_LISTED
    return head + (f"; and {more} more" if more > 0 else "")


def _label(obj: SlideObject) -> str:
    return f'"{obj.name}" (id {obj.id})'


# --------------------------------------------------------------------------------------------
# Audit


def audit_objects(loaded: LoadedSlide) -> ObjectAudit:
    """Counts of the first slide's objects; group members count by their own type.

    Placeholders count as text boxes (and as editable) when they hold text; empty placeholders
    render nothing and count as ``other``. Only *drawn* editable objects (visible ink, large
    enough, on the slide: :func:`judge.artifact.ooxml.load_slide`) count as components.
    """
    audit = ObjectAudit()
    drawn = loaded.drawn or [True] * len(loaded.tree.objects)
    for obj, ink in zip(loaded.tree.objects, drawn, strict=False):
        t = obj.type
        if t == "text_box" or (t == "placeholder" and obj.text.strip()):
            audit.text_boxes += 1
        elif t == "autoshape":
            audit.autoshapes += 1
        elif t == "connector":
            audit.connectors += 1
        elif t in ("line", "freeform"):
            audit.lines += 1
        elif t == "group":
            audit.groups += 1
        elif t == "table":
            audit.tables += 1
        elif t == "picture":
            audit.pictures += 1
        elif t == "chart":
            audit.charts += 1
        else:
            audit.other += 1
        if t in EDITABLE_TYPES or (t == "placeholder" and obj.text.strip()):
            if ink:
                audit.editable_components += 1
            else:
                audit.undrawn_components += 1
    area = 0.0
    for pic in loaded.pictures:
        if pic.is_picture_shape:
            area += _clipped_area(pic.bbox.x, pic.bbox.y, pic.bbox.w, pic.bbox.h)
    audit.picture_area_ratio = round(min(area, 1.0), 4)
    return audit


def _clipped_area(x: float, y: float, w: float, h: float) -> float:
    """Area (slide fractions squared) of a box clipped to the slide."""
    cw = max(0.0, min(x + w, 1.0) - max(x, 0.0))
    ch = max(0.0, min(y + h, 1.0) - max(y, 0.0))
    return cw * ch


# --------------------------------------------------------------------------------------------
# Package-level checks (relationships and parts)


def _check_external(index: _Index) -> CheckResult:
    name = "no_external_relationships"
    found = [
        f"{rel.source}: {rel.id} {rel.short_type} -> {rel.target}"
        for rel in index.relationships
        if rel.external
    ]
    if found:
        return _fail(name, f"{len(found)} external relationship(s): {_listing(found)}", found)
    n = len({rel.source for rel in index.relationships})
    return _ok(
        name, f"no external relationship among {len(index.relationships)} in {n} .rels parts"
    )


@dataclass(frozen=True)
class _Index:
    """Every member with its content type, and every relationship, read once per package."""

    members: list[tuple[str, str]]
    """(member name, lower-case content type or "")."""
    relationships: list[Relationship]

    @classmethod
    def of(cls, parts: DeckParts) -> _Index:
        pkg = parts.pkg
        members = [(m, (pkg.content_type(m) or "").lower()) for m in pkg.names]
        rels: list[Relationship] = []
        for part in pkg.rels_parts():
            rels.extend(pkg.relationships(part))
        return cls(members, rels)


def _scan(
    index: _Index,
    *,
    rel_types: frozenset[str] = frozenset(),
    rel_suffixes: tuple[str, ...] = (),
    ct_markers: tuple[str, ...] = (),
    prefixes: tuple[str, ...] = (),
    extensions: tuple[str, ...] = (),
    exclude_ct: tuple[str, ...] = (),
) -> list[str]:
    """Offending parts and relationships, described; each package member is listed once."""
    found: list[str] = []
    for member, ct in index.members:
        low = member.lower()
        if any(e in ct for e in exclude_ct):
            continue
        if (
            any(m in ct for m in ct_markers)
            or low.startswith(tuple(p.lower() for p in prefixes))
            or low.endswith(extensions)
        ):
            found.append(f"{member} ({ct or 'no content type'})")
    for rel in index.relationships:
        if rel.type in rel_types or rel.type.endswith(rel_suffixes):
            found.append(f"{rel.source}: {rel.id} {rel.short_type} -> {rel.target}")
    return found


def _check_fonts(parts: DeckParts, index: _Index) -> CheckResult:
    name = "no_embedded_fonts"
    found = _scan(
        index,
        rel_types=FONT_REL_TYPES,
        ct_markers=FONT_CONTENT_MARKERS,
        prefixes=("ppt/fonts/",),
        extensions=FONT_EXTENSIONS,
        exclude_ct=("fonttable",),
    )
    lst = parts.xml(parts.presentation).find(f"{P_NS}embeddedFontLst")
    if lst is not None and len(lst):
        found.append(f"{parts.presentation}: embeddedFontLst with {len(lst)} font(s)")
    if found:
        return _fail(name, f"embedded fonts: {_listing(found)}", found)
    return _ok(name, "no embedded font parts or font list")


def _check_embedded(parts: DeckParts, index: _Index) -> CheckResult:
    name = "no_embedded_objects"
    found = _scan(
        index,
        rel_suffixes=EMBED_REL_SUFFIXES,
        ct_markers=EMBED_CONTENT_MARKERS,
        prefixes=EMBED_PREFIXES,
        extensions=EMBED_EXTENSIONS,
        exclude_ct=("vbaproject", "activex", "printersettings"),
    )
    # Keep macro and ActiveX binaries for their own checks; printer settings are not objects.
    found = [
        f
        for f in found
        if "vbaproject" not in f.lower()
        and "activex" not in f.lower()
        and "printersettings" not in f.lower()
    ]
    for part, local in parts.find_elements(frozenset({"oleObj", "embed"})):
        found.append(f"{part}: p:{local} element")
    if found:
        return _fail(name, f"embedded objects/attachments: {_listing(found)}", found)
    return _ok(name, "no OLE objects, packages or attachments")


def _check_activex(parts: DeckParts, index: _Index) -> CheckResult:
    name = "no_activex"
    found = _scan(
        index,
        rel_suffixes=ACTIVEX_REL_SUFFIXES,
        ct_markers=ACTIVEX_CONTENT_MARKERS,
        prefixes=ACTIVEX_PREFIXES,
    )
    for part, local in parts.find_elements(frozenset({"control"})):
        found.append(f"{part}: p:{local} element")
    if found:
        return _fail(name, f"ActiveX controls: {_listing(found)}", found)
    return _ok(name, "no ActiveX controls")


def _check_macros(pkg: SafePackage, index: _Index) -> CheckResult:
    name = "no_macros"
    found = _scan(
        index,
        rel_suffixes=MACRO_REL_SUFFIXES,
        ct_markers=MACRO_CONTENT_MARKERS,
        extensions=("vbaproject.bin", "vbaprojectsignature.bin"),
    )
    if pkg.path.suffix.lower() in (".pptm", ".potm", ".ppsm"):
        found.append(f"{pkg.path.name}: macro-enabled file type {pkg.path.suffix}")
    if found:
        return _fail(name, f"macros: {_listing(found)}", found)
    return _ok(name, "no VBA project and not a macro-enabled package")


# --------------------------------------------------------------------------------------------
# Slide-level checks


def _check_one_slide(loaded: LoadedSlide) -> CheckResult:
    n = loaded.slide_count
    if n == 1:
        return _ok("one_slide", f"exactly one slide ({loaded.slide_part})")
    return _fail("one_slide", f"{n} slides; the protocol requires exactly one")


def _check_editable(audit: ObjectAudit) -> CheckResult:
    n = audit.editable_components
    counts = (
        f"{audit.text_boxes} text boxes, {audit.autoshapes} autoshapes, {audit.connectors} "
        f"connectors, {audit.lines} lines/freeforms, {audit.tables} tables"
    )
    if n >= MIN_EDITABLE_COMPONENTS:
        return _ok("editable_components", f"{n} native editable components ({counts})")
    undrawn = ""
    if audit.undrawn_components:
        undrawn = (
            f"; {audit.undrawn_components} more draw no visible ink, are too small or lie off "
            "the slide"
        )
    return _fail(
        "editable_components",
        f"only {n} drawn native editable components, at least {MIN_EDITABLE_COMPONENTS} "
        f"required ({counts}; {audit.pictures} pictures do not count{undrawn})",
    )


def drawn_extent(obj: SlideObject, aspect: float) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) in slide fractions of the object's frame after its rotation about its
    centre; ``aspect`` is the slide's width / height (fractions differ per axis)."""
    b = obj.bbox
    rot = obj.rotation % 180.0
    if rot == 0.0:
        return b.x, b.y, b.x2, b.y2
    theta = math.radians(rot)
    w, h = b.w * aspect, b.h  # in slide-height units, so the rotation is not skewed
    rw = abs(w * math.cos(theta)) + abs(h * math.sin(theta))
    rh = abs(w * math.sin(theta)) + abs(h * math.cos(theta))
    cx, cy = b.x + b.w / 2.0, b.y + b.h / 2.0
    return cx - rw / aspect / 2.0, cy - rh / 2.0, cx + rw / aspect / 2.0, cy + rh / 2.0


def _check_bounds(loaded: LoadedSlide) -> CheckResult:
    tol = BOUNDS_TOLERANCE
    tree = loaded.tree
    aspect = tree.slide_width_pt / tree.slide_height_pt if tree.slide_height_pt else 4 / 3
    out = []
    for obj in tree.objects:
        x0, y0, x1, y1 = drawn_extent(obj, aspect)
        if x0 < -tol or y0 < -tol or x1 > 1 + tol or y1 > 1 + tol:
            turned = f", rotated {obj.rotation:.0f} deg" if obj.rotation % 180.0 else ""
            out.append(f"{_label(obj)} at x={x0:.2f}..{x1:.2f}, y={y0:.2f}..{y1:.2f}{turned}")
    if out:
        return _fail(
            "object_bounds",
            f"{len(out)} shape(s) beyond the slide by more than {tol:.0%}: {_listing(out)}",
            out,
        )
    return _ok("object_bounds", f"all {len(loaded.tree.objects)} shapes within the slide")


def _check_reference_copy(
    loaded: LoadedSlide, reference: Path | None, result: ScreenResult | None
) -> CheckResult:
    name = "no_reference_copy"
    problems: list[str] = []
    notes: list[str] = []
    approved: set[str] = set()
    if result is not None:
        problems.extend(f.describe() for f in result.findings)
        approved = set(result.approved)
        if result.approved:
            notes.append(f"{len(result.approved)} approved asset(s)")
        if result.vector:
            notes.append(f"{len(result.vector)} vector image(s), screened by the render")
    for pic in loaded.pictures:
        # Pictures, picture fills and the background of the slide itself; template artwork of
        # the layout/master is screened for copies above but not held to the coverage rule.
        if not pic.on_slide or not pic.placed or pic.owner in approved:
            continue
        frac = _clipped_area(pic.bbox.x, pic.bbox.y, pic.bbox.w, pic.bbox.h)
        if frac > MAX_PICTURE_CANVAS_FRACTION:
            problems.append(
                f"{pic.owner} covers {frac:.0%} of the slide (over "
                f"{MAX_PICTURE_CANVAS_FRACTION:.0%}: a raster in place of the diagram)"
            )
    if problems:
        return _fail(name, _listing(problems), problems)
    n = len(loaded.pictures)
    if reference is None:
        detail = f"{n} image(s); no reference given: only the canvas-coverage rule was applied"
    else:
        detail = f"{n} image(s) screened against {reference.name}: none copies it"
    if notes:
        detail += " (" + "; ".join(notes) + ")"
    return _ok(name, detail)


def _check_fully_screened(
    loaded: LoadedSlide, problems: list[str], result: ScreenResult | None
) -> CheckResult:
    """Fail closed: a walk that stopped early, an image that cannot be screened (a vector image
    with an external reference or an embedded bitmap, an undecodable or over-budget raster, too
    many pictures) makes the deck invalid."""
    name = "fully_screened"
    found = list(loaded.truncated) + list(problems)
    if result is not None:
        found.extend(f"{u} (not screened)" for u in result.unscreened)
    if found:
        return _fail(
            name, f"not everything the slide draws could be screened: {_listing(found)}", found
        )
    return _ok(
        name,
        f"walked all {len(loaded.tree.objects)} shapes and {len(loaded.pictures)} image(s) "
        "drawn with the slide",
    )


def _check_rendered_copy(
    parts: DeckParts,
    screen: ReferenceScreen | None,
    result: ScreenResult | None,
    render_pictures: RenderPictures | None,
    earlier: list[CheckResult],
) -> CheckResult:
    """Render the deck with only its pictures and screen what LibreOffice drew."""
    name = "no_rendered_copy"
    if not picture_parts.has_picture_parts(parts):
        return _ok(name, "no picture-bearing part (no media, picture fill, SVG or EMF)")
    if screen is None:
        return _skip(name, "no reference given", passed=True)
    if render_pictures is None:
        return _skip(name, "not rendered (--no-render)", passed=True)
    if any(not c.passed for c in earlier):
        # already invalid by a named check: the extra render would add nothing
        return _skip(name, "not rendered: the package screen already failed the deck", True)
    masked = set(result.approved_members) if result is not None else set()
    deck = pictures_only_deck(parts, masked)
    t0 = time.perf_counter()
    try:
        png = render_pictures(deck)
    except RenderError as exc:
        return _fail(name, f"the picture-only deck could not be rendered: {exc}")
    outcome = screen_render(png, screen)
    secs = time.perf_counter() - t0
    if outcome.finding is not None:
        return _fail(
            name,
            f"what LibreOffice draws from the deck's pictures copies the reference: "
            f"{outcome.finding.describe()}",
            [outcome.finding.owner],
        )
    return _ok(
        name,
        f"picture-only render ({outcome.width_px}x{outcome.height_px} px, "
        f"{outcome.drawn_fraction:.0%} drawn, {len(masked)} asset(s) masked) copies nothing "
        f"of the reference ({secs:.2f} s)",
    )


def reference_screen(reference: Path, assets_dir: Path | None = None) -> ReferenceScreen:
    """The prepared screen of a reference (and assets), cached while the files are unchanged:
    a batch judges many candidates of one task against the same reference."""
    try:
        st = reference.stat()
        key_ref = (str(reference.resolve()), st.st_mtime_ns, st.st_size)
        key_assets: tuple[Any, ...] = ()
        if assets_dir is not None and assets_dir.is_dir():
            key_assets = (
                str(assets_dir.resolve()),
                *sorted(
                    (str(f), f.stat().st_mtime_ns, f.stat().st_size)
                    for f in assets_dir.rglob("*")
                    if f.is_file()
                ),
            )
    except OSError as exc:
        raise ImagePrepError(f"{reference}: cannot read reference ({exc})") from None
    return _cached_screen(key_ref, key_assets, reference, assets_dir)


@functools.lru_cache(maxsize=SCREEN_CACHE_SIZE)
def _cached_screen(
    key_ref: tuple[Any, ...], key_assets: tuple[Any, ...], reference: Path, assets_dir: Path | None
) -> ReferenceScreen:
    return ReferenceScreen(reference, assets_dir)


def render_check(result: RenderResult) -> CheckResult:
    """The ``renders`` check for a finished render: fails when its PNG is unreadable or blank
    (no pixel differs from the median border colour by more than the content threshold of
    :mod:`judge.render.prepare`). For pipelines that render outside :func:`validate`."""
    name = "renders"
    try:
        rgb = np.asarray(load_rgb(Path(result.png)))
    except ImagePrepError as exc:
        return _fail(name, f"render unreadable: {exc}")
    bg = border_background(rgb)
    if content_box(rgb, bg) is None:
        return _fail(name, f"render is blank ({result.width_px}x{result.height_px} px, all {bg})")
    return _ok(name, f"rendered {result.width_px}x{result.height_px} px in {result.seconds:.2f} s")


def _check_render(pptx: Path, render: Render | None) -> CheckResult:
    name = "renders"
    if render is None:
        return _skip(name, "not rendered (--no-render)", passed=True)
    try:
        result = render(pptx)
    except RenderError as exc:
        return _fail(name, f"LibreOffice could not render it: {exc}")
    return render_check(result)


# --------------------------------------------------------------------------------------------
# The gate


def validate(
    pptx: Path,
    reference: Path | None = None,
    assets_dir: Path | None = None,
    render: Render | None = None,
    render_pictures: RenderPictures | None = None,
) -> ArtifactReport:
    """Run every Stage 0 check on ``pptx``; see the module docstring.

    ``reference``: the task's reference PNG (pictures are screened against it); ``assets_dir``:
    approved task assets; ``render``: renders the deck (returns a RenderResult or raises
    RenderError), None to skip the renders check (reported as skipped, passed);
    ``render_pictures``: renders deck bytes to PNG bytes for the picture-only render screen
    (None: ``no_rendered_copy`` is skipped, passed).

    Any failure while checking the candidate's own file makes it invalid (a check fails and
    names why); nothing the file holds makes this raise. Raises ImagePrepError when the
    reference itself is unreadable and RendererUnavailable when the renderer cannot run.
    """
    t0 = time.perf_counter()
    pptx = Path(pptx)
    screen = reference_screen(reference, assets_dir) if reference is not None else None
    try:
        return _validate(pptx, reference, screen, render, render_pictures, t0)
    except (ImagePrepError, RendererUnavailable):
        raise
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - the candidate's file is at fault
        return failed_report(pptx, f"could not be checked ({type(exc).__name__}: {exc})", t0)


def failed_report(pptx: Path, why: str, t0: float | None = None) -> ArtifactReport:
    """The invalid report of a candidate whose checking failed outright: ``opens`` fails with
    ``why`` and every other check is skipped."""
    checks = [_fail("opens", _reason_text(why, pptx))]
    checks += [_skip(n, "not checked: the file did not open") for n in CHECK_NAMES[1:]]
    secs = round(time.perf_counter() - t0, 4) if t0 is not None else 0.0
    return ArtifactReport(path=str(pptx), valid=False, checks=checks, seconds=secs)


def _reason_text(msg: str, pptx: Path) -> str:
    prefix = f"{pptx}:"
    return msg[len(prefix) :].strip() if msg.startswith(prefix) else msg


def _validate(
    pptx: Path,
    reference: Path | None,
    screen: ReferenceScreen | None,
    render: Render | None,
    render_pictures: RenderPictures | None,
    t0: float,
) -> ArtifactReport:
    if not pptx.exists():
        return failed_report(pptx, f"{pptx}: no such file", t0)
    if not pptx.is_file():
        return failed_report(pptx, f"{pptx}: not a regular file", t0)
    checks: dict[str, CheckResult] = {}
    pkg: SafePackage | None = None
    loaded: LoadedSlide | None = None
    try:
        pkg = open_package(pptx)
        checks["safe_to_read"] = _ok(
            "safe_to_read",
            f"{len(pkg.members)} members, {pkg.total_bytes} bytes uncompressed, within bounds; "
            "no DOCTYPE/ENTITY in any XML part",
        )
        loaded = load_slide(pkg)
        checks["opens"] = _ok(
            "opens", f"PowerPoint package, main part {pkg.main_part}, {loaded.slide_count} slide(s)"
        )
    except UnsafePackageError as exc:
        checks["opens"] = _fail("opens", "not opened: unsafe to read (see safe_to_read)")
        checks["safe_to_read"] = _fail("safe_to_read", _reason(exc, pptx))
    except PackageStructureError as exc:
        checks["opens"] = _fail("opens", _reason(exc, pptx))
        checks.setdefault("safe_to_read", _ok("safe_to_read", "members within bounds"))
    except PackageError as exc:
        checks["opens"] = _fail("opens", _reason(exc, pptx))
        checks["safe_to_read"] = _skip("safe_to_read", "not checked: the file did not open")
    if pkg is not None and loaded is not None and loaded.parts is not None:
        _run_checks(
            checks, pptx, loaded, loaded.parts, reference, screen, render, render_pictures, t0
        )
        tree = loaded.tree
        report_audit: ObjectAudit | None = audit_objects(loaded)
        width, height = tree.slide_width_pt, tree.slide_height_pt
    else:
        why = "not checked: the file did not open"
        for name in CHECK_NAMES:
            checks.setdefault(name, _skip(name, why))
        report_audit, width, height = None, None, None
    ordered = [checks[name] for name in CHECK_NAMES]
    return ArtifactReport(
        path=str(pptx),
        valid=all(c.passed for c in ordered),
        checks=ordered,
        audit=report_audit,
        slide_width_pt=width,
        slide_height_pt=height,
        seconds=round(time.perf_counter() - t0, 4),
    )


def _run_checks(
    checks: dict[str, CheckResult],
    pptx: Path,
    loaded: LoadedSlide,
    parts: DeckParts,
    reference: Path | None,
    screen: ReferenceScreen | None,
    render: Render | None,
    render_pictures: RenderPictures | None,
    t0: float,
) -> None:
    problems = loaded.picture_problems
    audit = audit_objects(loaded)
    index = _Index.of(parts)
    result: ScreenResult | None = None
    if screen is not None and loaded.pictures and not problems:
        budget = DecodeBudget(
            deadline=time.monotonic() + MAX_STAGE0_SECONDS - (time.perf_counter() - t0)
        )
        result = screen.screen(loaded.pictures, _aspect(loaded), budget)
    runs: dict[str, Callable[[], CheckResult]] = {
        "one_slide": lambda: _check_one_slide(loaded),
        "editable_components": lambda: _check_editable(audit),
        "no_external_relationships": lambda: _check_external(index),
        "no_embedded_fonts": lambda: _check_fonts(parts, index),
        "no_embedded_objects": lambda: _check_embedded(parts, index),
        "no_activex": lambda: _check_activex(parts, index),
        "no_macros": lambda: _check_macros(parts.pkg, index),
        "object_bounds": lambda: _check_bounds(loaded),
        "no_reference_copy": lambda: _check_reference_copy(loaded, reference, result),
        "fully_screened": lambda: _check_fully_screened(loaded, problems, result),
    }
    for name, run in runs.items():
        try:
            checks[name] = run()
        except PackageError as exc:  # a part the check needs is malformed or hostile
            checks[name] = _fail(name, f"could not be checked: {_reason(exc, pptx)}")
    screened = [
        checks["no_reference_copy"],
        checks["fully_screened"],
        checks["no_external_relationships"],
    ]
    checks["no_rendered_copy"] = _check_rendered_copy(
        parts, screen, result, render_pictures if checks["safe_to_read"].passed else None, screened
    )
    if checks["safe_to_read"].passed:
        checks["renders"] = _check_render(pptx, render)


def _aspect(loaded: LoadedSlide) -> float:
    tree = loaded.tree
    return tree.slide_width_pt / tree.slide_height_pt if tree.slide_height_pt else 4 / 3


def missing_candidate(pptx: Path, why: str) -> ArtifactReport:
    """The report of a candidate that does not exist (``judge generate`` wrote none): invalid,
    ``opens`` failed with ``why``, every other check skipped. Stage 0 then scores it 0."""
    checks = [_fail("opens", why)]
    checks += [_skip(n, "not checked: there is no file") for n in CHECK_NAMES if n != "opens"]
    return ArtifactReport(path=str(pptx), valid=False, checks=checks)


def _reason(exc: Exception, pptx: Path) -> str:
    """The error message without the leading file path (the report already names the file)."""
    return _reason_text(str(exc), pptx)
