"""The render-based copy screen: what LibreOffice draws from a deck's pictures, vs the reference.

The package-level screen (:mod:`judge.artifact.copydetect`) compares the image *bytes* a deck
holds; a deck can draw those bytes transformed (``flipH``/``flipV``, ``rot``, ``srcRect`` crops,
duotone and other colour effects, tiles each flipped back, a vector image wrapping a raster, an
inherited layout or theme picture). So the deck is rendered once more with every non-picture
element removed and that render is screened like one picture: whatever the transform, wrapper
or inheritance path, the pixels LibreOffice draws are what is compared.

:func:`pictures_only_deck` builds that deck in memory (lxml on the original part bytes; the
candidate file is never changed): in the slide, its layout and master, every shape without a
picture (``a:blip``) is removed, picture-filled shapes lose their text and outline, backgrounds
stay only when they are picture fills, and approved task assets are masked (their bytes replaced
by a transparent pixel) so an honest deck's assets in their places are not flagged.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from lxml import etree
from PIL import Image

from judge.artifact.copydetect import KEEP_SIDE_PX, CopyFinding, ReferenceScreen
from judge.artifact.package import safe_xml_parser
from judge.artifact.parts import DeckParts
from judge.errors import ImagePrepError

RenderPictures = Callable[[bytes], bytes]
"""Renders deck bytes (a PPTX) to PNG bytes of slide 1; raises RenderError."""

SCREEN_DPI = 72
"""Resolution of the picture-only render (a 13.33 in slide -> 960 px): the screen works at
:data:`judge.artifact.copydetect.KEEP_SIDE_PX` at most."""
CONTENT_THRESHOLD = 10
"""Grey levels from white at which a render pixel is drawn content (as in image preparation)."""
A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_TRANSPARENT_PNG: bytes = b""


def _transparent_png() -> bytes:
    global _TRANSPARENT_PNG
    if not _TRANSPARENT_PNG:
        buf = io.BytesIO()
        Image.new("RGBA", (1, 1), (255, 255, 255, 0)).save(buf, format="PNG")
        _TRANSPARENT_PNG = buf.getvalue()
    return _TRANSPARENT_PNG


def _local(el: etree._Element) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _has_blip(el: etree._Element) -> bool:
    return any(_local(d) == "blip" for d in el.iter())


def _references_images(el: etree._Element, part: str, parts: DeckParts) -> bool:
    """True when an ``r:*`` attribute of ``el`` points to a part that has image relationships
    (a diagram drawing or chart with pictures)."""
    for node in el.iter():
        for key, value in node.attrib.items():
            if not key.startswith("{") or "relationships" not in key:
                continue
            target = parts.target(part, value)
            if target is None:
                continue
            for rel in parts.rels(target):
                if rel.short_type in ("image", "hdphoto") and not rel.external:
                    return True
    return False


def _mute(shape: etree._Element) -> None:
    """A picture-filled shape keeps its fill, loses its text, style references and outline."""
    for child in list(shape):
        if _local(child) in ("txBody", "style"):
            shape.remove(child)
        elif _local(child) == "spPr":
            for ln in [c for c in child if _local(c) == "ln"]:
                child.remove(ln)
            ln = etree.SubElement(child, f"{{{A_NS}}}ln")
            etree.SubElement(ln, f"{{{A_NS}}}noFill")


def _strip(container: etree._Element, part: str, parts: DeckParts) -> bool:
    """Remove non-picture shapes under ``container``; True when something drawable remains."""
    kept = False
    for child in list(container):
        local = _local(child)
        if local in ("sp", "cxnSp"):
            if _has_blip(child):
                _mute(child)
                kept = True
            else:
                container.remove(child)
        elif local == "pic":
            kept = True
        elif local == "grpSp":
            inner = _strip(child, part, parts)
            if inner or any(_local(c) == "grpSpPr" and _has_blip(c) for c in child):
                kept = True
            else:
                container.remove(child)
        elif local == "graphicFrame":
            if _has_blip(child) or _references_images(child, part, parts):
                kept = True
            else:
                container.remove(child)
        elif local == "contentPart":
            container.remove(child)
        elif local == "AlternateContent":
            for branch in child:
                kept = _strip(branch, part, parts) or kept
    return kept


def _strip_part(data: bytes, part: str, parts: DeckParts) -> bytes:
    root = etree.fromstring(data, parser=safe_xml_parser())
    for csld in (c for c in root if _local(c) == "cSld"):
        for child in list(csld):
            if _local(child) == "bg" and not _keeps_background(child):
                csld.remove(child)
            elif _local(child) == "spTree":
                _strip(child, part, parts)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True))


def _keeps_background(bg: etree._Element) -> bool:
    """A picture background, or a theme background-fill reference (may be a picture)."""
    if _has_blip(bg):
        return True
    for el in bg.iter():
        if _local(el) == "bgRef":
            try:
                return int(el.get("idx", "0")) >= 1001
            except ValueError:
                return True
    return False


def pictures_only_deck(parts: DeckParts, masked: set[str]) -> bytes:
    """The deck's bytes with only its pictures drawn (see the module docstring); ``masked``
    members (approved assets) become a transparent pixel."""
    stripped = {p for p in (parts.slide, parts.layout, parts.master) if p}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.pkg.members.items():
            if name in stripped:
                data = _strip_part(data, name, parts)
            elif name in masked:
                data = _transparent_png()
            zf.writestr(name, data)
    return out.getvalue()


@dataclass(frozen=True)
class RenderScreen:
    """The outcome of screening the picture-only render."""

    finding: CopyFinding | None
    drawn_fraction: float
    """Share of the render's pixels that show anything (0-1)."""
    width_px: int
    height_px: int


def screen_render(png: bytes, screen: ReferenceScreen) -> RenderScreen:
    """Screen a picture-only render (PNG bytes) against the reference. Raises ImagePrepError
    when the render cannot be decoded."""
    grey = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    if grey is None:
        raise ImagePrepError("the picture-only render is not a decodable PNG")
    h, w = grey.shape
    mask = grey < 255 - CONTENT_THRESHOLD
    if not mask.any():
        return RenderScreen(None, 0.0, w, h)
    ys, xs = np.nonzero(mask)
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    crop = grey[y0:y1, x0:x1]
    k = KEEP_SIDE_PX / max(crop.shape)
    if k < 1:
        size = (max(round(crop.shape[1] * k), 2), max(round(crop.shape[0] * k), 2))
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    finding = screen.screen_image(np.ascontiguousarray(crop), "the picture-only render")
    return RenderScreen(finding, float(mask.mean()), w, h)


__all__ = ["RenderPictures", "RenderScreen", "pictures_only_deck", "screen_render"]
