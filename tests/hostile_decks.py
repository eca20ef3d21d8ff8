"""Small generators of hostile candidate decks (issue 15): copies of the reference that try to
slip past Stage 0, malformed packages, and bounds attacks. Built with python-pptx, lxml and
zipfile; every generator writes one file and returns its path.

The reference is a PNG (``tests.decks.diagram_image``); a copy is placed at about 38% of the
slide (under the canvas-coverage rule), as an agent that knows the rules would place it.
"""

from __future__ import annotations

import base64
import io
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
from lxml import etree
from PIL import Image, ImageOps
from pptx.util import Emu

from tests.decks import (
    SLIDE_H_EMU,
    SLIDE_W_EMU,
    Pic,
    decode,
    make_deck,
    read_members,
    write_members,
)

P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
REL_IMAGE = R_NS + "/image"
COPY_BOX = (0.1, 0.15, 0.65, 0.58)
"""Where a copy is drawn (slide fractions): 38% of a 4:3 slide, the reference's 3:2 aspect."""
Q = "{%s}%s"


def png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def image(data: bytes) -> Image.Image:
    return Image.fromarray(decode(data))


def mirrored(data: bytes) -> bytes:
    return png(ImageOps.mirror(image(data)))


def rotated180(data: bytes) -> bytes:
    return png(image(data).rotate(180))


def inverted(data: bytes) -> bytes:
    return png(ImageOps.invert(image(data).convert("RGB")))


def honest(path: Path, n_shapes: int = 5, pictures: tuple[Pic, ...] = ()) -> Path:
    """A plain honest diagram deck (labelled boxes, glued connectors, a title)."""
    return make_deck(path, n_shapes=n_shapes, pictures=pictures)


def _pic_element(slide: object) -> etree._Element:
    return slide.shapes[-1]._element  # type: ignore[attr-defined]


def _add_picture(slide: object, data: bytes, box: tuple[float, float, float, float]) -> object:
    x, y, w, h = box
    return slide.shapes.add_picture(  # type: ignore[attr-defined]
        io.BytesIO(data),
        Emu(int(x * SLIDE_W_EMU)),
        Emu(int(y * SLIDE_H_EMU)),
        Emu(int(w * SLIDE_W_EMU)),
        Emu(int(h * SLIDE_H_EMU)),
    )


def _with_picture(
    path: Path,
    data: bytes,
    edit: Callable[[etree._Element], None],
    box: tuple[float, float, float, float] = COPY_BOX,
) -> Path:
    def extra(slide: object) -> None:
        pic = _add_picture(slide, data, box)
        edit(pic._element)  # type: ignore[attr-defined]

    return make_deck(path, n_shapes=4, extra=extra)


def _xfrm(pic: etree._Element) -> etree._Element:
    return pic.find(f"{{{P_NS}}}spPr/{{{A_NS}}}xfrm")


# ---- copies drawn through a transform --------------------------------------------------------


def flipped_copy(path: Path, reference: bytes) -> Path:
    """The reference stored mirrored, drawn with ``flipH``: it renders as the reference."""
    return _with_picture(path, mirrored(reference), lambda p: _xfrm(p).set("flipH", "1"))


def rotated_copy(path: Path, reference: bytes) -> Path:
    """The reference stored upside down, drawn rotated by 180 degrees."""
    return _with_picture(path, rotated180(reference), lambda p: _xfrm(p).set("rot", "10800000"))


def inverted_copy(path: Path, reference: bytes) -> Path:
    """The reference stored with inverted colours (an effect could invert it back)."""
    return _with_picture(path, inverted(reference), lambda p: None)


def cropped_canvas_copy(path: Path, reference: bytes, factor: int = 4) -> Path:
    """The reference, mirrored, pasted into a canvas ``factor`` times larger full of other
    diagrams, drawn with a ``srcRect`` crop to just that region and ``flipH``."""
    from tests.decks import diagram_image

    ref = ImageOps.mirror(image(reference).convert("RGB"))
    w, h = ref.size
    canvas = Image.new("RGB", (w * factor, h * factor), "white")
    for i in range(factor):
        for j in range(factor):
            canvas.paste(
                image(diagram_image(seed=20 + i * factor + j)).convert("RGB"), (j * w, i * h)
            )
    ox, oy = w * 2, h * 1
    canvas.paste(ref, (ox, oy))
    cw, ch = canvas.size

    def edit(pic: etree._Element) -> None:
        _xfrm(pic).set("flipH", "1")
        blip_fill = pic.find(f"{{{P_NS}}}blipFill")
        src = etree.Element(Q % (A_NS, "srcRect"))
        src.set("l", str(int(ox / cw * 100000)))
        src.set("t", str(int(oy / ch * 100000)))
        src.set("r", str(int((cw - ox - w) / cw * 100000)))
        src.set("b", str(int((ch - oy - h) / ch * 100000)))
        blip_fill.insert(1, src)

    return _with_picture(path, png(canvas), edit)


def mirrored_tiles_copy(path: Path, reference: bytes, n: int = 4) -> Path:
    """The reference cut into n x n tiles, each stored mirrored and drawn with ``flipH``."""
    ref = image(reference).convert("RGB")
    w, h = ref.size
    x0, y0, bw, bh = COPY_BOX

    def extra(slide: object) -> None:
        for i in range(n):
            for j in range(n):
                tile = ref.crop((j * w // n, i * h // n, (j + 1) * w // n, (i + 1) * h // n))
                box = (x0 + j * bw / n, y0 + i * bh / n, bw / n, bh / n)
                pic = _add_picture(slide, png(ImageOps.mirror(tile)), box)
                _xfrm(pic._element).set("flipH", "1")  # type: ignore[attr-defined]

    return make_deck(path, n_shapes=4, extra=extra)


def layout_copy(path: Path, reference: bytes) -> Path:
    """A mirrored copy drawn (flipped back) by the slide's layout, not the slide: the picture is
    moved, with its relationship, from the slide to its layout."""
    deck = flipped_copy(path, reference)
    members = read_members(deck)
    slide = etree.fromstring(members["ppt/slides/slide1.xml"])
    pic = slide.findall(f".//{{{P_NS}}}pic")[-1]
    pic.getparent().remove(pic)
    blip = pic.find(f".//{{{A_NS}}}blip")
    rid = blip.get(Q % (R_NS, "embed"))
    srels = etree.fromstring(members["ppt/slides/_rels/slide1.xml.rels"])
    target = next(r.get("Target") for r in srels if r.get("Id") == rid)
    layout_rel = etree.fromstring(members["ppt/slides/_rels/slide1.xml.rels"])
    layout_name = next(
        r.get("Target") for r in layout_rel if r.get("Type", "").endswith("/slideLayout")
    ).rsplit("/", 1)[1]
    lname = f"ppt/slideLayouts/{layout_name}"
    layout = etree.fromstring(members[lname])
    blip.set(Q % (R_NS, "embed"), "rIdCopy")
    layout.find(f"{{{P_NS}}}cSld/{{{P_NS}}}spTree").append(pic)
    members[lname] = etree.tostring(layout, xml_declaration=True, encoding="UTF-8")
    members["ppt/slides/slide1.xml"] = etree.tostring(slide, xml_declaration=True, encoding="UTF-8")
    lrels = f"ppt/slideLayouts/_rels/{layout_name}.rels"
    members[lrels] = members[lrels].replace(
        b"</Relationships>",
        f'<Relationship Id="rIdCopy" Type="{REL_IMAGE}" Target="{target}"/>'
        "</Relationships>".encode(),
    )
    return write_members(path, members)


# ---- pictures a naive walk does not collect ------------------------------------------------


def choice_branch_copy(path: Path, reference: bytes) -> Path:
    """The copy inside ``mc:Choice Requires="p14"`` (LibreOffice draws it), an empty
    ``mc:Fallback`` beside it."""

    def edit(pic: etree._Element) -> None:
        parent = pic.getparent()
        index = parent.index(pic)
        alt = etree.Element(Q % (MC_NS, "AlternateContent"), nsmap={"mc": MC_NS})
        choice = etree.SubElement(alt, Q % (MC_NS, "Choice"))
        choice.set("Requires", "p14")
        etree.SubElement(alt, Q % (MC_NS, "Fallback"))
        parent.remove(pic)
        choice.append(pic)
        parent.insert(index, alt)

    out = _with_picture(path, reference, edit)
    members = read_members(out)
    slide = members["ppt/slides/slide1.xml"]
    members["ppt/slides/slide1.xml"] = slide.replace(
        b"<p:sld ",
        b'<p:sld xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main" ',
        1,
    )
    return write_members(out, members)


def theme_background_copy(path: Path, reference: bytes) -> Path:
    """The copy as the theme's first background fill, pulled in by the master's
    ``p:bgRef idx="1001"`` (no element of the slide names it)."""
    deck = make_deck(path, n_shapes=4)
    members = read_members(deck)
    theme_name = "ppt/theme/theme1.xml"
    root = etree.fromstring(members[theme_name])
    lst = root.find(f".//{{{A_NS}}}bgFillStyleLst")
    first = lst[0]
    fill = etree.Element(Q % (A_NS, "blipFill"))
    blip = etree.SubElement(fill, Q % (A_NS, "blip"))
    blip.set(Q % (R_NS, "embed"), "rIdCopy")
    etree.SubElement(etree.SubElement(fill, Q % (A_NS, "stretch")), Q % (A_NS, "fillRect"))
    lst.replace(first, fill)
    members[theme_name] = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    members["ppt/media/themebg.png"] = reference
    rels = "ppt/theme/_rels/theme1.xml.rels"
    body = members.get(
        rels,
        b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
        b'openxmlformats.org/package/2006/relationships"></Relationships>',
    )
    members[rels] = body.replace(
        b"</Relationships>",
        f'<Relationship Id="rIdCopy" Type="{REL_IMAGE}" Target="../media/themebg.png"/>'
        "</Relationships>".encode(),
    )
    master = etree.fromstring(members["ppt/slideMasters/slideMaster1.xml"])
    csld = master.find(f"{{{P_NS}}}cSld")
    for bg in csld.findall(f"{{{P_NS}}}bg"):
        csld.remove(bg)
    bg = etree.Element(Q % (P_NS, "bg"))
    ref = etree.SubElement(bg, Q % (P_NS, "bgRef"))
    ref.set("idx", "1001")
    etree.SubElement(ref, Q % (A_NS, "schemeClr")).set("val", "bg1")
    csld.insert(0, bg)
    members["ppt/slideMasters/slideMaster1.xml"] = etree.tostring(
        master, xml_declaration=True, encoding="UTF-8"
    )
    _ensure_png_default(members)
    return write_members(deck, members)


def _ensure_png_default(members: dict[str, bytes]) -> None:
    ct = members["[Content_Types].xml"]
    if b'Extension="png"' not in ct:
        members["[Content_Types].xml"] = ct.replace(
            b"</Types>", b'<Default Extension="png" ContentType="image/png"/></Types>'
        )


def deep_group_copy(path: Path, reference: bytes, depth: int = 40) -> Path:
    """The copy inside ``depth`` nested groups (beyond the walk's group-depth bound)."""

    def edit(pic: etree._Element) -> None:
        parent = pic.getparent()
        index = parent.index(pic)
        parent.remove(pic)
        inner: etree._Element = pic
        for k in range(depth):
            grp = etree.Element(Q % (P_NS, "grpSp"))
            nv = etree.SubElement(grp, Q % (P_NS, "nvGrpSpPr"))
            etree.SubElement(nv, Q % (P_NS, "cNvPr"), id=str(900 + k), name=f"Group {k}")
            etree.SubElement(nv, Q % (P_NS, "cNvGrpSpPr"))
            etree.SubElement(nv, Q % (P_NS, "nvPr"))
            etree.SubElement(grp, Q % (P_NS, "grpSpPr"))
            grp.append(inner)
            inner = grp
        parent.insert(index, inner)

    return _with_picture(path, reference, edit)


def strict_namespace_copy(path: Path, reference: bytes) -> Path:
    """The copy as a strict-namespace (``purl.oclc.org/ooxml``) ``p:pic`` in a transitional
    slide."""

    def edit(pic: etree._Element) -> None:
        for el in pic.iter():
            ns, _, local = el.tag[1:].partition("}")
            strict = ns.replace("http://schemas.openxmlformats.org/", "http://purl.oclc.org/ooxml/")
            el.tag = "{" + strict.replace("/2006/", "/") + "}" + local
            for key in list(el.attrib):
                if key.startswith("{" + R_NS):
                    value = el.attrib.pop(key)
                    el.set(
                        "{http://purl.oclc.org/ooxml/officeDocument/relationships}"
                        + key.split("}")[1],
                        value,
                    )

    return _with_picture(path, reference, edit)


# ---- vector images ---------------------------------------------------------------------------


def _swap_media(path: Path, reference: bytes, name: str, data: bytes, ctype: str) -> Path:
    """A deck whose picture (a placeholder PNG) is re-pointed at a ``name`` media part."""
    deck = _with_picture(path, png(Image.new("RGB", (30, 20), "white")), lambda p: None)
    members = read_members(deck)
    rels_name = "ppt/slides/_rels/slide1.xml.rels"
    rels = members[rels_name].decode()
    media = next(t for t in members if t.startswith("ppt/media/"))
    rels = rels.replace(f"../media/{media.rsplit('/', 1)[1]}", f"../media/{name}")
    members[rels_name] = rels.encode()
    members.pop(media)
    members[f"ppt/media/{name}"] = data
    ext = name.rsplit(".", 1)[1]
    members["[Content_Types].xml"] = members["[Content_Types].xml"].replace(
        b"</Types>", f'<Default Extension="{ext}" ContentType="{ctype}"/></Types>'.encode()
    )
    return write_members(deck, members)


def emf_with_dib(reference: bytes) -> bytes:
    """A minimal EMF: header, one EMR_STRETCHDIBITS carrying a bitmap, EOF."""
    header = struct.pack("<II4i4i", 1, 88, 0, 0, 1200, 800, 0, 0, 31750, 21166)
    header += b" EMF" + struct.pack("<IIIHHIIIii", 0x10000, 0, 3, 1, 0, 0, 0, 0, 1920, 1080)
    header += struct.pack("<ii", 508, 286)
    header = header[:88].ljust(88, b"\0")
    bmp = reference[:4096]
    body = struct.pack("<II", 0x51, 80 + len(bmp)) + b"\0" * 72 + bmp
    eof = struct.pack("<IIIII", 0x0E, 20, 0, 16, 20)
    data = header + body + eof
    return data[:48] + struct.pack("<I", len(data)) + data[52:]


def emf_copy(path: Path, reference: bytes) -> Path:
    return _swap_media(path, reference, "copy.emf", emf_with_dib(reference), "image/x-emf")


def svg_data_uri_copy(path: Path, reference: bytes) -> Path:
    """An SVG wrapping the reference as a ``data:`` URI."""
    b64 = base64.b64encode(reference).decode()
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="1200" height="800"><image xlink:href="data:image/png;base64,{b64}" '
        'width="1200" height="800"/></svg>'
    ).encode()
    return _swap_media(path, reference, "copy.svg", svg, "image/svg+xml")


def svg_file_href_copy(path: Path, reference_file: Path) -> Path:
    """An SVG whose ``<image href="file:///...">`` makes LibreOffice read the reference from
    the judge's disk (the package holds no raster at all)."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="1200" height="800"><image xlink:href="{reference_file.resolve().as_uri()}" '
        'width="1200" height="800"/></svg>'
    ).encode()
    return _swap_media(path, b"", "copy.svg", svg, "image/svg+xml")


# ---- which part is the slide ----------------------------------------------------------------


def renamed_slide(path: Path, new: str = "slide2.xml", src: Path | None = None) -> Path:
    """A deck whose only slide part is ``ppt/slides/<new>`` (relationships and content types
    follow), as PowerPoint writes after deleting slides."""
    deck = src or honest(path.with_suffix(".src.pptx"))
    members = read_members(deck)
    old = "ppt/slides/slide1.xml"
    out: dict[str, bytes] = {}
    for name, data in members.items():
        data = data.replace(b"slides/slide1.xml", f"slides/{new}".encode())
        if name.endswith(".rels") or name == "[Content_Types].xml":
            data = data.replace(b'Target="slide1.xml"', f'Target="{new}"'.encode())
        name = name.replace(old, f"ppt/slides/{new}").replace(
            "ppt/slides/_rels/slide1.xml.rels", f"ppt/slides/_rels/{new}.rels"
        )
        out[name] = data
    write_members(path, out)
    if src is None:
        deck.unlink()
    return path


def decoy_slide_copy(path: Path, reference: bytes) -> Path:
    """The real slide (``slide2.xml``, the one the presentation lists) holds the copy and an
    OLE object; an honest decoy ``slide1.xml`` nobody lists sits beside it."""
    cheat = make_deck(
        path.with_suffix(".cheat.pptx"),
        n_shapes=4,
        pictures=(Pic(reference, (0.02, 0.02, 0.96, 0.96)),),
    )
    renamed_slide(path, "slide2.xml", src=cheat)
    cheat.unlink()
    decoy = read_members(honest(path.with_suffix(".decoy.pptx")))
    path.with_suffix(".decoy.pptx").unlink()
    members = read_members(path)
    members["ppt/slides/slide1.xml"] = decoy["ppt/slides/slide1.xml"]
    members["ppt/slides/_rels/slide1.xml.rels"] = decoy["ppt/slides/_rels/slide1.xml.rels"]
    slide2 = members["ppt/slides/slide2.xml"]
    ole = (
        b'<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="77" name="Object"/>'
        b"<p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm>"
        b'<a:off x="0" y="0"/><a:ext cx="10" cy="10"/></p:xfrm><a:graphic><a:graphicData '
        b'uri="http://schemas.openxmlformats.org/presentationml/2006/ole"><p:oleObj '
        b'progId="Package" r:id="rIdNone"/></a:graphicData></a:graphic></p:graphicFrame>'
    )
    members["ppt/slides/slide2.xml"] = slide2.replace(b"</p:spTree>", ole + b"</p:spTree>")
    return write_members(path, members)


# ---- invisible components ------------------------------------------------------------------


def invisible_rectangles(path: Path, reference: bytes | None = None) -> Path:
    """Three 0.1-inch rectangles with no fill and no outline (and the copy when given)."""
    from pptx.enum.shapes import MSO_SHAPE

    def extra(slide: object) -> None:
        for i in range(3):
            shp = slide.shapes.add_shape(  # type: ignore[attr-defined]
                MSO_SHAPE.RECTANGLE, Emu(914400 * (i + 1)), Emu(914400), Emu(91440), Emu(91440)
            )
            shp.fill.background()
            shp.line.fill.background()
        if reference is not None:
            _add_picture(slide, reference, COPY_BOX)

    return make_deck(path, n_shapes=0, connectors=False, text_boxes=False, extra=extra)


# ---- malformed packages ----------------------------------------------------------------------


def zip64_two_disks(path: Path) -> Path:
    """An honest deck whose ZIP64 end-of-central-directory locator claims two disks."""
    data = honest(path.with_suffix(".src.pptx")).read_bytes()
    path.with_suffix(".src.pptx").unlink()
    eocd = data.rfind(b"PK\x05\x06")
    locator = struct.pack("<IIQI", 0x07064B50, 0, 0, 2)
    path.write_bytes(data[:eocd] + locator + data[eocd:])
    return path


def case_duplicate(path: Path) -> Path:
    """``PPT/SLIDES/SLIDE1.XML`` beside ``ppt/slides/slide1.xml``."""
    members = read_members(honest(path.with_suffix(".src.pptx")))
    path.with_suffix(".src.pptx").unlink()
    members["PPT/SLIDES/SLIDE1.XML"] = members["ppt/slides/slide1.xml"]
    return write_members(path, members)


def nul_name(path: Path) -> Path:
    """A member named ``ppt/media/x.png<NUL>.xml`` (zipfile cuts names at a NUL, so the raw
    archive is written by hand)."""
    from tests.decks import build_zip, deck_entries, entry

    src = honest(path.with_suffix(".src.pptx"))
    entries = [*deck_entries(src), entry("ppt/media/x.png\0.xml", b"<x/>")]
    src.unlink()
    return build_zip(path, entries)


def template_deck(path: Path) -> Path:
    """An honest deck saved with the template (.potx) main content type."""
    members = read_members(honest(path.with_suffix(".src.pptx")))
    path.with_suffix(".src.pptx").unlink()
    members["[Content_Types].xml"] = members["[Content_Types].xml"].replace(
        b"presentationml.presentation.main+xml", b"presentationml.template.main+xml"
    )
    return write_members(path, members)


# ---- bounds ------------------------------------------------------------------------------------


def many_pictures(path: Path, n: int = 1500) -> Path:
    """``n`` distinct tiny pictures (a time bomb for a per-picture screen)."""
    rng = np.random.default_rng(5)
    base = make_deck(path, n_shapes=4)
    members = read_members(base)
    slide = etree.fromstring(members["ppt/slides/slide1.xml"])
    tree = slide.find(f"{{{P_NS}}}cSld/{{{P_NS}}}spTree")
    rels = []
    for k in range(n):
        name = f"ppt/media/tile{k}.png"
        members[name] = png(Image.fromarray(rng.integers(0, 255, (4, 4, 3), dtype=np.uint8)))
        rels.append(
            f'<Relationship Id="rIdT{k}" Type="{REL_IMAGE}" Target="../media/tile{k}.png"/>'
        )
        tree.append(_pic_xml(2000 + k, f"rIdT{k}", (k % 40) * 0.025, (k // 40) * 0.025, 0.02))
    members["ppt/slides/slide1.xml"] = etree.tostring(slide, xml_declaration=True)
    rels_name = "ppt/slides/_rels/slide1.xml.rels"
    members[rels_name] = members[rels_name].replace(
        b"</Relationships>", "".join(rels).encode() + b"</Relationships>"
    )
    _ensure_png_default(members)
    return write_members(path, members)


def _pic_xml(sid: int, rid: str, x: float, y: float, side: float) -> etree._Element:
    xml = (
        f'<p:pic xmlns:p="{P_NS}" xmlns:a="{A_NS}" xmlns:r="{R_NS}"><p:nvPicPr>'
        f'<p:cNvPr id="{sid}" name="Tile {sid}"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr>'
        f'<p:blipFill><a:blip r:embed="{rid}"/><a:stretch><a:fillRect/></a:stretch></p:blipFill>'
        f'<p:spPr><a:xfrm><a:off x="{int(x * SLIDE_W_EMU)}" y="{int(y * SLIDE_H_EMU)}"/>'
        f'<a:ext cx="{int(side * SLIDE_W_EMU)}" cy="{int(side * SLIDE_H_EMU)}"/></a:xfrm>'
        '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>'
    )
    return etree.fromstring(xml)


def off_slide_shapes(path: Path, n: int = 1500) -> Path:
    """An honest deck plus ``n`` shapes far off the slide (a huge offenders list)."""
    from pptx.enum.shapes import MSO_SHAPE

    def extra(slide: object) -> None:
        for i in range(n):
            slide.shapes.add_shape(  # type: ignore[attr-defined]
                MSO_SHAPE.RECTANGLE, Emu(SLIDE_W_EMU * 3 + i * 1000), Emu(0), Emu(9144), Emu(9144)
            )

    return make_deck(path, n_shapes=4, extra=extra)


def big_pictures(path: Path, n: int = 30, side: int = 6300) -> Path:
    """``n`` distinct ~40-megapixel pictures in a small deck (they compress to almost nothing):
    one PNG encoded once, made distinct by a text chunk."""
    base = png(Image.new("RGB", (side, side), (200, 210, 220)))
    deck = make_deck(path, n_shapes=4)
    members = read_members(deck)
    slide = etree.fromstring(members["ppt/slides/slide1.xml"])
    tree = slide.find(f"{{{P_NS}}}cSld/{{{P_NS}}}spTree")
    rels = []
    for k in range(n):
        chunk = f"n{k}".encode()
        crc = struct.pack(">I", zlib.crc32(b"tEXt" + chunk))
        text = struct.pack(">I", len(chunk)) + b"tEXt" + chunk + crc
        members[f"ppt/media/big{k}.png"] = base[:33] + text + base[33:]
        rels.append(f'<Relationship Id="rIdB{k}" Type="{REL_IMAGE}" Target="../media/big{k}.png"/>')
        tree.append(_pic_xml(3000 + k, f"rIdB{k}", 0.8, 0.8, 0.05))
    members["ppt/slides/slide1.xml"] = etree.tostring(slide, xml_declaration=True)
    rels_name = "ppt/slides/_rels/slide1.xml.rels"
    members[rels_name] = members[rels_name].replace(
        b"</Relationships>", "".join(rels).encode() + b"</Relationships>"
    )
    _ensure_png_default(members)
    return write_members(path, members)


def many_fonts_unreferenced(path: Path, n: int = 100_000) -> Path:
    """An honest deck plus an unreferenced slide part naming ``n`` font families."""
    members = read_members(honest(path.with_suffix(".src.pptx")))
    path.with_suffix(".src.pptx").unlink()
    runs = "".join(f'<a:latin typeface="Fam{k}"/>' for k in range(n))
    members["ppt/slides/slide9.xml"] = (
        f'<p:sld xmlns:p="{P_NS}" xmlns:a="{A_NS}"><p:cSld><p:spTree>{runs}</p:spTree>'
        "</p:cSld></p:sld>"
    ).encode()
    return write_members(path, members)


COPIES: dict[str, Callable[[Path, bytes], Path]] = {
    "flipped": flipped_copy,
    "rotated": rotated_copy,
    "inverted": inverted_copy,
    "cropped_canvas": cropped_canvas_copy,
    "mirrored_tiles": mirrored_tiles_copy,
    "layout": layout_copy,
    "choice_branch": choice_branch_copy,
    "theme_background": theme_background_copy,
    "deep_group": deep_group_copy,
    "strict_namespace": strict_namespace_copy,
    "emf": emf_copy,
    "svg_data_uri": svg_data_uri_copy,
    "decoy_slide": decoy_slide_copy,
    "invisible_rectangles": invisible_rectangles,
}
"""Every copy generator taking (path, reference PNG bytes)."""
