"""``bench/builtin_accuracy.py --save/--against``: which cases a change fixed or broke."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.builtin_accuracy import gate_changes, read_jsonl, save_results, verdict_changes

ROOT = Path(__file__).resolve().parent.parent

LABELS = {
    "faithful_shapes/t1": {"gate": "pass"},
    "reversed_edge/t1": {"gate": "semantic"},
    "missing_node/t1": {"gate": "semantic"},
    "layout_shift/t1": {"gate": "pass"},
    "style_change/t1": {"gate": "pass"},
}


def _res(gates: dict[str, str]) -> dict[str, dict[str, str]]:
    return {c: {"case_id": c, "gate": g} for c, g in gates.items()}


def test_gate_changes_name_what_a_change_fixed_and_broke() -> None:
    before = _res({
        "faithful_shapes/t1": "semantic", "reversed_edge/t1": "pass",
        "missing_node/t1": "semantic", "layout_shift/t1": "pass", "style_change/t1": "render",
    })  # fmt: skip
    after = _res({
        "faithful_shapes/t1": "pass", "reversed_edge/t1": "pass",
        "missing_node/t1": "pass", "style_change/t1": "semantic",
    })  # fmt: skip
    got = gate_changes(LABELS, before, after)
    assert got == [
        ("faithful_shapes/t1", "fixed", "semantic", "pass", "pass"),
        ("layout_shift/t1", "broke", "pass", "error", "pass"),  # missing now: an error
        ("missing_node/t1", "broke", "semantic", "pass", "semantic"),
        ("style_change/t1", "changed", "render", "semantic", "pass"),
    ]
    assert gate_changes(LABELS, after, after) == []


def test_verdict_changes_name_cases_whose_reasons_or_findings_moved() -> None:
    """Same gate, other reasons or findings: listed apart from the gate changes; a case whose
    gate moved, or that one side lacks, is gate_changes' business."""
    before: dict[str, dict[str, Any]] = {
        "faithful_shapes/t1": {"gate": "pass", "reasons": [], "findings": [{"subtype": "a"}]},
        "reversed_edge/t1": {"gate": "semantic", "reasons": [{"evidence": "x"}], "findings": []},
        "missing_node/t1": {"gate": "semantic", "reasons": [], "findings": []},
        "layout_shift/t1": {"gate": "pass", "reasons": [], "findings": []},
    }
    after: dict[str, dict[str, Any]] = {
        "faithful_shapes/t1": {"gate": "pass", "reasons": [], "findings": [{"subtype": "b"}]},
        "reversed_edge/t1": {"gate": "semantic", "reasons": [{"evidence": "y"}], "findings": []},
        "missing_node/t1": {"gate": "pass", "reasons": [], "findings": []},
        "layout_shift/t1": {"gate": "pass", "reasons": [], "findings": []},
    }
    assert verdict_changes(LABELS, before, after) == ["faithful_shapes/t1", "reversed_edge/t1"]
    assert verdict_changes(LABELS, after, after) == []
    # a run's results.jsonl (no gate reasons, findings merged over rounds) is not compared
    run_results = {c: {"gate": r["gate"], "findings": [{"m": 1}]} for c, r in before.items()}
    assert verdict_changes(LABELS, run_results, after) == []


def test_saved_results_read_back_for_against(tmp_path: Path) -> None:
    """``--save`` writes what ``--against`` reads: the same cases and gates, in a new folder."""
    results = _res({"reversed_edge/t1": "semantic", "faithful_shapes/t1": "pass"})
    path = tmp_path / "new" / "before.jsonl"
    save_results(path, results)
    assert read_jsonl(path) == results
    assert gate_changes(LABELS, read_jsonl(path), results) == []


def test_save_and_against_take_one_benchmark_at_a_time(tmp_path: Path) -> None:
    """Two benchmarks' results in one file would be compared with the wrong labels."""
    script = ROOT / "bench" / "builtin_accuracy.py"
    before = tmp_path / "before.jsonl"
    before.write_text(json.dumps({"case_id": "x", "gate": "pass"}) + "\n")
    for extra in (["--save", str(before)], ["--against", str(before)]):
        proc = subprocess.run(
            [sys.executable, str(script), "--bench", "both", *extra, "--out", str(tmp_path)],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert "one benchmark at a time" in proc.stderr
    proc = subprocess.run(
        [sys.executable, str(script), "--bench", "real", "--against", str(tmp_path / "no.jsonl")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "no such file" in proc.stderr, proc.stderr
