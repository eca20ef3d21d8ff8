"""run_python for the model judge (judge/tools/python.py): a scripted openai judge turn runs its
own OpenCV script on the pair image in the sandbox and reads its printed measurement back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from judge.backends import BackendSettings
from judge.backends.openai import OpenAIBackend
from judge.engine.agent import TOOL_BUDGET_SPENT, Budgets
from judge.engine.graph import CaseRuntime, run_round
from judge.rundir import CaseDir
from judge.sandbox import available
from judge.schema import Candidate, Policy
from judge.tools import TOOLS
from judge.tools.python import judge_tools
from taxonomy.loader import load_taxonomy, taxonomy_hash
from tests.fake_openai import Reply, call, serve, stage_of, submit, turn_of
from tests.judge_helpers import detail_args, make_context

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no sandbox: {available()}")
TAX = load_taxonomy()
SCRIPT = (
    "import cv2, numpy as np\n"
    "img = cv2.imread('pair.png')\n"
    "left = img[:, :1200]\n"
    "dark = int((cv2.cvtColor(left, cv2.COLOR_BGR2GRAY) < 128).sum())\n"
    "print(img.shape[1], img.shape[0], dark)\n"
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return make_context(tmp_path_factory.mktemp("judge-py"))


def runtime(ctx: Any, tmp_path: Path, base_url: str, max_tool_calls: int = 16) -> CaseRuntime:
    backend = OpenAIBackend(
        BackendSettings(model="fake-vision", base_url=base_url, api_key="k", retries=0)
    )
    rt = CaseRuntime(
        candidate=Candidate(
            case_id="cfg/flow",
            task_id="flow",
            config_id="cfg",
            pptx=str(ctx.pptx),
            reference=str(ctx.reference_png),
        ),
        case_dir=CaseDir(tmp_path / "case"),
        backend=backend,
        taxonomy=TAX,
        taxonomy_hash=taxonomy_hash(TAX),
        policy=Policy(),
        tools=judge_tools(TOOLS, sandbox=True),
        budgets=Budgets(max_idle_turns=1, max_tool_calls=max_tool_calls),
    )
    rt.ctx = ctx
    return rt


def measuring(calls: int) -> Any:
    def respond(request: dict[str, Any]) -> Reply:
        stage, turn = stage_of(request), turn_of(request)
        if stage == "semantic" and turn == 0:
            return Reply(tool_calls=[call("run_python", {"code": SCRIPT})] * calls)
        if stage == "detail":
            return submit(detail_args(TAX))
        return submit({"passed": True})

    return respond


def test_scripted_judge_turn_gets_its_opencv_measurement_back(ctx: Any, tmp_path: Path) -> None:
    with serve(measuring(1)) as fake:
        result = run_round(runtime(ctx, tmp_path, fake.base_url), 0)
    assert result.status == "pass"
    offered = [t["function"]["name"] for t in fake.requests[0]["tools"]]
    assert "run_python" in offered
    tool_msg = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    out = json.loads(tool_msg["content"])
    assert out["exit_code"] == 0, out["stderr"]
    pair = cv2.imread(str(ctx.pair_png))
    assert pair is not None
    dark = int((cv2.cvtColor(pair[:, :1200], cv2.COLOR_BGR2GRAY) < 128).sum())
    assert out["stdout"].split() == [str(pair.shape[1]), str(pair.shape[0]), str(dark)]
    assert dark > 0 and np.isfinite(dark)


def test_run_python_counts_in_the_tool_budget(ctx: Any, tmp_path: Path) -> None:
    with serve(measuring(2)) as fake:
        run_round(runtime(ctx, tmp_path, fake.base_url, max_tool_calls=1), 0)
    tool_msgs = [m for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert json.loads(tool_msgs[0]["content"])["exit_code"] == 0
    assert json.loads(tool_msgs[1]["content"])["error"].startswith(TOOL_BUDGET_SPENT)


def test_judge_script_cannot_change_the_case_images(ctx: Any, tmp_path: Path) -> None:
    from judge.tools.python import RUN_PYTHON

    before = Path(ctx.pair_png).read_bytes()
    out = RUN_PYTHON.call(ctx, {"code": "open('pair.png', 'wb').write(b'x')\n"})
    assert out.data["exit_code"] != 0 and "Read-only file system" in str(out.data["stderr"])
    assert Path(ctx.pair_png).read_bytes() == before
    assert "run_python" not in judge_tools(TOOLS, sandbox=False)


@pytest.mark.slow
def test_judge_run_with_judge_sandbox_records_scripts_that_replay_reproduces(
    judge_bench: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    bench = tmp_path / "bench"
    shutil.copytree(judge_bench, bench)
    for name in ("empty", "swapped"):
        shutil.rmtree(bench / "candidates" / name)
    run = tmp_path / "run"
    with serve(measuring(1)) as fake:
        res = CliRunner().invoke(
            app,
            [
                "run", str(bench), "--out", str(run), "--rounds", "1", "--judge", "openai",
                "--model", "fake", "--base-url", fake.base_url, "--api-key", "k",
                "--judge-sandbox",
            ],
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["settings"]["judge_sandbox"] is True
    case = run / "cases" / "good" / "flow"
    events = [json.loads(x) for x in (case / "rounds" / "round-0.trajectory.jsonl").open()]
    (result,) = [e for e in events if e["kind"] == "tool_result" and e["tool_name"] == "run_python"]
    assert result["result"]["exit_code"] == 0 and result["result"]["stdout"].startswith("2404 900")
    again = CliRunner().invoke(app, ["replay", str(case)])
    assert again.exit_code == 0 and "reproduced" in again.output, again.output
