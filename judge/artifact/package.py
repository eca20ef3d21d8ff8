"""Safe reading of an untrusted zip/OPC package (a candidate PPTX).

Nothing here trusts the archive: header sizes are checked, then every member is decompressed in
a streaming way with a hard cap (so a member whose header lies about its size is caught as soon
as it passes its declared size), member names are checked for traversal, and every XML part is
rejected if it carries a DOCTYPE/ENTITY declaration *before* it is parsed. Nothing is ever
extracted to disk; the decompressed members live in memory, bounded by :class:`Limits`.

Three outcomes of :func:`open_package`:

* :class:`~judge.errors.PackageError` -- not a readable zip (not a zip, truncated, empty);
* :class:`~judge.errors.UnsafePackageError` -- hostile or over a bound (bomb, traversal, DTD);
* :class:`~judge.errors.PackageStructureError` -- a safe zip that is not a PowerPoint package
  (no ``[Content_Types].xml``, no presentation part, malformed XML in a package part).
"""

from __future__ import annotations

import copy
import io
import posixpath
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lxml import etree

from judge.errors import PackageError, PackageStructureError, UnsafePackageError

# --------------------------------------------------------------------------------------------
# Limits (named once; a typical candidate deck is well under 5 MB with ~40 members)

MAX_PACKAGE_BYTES = 100 * 1024 * 1024
"""Largest candidate file read at all (bytes on disk). Decks of diagrams are a few MB at most."""
MAX_MEMBERS = 2000
"""Most zip members. A PowerPoint deck has tens; thousands means a member-count bomb."""
MAX_MEMBER_BYTES = 48 * 1024 * 1024
"""Largest uncompressed member (bytes): room for a large photo or clip, far below a bomb."""
MAX_TOTAL_BYTES = 128 * 1024 * 1024
"""Largest sum of uncompressed members (bytes): bounds the memory one package may take (the
members are held in memory, and python-pptx holds a second copy while the slide is read)."""
MAX_COMPRESSION_RATIO = 200.0
"""Largest uncompressed/compressed ratio of one member. OOXML compresses ~5-30x; zeros ~1000x."""
RATIO_MIN_BYTES = 1024 * 1024
"""The ratio bound applies only to members larger than this (tiny members compress oddly)."""
MAX_XML_BYTES = 16 * 1024 * 1024
"""Largest XML part (bytes, uncompressed). The slide of a dense diagram is well under 1 MB."""
READ_CHUNK = 256 * 1024
"""Bytes asked of the decompressor per step while streaming a member."""

PRESENTATION_CONTENT_TYPES = frozenset(
    {
        "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
        "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
        "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml",
        "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml",
        "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
        "application/vnd.ms-powerpoint.template.macroEnabled.main+xml",
    }
)
"""Content types of a presentation's main part (``ppt/presentation.xml``)."""
OFFICE_DOCUMENT_REL_TYPES = frozenset(
    {
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument",
        "http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument",
    }
)
XML_EXTENSIONS = (".xml", ".rels", ".vml")
"""Members treated as XML by name (besides any content type ending in ``xml``)."""

_DTD_MARKERS = (b"<!DOCTYPE", b"<!ENTITY")
_DRIVE = re.compile(r"^[A-Za-z]:")
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
SAFE_XML_ENCODINGS = frozenset(
    {
        "utf-8",
        "utf8",
        "utf-16",
        "utf-16le",
        "utf-16be",
        "us-ascii",
        "ascii",
        "iso-8859-1",
        "latin-1",
        "latin1",
        "windows-1252",
        "cp1252",
    }
)
"""XML encodings in which the DTD screen can see a DOCTYPE; other declared encodings are refused."""
CT_NS = "http://schemas.openxmlformats.org/package/2006/content-types"
RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"


@dataclass(frozen=True)
class Limits:
    """The safety bounds; the defaults are the module constants."""

    max_package_bytes: int = MAX_PACKAGE_BYTES
    max_members: int = MAX_MEMBERS
    max_member_bytes: int = MAX_MEMBER_BYTES
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_compression_ratio: float = MAX_COMPRESSION_RATIO
    ratio_min_bytes: int = RATIO_MIN_BYTES
    max_xml_bytes: int = MAX_XML_BYTES


DEFAULT_LIMITS = Limits()


def safe_xml_parser() -> etree.XMLParser:
    """An lxml parser that never resolves entities, loads a DTD or touches the network."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        dtd_validation=False,
        remove_comments=False,
    )


@dataclass(frozen=True)
class Relationship:
    """One ``Relationship`` of a ``.rels`` part."""

    source: str
    """The ``.rels`` member it was read from."""
    id: str
    type: str
    target: str
    external: bool
    """``TargetMode="External"``."""

    @property
    def short_type(self) -> str:
        return self.type.rsplit("/", 1)[-1]


@dataclass
class SafePackage:
    """A package whose every member was read within bounds and every XML part is DTD-free."""

    path: Path
    raw: bytes
    """The zip file's bytes (so python-pptx can read it again without touching the disk)."""
    members: dict[str, bytes]
    """Member name -> decompressed bytes."""
    content_types_default: dict[str, str]
    """Lower-case extension -> content type."""
    content_types_override: dict[str, str]
    """Member name (no leading ``/``) -> content type."""
    main_part: str
    """Member name of the presentation part, e.g. ``ppt/presentation.xml``."""
    _xml_cache: dict[str, etree._Element] = field(default_factory=dict, repr=False)

    @property
    def names(self) -> list[str]:
        return list(self.members)

    @property
    def total_bytes(self) -> int:
        return sum(len(b) for b in self.members.values())

    def read(self, name: str) -> bytes:
        try:
            return self.members[name]
        except KeyError:
            raise PackageStructureError(f"{self.path}: no part {name!r} in the package") from None

    def content_type(self, name: str) -> str | None:
        """The declared content type of member ``name`` (override first, then extension)."""
        if name in self.content_types_override:
            return self.content_types_override[name]
        ext = PurePosixPath(name).suffix.lstrip(".").lower()
        return self.content_types_default.get(ext)

    def is_xml(self, name: str) -> bool:
        ct = (self.content_type(name) or "").lower()
        return name.lower().endswith(XML_EXTENSIONS) or ct.endswith("xml")

    def xml(self, name: str) -> etree._Element:
        """The parsed root element of XML part ``name`` (safe parser, cached)."""
        if name not in self._xml_cache:
            self._xml_cache[name] = parse_xml(self.read(name), f"{self.path}:{name}")
        return self._xml_cache[name]

    def rels_parts(self) -> list[str]:
        return [n for n in self.members if n.lower().endswith(".rels")]

    def relationships(self, rels_part: str) -> list[Relationship]:
        """Relationships of one ``.rels`` member."""
        root = self.xml(rels_part)
        out = []
        for el in root.iter(f"{{{RELS_NS}}}Relationship"):
            out.append(
                Relationship(
                    source=rels_part,
                    id=el.get("Id", ""),
                    type=el.get("Type", ""),
                    target=el.get("Target", ""),
                    external=(el.get("TargetMode", "") or "").lower() == "external",
                )
            )
        return out

    def part_relationships(self, part: str) -> list[Relationship]:
        """Relationships whose source is ``part`` (its ``_rels/<name>.rels``), empty if none."""
        rels = rels_name_for(part)
        return self.relationships(rels) if rels in self.members else []

    def resolve(self, part: str, target: str) -> str:
        """Member name of an internal relationship target, relative to ``part``."""
        if target.startswith("/"):
            return posixpath.normpath(target.lstrip("/"))
        base = posixpath.dirname(part)
        return posixpath.normpath(posixpath.join(base, target))


def rels_name_for(part: str) -> str:
    """``ppt/slides/slide1.xml`` -> ``ppt/slides/_rels/slide1.xml.rels``."""
    head, tail = posixpath.split(part)
    return posixpath.join(head, "_rels", f"{tail}.rels")


def has_dtd(data: bytes) -> bool:
    """True when XML bytes carry a DOCTYPE or ENTITY declaration (UTF-8/16/32 spellings)."""
    for marker in _DTD_MARKERS:
        if marker in data:
            return True
        for enc in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
            if marker.decode("ascii").encode(enc) in data:
                return True
    return False


def xml_encoding_ok(data: bytes) -> bool:
    """False when the XML declaration names an encoding the byte-level DTD screen cannot read."""
    match = _XML_ENCODING.match(data[:256])
    return match is None or match.group(1).decode("ascii").lower() in SAFE_XML_ENCODINGS


def parse_xml(data: bytes, where: str, max_bytes: int = MAX_XML_BYTES) -> etree._Element:
    """Parse untrusted XML: size-bounded, DTDs refused before parsing, entities never resolved.

    Raises UnsafePackageError for a DTD or an oversized part, PackageStructureError for XML that
    does not parse. ``where`` names the file and part in messages.
    """
    if len(data) > max_bytes:
        raise UnsafePackageError(f"{where}: XML part of {len(data)} bytes exceeds {max_bytes}")
    if has_dtd(data):
        raise UnsafePackageError(f"{where}: XML declares a DOCTYPE/ENTITY (refused, never parsed)")
    if not xml_encoding_ok(data):
        raise UnsafePackageError(f"{where}: XML in an unexpected encoding (refused)")
    try:
        root = etree.fromstring(data, parser=safe_xml_parser())
    except etree.XMLSyntaxError as exc:
        raise PackageStructureError(f"{where}: malformed XML ({exc})") from None
    if root is None:
        raise PackageStructureError(f"{where}: empty XML part")
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None:
        raise UnsafePackageError(f"{where}: XML declares a DOCTYPE (refused)")
    return root


def check_member_name(name: str) -> str | None:
    """The reason a member name is unsafe (traversal, absolute, NUL), or None when fine."""
    if "\x00" in name:
        return "contains a NUL byte"
    norm = name.replace("\\", "/")
    if norm.startswith("/") or _DRIVE.match(norm):
        return "is an absolute path"
    if ".." in norm.split("/"):
        return "contains a '..' component (path traversal)"
    return None


def _entry_count(fp: io.BytesIO, where: str) -> int | None:
    """Member count from the end-of-central-directory record, read before building the
    directory (so a member-count bomb is refused without allocating its entries)."""
    try:
        endrec = zipfile._EndRecData(fp)  # type: ignore[attr-defined]
    except (OSError, ValueError, EOFError, struct.error, zipfile.BadZipFile) as exc:
        raise PackageError(f"{where}: not a readable zip ({exc})") from None
    if not endrec:
        return None
    return int(endrec[zipfile._ECD_ENTRIES_TOTAL])  # type: ignore[attr-defined]


def _stream_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int, where: str) -> bytes:
    """Decompress one member, never producing more than ``cap`` + one chunk of bytes.

    The header's size is not trusted: the member is opened as if it could be ``cap`` + 1 bytes
    long, and streaming stops as soon as the output passes the declared size or the cap.
    """
    declared = info.file_size
    probe = copy.copy(info)
    probe.file_size = cap + 1  # let the reader run past a lying header so we can see it lie
    out = io.BytesIO()
    total = 0
    try:
        with zf.open(probe) as fh:
            while True:
                chunk = fh.read(min(READ_CHUNK, cap + 1 - total))
                if not chunk:
                    break
                total += len(chunk)
                if total > declared:
                    raise UnsafePackageError(
                        f"{where}: member {info.filename!r} decompresses beyond its declared "
                        f"{declared} bytes (the header lies about its size)"
                    )
                if total > cap:
                    raise UnsafePackageError(
                        f"{where}: member {info.filename!r} decompresses beyond {cap} bytes"
                    )
                out.write(chunk)
    except UnsafePackageError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError) as exc:
        raise PackageError(f"{where}: member {info.filename!r} is unreadable ({exc})") from None
    except NotImplementedError as exc:
        raise PackageError(f"{where}: member {info.filename!r}: {exc}") from None
    if total != declared:
        raise PackageError(
            f"{where}: member {info.filename!r} is {total} bytes, its header says {declared} "
            "(truncated or corrupt)"
        )
    return out.getvalue()


def _check_directory(infos: list[zipfile.ZipInfo], limits: Limits, where: str) -> None:
    """Refuse hostile central directories before decompressing anything."""
    if len(infos) > limits.max_members:
        raise UnsafePackageError(f"{where}: {len(infos)} members exceed {limits.max_members}")
    seen: dict[str, str] = {}
    total = 0
    for info in infos:
        # zipfile cuts a name at its first NUL; the original name is what readers disagree on
        name = info.filename
        reason = check_member_name(getattr(info, "orig_filename", name)) or check_member_name(name)
        if reason:
            raise UnsafePackageError(
                f"{where}: member name {getattr(info, 'orig_filename', name)!r} {reason}"
            )
        folded = name.casefold()
        if folded in seen:
            same = (
                "appears twice"
                if seen[folded] == name
                else f"differs only in case from {seen[folded]!r}"
            )
            raise UnsafePackageError(
                f"{where}: member name {name!r} {same} (OPC part names are case-insensitive; "
                "readers disagree which counts)"
            )
        seen[folded] = name
        if info.flag_bits & 0x1:
            raise PackageError(f"{where}: member {name!r} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise PackageError(
                f"{where}: member {name!r} uses compression method {info.compress_type} "
                "(OPC packages use deflate or store)"
            )
        if info.file_size > limits.max_member_bytes:
            raise UnsafePackageError(
                f"{where}: member {name!r} declares {info.file_size} bytes, over the "
                f"{limits.max_member_bytes}-byte member limit (zip bomb?)"
            )
        if info.file_size > limits.ratio_min_bytes:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_compression_ratio:
                raise UnsafePackageError(
                    f"{where}: member {name!r} compression ratio {ratio:.0f} exceeds "
                    f"{limits.max_compression_ratio:.0f} (zip bomb?)"
                )
        total += info.file_size
        if total > limits.max_total_bytes:
            raise UnsafePackageError(
                f"{where}: members declare over {limits.max_total_bytes} bytes in total (zip bomb?)"
            )


def _content_types(
    pkg_members: dict[str, bytes], where: str
) -> tuple[dict[str, str], dict[str, str]]:
    name = "[Content_Types].xml"
    if name not in pkg_members:
        raise PackageStructureError(f"{where}: no [Content_Types].xml (not an OPC package)")
    root = parse_xml(pkg_members[name], f"{where}:{name}")
    defaults: dict[str, str] = {}
    overrides: dict[str, str] = {}
    for el in root:
        if not isinstance(el.tag, str):
            continue
        tag = etree.QName(el).localname
        if tag == "Default":
            defaults[el.get("Extension", "").lower()] = el.get("ContentType", "")
        elif tag == "Override":
            overrides[el.get("PartName", "").lstrip("/")] = el.get("ContentType", "")
    return defaults, overrides


PRESENTATION_KINDS = {
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml": (
        "a slide show (.ppsx)"
    ),
    "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml": "a slide show (.ppsm)",
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml": (
        "a template (.potx)"
    ),
    "application/vnd.ms-powerpoint.template.macroEnabled.main+xml": "a template (.potm)",
}
"""Main-part content types that are PowerPoint files but not presentations (.pptx/.pptm)."""


def _find_main_part(pkg: SafePackage, where: str) -> str:
    """The presentation part (by the root relationship, else by content type); a template or
    slide show is refused with a message naming its kind."""
    main = _main_part(pkg, where)
    kind = PRESENTATION_KINDS.get(pkg.content_type(main) or "")
    if kind is not None:
        raise PackageStructureError(
            f"{where}: main part {main!r} has content type {pkg.content_type(main)!r}: "
            f"{kind}, not a presentation; save the candidate as .pptx"
        )
    return main


def _main_part(pkg: SafePackage, where: str) -> str:
    if "_rels/.rels" in pkg.members:
        for rel in pkg.relationships("_rels/.rels"):
            if rel.type in OFFICE_DOCUMENT_REL_TYPES and not rel.external:
                target = pkg.resolve("", rel.target)
                if target in pkg.members:
                    if (pkg.content_type(target) or "") in PRESENTATION_CONTENT_TYPES:
                        return target
                    raise PackageStructureError(
                        f"{where}: main part {target!r} is a "
                        f"{pkg.content_type(target) or 'untyped part'}, not a presentation"
                    )
    for name in pkg.members:
        if (pkg.content_type(name) or "") in PRESENTATION_CONTENT_TYPES:
            return name
    raise PackageStructureError(f"{where}: no presentation part (not a PowerPoint package)")


OLE2_MAGIC = bytes.fromhex("D0CF11E0A1B11AE1")
"""First bytes of an OLE2 compound file: what PowerPoint writes for an encrypted PPTX or a
legacy .ppt."""


def open_package(path: Path | str, limits: Limits = DEFAULT_LIMITS) -> SafePackage:
    """Open a candidate package safely; see the module docstring for the three error kinds.

    A missing or unreadable path raises PackageError (nothing could be checked).
    """
    path = Path(path)
    where = str(path)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise PackageError(f"{where}: not a regular file")
        if size > limits.max_package_bytes:
            raise UnsafePackageError(
                f"{where}: {size} bytes on disk exceeds {limits.max_package_bytes}"
            )
        with path.open("rb") as fh:  # bounded even if the file grows after the size check
            raw = fh.read(limits.max_package_bytes + 1)
        if len(raw) > limits.max_package_bytes:
            raise UnsafePackageError(f"{where}: more than {limits.max_package_bytes} bytes")
    except FileNotFoundError:
        raise PackageError(f"{where}: no such file") from None
    except OSError as exc:
        raise PackageError(f"{where}: cannot read ({exc.strerror or exc})") from None
    if not raw:
        raise PackageError(f"{where}: empty file (0 bytes)")
    fp = io.BytesIO(raw)
    count = _entry_count(fp, where)
    if count is None:
        if raw.startswith(OLE2_MAGIC):
            raise PackageError(
                f"{where}: an OLE2 compound file, not an OOXML zip: a password-protected "
                "(encrypted) PPTX or a legacy binary .ppt; save it as an unprotected .pptx"
            )
        raise PackageError(f"{where}: not a zip archive (no end-of-central-directory record)")
    if count > limits.max_members:
        raise UnsafePackageError(f"{where}: {count} members exceed {limits.max_members}")
    try:
        zf = zipfile.ZipFile(fp)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        raise PackageError(f"{where}: not a readable zip ({exc})") from None
    with zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
        if not infos:
            raise PackageError(f"{where}: empty zip archive (no members)")
        _check_directory(infos, limits, where)
        members: dict[str, bytes] = {}
        used = 0
        for info in infos:
            cap = min(limits.max_member_bytes, limits.max_total_bytes - used)
            data = _stream_member(zf, info, cap, where)
            used += len(data)
            members[info.filename] = data
    # Every XML-looking member is screened for DTDs, whether or not anything reads it later.
    for name, data in members.items():
        if name.lower().endswith(XML_EXTENSIONS) or data[:64].lstrip().startswith(b"<?xml"):
            if len(data) > limits.max_xml_bytes:
                raise UnsafePackageError(
                    f"{where}: XML part {name!r} of {len(data)} bytes exceeds "
                    f"{limits.max_xml_bytes}"
                )
            if has_dtd(data):
                raise UnsafePackageError(
                    f"{where}: XML part {name!r} declares a DOCTYPE/ENTITY (refused, never parsed)"
                )
    defaults, overrides = _content_types(members, where)
    pkg = SafePackage(
        path=path,
        raw=raw,
        members=members,
        content_types_default=defaults,
        content_types_override=overrides,
        main_part="",
    )
    # Parts declared XML by content type are screened too (names can hide their kind).
    for name, data in members.items():
        if not pkg.is_xml(name):
            continue
        if has_dtd(data):
            raise UnsafePackageError(
                f"{where}: XML part {name!r} declares a DOCTYPE/ENTITY (refused, never parsed)"
            )
        if not xml_encoding_ok(data):
            raise UnsafePackageError(f"{where}: XML part {name!r} in an unexpected encoding")
    pkg.main_part = _find_main_part(pkg, where)
    return pkg
