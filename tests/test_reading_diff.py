"""bench/reading_diff.py: readings of stored references scored against the figures' truth."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location(
        "reading_diff", ROOT / "bench" / "reading_diff.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) not installed")
def test_a_reversed_edge_scores_further_and_an_unchanged_reading_is_not_listed(tmp_path):
    rd = _tool()
    bench = tmp_path / "gv8181"
    sys.path.insert(0, str(ROOT / "bench"))
    from builtin_accuracy import build

    build("graphviz", bench, 8181, 1)
    task = bench / "tasks" / "g8181-gv00"
    truth = rd.truth_edges(bench, task.name)
    assert len(truth) >= 3
    reading = rd.read_reference(task / "reference.png")
    got = rd.score(reading["edges"], [list(t) for t in truth])
    # the reader gets this figure's edges (Graphviz, straight and curved) right, or nearly
    assert got["right"] + got["undirected"] >= len(truth) - 1
    assert got["wrong"] <= 1

    key = "gv8181/tasks/g8181-gv00/reference.png"
    a = {key: {**reading, "truth": [list(t) for t in truth]}}
    # the same reading with one correctly read edge turned round
    flip = next(e for e in reading["edges"] if rd.score([e], a[key]["truth"])["right"])
    m = rd.EDGE_RE.match(flip)
    turned = f"{m.group(2)} -> {m.group(1)} {m.group(3)}"
    b = {key: {**a[key], "edges": sorted([e for e in reading["edges"] if e != flip] + [turned])}}
    rows, counts = rd.compare(a, b)
    assert counts == {"closer": 0, "further": 1, "same": 0, "changed": 1}
    assert rows[0]["lost"] == [flip] and rows[0]["gained"] == [turned]
    assert rd.compare(a, a)[1]["changed"] == 0

    # the command line: read, then compare two files
    out = tmp_path / "new.json"
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "reading_diff.py"), "read", str(tmp_path), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())[key]["edges"] == reading["edges"]
    (tmp_path / "old.json").write_text(json.dumps(b))
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "reading_diff.py"),
            "compare",
            str(tmp_path / "old.json"),
            str(out),
            "--edges",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "1 readings changed: 1 closer" in r.stdout
    assert f"- {turned}" in r.stdout


def test_truth_of_a_real_figure_in_another_look(tmp_path: Path) -> None:
    """Real-figure benchmarks drawn in another look name it in their generator string
    ("pptjudge generation.realfig look=dark"); their truth is the figure's spec all the same."""
    rd = _tool()
    from generation.realfig.bench import SPECS

    fig = SPECS[0]
    (tmp_path / "bench.json").write_text(
        json.dumps({"generator": "pptjudge generation.realfig look=dark"})
    )
    truth = rd.truth_edges(tmp_path, fig.id)
    labels = {n.label for n in fig.nodes}
    assert truth and all(src in labels and dst in labels for src, dst, _ in truth)
    (tmp_path / "bench.json").write_text(json.dumps({"generator": "someone else's"}))
    with pytest.raises(KeyError, match="unknown generator"):
        rd.truth_edges(tmp_path, fig.id)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) not installed")
def test_build_draws_each_benchmark_once_and_asks_for_one(tmp_path: Path) -> None:
    """``build`` writes ROOT/<name> per benchmark named, keeps what is there, and says what to
    name when nothing is."""
    script = [sys.executable, str(ROOT / "bench" / "reading_diff.py"), "build", str(tmp_path)]
    args = ["--graphviz", "8181", "--tasks-graphviz", "1"]
    r = subprocess.run(script + args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "gv8181" / "tasks" / "g8181-gv00" / "reference.png").is_file()
    r = subprocess.run(script + args, capture_output=True, text=True, timeout=300)
    assert "already built" in r.stdout
    r = subprocess.run(script, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "nothing to build" in r.stderr


def test_build_standard_lists_the_stored_references(tmp_path: Path) -> None:
    """``build --standard --list`` names every seed and look of ``bench/reading_seeds.json``
    (the references to draw again when they are lost) and draws nothing."""
    (tmp_path / "gv9797").mkdir()
    (tmp_path / "gv9797" / "bench.json").write_text("{}")
    script = [sys.executable, str(ROOT / "bench" / "reading_diff.py"), "build", str(tmp_path)]
    r = subprocess.run(
        [*script, "--standard", "--list"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    std = json.loads((ROOT / "bench" / "reading_seeds.json").read_text())
    lines = r.stdout.splitlines()
    assert len(lines) == len(std["mpl"]) + len(std["graphviz"]) + len(std["real"]) + 1
    assert f"{tmp_path / 'mpl2121'}: to draw" in lines
    assert f"{tmp_path / 'gv9797'}: already built" in lines
    assert f"{tmp_path / 'real-small+jpeg'}: to draw" in lines
    assert f"{tmp_path / 'synth1234'}: to draw" in lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gv9797"]
