"""Rendering with supervised warm LibreOffice instances (judge/render/pool.py, judge render)."""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pptx import Presentation
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.oxml.ns import qn
from pptx.util import Inches, Pt
from typer.testing import CliRunner

import judge.render.pool as render_mod
import judge.render.procs as procs_mod
from cli.app import app
from judge.errors import RenderError, RendererUnavailable, RenderTimeout
from judge.render.pool import RenderPool, group_members, rasterise_first_page, render_provenance
from judge.schema import RenderResult

DARK = 128
"""Grey level below which a render pixel counts as ink (the slide background is white)."""
HEAVY_SHAPES = 800
"""Shapes of the deck that keeps LibreOffice busy ~1.5 s, long enough to crash it mid-render."""
BUSY_TICKS = int(0.3 * os.sysconf("SC_CLK_TCK"))
"""CPU time (0.3 s, in clock ticks) after which soffice.bin is surely inside the heavy deck."""


def make_deck(
    path: Path, labels: list[str], width_in: float = 10.0, height_in: float = 7.5
) -> Path:
    """A one-slide deck with a labelled box per entry, built with python-pptx."""
    prs = Presentation()
    prs.slide_width = Inches(width_in)
    prs.slide_height = Inches(height_in)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for i, label in enumerate(labels):
        box = slide.shapes.add_shape(1, Inches(0.5 + 2.2 * i), Inches(1), Inches(2), Inches(1))
        box.text_frame.text = label
        box.text_frame.paragraphs[0].runs[0].font.size = Pt(18)
    prs.save(str(path))
    return path


def make_heavy_deck(path: Path) -> Path:
    """A deck of HEAVY_SHAPES small labelled boxes: LibreOffice needs ~1.5 s for it."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for i in range(HEAVY_SHAPES):
        box = slide.shapes.add_shape(
            1, Inches(0.16 * (i % 60)), Inches(0.13 * (i // 60)), Inches(0.13), Inches(0.1)
        )
        box.text_frame.text = f"n{i}"
    prs.save(str(path))
    return path


def ink_fraction(png: Path) -> float:
    grey = np.asarray(Image.open(png).convert("L"))
    return float((grey < DARK).mean())


def cpu_ticks(pid: int) -> int:
    """utime + stime of a process, in clock ticks (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def running(pid: int) -> bool:
    st = procs_mod._proc_stat(pid)
    return st is not None and st[1] != "Z"


def wait_gone(pids: list[int], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while any(running(p) for p in pids):
        assert time.monotonic() < deadline, f"processes {pids} still alive after {seconds} s"
        time.sleep(0.05)


@pytest.mark.slow
def test_render_is_non_blank_png_of_slide_aspect_at_requested_dpi(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    deck = make_deck(tmp_path / "wide.pptx", ["Encoder", "Decoder"], 13.333, 7.5)
    out = tmp_path / "wide.png"
    res = render_pool.render(deck, out, dpi=100)
    assert isinstance(res, RenderResult)
    with Image.open(out) as im:
        assert im.size == (res.width_px, res.height_px)
    assert abs(res.width_px - 1333) <= 1 and res.height_px == 750
    assert ink_fraction(out) > 0.001
    assert res.provenance.dpi == 100
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # atomic write


@pytest.mark.slow
def test_render_uses_pool_dpi_by_default(render_pool: RenderPool, tmp_path: Path) -> None:
    deck = make_deck(tmp_path / "four_three.pptx", ["Loss"])
    res = render_pool.render(deck, tmp_path / "four_three.png")
    assert (res.width_px, res.height_px) == (1500, 1125)  # 10 x 7.5 in at 150 dpi


@pytest.mark.slow
def test_render_many_renders_every_deck_in_input_order(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    decks = [make_deck(tmp_path / f"d{i}.pptx", [f"Step {i}"] * (i + 1)) for i in range(5)]
    results = render_pool.render_many(decks, tmp_path / "out", dpi=50)
    assert [Path(r.deck).name for r in results if isinstance(r, RenderResult)] == [
        d.name for d in decks
    ]
    inks = [ink_fraction(tmp_path / "out" / f"d{i}.png") for i in range(5)]
    assert inks == sorted(inks) and inks[0] > 0  # more boxes, more ink: each PNG is its deck


@pytest.mark.slow
def test_broken_deck_is_render_error_and_pool_keeps_working(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    good = make_deck(tmp_path / "good.pptx", ["Input"])
    truncated = tmp_path / "truncated.pptx"
    truncated.write_bytes(good.read_bytes()[:4000])
    text = tmp_path / "text.pptx"
    text.write_text("not a deck at all\n")
    results = render_pool.render_many([truncated, good, text], tmp_path / "out", dpi=50)
    assert isinstance(results[0], RenderError) and "truncated.pptx" in str(results[0])
    assert isinstance(results[1], RenderResult)
    assert isinstance(results[2], RenderError) and "text.pptx" in str(results[2])
    assert not (tmp_path / "out" / "truncated.png").exists()
    render_pool.render(good, tmp_path / "again.png", dpi=50)


@pytest.mark.slow
def test_missing_deck_is_render_error_naming_it(render_pool: RenderPool, tmp_path: Path) -> None:
    with pytest.raises(RenderError, match=r"nowhere.pptx"):
        render_pool.render(tmp_path / "nowhere.pptx", tmp_path / "x.png")


@pytest.mark.slow
def test_hang_raises_render_timeout_and_restarted_instance_renders_next(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    deck = make_deck(tmp_path / "slow.pptx", ["A", "B", "C"])
    before = set(render_pool.process_groups())
    with pytest.raises(RenderTimeout, match=r"slow.pptx"):
        render_pool.render(deck, tmp_path / "slow.png", timeout=0.001)
    after = set(render_pool.process_groups())
    assert len(before - after) == 2  # that instance's soffice and worker groups were replaced
    for pgid in before - after:
        assert group_members(pgid) == []
    results = render_pool.render_many(
        [make_deck(tmp_path / f"next{i}.pptx", ["Next"]) for i in range(2)], tmp_path, dpi=50
    )
    assert all(isinstance(r, RenderResult) for r in results)


@pytest.mark.slow
def test_soffice_killed_from_outside_is_detected_and_recovered(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    victims = [
        pid
        for pgid in render_pool.process_groups()
        for pid, name in group_members(pgid)
        if name == "soffice.bin"
    ]
    assert len(victims) == 2
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    wait_gone(victims)
    decks = [make_deck(tmp_path / f"after{i}.pptx", ["After"]) for i in range(2)]
    results = render_pool.render_many(decks, tmp_path, dpi=50)
    assert all(isinstance(r, RenderResult) for r in results), results
    survivors = [
        pid
        for pgid in render_pool.process_groups()
        for pid, name in group_members(pgid)
        if name == "soffice.bin"
    ]
    assert len(survivors) == 2 and not set(survivors) & set(victims)


def _kill_busy_soffice(render_pool: RenderPool, deadline_s: float = 30.0) -> int:
    """SIGKILL the soffice.bin that starts burning CPU (it is loading the deck); its pid."""

    def soffice_bins() -> list[int]:
        return [
            pid
            for pgid in render_pool.process_groups()
            for pid, name in group_members(pgid)
            if name == "soffice.bin"
        ]

    cpu_before = {pid: cpu_ticks(pid) for pid in soffice_bins()}
    deadline = time.monotonic() + deadline_s
    while True:
        assert time.monotonic() < deadline, "no instance started working on the deck"
        for pid in soffice_bins():
            if pid not in cpu_before:
                cpu_before[pid] = cpu_ticks(pid)
            if cpu_ticks(pid) - cpu_before[pid] >= BUSY_TICKS:
                os.kill(pid, signal.SIGKILL)
                return pid
        time.sleep(0.02)


def _render_in_thread(
    render_pool: RenderPool, deck: Path, png: Path
) -> tuple[threading.Thread, list]:
    outcome: list[object] = []

    def go() -> None:
        try:
            outcome.append(render_pool.render(deck, png, dpi=50))
        except RenderError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=go)
    thread.start()
    return thread, outcome


@pytest.mark.slow
def test_soffice_crash_during_render_is_retried_on_a_fresh_instance(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    heavy = make_heavy_deck(tmp_path / "heavy.pptx")
    thread, outcome = _render_in_thread(render_pool, heavy, tmp_path / "heavy.png")
    _kill_busy_soffice(render_pool)
    thread.join(120)
    # one crash is the machine's (memory pressure of another case), not the deck's
    assert len(outcome) == 1 and isinstance(outcome[0], RenderResult), outcome


@pytest.mark.slow
def test_deck_that_crashes_soffice_twice_is_unrenderable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every conversion request finds its soffice.bin SIGKILLed (a deck that crashes it)
    original = render_mod._Instance.request

    def crashing(self, payload, timeout):  # type: ignore[no-untyped-def]
        if payload.get("op") == "convert" and self.soffice is not None:
            for pid, name in group_members(self.soffice.pid):
                if name == "soffice.bin":
                    os.kill(pid, signal.SIGKILL)
            wait_gone([p for p, n in group_members(self.soffice.pid) if n == "soffice.bin"])
        return original(self, payload, timeout)

    with RenderPool(workers=1) as pool:
        monkeypatch.setattr(render_mod._Instance, "request", crashing)
        with pytest.raises(RenderError, match="crashed twice") as info:
            pool.render(make_deck(tmp_path / "bad.pptx", ["Bad"]), tmp_path / "bad.png", dpi=50)
        assert "bad.pptx" in str(info.value) and not isinstance(info.value, RenderTimeout)
        monkeypatch.setattr(render_mod._Instance, "request", original)
        pool.render(make_deck(tmp_path / "fine.pptx", ["Fine"]), tmp_path / "f.png", dpi=50)


@pytest.mark.slow
def test_linked_image_in_deck_is_never_fetched(render_pool: RenderPool, tmp_path: Path) -> None:
    requests: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            requests.append(f"{self.command} {self.path}")
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            self.wfile.write(png.read_bytes())

        do_HEAD = do_OPTIONS = do_PROPFIND = do_GET  # noqa: N815

        def log_message(self, *args: object) -> None:
            pass

    png = tmp_path / "red.png"
    Image.new("RGB", (40, 40), (255, 0, 0)).save(png)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        prs = Presentation()
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        pic = slide.shapes.add_picture(str(png), Inches(1), Inches(1), Inches(3), Inches(3))
        url = f"http://127.0.0.1:{server.server_address[1]}/linked.png"
        rid = slide.part.relate_to(url, RT.IMAGE, is_external=True)
        blip = pic._element.blipFill.find(qn("a:blip"))
        del blip.attrib[qn("r:embed")]
        blip.set(qn("r:link"), rid)  # the picture now lives at the URL, not in the package
        deck = tmp_path / "linked.pptx"
        prs.save(str(deck))
        render_pool.render(deck, tmp_path / "linked.png", dpi=50)
    finally:
        server.shutdown()
        server.server_close()
    assert requests == []  # plain `soffice --convert-to pdf` sends OPTIONS and GET here


@pytest.mark.slow
def test_close_leaves_no_soffice_process(tmp_path: Path) -> None:
    pool = RenderPool(workers=1)
    pool.render(make_deck(tmp_path / "d.pptx", ["X"]), tmp_path / "d.png", dpi=50)
    groups = pool.process_groups()
    pids = [pid for g in groups for pid, _ in group_members(g)]
    assert any(name == "soffice.bin" for g in groups for _, name in group_members(g))
    root = pool._root
    pool.close()
    assert all(group_members(g) == [] for g in groups)
    for pid in pids:
        assert procs_mod._proc_stat(pid) is None, pid  # gone and reaped, not even a zombie
    assert not root.exists()
    with pytest.raises(RendererUnavailable, match="closed"):  # the judge's, not the deck's
        pool.render(tmp_path / "d.pptx", tmp_path / "e.png")


@pytest.mark.slow
def test_close_during_render_fails_that_render_and_leaves_no_process(tmp_path: Path) -> None:
    heavy = make_heavy_deck(tmp_path / "heavy.pptx")
    pool = RenderPool(workers=1)
    groups = pool.process_groups()
    outcome: list[BaseException | None] = []

    def go() -> None:
        try:
            pool.render(heavy, tmp_path / "heavy.png", dpi=50)
            outcome.append(None)
        except (RenderError, RendererUnavailable) as exc:
            outcome.append(exc)

    thread = threading.Thread(target=go)
    thread.start()
    time.sleep(0.3)
    pool.close()
    thread.join(30)
    assert len(outcome) == 1 and isinstance(outcome[0], RendererUnavailable), outcome
    assert "closed" in str(outcome[0])
    assert all(group_members(g) == [] for g in groups)
    assert pool.process_groups() == []  # nothing was restarted after close


@pytest.mark.slow
def test_killed_parent_leaves_no_soffice_process(tmp_path: Path) -> None:
    script = (
        "import os, sys\n"
        "from judge.render.pool import RenderPool\n"
        "pool = RenderPool(workers=1)\n"
        "print(pool._root, *pool.process_groups(), flush=True)\n"
        "sys.stdin.read()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=Path(__file__).parent.parent,
    )
    assert proc.stdout is not None
    root, *pgids = proc.stdout.readline().decode().split()
    groups = [int(g) for g in pgids]
    assert Path(root).is_dir()
    assert any(name == "soffice.bin" for g in groups for _, name in group_members(g))
    proc.kill()  # SIGKILL: no close(), no atexit, no finaliser runs
    proc.wait()
    deadline = time.monotonic() + 10
    while any(group_members(g) for g in groups) or Path(root).exists():
        assert time.monotonic() < deadline, [group_members(g) for g in groups]
        time.sleep(0.05)


def test_missing_libreoffice_is_clear_render_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_mod, "SOFFICE", "no-such-soffice-binary")
    with pytest.raises(RenderError, match="LibreOffice not found"):
        RenderPool(workers=1)


def test_pdf_without_pages_is_render_error(tmp_path: Path) -> None:
    import io

    import pypdfium2 as pdfium

    buf = io.BytesIO()
    pdfium.PdfDocument.new().save(buf)
    with pytest.raises(RenderError, match=r"no pages|unreadable PDF"):
        rasterise_first_page(buf.getvalue(), 100, tmp_path / "deck.pptx")


@pytest.mark.slow
def test_provenance_records_version_font_hash_and_substitutions(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    deck = make_deck(tmp_path / "fonts.pptx", ["Fonts"])
    res = render_pool.render(
        deck, tmp_path / "fonts.png", dpi=50, requested_fonts=["DejaVu Sans", "Nonexistent Sans"]
    )
    prov = res.provenance
    assert prov.libreoffice_version.startswith("LibreOffice 7")
    assert len(prov.font_list_hash) == 64 and int(prov.font_list_hash, 16) >= 0
    assert prov.requested_fonts == ["DejaVu Sans", "Nonexistent Sans"]
    assert prov.substituted_fonts == ["Nonexistent Sans"]
    assert render_provenance(50, []).font_list_hash == prov.font_list_hash


@pytest.mark.slow
def test_svg_export_contains_slide_text(render_pool: RenderPool, tmp_path: Path) -> None:
    svg = render_pool.export_svg(make_deck(tmp_path / "svg.pptx", ["Tokenizer", "Embedding"]))
    assert b"<svg" in svg[:4096]
    assert b"Tokenizer" in svg and b"Embedding" in svg


@pytest.mark.slow
def test_render_command_renders_many_decks_and_reports_failures(tmp_path: Path) -> None:
    good = [make_deck(tmp_path / f"cmd{i}.pptx", ["Cmd"]) for i in range(2)]
    bad = tmp_path / "bad.pptx"
    bad.write_bytes(b"PK\x03\x04 broken")
    out = tmp_path / "renders"
    result = CliRunner().invoke(
        app, ["render", str(good[0]), str(bad), str(good[1]), "--out", str(out), "--dpi", "40"]
    )
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert lines[0].startswith("OK") and "cmd0.pptx" in lines[0]
    assert lines[1].startswith("FAIL") and "bad.pptx" in lines[1]
    assert lines[2].startswith("OK") and "cmd1.pptx" in lines[2]
    meta = json.loads((out / "cmd1.render.json").read_text())
    assert meta["width_px"] == 400 and Path(meta["png"]) == out / "cmd1.png"
    assert (out / "cmd0.png").is_file() and not (out / "bad.png").exists()
    fonts = meta["provenance"]
    assert "Calibri" in fonts["requested_fonts"]  # python-pptx's default theme font
    assert "Calibri" in fonts["substituted_fonts"]  # proprietary: never installed on Debian


def test_render_command_without_libreoffice_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(render_mod, "SOFFICE", "no-such-soffice-binary")
    deck = make_deck(tmp_path / "d.pptx", ["X"])
    result = CliRunner().invoke(app, ["render", str(deck), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "LibreOffice not found" in result.output and "Traceback" not in result.output
