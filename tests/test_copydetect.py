"""judge.artifact.copydetect: pictures copying the reference are caught; others are not."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from judge.artifact.copydetect import ReferenceScreen, ScreenResult
from judge.artifact.pictures import PictureBlob
from judge.schema import Box
from tests.decks import (
    cropped,
    decode,
    diagram_image,
    icon_image,
    jpeg,
    photo_image,
    resized,
    sparse_diagram_image,
    tiles,
)

SLIDE_ASPECT = 4 / 3


@pytest.fixture(scope="module")
def reference_png() -> bytes:
    return diagram_image(seed=1)


@pytest.fixture(scope="module")
def screen(tmp_path_factory: pytest.TempPathFactory, reference_png: bytes) -> ReferenceScreen:
    path = tmp_path_factory.mktemp("ref") / "reference.png"
    path.write_bytes(reference_png)
    return ReferenceScreen(path)


def _pic(data: bytes, box=(0.1, 0.1, 0.4, 0.3), owner: str = '"Picture" (id 9)') -> PictureBlob:
    x, y, w, h = box
    return PictureBlob(owner, 9, Box(x=x, y=y, w=w, h=h), "ppt/media/image1.png", data, True)


def _tiled(png: bytes, cols: int, rows: int) -> list[PictureBlob]:
    """Tiles placed side by side on the slide, in the reference's layout."""
    out = []
    for i, (data, (x, y, w, h)) in enumerate(tiles(png, cols, rows)):
        box = (0.1 + x * 0.8, 0.1 + y * 0.8, w * 0.8, h * 0.8)
        out.append(_pic(data, box, owner=f'"Tile" (id {i})'))
    return out


def _kinds(result: ScreenResult) -> list[str]:
    return [f.kind for f in result.findings]


def test_exact_bytes_are_caught(screen: ReferenceScreen, reference_png: bytes) -> None:
    assert _kinds(screen.screen([_pic(reference_png)], SLIDE_ASPECT)) == ["exact"]


def test_resized_reference_is_caught(screen: ReferenceScreen, reference_png: bytes) -> None:
    assert _kinds(screen.screen([_pic(resized(reference_png, 0.45))], SLIDE_ASPECT)) == ["whole"]


def test_jpeg_recompressed_reference_is_caught(
    screen: ReferenceScreen, reference_png: bytes
) -> None:
    found = screen.screen([_pic(jpeg(reference_png, quality=30, factor=0.8))], SLIDE_ASPECT)
    assert _kinds(found) == ["whole"]


def test_slightly_stretched_reference_is_caught(
    screen: ReferenceScreen, reference_png: bytes
) -> None:
    rgb = decode(reference_png)
    h, w = rgb.shape[:2]
    stretched = cv2.imencode(".png", cv2.resize(rgb, (int(w * 1.08), h)))[1].tobytes()
    assert _kinds(screen.screen([_pic(stretched)], SLIDE_ASPECT)) == ["whole"]


@pytest.mark.parametrize(
    ("box", "factor"),
    [
        ((0.1, 0.2, 0.6, 0.6), 1.0),
        ((0.4, 0.3, 0.5, 0.6), 0.6),
        ((0.2, 0.1, 0.4, 0.5), 1.7),
        ((0.0, 0.4, 0.55, 0.55), 0.8),
    ],
)
def test_cropped_region_is_caught(
    screen: ReferenceScreen, reference_png: bytes, box, factor: float
) -> None:
    found = screen.screen([_pic(cropped(reference_png, box, factor))], SLIDE_ASPECT)
    assert _kinds(found) == ["crop"]
    region = found.findings[0].region
    assert region is not None
    assert region.x == pytest.approx(box[0], abs=0.05)
    assert region.y == pytest.approx(box[1], abs=0.05)


def test_cropped_and_recompressed_region_is_caught(
    screen: ReferenceScreen, reference_png: bytes
) -> None:
    data = jpeg(cropped(reference_png, (0.2, 0.1, 0.5, 0.7)), quality=40, factor=0.8)
    assert _kinds(screen.screen([_pic(data)], SLIDE_ASPECT)) == ["crop"]


@pytest.mark.parametrize(("pad", "centred"), [(0.1, True), (0.5, False)])
def test_reference_pasted_inside_a_larger_picture_is_caught(
    screen: ReferenceScreen, reference_png: bytes, pad: float, centred: bool
) -> None:
    rgb = decode(reference_png)
    h, w = rgb.shape[:2]
    big = np.full((int(h * (1 + 2 * pad)), int(w * (1 + 2 * pad)), 3), 255, np.uint8)
    y0, x0 = ((big.shape[0] - h) // 2, (big.shape[1] - w) // 2) if centred else (0, 0)
    big[y0 : y0 + h, x0 : x0 + w] = rgb
    data = cv2.imencode(".png", big)[1].tobytes()
    assert _kinds(screen.screen([_pic(data)], SLIDE_ASPECT)) == ["contains"]


def test_reference_cut_in_large_tiles_is_caught(
    screen: ReferenceScreen, reference_png: bytes
) -> None:
    found = screen.screen(_tiled(reference_png, 2, 2), SLIDE_ASPECT)
    assert found.findings
    assert all(k in ("crop", "tiles") for k in _kinds(found))


def test_reference_cut_in_small_tiles_is_caught_on_the_canvas(
    screen: ReferenceScreen, reference_png: bytes
) -> None:
    found = screen.screen(_tiled(reference_png, 5, 4), SLIDE_ASPECT)
    assert "tiles" in _kinds(found)


def test_a_different_diagram_is_not_flagged(screen: ReferenceScreen) -> None:
    for seed in (2, 3, 4):
        assert screen.screen([_pic(diagram_image(seed))], SLIDE_ASPECT).findings == []


def test_crops_and_tiles_of_a_different_diagram_are_not_flagged(screen: ReferenceScreen) -> None:
    other = diagram_image(seed=5)
    assert screen.screen([_pic(cropped(other, (0.1, 0.1, 0.5, 0.5)))], SLIDE_ASPECT).findings == []
    assert screen.screen(_tiled(other, 3, 3), SLIDE_ASPECT).findings == []


@pytest.fixture(scope="module")
def sparse(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, ReferenceScreen]:
    png = sparse_diagram_image(seed=11)
    path = tmp_path_factory.mktemp("sparse") / "reference.png"
    path.write_bytes(png)
    return png, ReferenceScreen(path)


@pytest.mark.parametrize(
    ("box", "factor", "quality"),
    [((0.05, 0.3, 0.45, 0.6), 0.5, None), ((0.5, 0.35, 0.45, 0.55), 1.0, 40)],
)
def test_crop_of_a_sparse_thin_line_figure_is_caught(
    sparse: tuple[bytes, ReferenceScreen], box, factor: float, quality: int | None
) -> None:
    png, screen = sparse
    data = cropped(png, box, factor)
    if quality is not None:
        data = jpeg(data, quality)
    assert _kinds(screen.screen([_pic(data)], SLIDE_ASPECT)) == ["crop"]


def test_pieces_of_another_figure_in_the_same_style_are_not_flagged(
    sparse: tuple[bytes, ReferenceScreen],
) -> None:
    _, screen = sparse
    other = sparse_diagram_image(seed=12)
    pieces = [_pic(cropped(other, (0.05, 0.3, 0.45, 0.6)))]
    pieces += [_pic(cropped(other, (0.5, 0.35, 0.45, 0.55)), owner="second")]
    assert screen.screen(pieces[:1], SLIDE_ASPECT).findings == []
    assert screen.screen(pieces[1:], SLIDE_ASPECT).findings == []
    assert screen.screen(_tiled(other, 3, 3), SLIDE_ASPECT).findings == []


def test_photos_and_icons_are_not_flagged(screen: ReferenceScreen) -> None:
    pics = [_pic(photo_image(1), (0.05, 0.05, 0.4, 0.3), owner="photo")]
    pics += [
        _pic(icon_image(i), (0.1 + 0.2 * i, 0.6, 0.1, 0.13), owner=f"icon {i}") for i in range(3)
    ]
    assert screen.screen(pics, SLIDE_ASPECT).findings == []


def test_blank_picture_is_not_flagged(screen: ReferenceScreen) -> None:
    white = cv2.imencode(".png", np.full((200, 300, 3), 255, np.uint8))[1].tobytes()
    assert screen.screen([_pic(white)], SLIDE_ASPECT).findings == []


def test_approved_asset_is_allowed_when_byte_identical(
    tmp_path: Path, reference_png: bytes
) -> None:
    ref = tmp_path / "reference.png"
    ref.write_bytes(reference_png)
    asset = cropped(reference_png, (0.1, 0.2, 0.6, 0.6))
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "panel.png").write_bytes(asset)
    result = ReferenceScreen(ref, tmp_path / "assets").screen([_pic(asset)], SLIDE_ASPECT)
    assert result.findings == [] and len(result.approved) == 1


def test_approved_asset_is_allowed_when_pixel_identical(
    tmp_path: Path, reference_png: bytes
) -> None:
    ref = tmp_path / "reference.png"
    ref.write_bytes(reference_png)
    asset = cropped(reference_png, (0.1, 0.2, 0.6, 0.6))
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "panel.png").write_bytes(asset)
    rgb = decode(asset)
    reencoded = cv2.imencode(
        ".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_PNG_COMPRESSION, 0]
    )[1].tobytes()
    assert reencoded != asset
    result = ReferenceScreen(ref, tmp_path / "assets").screen([_pic(reencoded)], SLIDE_ASPECT)
    assert result.findings == [] and len(result.approved) == 1


def test_modified_asset_is_not_approved(tmp_path: Path, reference_png: bytes) -> None:
    ref = tmp_path / "reference.png"
    ref.write_bytes(reference_png)
    asset = cropped(reference_png, (0.1, 0.2, 0.6, 0.6))
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "panel.png").write_bytes(asset)
    changed = jpeg(asset, quality=50)
    result = ReferenceScreen(ref, tmp_path / "assets").screen([_pic(changed)], SLIDE_ASPECT)
    assert _kinds(result) == ["crop"] and result.approved == []


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header declares width x height with (almost) no pixel data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def test_decompression_bomb_picture_is_not_decoded(screen: ReferenceScreen) -> None:
    result = screen.screen([_pic(_png_header_only(100_000, 100_000))], SLIDE_ASPECT)
    assert result.findings == []
    assert len(result.unscreened) == 1 and "pixel" in result.unscreened[0]


def test_undecodable_picture_is_reported_unscreened(screen: ReferenceScreen) -> None:
    result = screen.screen([_pic(b"\x01\x00\x00\x00 not an image at all")], SLIDE_ASPECT)
    assert result.findings == [] and len(result.unscreened) == 1
