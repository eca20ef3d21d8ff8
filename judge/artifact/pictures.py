"""Every image the rendered slide can draw, collected by relationship, and vector images vetted.

LibreOffice draws an image wherever any drawn part (the slide, its layout, master, theme, a
diagram or chart part) references one: ``p:pic``, a picture fill anywhere (``a:blipFill`` of a
shape, a group, a table cell, a background), the theme's background fill list pulled in by
``p:bgRef``, either branch of ``mc:AlternateContent``, a strict-namespace element. So images are
collected from the *relationships* of the rendered parts (:attr:`DeckParts.rendered`), not from the
XML elements a walk happens to reach; the walk only says where a picture is placed. An image
relationship nothing places is still screened (``placed`` False: drawn somewhere unknown).

Vector images are vetted here: an SVG that references anything outside itself (``href`` or
CSS ``url()`` to a file, a URL, a ``data:`` URI holding a raster) and an EMF/WMF holding a bitmap
cannot be screened by the package-level screen and fail ``fully_screened``.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Literal

from lxml import etree

from judge.artifact.package import parse_xml
from judge.artifact.parts import DeckParts
from judge.errors import PackageError
from judge.schema import Box

IMAGE_REL_TYPES = frozenset({"image", "hdphoto", "wdp"})
"""Relationship types (short names) whose target LibreOffice may draw as a picture."""
MAX_PICTURES = 200
"""Most distinct image parts drawn with one slide; more fails ``fully_screened`` (a diagram
uses a few icons; a 1,500-picture deck is a tile attack or a time bomb)."""
FULL = Box(x=0.0, y=0.0, w=1.0, h=1.0)

ImageKind = Literal["raster", "svg", "emf", "wmf", "unknown"]

EMF_BITMAP_RECORDS = frozenset({0x4C, 0x4D, 0x4E, 0x4F, 0x50, 0x51, 0x72, 0x74, 0x5E})
"""EMF records that draw a device-independent bitmap: BITBLT, STRETCHBLT, MASKBLT, PLGBLT,
SETDIBITSTODEVICE, STRETCHDIBITS, ALPHABLEND, TRANSPARENTBLT, CREATEDIBPATTERNBRUSHPT."""
EMF_GDICOMMENT = 0x46
EMFPLUS_OBJECT = 0x4008
EMFPLUS_IMAGE_OBJECT = 5
EMFPLUS_DRAW_IMAGE = frozenset({0x401A, 0x401B})
WMF_BITMAP_RECORDS = frozenset({0x0940, 0x0B41, 0x0D33, 0x0F43, 0x0922, 0x0B23, 0x0142})
"""WMF records with a bitmap: DIBBITBLT, DIBSTRETCHBLT, SETDIBTODEV, STRETCHDIB, BITBLT,
STRETCHBLT, DIBCREATEPATTERNBRUSH."""
MAX_METAFILE_RECORDS = 200_000
_CSS_URL = re.compile(rb"url\(\s*['\"]?\s*([^)'\"\s]*)", re.IGNORECASE)
_CSS_IMPORT = re.compile(rb"@import", re.IGNORECASE)


@dataclass(frozen=True)
class Placement:
    """Where a shape of a part draws one image relationship."""

    part: str
    """The part whose relationship the ``r:embed`` names."""
    rid: str
    owner: str
    """``"Picture 3" (id 4)``, ``slide background``, ``layout shape ...``."""
    object_id: int | None
    bbox: Box
    """Slide frame (0-1 fractions); the background: the whole slide."""
    is_picture_shape: bool
    """A ``p:pic`` on the slide itself (counted in the audit's picture area)."""
    on_slide: bool
    """False for images drawn by the slide's layout or master (template artwork)."""
    in_ole: bool = False
    """The preview image of an embedded OLE object (which fails ``no_embedded_objects``)."""


@dataclass(frozen=True)
class PictureBlob:
    """An image the slide may draw, for the reference-copy screen."""

    owner: str
    """Who draws it: ``"Picture 3" (id 4)``, ``slide background``, ``layout shape ...``."""
    object_id: int | None
    bbox: Box
    """Slide frame (0-1 fractions): where it is drawn (background or unplaced: the slide)."""
    member: str
    """The package member holding the image bytes."""
    blob: bytes
    is_picture_shape: bool
    """True for a ``p:pic`` on the slide itself (counted in the audit's picture area)."""
    on_slide: bool = True
    """False for images drawn by the slide's layout or master (template artwork)."""
    placed: bool = True
    """False when no walked element places it (still drawn: the theme, a diagram, ...)."""
    kind: ImageKind = "raster"


@dataclass
class Collection:
    pictures: list[PictureBlob]
    problems: list[str]
    """Images that cannot be screened (fail ``fully_screened``), described."""


def image_kind(data: bytes, content_type: str) -> ImageKind:
    """What the bytes are, by signature first (a name or content type can lie)."""
    head = data[:512].lstrip()
    ct = content_type.lower()
    if data[:4] == b"\x01\x00\x00\x00" and data[40:44] == b" EMF":
        return "emf"
    if data[:4] == b"\xd7\xcd\xc6\x9a" or data[:6] in (
        b"\x01\x00\x09\x00\x00\x03",
        b"\x02\x00\x09\x00\x00\x03",
    ):
        return "wmf"
    if head.startswith((b"<svg", b"<?xml", b"<!--")) and b"<svg" in data[:4096]:
        return "svg"
    if "svg" in ct:
        return "svg"
    if (
        data[:8] == b"\x89PNG\r\n\x1a\n"
        or data[:3] == b"\xff\xd8\xff"
        or data[:4]
        in (
            b"GIF8",
            b"II*\x00",
            b"MM\x00*",
        )
        or data[:2] == b"BM"
        or data[:4] == b"RIFF"
    ):
        return "raster"
    if "emf" in ct:
        return "emf"
    if "wmf" in ct:
        return "wmf"
    return "raster" if ct.startswith("image/") else "unknown"


def svg_problem(data: bytes, where: str) -> str | None:
    """Why an SVG cannot be screened (it references something outside itself), or None."""
    try:
        root = parse_xml(data, where)
    except PackageError as exc:
        return f"SVG does not parse safely ({str(exc).split(': ', 1)[-1]})"
    for el in root.iter():
        for key, value in el.attrib.items():
            local = key.rsplit("}", 1)[-1]
            val = value.strip()
            if local == "href" and val and not val.startswith("#"):
                kind = "a data: URI" if val.lower().startswith("data:") else "an external"
                return f"SVG with {kind} reference ({val[:60]!r} on <{etree.QName(el).localname}>)"
            if local == "style" and _css_problem(val.encode("utf-8", "replace")):
                return "SVG with an external reference in a style attribute"
        if (
            isinstance(el.tag, str)
            and etree.QName(el).localname == "style"
            and _css_problem((el.text or "").encode("utf-8", "replace"))
        ):
            return "SVG with an external reference in a <style> sheet"
        if not isinstance(el.tag, str) and isinstance(el, etree._ProcessingInstruction):
            return "SVG with a processing instruction (a style sheet link)"
    return None


def _css_problem(css: bytes) -> bool:
    if _CSS_IMPORT.search(css):
        return True
    return any(not m.group(1).startswith(b"#") for m in _CSS_URL.finditer(css))


def emf_problem(data: bytes) -> str | None:
    """Why an EMF cannot be screened (it holds a bitmap), or None for a pure vector file."""
    pos, n = 0, 0
    while pos + 8 <= len(data) and n < MAX_METAFILE_RECORDS:
        rtype, size = struct.unpack_from("<II", data, pos)
        if rtype in EMF_BITMAP_RECORDS:
            return f"EMF with an embedded bitmap (record 0x{rtype:X})"
        if (
            rtype == EMF_GDICOMMENT
            and size >= 16
            and data[pos + 12 : pos + 16] == b"EMF+"
            and _emfplus_has_image(data[pos + 16 : pos + size])
        ):
            return "EMF+ with an embedded image"
        if rtype == 0x0E or size < 8:  # EMR_EOF or a corrupt size
            return None if rtype == 0x0E else "EMF with a corrupt record"
        pos += size
        n += 1
    return None if n < MAX_METAFILE_RECORDS else "EMF with too many records"


def _emfplus_has_image(data: bytes) -> bool:
    pos = 0
    while pos + 12 <= len(data):
        rtype, flags, size = struct.unpack_from("<HHI", data, pos)
        if rtype in EMFPLUS_DRAW_IMAGE:
            return True
        if rtype == EMFPLUS_OBJECT and (flags >> 8) & 0x7F == EMFPLUS_IMAGE_OBJECT:
            return True
        if size < 12:
            return False
        pos += size
    return False


def wmf_problem(data: bytes) -> str | None:
    """Why a WMF cannot be screened (it holds a bitmap), or None."""
    pos = 22 if data[:4] == b"\xd7\xcd\xc6\x9a" else 0
    pos += 18  # the META_HEADER
    n = 0
    while pos + 6 <= len(data) and n < MAX_METAFILE_RECORDS:
        size_words, func = struct.unpack_from("<IH", data, pos)
        if func in WMF_BITMAP_RECORDS:
            return f"WMF with an embedded bitmap (record 0x{func:04X})"
        if func == 0 or size_words < 3:
            return None
        pos += size_words * 2
        n += 1
    return None


def vector_problem(kind: ImageKind, data: bytes, where: str) -> str | None:
    if kind == "svg":
        return svg_problem(data, where)
    if kind == "emf":
        return emf_problem(data)
    if kind == "wmf":
        return wmf_problem(data)
    return None


def image_targets(parts: DeckParts) -> list[tuple[str, str, str]]:
    """(part, relationship id, target member) of every image relationship of a rendered part,
    and every rendered member whose content type is an image."""
    out: list[tuple[str, str, str]] = []
    for part in parts.rendered_xml_parts():
        for rel in parts.rels(part):
            if rel.external:
                continue
            target = parts.pkg.resolve(part, rel.target)
            if target not in parts.pkg.members:
                continue
            ct = (parts.pkg.content_type(target) or "").lower()
            if rel.short_type in IMAGE_REL_TYPES or ct.startswith("image/"):
                out.append((part, rel.id, target))
    return out


def has_picture_parts(parts: DeckParts) -> bool:
    """True when anything drawn with the slide references an image (media, picture fills,
    SVG/EMF): only such decks need the picture-only render screen."""
    return bool(image_targets(parts))


def collect(parts: DeckParts, placements: list[Placement], slide_part: str | None) -> Collection:
    """The images the slide may draw, placed where the walk saw them (``placements``, from
    :func:`judge.artifact.ooxml.load_slide`); vector images vetted."""
    placed: dict[tuple[str, str], list[Placement]] = {}
    for pl in placements:
        placed.setdefault((pl.part, pl.rid), []).append(pl)
    pictures: list[PictureBlob] = []
    problems: list[str] = []
    checked: dict[str, str | None] = {}
    targets = image_targets(parts)
    members = {t for _, _, t in targets}
    if len(members) > MAX_PICTURES:
        problems.append(
            f"{len(members)} distinct images drawn with the slide, over the {MAX_PICTURES} "
            "that are screened"
        )
        return Collection([], problems)
    for part, rid, target in targets:
        data = parts.pkg.members[target]
        kind = image_kind(data, parts.pkg.content_type(target) or "")
        where = placed.get((part, rid))
        ole_preview = bool(where) and all(pl.in_ole for pl in where or [])
        if target not in checked and not ole_preview:  # an OLE object fails its own check
            checked[target] = vector_problem(kind, data, f"{parts.pkg.path}:{target}")
            if checked[target]:
                problems.append(f"{target}: {checked[target]}")
        if where:
            for pl in where:
                pictures.append(
                    PictureBlob(
                        pl.owner,
                        pl.object_id,
                        pl.bbox,
                        target,
                        data,
                        pl.is_picture_shape,
                        pl.on_slide,
                        True,
                        kind,
                    )
                )
            continue
        bg = _background_owner(parts, part, rid)
        owner = bg or f"{part} {rid} (drawn, not placed)"
        is_placed = bg is not None and part != parts.theme
        on_slide = part == slide_part
        pictures.append(
            PictureBlob(owner, None, FULL, target, data, False, on_slide, is_placed, kind)
        )
    return Collection(pictures, problems)


def _background_owner(parts: DeckParts, part: str, rid: str) -> str | None:
    """``slide background`` (or layout/master/theme background) when the relationship is used by
    the part's ``p:bg`` or the theme's background fill list."""
    role = {parts.slide: "slide", parts.layout: "layout", parts.master: "master"}.get(part)
    root = parts.xml(part)
    r_embed = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed"
    if role is not None:
        bg = root.find(
            "{http://schemas.openxmlformats.org/presentationml/2006/main}cSld/"
            "{http://schemas.openxmlformats.org/presentationml/2006/main}bg"
        )
        if bg is not None and any(el.get(r_embed) == rid for el in bg.iter()):
            return f"{role} background"
    if part == parts.theme:
        return "theme background or fill"
    return None


__all__ = [
    "Collection",
    "PictureBlob",
    "collect",
    "emf_problem",
    "has_picture_parts",
    "image_kind",
    "svg_problem",
    "wmf_problem",
]
