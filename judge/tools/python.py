"""``run_python``: the model judge writes its own measurement script (opt-in: --judge-sandbox).

The PPTBench judge crops, segments colours and measures with scripts it writes itself. This tool
runs such a script in :class:`judge.sandbox.Sandbox` (no network, an unprivileged uid, CPU, wall,
memory, file and process limits). Each call starts in a fresh folder that shows the case's
``reference.png``, ``render.png`` (the candidate's render) and ``pair.png`` (the normalised pair)
read-only; OpenCV (``cv2``), numpy and Pillow are importable. Every call counts in the stage's
tool budget like any other tool. It is not in :data:`judge.tools.TOOLS`: the runner adds it to a
run's tools only when asked (:func:`judge_tools`).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from judge.sandbox import Sandbox, SandboxLimits, available
from judge.tools.base import Tool, ToolContext, ToolOutput, ToolUsageError

JUDGE_SANDBOX_LIMITS = SandboxLimits(wall_s=30.0, cpu_s=30, output_chars=4000)
"""Limits of one judge script: a measurement takes seconds, not minutes."""


def run_python(ctx: ToolContext, code: str) -> ToolOutput:
    """Run your own Python measurement script; returns exit_code, stdout and stderr.

    The current folder holds read-only reference.png (the reference, full resolution),
    render.png (the candidate's render, full resolution) and pair.png (the normalised pair:
    reference panel left, candidate panel right, 1200x900 each, 4 px apart). cv2 (OpenCV),
    numpy and PIL are importable. Print what you measured. No network; each call starts fresh
    (files you write do not persist); limits on time, memory and processes.
    """
    if not code.strip():
        raise ToolUsageError("run_python needs code: a non-empty program")
    reason = available()
    if reason is not None:
        raise ToolUsageError(f"run_python is not available here: {reason}")
    root = Path(tempfile.mkdtemp(prefix="pptjudge-judge-py-"))
    try:
        # read-only copies, world-readable (run files are written 0600), bound over the folder
        inputs = root / "inputs"
        inputs.mkdir()
        copies: dict[str, Path] = {}
        for name, src in (
            ("reference.png", ctx.reference_png),
            ("render.png", ctx.render_png),
            ("pair.png", ctx.pair_png),
        ):
            if Path(src).is_file():
                copies[name] = inputs / name
                shutil.copyfile(src, copies[name])
                copies[name].chmod(0o444)
        folder = root / "work"
        folder.mkdir()
        out = Sandbox(folder, JUDGE_SANDBOX_LIMITS, read_only=copies).run(code)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    result: dict[str, object] = {
        "exit_code": out.exit_code,
        "stdout": out.stdout,
        "stderr": out.stderr,
    }
    if out.violation:
        result["killed"] = f"the sandbox stopped the script: {out.violation}"
    return ToolOutput(result)


RUN_PYTHON = Tool.from_function(run_python)


def judge_tools(base: dict[str, Tool], sandbox: bool) -> dict[str, Tool]:
    """The run's tools: ``base``, plus ``run_python`` when the judge sandbox is on."""
    if not sandbox:
        return base
    return {**base, RUN_PYTHON.name: RUN_PYTHON}
