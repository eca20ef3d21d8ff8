"""Helpers for the generation tests: a task set, scripted agent turns, real python-pptx code."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path
from typing import Any

from generation.benchmark import write_benchmark
from tests.fake_openai import Reply, Responder, call, turn_of

DECK_CODE = """
from pptx import Presentation
from pptx.util import Emu
from pptx.enum.shapes import MSO_SHAPE, MSO_CONNECTOR
from PIL import Image

ref = Image.open("reference.png")
w, h = ref.size
prs = Presentation()
prs.slide_width, prs.slide_height = Emu(w * 9525), Emu(h * 9525)
slide = prs.slides.add_slide(prs.slide_layouts[6])
boxes = []
for i, label in enumerate(["Input", "Model", "Output"]):
    x = Emu(int((0.1 + 0.3 * i) * w * 9525))
    box = slide.shapes.add_shape(
        MSO_SHAPE.ROUNDED_RECTANGLE, x, Emu(int(0.4 * h * 9525)),
        Emu(int(0.2 * w * 9525)), Emu(int(0.2 * h * 9525)))
    box.text_frame.text = label
    boxes.append(box)
for a, b in zip(boxes, boxes[1:]):
    line = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
    line.begin_connect(a, 3)
    line.end_connect(b, 1)
prs.save("deck.pptx")
print("shapes", len(slide.shapes))
"""


def make_tasks(root: Path, n_tasks: int = 1, seed: int = 7) -> Path:
    """A benchmark with ``n_tasks`` synthetic references and no candidates yet."""
    bench = root / "bench"
    write_benchmark(bench, seed=seed, n_tasks=n_tasks)
    shutil.rmtree(bench / "candidates")
    (bench / "candidates").mkdir()
    return bench


def run_python(code: str, **usage: Any) -> Reply:
    return Reply(tool_calls=[call("run_python", {"code": code})], **usage)


def tool(name: str, args: dict[str, object] | None = None, **usage: Any) -> Reply:
    return Reply(tool_calls=[call(name, args or {})], **usage)


def per_task(bench: Path, scripts: dict[str, list[Reply]]) -> Responder:
    """Answer each task's conversation from its own script: the task is recognised by its
    reference image (the data URL of the first user message), the turn by the assistant count."""
    import base64

    by_url = {
        "data:image/png;base64,"
        + base64.b64encode((bench / "tasks" / tid / "reference.png").read_bytes()).decode(): tid
        for tid in scripts
    }

    def respond(request: dict[str, Any]) -> Reply:
        first = next(m for m in request["messages"] if m["role"] == "user")
        url = next(b["image_url"]["url"] for b in first["content"] if b["type"] == "image_url")
        script = scripts[by_url[url]]
        n = turn_of(request)
        return script[n] if n < len(script) else Reply(status=400, content="script exhausted")

    return respond


def connected(server: socket.socket) -> bool:
    """True when a connection reached ``server`` (the kernel queues it even before accept)."""
    server.setblocking(False)
    try:
        server.accept()[0].close()
    except BlockingIOError:
        return False
    return True
