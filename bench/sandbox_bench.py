"""Sandbox overhead: milliseconds per ``run_python`` call, sandboxed vs a plain subprocess.

Prints the median wall time over N runs of three programs (``pass``; importing python-pptx and
Pillow, what a generation program starts with; importing OpenCV and numpy, what a judge script
starts with), each in :class:`judge.sandbox.Sandbox` (bubblewrap + prlimit + setpriv) and as a
plain ``python -c`` subprocess of the same interpreter; the difference is the sandbox's cost.
Needs root and the bubblewrap Debian package.

Example: .venv/bin/python bench/sandbox_bench.py --runs 10
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAMS = {
    "pass": "pass\n",
    "import pptx, PIL": "import pptx, PIL.Image\n",
    "import cv2, numpy": "import cv2, numpy\n",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()

    from judge.sandbox import Sandbox, available

    reason = available()
    if reason is not None:
        print(f"no sandbox here: {reason}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        box = Sandbox(Path(tmp))
        print(f"{'program':20s} {'sandbox ms':>11s} {'plain ms':>9s} {'overhead ms':>12s}")
        for name, code in PROGRAMS.items():
            boxed, plain = [], []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                out = box.run(code)
                boxed.append(time.perf_counter() - t0)
                if out.exit_code != 0:
                    print(f"{name}: failed in the sandbox: {out.stderr[-300:]}")
                    return 1
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-c", code], check=True)
                plain.append(time.perf_counter() - t0)
            b, p = statistics.median(boxed) * 1000, statistics.median(plain) * 1000
            print(f"{name:20s} {b:11.0f} {p:9.0f} {b - p:12.0f}")
    print(f"(median of {args.runs} runs each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
