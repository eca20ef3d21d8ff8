"""Labels store and page speed: how long a label takes to be durably saved, alone and with a
second annotator writing at the same time, and (given a run) how fast the page's API answers.

    .venv/bin/python bench/labelling_bench.py [RUN]

Prints: save latency (median, p95) of N labels written one by one (each its own committed
transaction, WAL, synchronous=FULL); the same with two processes writing at once; with RUN
(a `judge run` folder), the median time of /api/state, /api/cases/<id> and the pair image.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from judge.schema import HumanLabel
from scoring.labelling.store import LabelStore

N = 200
WRITER = textwrap.dedent(
    """
    import sys, time
    from judge.schema import HumanLabel
    from scoring.labelling.store import LabelStore
    store = LabelStore(sys.argv[1])
    lat = []
    for i in range(int(sys.argv[3])):
        t = time.perf_counter()
        store.save(sys.argv[2], f"cfg/t{i}", HumanLabel(gate="pass", subtypes={"node_fill": 0.1}))
        lat.append(time.perf_counter() - t)
    lat.sort()
    print(lat[len(lat) // 2], lat[int(len(lat) * 0.95)])
    """
)


def _ms(x: float) -> str:
    return f"{1000 * x:.2f} ms"


def store_alone(folder: Path) -> None:
    store = LabelStore(folder / "alone.sqlite")
    lat = []
    for i in range(N):
        t = time.perf_counter()
        store.save("alice", f"cfg/t{i}", HumanLabel(gate="fail", gate_reason="edge 1 -> 2"))
        lat.append(time.perf_counter() - t)
    lat.sort()
    print(f"save, one writer: {N} labels, median {_ms(statistics.median(lat))}, "
          f"p95 {_ms(lat[int(N * 0.95)])}")  # fmt: skip


def store_two_writers(folder: Path) -> None:
    db = folder / "two.sqlite"
    LabelStore(db)
    t = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), name, str(N)], stdout=subprocess.PIPE, text=True
        )
        for name in ("alice", "bob")
    ]
    outs = [p.communicate(timeout=600)[0].split() for p in procs]
    wall = time.perf_counter() - t
    rows = len(LabelStore(db).labels())
    for name, (med, p95) in zip(("alice", "bob"), outs, strict=True):
        print(
            f"save, two writers at once ({name}): median {_ms(float(med))}, p95 {_ms(float(p95))}"
        )
    print(f"two writers: {rows} of {2 * N} labels stored, {wall:.1f} s wall (with process start)")


def page_api(run: Path, folder: Path) -> None:
    from scoring.labelling.server import LabelPage, load_run_taxonomy
    from scoring.labelling.study import open_study

    copy = folder / "run"
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns("labelling"))
    page = LabelPage(open_study(copy, "bench"), load_run_taxonomy(copy))
    oid = page.study.order[0]
    for path in ("/api/state", f"/api/cases/{oid}", f"/api/cases/{oid}/pair.png"):
        times = []
        for _ in range(20):
            t = time.perf_counter()
            reply = page.respond("GET", path, b"")
            times.append(time.perf_counter() - t)
            assert reply.status == 200, (path, reply.body[:200])
        print(f"GET {path.replace(oid, '<id>')}: median {_ms(statistics.median(times))} "
              f"({len(reply.body)} bytes)")  # fmt: skip


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store_alone(folder)
        store_two_writers(folder)
        if len(sys.argv) > 1:
            page_api(Path(sys.argv[1]), folder)


if __name__ == "__main__":
    main()
