"""Graph overhead per round and image payload per stage (issue 4).

Runs the real round graph (three stage loops, trajectory recording, image store) with an
instant scripted model, so what is timed is LangGraph, the stage loop, message building,
base64 image encoding and trajectory writes -- no model latency. Tool work is timed apart.
Needs no LibreOffice: the "render" is the reference image itself (a perfect candidate).

    .venv/bin/python bench/graph_bench.py [--rounds 30]

Image payload: bytes of each image sent (PNG, base64 in the request) and the image tiles as
OpenAI counts them for ``detail: high`` (fit in 2048x2048, shortest side scaled to 768, 512 px
tiles; tokens = 85 + 170 x tiles).
"""

from __future__ import annotations

import argparse
import base64
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
from langchain_core.messages import AIMessage

from judge.backends.replay import ReplayChatModel
from judge.engine.agent import SUBMIT_TOOL, png_bytes
from judge.engine.graph import CaseRuntime, make_context, run_round
from judge.render.prepare import prepare_pair
from judge.rundir import CaseDir
from judge.schema import Candidate, Policy, StageName, Usage
from judge.tools import TOOLS
from taxonomy.loader import load_taxonomy, taxonomy_hash

ROOT = Path(__file__).resolve().parent.parent
TASK = ROOT / "fixtures" / "bench" / "tasks" / "s7-flow00" / "reference.png"
DECK = ROOT / "fixtures" / "bench" / "candidates" / "agent-careful" / "s7-flow00.pptx"
TILE_PX = 512
FIT_PX = 2048
SHORT_SIDE_PX = 768
BASE_TOKENS, TILE_TOKENS = 85, 170


def tiles(width: int, height: int) -> int:
    """Image tiles of a ``detail: high`` image, as OpenAI documents the count."""
    s = min(1.0, FIT_PX / max(width, height))
    w, h = width * s, height * s
    s2 = min(1.0, SHORT_SIDE_PX / min(w, h))
    w, h = w * s2, h * s2
    return math.ceil(w / TILE_PX) * math.ceil(h / TILE_PX)


class InstantBackend:
    """Answers every stage at once: optionally one tool call, then the verdict."""

    name = "instant"
    deterministic = False

    def __init__(self, with_tool: bool) -> None:
        self.with_tool = with_tool

    def chat_model(self, ctx, stage: StageName, round_index: int, case_id: str = ""):
        verdict: dict[str, Any] = (
            {"findings": [], "fractions": []} if stage == "detail" else {"passed": True}
        )
        turns = []
        if self.with_tool:
            crop = {"image": "candidate", "x": 300, "y": 300, "w": 400, "h": 300}
            turns.append(
                AIMessage(
                    content="",
                    tool_calls=[
                        {"name": "crop", "args": crop, "id": f"{stage}-1", "type": "tool_call"}
                    ],
                )
            )
        turns.append(
            AIMessage(
                content="",
                tool_calls=[
                    {"name": SUBMIT_TOOL, "args": verdict, "id": f"{stage}-2", "type": "tool_call"}
                ],
            )
        )
        return ReplayChatModel(turns=turns, stage=stage)

    def cache_params(self):
        return None

    def cost(self, usage: Usage):
        return 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    tax = load_taxonomy()
    with tempfile.TemporaryDirectory() as tmp:
        cd = CaseDir(Path(tmp) / "case")
        cd.root.mkdir(parents=True)
        render = cd.render_png
        render.write_bytes(TASK.read_bytes())
        pair = prepare_pair(TASK, render, cd.pair_png)
        cand = Candidate(
            case_id="c/t", task_id="t", config_id="c", pptx=str(DECK), reference=str(TASK)
        )
        ctx = make_context(cand, cd, pair)

        def runtime(with_tool: bool) -> CaseRuntime:
            rt = CaseRuntime(
                candidate=cand,
                case_dir=cd,
                backend=InstantBackend(with_tool),
                taxonomy=tax,
                taxonomy_hash=taxonomy_hash(tax),
                policy=Policy(),
                tools=TOOLS,
            )
            rt.ctx = ctx
            return rt

        for label, with_tool in (("submit only", False), ("one crop per stage", True)):
            rt = runtime(with_tool)
            run_round(rt, 0)  # warm-up: graph compilation, tool binding, image cache
            times = []
            for k in range(args.rounds):
                t0 = time.perf_counter()
                res = run_round(rt, k)
                times.append(time.perf_counter() - t0)
                assert res.status == "pass", res.error
            print(
                f"round, {label}: median {statistics.median(times) * 1000:.1f} ms, "
                f"p90 {sorted(times)[int(0.9 * len(times))] * 1000:.1f} ms over {args.rounds}"
            )
        crop_args = {"image": "candidate", "x": 300, "y": 300, "w": 400, "h": 300}
        t0 = time.perf_counter()
        n = 20
        for _ in range(n):
            out = TOOLS["crop"].call(ctx, crop_args)
            png_bytes(out.images[0])
        tool_ms = (time.perf_counter() - t0) / n * 1000
        print(
            f"crop tool work (call + PNG encode): {tool_ms:.1f} ms per call, "
            f"x3 stages = {3 * tool_ms:.1f} ms per round"
        )

        print("\nimage payload per stage (detail: high)")
        pair_png = cd.pair_png.read_bytes()
        pair_img: Any = cv2.imread(str(cd.pair_png))
        h, w = pair_img.shape[:2]
        t = tiles(w, h)
        b64 = len(base64.b64encode(pair_png))
        print(
            f"  pair {w}x{h}: {len(pair_png) / 1024:.0f} KiB PNG, {b64 / 1024:.0f} KiB base64, "
            f"{t} tiles = {BASE_TOKENS + TILE_TOKENS * t} tokens (sent once per stage, "
            f"x3 per round = {3 * (BASE_TOKENS + TILE_TOKENS * t)} tokens)"
        )
        for name, a in (
            ("crop", crop_args),
            ("compare_crops", {"x": 300, "y": 300, "w": 400, "h": 300}),
        ):
            img = TOOLS[name].call(ctx, a).images[0]
            data = png_bytes(img)
            t = tiles(img.shape[1], img.shape[0])
            print(
                f"  {name} {img.shape[1]}x{img.shape[0]}: {len(data) / 1024:.0f} KiB PNG, "
                f"{t} tiles = {BASE_TOKENS + TILE_TOKENS * t} tokens (on demand)"
            )


if __name__ == "__main__":
    main()
