"""The report of a builtin run draws gate-reason and finding boxes on both images and the two
graphs as read (headless Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from generation.benchmark import write_benchmark
from scoring.report import case_slug, write_report
from tests.test_report import CHROMIUM, _assert_renders_cleanly

CONFIGS = {"ok": ("faithful_connectors",), "rev": ("reversed_edge",), "moved": ("wrong_fill",)}
RECT = re.compile(r'<g class="(reason|finding)"><rect x="([0-9.]+)"')


@pytest.mark.slow
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed")
def test_builtin_run_report_draws_boxes_on_both_panels_and_both_graphs(render_pool, tmp_path):
    from judge.engine.runner import RunSettings, run_bench
    from judge.rundir import read_results

    bench = tmp_path / "bench"
    write_benchmark(bench, 21, 1, variants=CONFIGS)
    run = tmp_path / "run"
    run_bench(bench, run, RunSettings(judge="builtin", rounds=1), render_pool=render_pool)
    results = {c.config_id: c for c in read_results(run)}
    assert results["rev"].gate == "semantic" and results["moved"].gate == "pass"
    out = tmp_path / "report"
    write_report(run, out, n_resamples=100)

    def page(cfg: str) -> str:
        return (out / "cases" / case_slug(results[cfg].case_id) / "index.html").read_text("utf-8")

    left = 1200  # the candidate panel starts after the reference panel and the 4 px gap
    rev = page("rev")
    xs = [float(x) for kind, x in RECT.findall(rev) if kind == "reason"]
    assert any(x < left for x in xs) and any(x >= left for x in xs), xs  # both images
    assert "G1" in rev and "confidence" in rev
    assert "Graphs as read" in rev
    assert rev.count('class="node matched"') >= 4 and 'class="edge"' in rev
    assert 'marker-end="url(#head)"' in rev  # directed edges drawn with their direction
    moved = page("moved")
    fx = [float(x) for kind, x in RECT.findall(moved) if kind == "finding"]
    assert any(x < left for x in fx) and any(x >= left for x in fx), fx

    shot = _assert_renders_cleanly(
        out / "cases" / case_slug(results["rev"].case_id) / "index.html", tmp_path
    )
    with Image.open(shot) as im:
        arr = np.asarray(im.convert("RGB"), dtype=np.int16)
    red = (abs(arr[..., 0] - 0xC6) < 30) & (arr[..., 1] < 80) & (arr[..., 2] < 80)
    green = (arr[..., 1] - arr[..., 0] > 40) & (arr[..., 1] - arr[..., 2] > 40)
    assert red.sum() > 200 and green.sum() > 200  # reason boxes and matched nodes are drawn
