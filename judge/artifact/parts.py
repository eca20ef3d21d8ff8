"""The one resolver of a candidate's parts and relationships (Stage 0 reads the package once).

:func:`resolve_parts` follows the real relationships of a vetted :class:`SafePackage`: the
presentation part's ``p:sldIdLst`` ``r:id`` -> the slide parts, in show order; the first slide's
``slideLayout`` -> ``slideMaster`` -> ``theme``; and every part the first slide's drawing pulls in
(media, diagrams, charts, their media). Member names are never guessed (``ppt/slides/slide1.xml``
may be a decoy the presentation does not list). Every reader of the candidate (the object
walk, the picture collection, the OLE/ActiveX/font checks, font provenance) asks this resolver.

XML of the rendered parts is returned with ISO/IEC 29500 *strict* namespaces
(``http://purl.oclc.org/ooxml/...``) rewritten to their transitional spelling, so a strict element
inside a transitional slide is seen by the same code that sees a transitional one.
"""

from __future__ import annotations

import posixpath
from collections import deque
from dataclasses import dataclass, field

from lxml import etree

from judge.artifact.package import Relationship, SafePackage
from judge.errors import PackageStructureError

P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
STRICT_PREFIX = "http://purl.oclc.org/ooxml/"
"""Namespaces of strict OOXML: ``http://purl.oclc.org/ooxml/<area>/<name>``; the transitional
spelling is ``http://schemas.openxmlformats.org/<area>/2006/<name>``."""
TRANSITIONAL_PREFIX = "http://schemas.openxmlformats.org/"

NOT_FOLLOWED = frozenset(
    {
        "slide",
        "notesSlide",
        "notesMaster",
        "handoutMaster",
        "slideLayout",
        "slideMaster",
        "presProps",
        "viewProps",
        "tableStyles",
        "commentAuthors",
        "comments",
        "tags",
        "printerSettings",
    }
)
"""Relationship types (short names) not followed from the rendered slide's parts: other slides
(hyperlinks), notes, the master's list of every layout. The slide's own layout, master and theme
are followed explicitly."""
MAX_RENDERED_PARTS = 400
"""Most parts in the rendered closure of the slide (a diagram deck has about ten)."""


def strict_to_transitional(uri: str) -> str:
    """``http://purl.oclc.org/ooxml/drawingml/main`` -> the transitional namespace URI."""
    if not uri.startswith(STRICT_PREFIX):
        return uri
    rest = uri[len(STRICT_PREFIX) :]
    area, _, name = rest.partition("/")
    if not name:
        return uri
    return f"{TRANSITIONAL_PREFIX}{area}/2006/{name}"


def _split(tag: str) -> tuple[str, str]:
    if tag.startswith("{"):
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def normalise_strict(root: etree._Element) -> etree._Element:
    """A copy of ``root`` with strict namespaces (elements and attributes) made transitional;
    ``root`` itself when it has none (the common case: no copy)."""
    if not any(
        isinstance(el.tag, str) and el.tag.startswith("{" + STRICT_PREFIX) for el in root.iter()
    ) and not any(k.startswith("{" + STRICT_PREFIX) for el in root.iter() for k in el.attrib):
        return root
    out = etree.fromstring(etree.tostring(root))
    for el in out.iter():
        if not isinstance(el.tag, str):
            continue
        ns, local = _split(el.tag)
        if ns.startswith(STRICT_PREFIX):
            el.tag = f"{{{strict_to_transitional(ns)}}}{local}"
        for key in list(el.attrib.keys()):
            ans, alocal = _split(key)
            if ans.startswith(STRICT_PREFIX):
                value = el.attrib.pop(key)
                el.set(f"{{{strict_to_transitional(ans)}}}{alocal}", value)
    etree.cleanup_namespaces(out)
    return out


@dataclass
class DeckParts:
    """The resolved parts of a candidate; built once by :func:`resolve_parts`."""

    pkg: SafePackage
    presentation: str
    """Member name of the presentation part."""
    slides: list[str]
    """Slide parts in show order (``p:sldIdLst`` through the presentation's relationships)."""
    layout: str | None = None
    """The first slide's layout part."""
    master: str | None = None
    theme: str | None = None
    rendered: list[str] = field(default_factory=list)
    """Parts drawn with the first slide: the slide, its layout, master, theme and everything
    their drawings reference (media, diagrams, charts), breadth first."""
    truncated: bool = False
    """True when the rendered closure was cut at :data:`MAX_RENDERED_PARTS`."""
    _rels: dict[str, list[Relationship]] = field(default_factory=dict, repr=False)
    _xml: dict[str, etree._Element] = field(default_factory=dict, repr=False)

    @property
    def slide(self) -> str | None:
        """The first slide part (the one the protocol judges), or None for an empty deck."""
        return self.slides[0] if self.slides else None

    def rels(self, part: str) -> list[Relationship]:
        """Relationships whose source is ``part`` (cached)."""
        if part not in self._rels:
            self._rels[part] = self.pkg.part_relationships(part)
        return self._rels[part]

    def target(self, part: str, rid: str) -> str | None:
        """The member an internal relationship ``rid`` of ``part`` points to, None when the id is
        unknown, external or dangling."""
        for rel in self.rels(part):
            if rel.id == rid:
                if rel.external:
                    return None
                name = self.pkg.resolve(part, rel.target)
                return name if name in self.pkg.members else None
        return None

    def targets_of_type(self, part: str, short_type: str) -> list[str]:
        out = []
        for rel in self.rels(part):
            if rel.short_type == short_type and not rel.external:
                name = self.pkg.resolve(part, rel.target)
                if name in self.pkg.members:
                    out.append(name)
        return out

    def xml(self, part: str) -> etree._Element:
        """The parsed part with strict namespaces made transitional (cached)."""
        if part not in self._xml:
            self._xml[part] = normalise_strict(self.pkg.xml(part))
        return self._xml[part]

    def is_xml(self, part: str) -> bool:
        return self.pkg.is_xml(part)

    def rendered_xml_parts(self) -> list[str]:
        return [p for p in self.rendered if self.is_xml(p)]

    def find_elements(self, localnames: frozenset[str]) -> list[tuple[str, str]]:
        """(part, local name) of every element named one of ``localnames`` (any namespace) in
        the rendered XML parts."""
        found = []
        for part in self.rendered_xml_parts():
            for el in self.xml(part).iter():
                if isinstance(el.tag, str) and _split(el.tag)[1] in localnames:
                    found.append((part, _split(el.tag)[1]))
        return found


def _slide_parts(pkg: SafePackage, parts: DeckParts) -> list[str]:
    root = parts.xml(pkg.main_part)
    lst = root.find(f"{{{P_NS}}}sldIdLst")
    if lst is None:
        return []
    out: list[str] = []
    for sld in lst:
        if not isinstance(sld.tag, str) or _split(sld.tag)[1] != "sldId":
            continue
        rid = sld.get(f"{{{R_NS}}}id")
        if not rid:
            raise PackageStructureError(f"{pkg.path}: a p:sldId without r:id in {pkg.main_part}")
        target = parts.target(pkg.main_part, rid)
        if target is None:
            raise PackageStructureError(
                f"{pkg.path}: slide {rid} of {pkg.main_part} points to no part of the package"
            )
        out.append(target)
    return out


def _closure(parts: DeckParts, start: list[str]) -> None:
    seen: set[str] = set()
    queue: deque[str] = deque(p for p in start if p)
    while queue:
        part = queue.popleft()
        if part in seen:
            continue
        if len(seen) >= MAX_RENDERED_PARTS:
            parts.truncated = True
            break
        seen.add(part)
        parts.rendered.append(part)
        if not part.lower().endswith((".xml", ".vml")) and not parts.is_xml(part):
            continue
        for rel in parts.rels(part):
            if rel.external or rel.short_type in NOT_FOLLOWED:
                continue
            name = parts.pkg.resolve(part, rel.target)
            if name in parts.pkg.members and name not in seen:
                queue.append(name)


def resolve_parts(pkg: SafePackage) -> DeckParts:
    """Resolve the slides, the first slide's layout/master/theme and its rendered closure.

    Raises PackageStructureError when a listed slide does not exist, and PackageError
    subclasses when a part the resolution reads is malformed or hostile.
    """
    parts = DeckParts(pkg=pkg, presentation=pkg.main_part, slides=[])
    parts.slides = _slide_parts(pkg, parts)
    slide = parts.slide
    if slide is not None:
        layouts = parts.targets_of_type(slide, "slideLayout")
        parts.layout = layouts[0] if layouts else None
        if parts.layout:
            masters = parts.targets_of_type(parts.layout, "slideMaster")
            parts.master = masters[0] if masters else None
        if parts.master:
            themes = parts.targets_of_type(parts.master, "theme")
            parts.theme = themes[0] if themes else None
    _closure(parts, [p for p in (slide, parts.layout, parts.master, parts.theme) if p])
    return parts


def part_label(part: str) -> str:
    """A short name for messages: ``ppt/slides/slide2.xml`` -> ``slide2.xml``."""
    return posixpath.basename(part)


__all__ = ["DeckParts", "normalise_strict", "part_label", "resolve_parts"]
