"""Image preparation: the DESIGN.md normalisation and its panel <-> image mappings."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont
from typer.testing import CliRunner

from cli.app import app
from judge.errors import ImagePrepError
from judge.render.prepare import (
    MAX_IMAGE_PIXELS,
    PAIR_HEIGHT,
    PAIR_WIDTH,
    PANEL_GAP,
    PANEL_WIDTH,
    load_rgb,
    locate,
    normalise,
    prepare_pair,
)
from judge.schema import PairGeometry

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _drawing(scale: float, canvas: tuple[int, int], origin: tuple[int, int]) -> Image.Image:
    """The same small diagram drawn at ``scale`` with its top-left at ``origin`` on a canvas."""
    im = Image.new("RGB", canvas, (255, 255, 255))
    d = ImageDraw.Draw(im)
    ox, oy = origin

    def s(v: float) -> int:
        return round(v * scale)

    font = ImageFont.truetype(FONT, s(24))
    d.rounded_rectangle(
        (ox, oy, ox + s(200), oy + s(90)),
        radius=s(14),
        fill=(200, 220, 250),
        outline=(30, 60, 120),
        width=max(1, s(3)),
    )
    d.text((ox + s(100), oy + s(45)), "Encoder", font=font, fill=(0, 0, 0), anchor="mm")
    d.rectangle(
        (ox + s(400), oy + s(150), ox + s(600), oy + s(240)),
        fill=(250, 220, 200),
        outline=(120, 60, 30),
        width=max(1, s(3)),
    )
    d.text((ox + s(500), oy + s(195)), "Decoder", font=font, fill=(0, 0, 0), anchor="mm")
    d.line(
        (
            ox + s(200),
            oy + s(45),
            ox + s(300),
            oy + s(45),
            ox + s(300),
            oy + s(195),
            ox + s(385),
            oy + s(195),
        ),
        fill=(0, 0, 0),
        width=max(1, s(3)),
    )
    d.polygon(
        [(ox + s(400), oy + s(195)), (ox + s(385), oy + s(188)), (ox + s(385), oy + s(202))],
        fill=(0, 0, 0),
    )
    return im


def _panel(im: Image.Image) -> np.ndarray:
    panel, _ = normalise(im)
    return np.asarray(panel).astype(np.float64)


def _mad(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).mean())


def test_outer_whitespace_does_not_change_the_panel():
    tight = _drawing(1.0, (700, 300), (20, 20))
    padded = _drawing(1.0, (1900, 1300), (20, 20))
    assert _mad(_panel(tight), _panel(padded)) < 0.01


def test_global_shift_does_not_change_the_panel():
    a = _drawing(1.0, (1600, 900), (30, 40))
    b = _drawing(1.0, (1600, 900), (700, 500))
    assert _mad(_panel(a), _panel(b)) < 0.01


def test_absolute_scale_barely_changes_the_panel():
    small = _drawing(1.0, (1000, 600), (50, 50))
    large = _drawing(2.0, (2000, 1200), (100, 100))
    # Antialiasing and integer stroke widths differ a little; a different drawing differs a lot.
    assert _mad(_panel(small), _panel(large)) < 3.0
    other = Image.new("RGB", (1000, 600), "white")
    ImageDraw.Draw(other).rectangle((50, 50, 650, 290), fill=(0, 0, 0))
    assert _mad(_panel(small), _panel(other)) > 30.0


def test_exact_geometry_of_a_hand_made_image():
    im = Image.new("RGB", (800, 600), (255, 255, 255))
    ImageDraw.Draw(im).rectangle((100, 100, 300, 200), fill=(0, 0, 255))  # content 201x101 px
    panel, m = normalise(im)
    # margin: ceil(2% of 201) = 5 px horizontally; 2% of 101 is ~2 -> the 4 px minimum vertically
    assert (m.crop_box.x, m.crop_box.y, m.crop_box.w, m.crop_box.h) == (95, 96, 211, 109)
    assert m.background_rgb == (255, 255, 255)
    assert m.scale == pytest.approx(1200 / 211)
    assert m.offset_x == 0
    assert m.offset_y == (900 - round(109 * 1200 / 211)) // 2
    assert not m.empty
    arr = np.asarray(panel)
    assert arr.shape == (900, 1200, 3)
    # the rectangle's centre lands at the panel centre, in blue; the top band is white
    cx, cy = m.image_to_panel(200.5, 150.5)
    assert tuple(arr[int(cy), int(cx)]) == (0, 0, 255)
    assert tuple(arr[5, 600]) == (255, 255, 255)


def test_mapping_round_trips_between_panel_and_image():
    im = _drawing(1.3, (1500, 1000), (333, 211))
    _, m = normalise(im)
    for x, y in [(0.0, 0.0), (412.5, 300.25), (1499.0, 999.0)]:
        px, py = m.image_to_panel(x, y)
        bx, by = m.panel_to_image(px, py)
        assert bx == pytest.approx(x) and by == pytest.approx(y)


def test_background_is_the_median_border_colour_not_white():
    im = Image.new("RGB", (400, 300), (40, 40, 40))
    ImageDraw.Draw(im).rectangle((150, 100, 250, 200), fill=(255, 255, 0))
    ImageDraw.Draw(im).point((0, 0), fill=(255, 0, 0))  # one odd border pixel: not the median
    _, m = normalise(im)
    assert m.background_rgb == (40, 40, 40)
    # the odd pixel itself is content, so the box runs from it to the yellow square + margin
    assert (m.crop_box.x, m.crop_box.w) == (0, 257)


def test_faint_noise_below_threshold_is_not_content():
    im = Image.new("RGB", (400, 300), (255, 255, 255))
    d = ImageDraw.Draw(im)
    d.rectangle((10, 10, 390, 290), fill=(247, 247, 247))  # 8 levels off: background noise
    d.rectangle((180, 130, 220, 170), fill=(0, 0, 0))
    _, m = normalise(im)
    assert (m.crop_box.x, m.crop_box.w) == (176, 49)


def test_blank_image_is_kept_whole_and_marked_empty():
    _, m = normalise(Image.new("RGB", (640, 480), (255, 255, 255)))
    assert m.empty
    assert (m.crop_box.x, m.crop_box.y, m.crop_box.w, m.crop_box.h) == (0, 0, 640, 480)
    assert m.scale == pytest.approx(1200 / 640)


def test_transparent_png_is_composited_on_white(tmp_path: Path):
    im = Image.new("RGBA", (300, 200), (0, 0, 0, 0))  # transparent black: white once composited
    ImageDraw.Draw(im).rectangle((100, 50, 200, 150), fill=(255, 0, 0, 255))
    path = tmp_path / "alpha.png"
    im.save(path)
    rgb = load_rgb(path)
    assert rgb.getpixel((5, 5)) == (255, 255, 255)
    _, m = normalise(rgb)
    assert m.background_rgb == (255, 255, 255)
    assert m.crop_box.x == 96


def test_prepare_pair_writes_side_by_side_panels(tmp_path: Path):
    ref = tmp_path / "ref.png"
    ren = tmp_path / "render.png"
    _drawing(1.0, (1600, 900), (100, 100)).save(ref)
    _drawing(0.8, (1280, 720), (300, 50)).save(ren)
    out = tmp_path / "pair.png"
    geo = prepare_pair(ref, ren, out)
    with Image.open(out) as pair:
        assert pair.size == (PAIR_WIDTH, PAIR_HEIGHT) == (2404, 900)
        gap = np.asarray(pair)[:, PANEL_WIDTH : PANEL_WIDTH + PANEL_GAP]
        assert (gap == 255).all()
    assert geo.candidate.panel_left == 1204 and geo.reference.panel_left == 0
    assert geo.reference_image == str(ref) and geo.pair_image == str(out)


def test_unreadable_image_raises_naming_the_file(tmp_path: Path):
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nthis is not a png")
    with pytest.raises(ImagePrepError, match=r"broken.png"):
        load_rgb(bad)


def test_huge_image_is_refused_before_decoding(tmp_path: Path):
    # A valid PNG header claiming 20000x20000 pixels with almost no data behind it.
    side = 10000
    assert side * side > MAX_IMAGE_PIXELS
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
    data += struct.pack(">I", zlib.crc32(chunk) & 0xFFFFFFFF)
    for name, body in ((b"IDAT", zlib.compress(b"\x00" * 64)), (b"IEND", b"")):
        data += struct.pack(">I", len(body)) + name + body
        data += struct.pack(">I", zlib.crc32(name + body) & 0xFFFFFFFF)
    path = tmp_path / "huge.png"
    path.write_bytes(data)
    with pytest.raises(ImagePrepError, match=r"huge\.png.*over the limit"):
        load_rgb(path)


def test_pair_command_writes_png_and_geometry(tmp_path: Path):
    ref = tmp_path / "ref.png"
    _drawing(1.0, (1000, 600), (10, 10)).save(ref)
    out = tmp_path / "pair.png"
    result = CliRunner().invoke(app, ["pair", str(ref), str(ref), "--out", str(out)])
    assert result.exit_code == 0, result.output
    geo = PairGeometry.model_validate(json.loads(out.with_suffix(".json").read_text()))
    assert geo.reference.crop_box == geo.candidate.crop_box


def test_pair_command_reports_a_missing_file_in_one_line(tmp_path: Path):
    result = CliRunner().invoke(
        app,
        [
            "pair",
            str(tmp_path / "nope.png"),
            str(tmp_path / "nope.png"),
            "--out",
            str(tmp_path / "p.png"),
        ],
    )
    assert result.exit_code == 2
    assert "nope.png" in result.output and "Traceback" not in result.output


def test_sixteen_bit_greyscale_keeps_its_tones(tmp_path: Path):
    arr = np.full((100, 200), 65535, dtype=np.uint16)
    arr[40:60, 50:150] = 32768  # mid grey, not clipped to white
    path = tmp_path / "grey16.png"
    Image.fromarray(arr).save(path)
    rgb = load_rgb(path)
    assert rgb.getpixel((100, 50)) == (128, 128, 128)
    _, m = normalise(rgb)
    assert (m.crop_box.x, m.crop_box.w) == (46, 108)


def test_locate_maps_pair_pixels_back_to_each_image(tmp_path: Path):
    ref = tmp_path / "ref.png"
    ren = tmp_path / "render.png"
    _drawing(1.0, (1600, 900), (100, 100)).save(ref)
    _drawing(0.5, (800, 450), (40, 30)).save(ren)
    geo = prepare_pair(ref, ren, tmp_path / "pair.png")
    px, py = geo.candidate.image_to_panel(140.0, 52.5)
    found: Any = locate(geo, px + geo.candidate.panel_left, py)
    which, x, y = found
    assert which == "candidate" and x == pytest.approx(140.0) and y == pytest.approx(52.5)
    assert locate(geo, PANEL_WIDTH + 1, 10) is None
    in_reference: Any = locate(geo, 5, 5)
    assert in_reference[0] == "reference"
