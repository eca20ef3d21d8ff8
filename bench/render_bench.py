"""Render throughput: warm supervised instances vs cold per-file ``soffice --convert-to pdf``.

On the same N diagram-like decks (python-pptx, seeded), measured in one run:

* cold: one ``soffice --headless --convert-to pdf`` process per file, each with a fresh user
  profile (what a naive pipeline pays per deck);
* warm PDF: :class:`judge.render.pool.RenderPool` (``--workers`` instances, started once) converting
  the same decks to PDF -- the like-for-like comparison with cold;
* warm PNG: the full ``render_many`` job (PPTX -> PDF -> PNG at ``--dpi``);
* PDF -> PNG seconds per page with pdfium (the project's rasteriser) and with pdftoppm.

Target: warm PDF throughput >= 4x cold.

Example: .venv/bin/python bench/render_bench.py --decks 20 --workers 2
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Inches, Pt

from judge.render.pool import RenderPool, rasterise_first_page

TARGET_RATIO = 4.0
"""Issue 2's target: warm throughput at least 4x cold."""


def make_decks(folder: Path, n: int, seed: int) -> list[Path]:
    """N flow-diagram decks (5-12 labelled boxes chained by glued arrow connectors)."""
    rng = random.Random(seed)
    decks = []
    for k in range(n):
        prs = Presentation()
        prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        boxes = []
        for i in range(rng.randint(5, 12)):
            shape = MSO_SHAPE.ROUNDED_RECTANGLE if i % 2 else MSO_SHAPE.RECTANGLE
            box = slide.shapes.add_shape(
                shape,
                Inches(0.4 + 2.1 * (i % 6)),
                Inches(1 + 2.5 * (i // 6)),
                Inches(1.8),
                Inches(1),
            )
            box.text_frame.text = f"Step {k}.{i} " + rng.choice(["encode", "pool", "fuse", "loss"])
            box.text_frame.paragraphs[0].runs[0].font.size = Pt(rng.choice([12, 14, 16]))
            boxes.append(box)
        for a, b in itertools.pairwise(boxes):
            conn = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
            conn.begin_connect(a, 3)
            conn.end_connect(b, 1)
            conn.line.width = Pt(1.5)
        path = folder / f"deck{k:02d}.pptx"
        prs.save(str(path))
        decks.append(path)
    return decks


def cold(decks: list[Path], work: Path) -> float:
    """Seconds to convert every deck with its own soffice process and fresh profile."""
    soffice = shutil.which("soffice")
    assert soffice is not None, "soffice not on PATH"
    t0 = time.perf_counter()
    for i, deck in enumerate(decks):
        profile = work / f"profile-{i}"
        out = work / f"cold-{i}"
        proc = subprocess.run(
            [
                soffice,
                "--headless",
                "--norestore",
                f"-env:UserInstallation={profile.as_uri()}",
                "--convert-to",
                "pdf",
                "--outdir",
                str(out),
                str(deck),
            ],
            capture_output=True,
            timeout=120,
            start_new_session=True,
        )
        if proc.returncode != 0 or not (out / f"{deck.stem}.pdf").is_file():
            raise SystemExit(f"cold conversion of {deck} failed: {proc.stderr[-300:]!r}")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--decks", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dpi", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    load_before = os.getloadavg()[0]

    with tempfile.TemporaryDirectory(prefix="render-bench-") as tmp:
        work = Path(tmp)
        decks = make_decks(work, args.decks, args.seed)
        n = len(decks)

        t0 = time.perf_counter()
        with RenderPool(workers=args.workers, dpi=args.dpi) as pool:
            startup = time.perf_counter() - t0
            pool.render_many(decks[: args.workers], work / "warmup")  # first-document costs
            t0 = time.perf_counter()
            with ThreadPoolExecutor(args.workers) as ex:
                pdfs = list(ex.map(pool.export_pdf, decks))
            warm_pdf = time.perf_counter() - t0
            t0 = time.perf_counter()
            results = pool.render_many(decks, work / "png")
            warm_png = time.perf_counter() - t0
            failures = [r for r in results if isinstance(r, Exception)]
            if failures:
                raise SystemExit(f"warm rendering failed: {failures[0]}")

        raster = []
        for i, pdf in enumerate(pdfs):
            t0 = time.perf_counter()
            rasterise_first_page(pdf, args.dpi, decks[i])
            raster.append(time.perf_counter() - t0)
        poppler = []
        if shutil.which("pdftoppm"):
            for i, pdf in enumerate(pdfs[:5]):
                src = work / f"p{i}.pdf"
                src.write_bytes(pdf)
                t0 = time.perf_counter()
                subprocess.run(
                    ["pdftoppm", "-png", "-r", str(args.dpi), "-f", "1", "-l", "1", str(src),
                     str(work / f"p{i}")],
                    check=True,
                )  # fmt: skip
                poppler.append(time.perf_counter() - t0)

        cold_s = cold(decks, work)

    cold_rate = n / cold_s
    pdf_rate = n / warm_pdf
    png_rate = n / warm_png
    ratio = pdf_rate / cold_rate
    print(f"decks: {n} (seed {args.seed}), workers: {args.workers}, dpi: {args.dpi}")
    print(
        f"machine: {os.cpu_count()} CPUs, 1-min load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after (other work on the machine slows every figure)"
    )
    print(f"pool start-up ({args.workers} instances, in parallel): {startup:.2f} s")
    print(f"cold soffice --convert-to pdf (fresh profile each): {cold_s:.2f} s = "
          f"{cold_rate:.2f} files/s ({cold_s / n:.3f} s/file)")  # fmt: skip
    print(f"warm PPTX->PDF:        {warm_pdf:.2f} s = {pdf_rate:.2f} files/s "
          f"({warm_pdf / n:.3f} s/file)")  # fmt: skip
    print(f"warm PPTX->PDF->PNG:   {warm_png:.2f} s = {png_rate:.2f} files/s "
          f"({warm_png / n:.3f} s/file)")  # fmt: skip
    print(f"PDF->PNG pdfium:   {statistics.median(raster):.3f} s/page (median, {args.dpi} dpi)")
    if poppler:
        print(f"PDF->PNG pdftoppm: {statistics.median(poppler):.3f} s/page (median of 5)")
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print(
        f"warm/cold throughput ratio (PDF): {ratio:.1f}x ({verdict} the {TARGET_RATIO:g}x target)"
    )
    print(f"warm/cold ratio incl. PNG rasterising: {png_rate / cold_rate:.1f}x")
    incl = n / (warm_png + startup)
    print(f"warm/cold ratio incl. PNG and pool start-up: {incl / cold_rate:.1f}x")


if __name__ == "__main__":
    main()
