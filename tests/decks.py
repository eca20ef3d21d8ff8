"""Helpers that build test decks with python-pptx, reference images, and hostile packages.

Importable by any test module (``from tests.decks import make_deck``). Everything is built in
memory or under a caller-given path; nothing here needs LibreOffice.

Slide positions given to these helpers are 0-1 fractions of the slide (slide frame).
"""

from __future__ import annotations

import io
import itertools
import math
import random
import struct
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt

SLIDE_W_EMU = 9144000
SLIDE_H_EMU = 6858000
"""python-pptx's default template: 10 x 7.5 in (4:3)."""

RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


# --------------------------------------------------------------------------------------------
# Images


def diagram_image(seed: int = 0, size: tuple[int, int] = (1200, 800), n_nodes: int = 6) -> bytes:
    """A PNG of a flow diagram (labelled boxes joined by arrows), seeded. ``size`` in pixels."""
    rng = random.Random(seed)
    w, h = size
    img = np.full((h, w, 3), 255, np.uint8)
    cols = 3
    rows = (n_nodes + cols - 1) // cols
    centres = []
    for i in range(n_nodes):
        cx = int((i % cols + 0.5) * w / cols + rng.uniform(-0.08, 0.08) * w / cols)
        cy = int((i // cols + 0.5) * h / rows + rng.uniform(-0.1, 0.1) * h / rows)
        bw, bh = int(w / cols * rng.uniform(0.45, 0.6)), int(h / rows * rng.uniform(0.25, 0.35))
        colour = tuple(
            int(c) for c in rng.choice([(210, 230, 250), (250, 225, 200), (220, 245, 215)])
        )
        cv2.rectangle(img, (cx - bw // 2, cy - bh // 2), (cx + bw // 2, cy + bh // 2), colour, -1)
        cv2.rectangle(
            img, (cx - bw // 2, cy - bh // 2), (cx + bw // 2, cy + bh // 2), (40, 40, 40), 3
        )
        label = rng.choice(["Encoder", "Decoder", "Loss", "Input", "Output", "Attention", "Norm"])
        scale = w / 1200
        cv2.putText(
            img, f"{label} {i}", (cx - bw // 2 + 10, cy + 8), cv2.FONT_HERSHEY_SIMPLEX,
            0.9 * scale, (20, 20, 20), 2, cv2.LINE_AA,
        )  # fmt: skip
        centres.append((cx, cy, bw, bh))
    for i in range(n_nodes - 1):
        (x0, y0, w0, _), (x1, y1, w1, _) = centres[i], centres[i + 1]
        cv2.arrowedLine(
            img, (x0 + w0 // 2, y0), (x1 - w1 // 2, y1), (30, 30, 30), 3, cv2.LINE_AA,
            tipLength=0.06,
        )  # fmt: skip
    return _png(img)


def sparse_diagram_image(seed: int = 0, size: tuple[int, int] = (1600, 900)) -> bytes:
    """A PNG like a published figure: two titled panels, small rounded nodes with short labels,
    2 px elbow arrows and much white space (hard for copy screening: little ink). Seeded."""
    rng = random.Random(seed)
    w, h = size
    img = np.full((h, w, 3), 255, np.uint8)
    words = ["Encode", "Rank", "Fuse", "Norm", "Pool", "Merge", "Score", "Filter", "Embed", "Mask"]
    fills = [(236, 236, 236), (255, 242, 204), (229, 222, 242), (220, 238, 250)]
    split = rng.uniform(0.42, 0.58)  # where the two panels meet: layouts differ by seed
    for panel in range(2):
        px0 = int(w * (0.03 if panel == 0 else split + 0.01))
        px1 = int(w * (split - 0.01 if panel == 0 else 0.97))
        py0, py1 = int(h * rng.uniform(0.03, 0.08)), int(h * rng.uniform(0.92, 0.97))
        cv2.rectangle(img, (px0, py0), (px1, py1), (170, 170, 170), 2)
        titles = ["Training", "Analysis", "Inference", "Data", "Evaluation", "Sampling"]
        title = titles[(2 * seed + panel) % len(titles)]  # neighbouring seeds never share one
        cv2.putText(img, title, (px0 + 14, py0 + 40), cv2.FONT_HERSHEY_SIMPLEX, 0.8,
                    (0, 0, 0), 2, cv2.LINE_AA)  # fmt: skip
        n = rng.randint(3, 4)
        prev = None
        for i in range(n):
            cx = px0 + int((i + rng.uniform(0.4, 0.6)) * (px1 - px0) / n)
            cy = int(h * rng.uniform(0.4, 0.8))
            bw, bh = rng.randint(115, 150), rng.randint(70, 90)
            cv2.rectangle(img, (cx - bw // 2, cy - bh // 2), (cx + bw // 2, cy + bh // 2),
                          rng.choice(fills), -1)  # fmt: skip
            cv2.rectangle(img, (cx - bw // 2, cy - bh // 2), (cx + bw // 2, cy + bh // 2),
                          (80, 80, 80), 2, cv2.LINE_AA)  # fmt: skip
            label = f"{rng.choice(words)}-{rng.randint(10, 99)}"  # labels differ across seeds
            cv2.putText(img, label, (cx - 55, cy + 7), cv2.FONT_HERSHEY_SIMPLEX,
                        0.6, (20, 20, 20), 1, cv2.LINE_AA)  # fmt: skip
            if prev is not None:
                (qx, qy) = prev
                cv2.line(img, (qx + bw // 2, qy), (cx - bw // 2 - 20, qy), (50, 50, 50), 2)
                cv2.arrowedLine(
                    img, (cx - bw // 2 - 20, qy), (cx - bw // 2 - 20, cy), (50, 50, 50), 2
                )
            prev = (cx, cy)
    return _png(img)


def photo_image(seed: int = 0, size: tuple[int, int] = (640, 480)) -> bytes:
    """A PNG of smooth random colour fields (photo-like texture). ``size`` in pixels."""
    rng = np.random.default_rng(seed)
    w, h = size
    small = rng.integers(0, 256, (h // 32 + 1, w // 32 + 1, 3), dtype=np.uint8)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    noise = rng.normal(0, 12, img.shape)
    return _png(np.clip(img + noise, 0, 255).astype(np.uint8))


def icon_image(seed: int = 0, size: int = 128) -> bytes:
    """A PNG icon: a coloured gear-like disc with a hole. ``size`` in pixels."""
    rng = random.Random(seed)
    img = np.full((size, size, 3), 255, np.uint8)
    c = size // 2
    colour = (rng.randint(0, 200), rng.randint(0, 200), rng.randint(0, 200))
    for k in range(8):
        a = k * np.pi / 4
        p = (int(c + 0.42 * size * np.cos(a)), int(c + 0.42 * size * np.sin(a)))
        cv2.circle(img, p, size // 10, colour, -1)
    cv2.circle(img, (c, c), int(size * 0.35), colour, -1)
    cv2.circle(img, (c, c), int(size * 0.12), (255, 255, 255), -1)
    return _png(img)


def _png(rgb: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    assert ok
    return buf.tobytes()


def decode(png: bytes) -> np.ndarray:
    """RGB array of encoded image bytes."""
    arr = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert arr is not None, "undecodable test image"
    return cv2.cvtColor(arr, cv2.COLOR_BGR2RGB)


def resized(png: bytes, factor: float) -> bytes:
    rgb = decode(png)
    h, w = rgb.shape[:2]
    return _png(
        cv2.resize(
            rgb, (max(int(w * factor), 1), max(int(h * factor), 1)), interpolation=cv2.INTER_AREA
        )
    )


def jpeg(png: bytes, quality: int = 60, factor: float = 1.0) -> bytes:
    rgb = decode(png)
    if factor != 1.0:
        h, w = rgb.shape[:2]
        rgb = cv2.resize(rgb, (int(w * factor), int(h * factor)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    assert ok
    return buf.tobytes()


def cropped(png: bytes, box: tuple[float, float, float, float], factor: float = 1.0) -> bytes:
    """Crop ``box`` (x, y, w, h as 0-1 fractions of the image), then resize by ``factor``."""
    rgb = decode(png)
    h, w = rgb.shape[:2]
    x, y, bw, bh = box
    part = rgb[int(y * h) : int((y + bh) * h), int(x * w) : int((x + bw) * w)]
    if factor != 1.0:
        part = cv2.resize(
            part,
            (int(part.shape[1] * factor), int(part.shape[0] * factor)),
            interpolation=cv2.INTER_AREA,
        )
    return _png(part)


def tiles(
    png: bytes, cols: int, rows: int
) -> list[tuple[bytes, tuple[float, float, float, float]]]:
    """The image cut into cols x rows tiles: (PNG bytes, box as 0-1 fractions of the image)."""
    out = []
    for r in range(rows):
        for c in range(cols):
            box = (c / cols, r / rows, 1 / cols, 1 / rows)
            out.append((cropped(png, box), box))
    return out


# --------------------------------------------------------------------------------------------
# Decks


@dataclass(frozen=True)
class Pic:
    """A picture to place: image bytes and its box in slide fractions (x, y, w, h)."""

    data: bytes
    box: tuple[float, float, float, float]


def make_deck(
    path: Path,
    n_shapes: int = 4,
    *,
    pictures: Sequence[Pic] = (),
    n_slides: int = 1,
    connectors: bool = True,
    text_boxes: bool = True,
    seed: int = 0,
    extra: Callable[[object], None] | None = None,
) -> Path:
    """A deck of ``n_slides`` blank slides; the first holds ``n_shapes`` labelled rectangles in a
    grid (joined by glued connectors when ``connectors``), a title text box when ``text_boxes``,
    and ``pictures``. ``extra(slide)`` may add more. Returns ``path``."""
    rng = random.Random(seed)
    prs = Presentation()
    layout = prs.slide_layouts[6]  # blank
    slides = [prs.slides.add_slide(layout) for _ in range(max(n_slides, 0))]
    if slides:
        slide = slides[0]
        shapes = []
        cols = 4
        for i in range(n_shapes):
            x = 0.05 + (i % cols) * 0.23 + rng.uniform(0, 0.02)
            y = 0.2 + (i // cols) * 0.18 + rng.uniform(0, 0.02)
            shp = slide.shapes.add_shape(
                MSO_SHAPE.ROUNDED_RECTANGLE if i % 2 else MSO_SHAPE.RECTANGLE,
                Emu(int(x * SLIDE_W_EMU)),
                Emu(int(y * SLIDE_H_EMU)),
                Emu(int(0.17 * SLIDE_W_EMU)),
                Emu(int(0.09 * SLIDE_H_EMU)),
            )
            shp.text_frame.text = f"Step {i}"
            shp.text_frame.paragraphs[0].runs[0].font.size = Pt(14)
            shp.fill.solid()
            shp.fill.fore_color.rgb = RGBColor(0xDD, 0xEE, 0xFF)
            shapes.append(shp)
        if connectors:
            for a, b in itertools.pairwise(shapes):
                cxn = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
                cxn.begin_connect(a, 3)
                cxn.end_connect(b, 1)
        if text_boxes:
            tb = slide.shapes.add_textbox(
                Emu(int(0.05 * SLIDE_W_EMU)),
                Emu(int(0.04 * SLIDE_H_EMU)),
                Emu(int(0.6 * SLIDE_W_EMU)),
                Emu(int(0.08 * SLIDE_H_EMU)),
            )
            tb.text_frame.text = "A test diagram"
        for pic in pictures:
            x, y, w, h = pic.box
            slide.shapes.add_picture(
                io.BytesIO(pic.data),
                Emu(int(x * SLIDE_W_EMU)),
                Emu(int(y * SLIDE_H_EMU)),
                Emu(int(w * SLIDE_W_EMU)),
                Emu(int(h * SLIDE_H_EMU)),
            )
        if extra is not None:
            extra(slide)
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))
    return path


# --------------------------------------------------------------------------------------------
# Rewriting packages (in memory, then one new zip)


def read_members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def write_members(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def inject(
    src: Path,
    dst: Path,
    *,
    parts: dict[str, bytes] | None = None,
    overrides: dict[str, str] | None = None,
    defaults: dict[str, str] | None = None,
    rels: Sequence[tuple[str, str, str, bool]] = (),
    edit: dict[str, Callable[[bytes], bytes]] | None = None,
    drop: Sequence[str] = (),
) -> Path:
    """Copy the deck ``src`` to ``dst`` adding ``parts``, content-type ``overrides``
    (part name -> type) and ``defaults`` (extension -> type), relationships
    (source part, relationship type, target, external?), byte ``edit`` functions per member,
    and dropping members in ``drop``."""
    members = read_members(src)
    for name in drop:
        members.pop(name, None)
    for name, data in (parts or {}).items():
        members[name] = data
    for name, fn in (edit or {}).items():
        members[name] = fn(members[name])
    ct = members.get("[Content_Types].xml")
    if ct is not None:
        extra = "".join(
            f'<Default Extension="{e}" ContentType="{t}"/>' for e, t in (defaults or {}).items()
        ) + "".join(
            f'<Override PartName="/{n}" ContentType="{t}"/>' for n, t in (overrides or {}).items()
        )
        members["[Content_Types].xml"] = ct.replace(b"</Types>", extra.encode() + b"</Types>")
    for k, (source, rtype, target, external) in enumerate(rels):
        head, _, tail = source.rpartition("/")
        rels_name = f"{head}/_rels/{tail}.rels" if head else f"_rels/{tail}.rels"
        body = members.get(
            rels_name,
            b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            b'relationships"></Relationships>',
        )
        mode = ' TargetMode="External"' if external else ""
        rel = f'<Relationship Id="rIdX{k}" Type="{rtype}" Target="{target}"{mode}/>'
        members[rels_name] = body.replace(b"</Relationships>", rel.encode() + b"</Relationships>")
    return write_members(dst, members)


# --------------------------------------------------------------------------------------------
# Raw zips (for hostile headers that zipfile refuses to write)


@dataclass(frozen=True)
class RawEntry:
    name: str
    payload: bytes
    """The bytes stored in the archive (raw deflate when method is 8)."""
    file_size: int
    """Uncompressed size written into the headers (may lie)."""
    crc: int
    method: int = 8


def deflate_raw(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def entry(name: str, data: bytes) -> RawEntry:
    """An honest deflated entry."""
    return RawEntry(name, deflate_raw(data), len(data), zlib.crc32(data))


def zeros_stream(n_mib: int) -> bytes:
    """Raw deflate of ``n_mib`` MiB of zeros, built from one repeated flushed block (fast:
    a 2 GiB member is ~2 MB of payload and takes milliseconds to build)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(b"\0" * (1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    c2 = zlib.compressobj(9, zlib.DEFLATED, -15)
    second = c2.compress(b"\0" * (1 << 20)) + c2.flush(zlib.Z_FULL_FLUSH)
    assert block == second
    return block * n_mib + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


def build_zip(path: Path, entries: Sequence[RawEntry]) -> Path:
    """Write a zip with exactly these headers (no validation: sizes and names may lie)."""
    out = io.BytesIO()
    central = io.BytesIO()
    for e in entries:
        name = e.name.encode("utf-8")
        offset = out.tell()
        header = struct.pack(
            "<4s5H3L2H", b"PK\x03\x04", 20, 0x800, e.method, 0, 0,
            e.crc & 0xFFFFFFFF, len(e.payload), e.file_size & 0xFFFFFFFF, len(name), 0,
        )  # fmt: skip
        out.write(header + name + e.payload)
        central.write(
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                20,
                20,
                0x800,
                e.method,
                0,
                0,
                e.crc & 0xFFFFFFFF,
                len(e.payload),
                e.file_size & 0xFFFFFFFF,
                len(name),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + name
        )
    cd = central.getvalue()
    cd_offset = out.tell()
    out.write(cd)
    out.write(
        struct.pack(
            "<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(cd), cd_offset, 0
        )
    )
    path.write_bytes(out.getvalue())
    return path


def deck_entries(deck: Path) -> list[RawEntry]:
    """Honest raw entries of an existing deck (to combine with hostile ones)."""
    return [entry(n, d) for n, d in read_members(deck).items()]


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">&lol9;</p:sld>
"""


def external_entity_xml(root_tag: bytes = b"p:sld") -> bytes:
    return (
        b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<'
        + root_tag
        + b' xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">&xxe;</'
        + root_tag
        + b">"
    )


# --------------------------------------------------------------------------------------------
# reading a benchmark deck back (realfig builder): node shapes by name, lines by their geometry


def _all_shapes(shapes: Any) -> list[Any]:
    out = []
    for s in shapes:
        out.append(s)
        if s.shape_type is not None and s.shape_type == 6:  # group
            out += _all_shapes(s.shapes)
    return out


def _line_points(shp: Any) -> list[tuple[int, int]] | None:
    """Start to end of a connector or an open freeform, in slide EMU; None for other shapes."""
    el = shp._element
    if el.tag == qn("p:cxnSp"):
        return [(shp.begin_x, shp.begin_y), (shp.end_x, shp.end_y)]
    geom = el.find(".//" + qn("a:custGeom"))
    if geom is None:
        return None
    path = geom.find(".//" + qn("a:path"))
    sx = shp.width / int(path.get("w")) if int(path.get("w")) else 1.0
    sy = shp.height / int(path.get("h")) if int(path.get("h")) else 1.0
    pts = []
    for pt in path.iter(qn("a:pt")):
        pts.append((shp.left + int(pt.get("x")) * sx, shp.top + int(pt.get("y")) * sy))
    return pts


DeckBox = tuple[int, int, int, int]


def read_deck_graph(pptx: Path) -> tuple[dict[str, DeckBox], set[tuple[str, str]]]:
    """Node boxes by key (EMU), and directed edges (tail node key -> the node the arrowhead
    touches) of a deck the real-figure builder wrote (nodes are named ``Node <key>``)."""
    slide = Presentation(str(pptx)).slides[0]
    every = _all_shapes(slide.shapes)
    nodes = {
        s.name.removeprefix("Node "): (s.left, s.top, s.width, s.height)
        for s in every
        if s.name.startswith("Node ")
    }

    def nearest(p: tuple[float, float]) -> str:
        def gap(b: tuple[int, int, int, int]) -> float:
            dx = max(b[0] - p[0], 0, p[0] - b[0] - b[2])
            dy = max(b[1] - p[1], 0, p[1] - b[1] - b[3])
            return math.hypot(dx, dy)

        return min(nodes, key=lambda k: gap(nodes[k]))

    edges = set()
    for s in every:
        pts = _line_points(s)
        if pts is None or s.name.startswith(("Node ", "Label ")):
            continue
        ln = s._element.find(".//" + qn("a:ln"))
        assert ln is not None and ln.find(qn("a:tailEnd")) is not None, s.name
        assert ln.find(qn("a:headEnd")) is None, s.name  # one head, at the line's end
        edges.add((nearest(pts[0]), nearest(pts[-1])))
    return nodes, edges
