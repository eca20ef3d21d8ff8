"""The generation agent (generation/agent.py) against the fake OpenAI server on 127.0.0.1.

Scripted model turns write real python-pptx code that runs in the real sandbox; render() uses
the real LibreOffice pool.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from generation.agent import GenerateSettings, run_generation
from generation.records import generation_cost, generation_paths, read_record
from judge.engine.trajectory import read_trajectory
from judge.render.pool import RenderPool
from judge.sandbox import SandboxLimits, available
from judge.schema import GenerationPrices, GenerationTokens
from tests.fake_openai import Reply, by_turn, serve
from tests.gen_helpers import DECK_CODE, connected, make_tasks, per_task, run_python, tool

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no sandbox: {available()}")

FAST = SandboxLimits(
    wall_s=8.0, cpu_s=1, memory_bytes=700 * 1024**2, file_bytes=8 * 1024**2, processes=24
)
"""Fast limits; the wall clock leaves room for a loaded machine (the fork bomb waits for it)."""
PRICES = GenerationPrices(input=2.0, output=8.0, cached_input=0.5)


def settings(url: str, **kw: object) -> GenerateSettings:
    base: dict[str, object] = {
        "config_id": "cfgA",
        "model": "fake-model",
        "base_url": url,
        "api_key": "k",
        "concurrency": 1,
        "prices": PRICES,
        "limits": FAST,
        "retries": 0,
    }
    base.update(kw)
    return GenerateSettings(**base)  # type: ignore[arg-type]


def test_cost_bills_cached_input_at_its_rate_and_reasoning_as_output() -> None:
    tokens = GenerationTokens(input=10_000, cached_input=4_000, output=2_000, reasoning=500)
    # 6000 uncached x $2 + 4000 cached x $0.5 + 2000 output (reasoning inside) x $8, per 1M
    assert generation_cost(tokens, PRICES) == pytest.approx((12_000 + 2_000 + 16_000) / 1e6)
    assert generation_cost(tokens, GenerationPrices(input=2.0, output=8.0)) == pytest.approx(
        (20_000 + 16_000) / 1e6
    )
    assert generation_cost(tokens, GenerationPrices()) is None


@pytest.mark.slow
def test_scripted_agent_writes_a_candidate_its_record_and_trajectory(
    tmp_path: Path, render_pool: RenderPool
) -> None:
    bench = make_tasks(tmp_path)
    (task,) = [p.name for p in (bench / "tasks").iterdir()]
    script = [
        run_python(DECK_CODE, prompt_tokens=1000, completion_tokens=300, reasoning_tokens=100),
        tool("render", prompt_tokens=1500, completion_tokens=20, cached_tokens=1000),
        tool("view_reference", {"x": 10, "y": 20, "w": 100, "h": 50}),
        run_python("print('looking only')"),
        tool("submit"),
    ]
    with serve(by_turn(script)) as fake:
        summary = run_generation(
            bench, settings(fake.base_url, effort="high"), render_pool=render_pool
        )
    (rec,) = summary.records
    assert rec.status == "submitted", rec.reason
    assert (rec.reviews, rec.revisions, rec.run_python_calls, rec.turns) == (1, 1, 2, 5)
    assert rec.sandbox_failures == 0
    assert rec.effort == "high"
    assert all(r["reasoning_effort"] == "high" for r in fake.requests)
    # 5 answers: 1000 + 1500 + 3 x 1000 prompt tokens (1000 cached), 300 + 20 + 3 x 50 output
    assert rec.tokens == GenerationTokens(input=5500, cached_input=1000, output=470, reasoning=100)
    assert rec.cost_usd == pytest.approx((4500 * 2.0 + 1000 * 0.5 + 470 * 8.0) / 1e6)
    paths = generation_paths(bench, "cfgA", task)
    assert paths.candidate.is_file() and rec.candidate == "candidates/cfgA/" + f"{task}.pptx"
    assert paths.program.read_text() == DECK_CODE
    assert read_record(paths.record) == rec
    events = read_trajectory(paths.trajectory)
    results = {e.tool_name: e for e in events if e.kind == "tool_result"}
    assert results["render"].result == {"valid": True, "failed_checks": [], "images_attached": 1}
    assert (paths.images / f"{results['render'].images[0]}.png").is_file()
    # the render image reached the model in a user message after the tool message
    after_render = fake.requests[2]["messages"]
    assert after_render[-1]["role"] == "user"
    assert after_render[-1]["content"][1]["type"] == "image_url"
    assert not paths.work.exists()


def test_hostile_programs_are_stopped_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    bench = make_tasks(tmp_path, n_tasks=2)
    first, other = sorted(p.name for p in (bench / "tasks").iterdir())
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    outside = tmp_path / "escaped.txt"
    other_ref = bench / "tasks" / other / "reference.png"
    hostile = {
        "endless loop": "while True:\n    pass\n",
        # blocks bigger than the limit: zeroing many small ones costs CPU time, and on a loaded
        # machine the 1 s CPU limit came first
        "memory hog": "b = []\nwhile True:\n    b.append(bytearray(1024**3))\n",
        "fork bomb": "import os\nwhile True:\n    os.fork()\n",
        "connection": f"import socket\nsocket.create_connection(('127.0.0.1', {port}), 2)\n",
        "write outside": f"open({str(outside)!r}, 'w').write('x')\n",
        "read outside": f"print(open({str(other_ref)!r}, 'rb').read()[:8])\n",
        "10 GB file": "f = open('big', 'wb')\nf.seek(10 * 1024**3)\nf.write(b'x')\nf.close()\n",
    }
    script = [run_python(code) for code in hostile.values()]
    script += [run_python(DECK_CODE), tool("submit")]
    done = [run_python(DECK_CODE), tool("submit")]
    with serve(per_task(bench, {first: script, other: done})) as fake:
        summary = run_generation(bench, settings(fake.base_url))
    reached = connected(server)
    server.close()
    rec, rec_other = summary.records
    assert rec.task_id == first
    assert rec.status == "submitted"
    assert rec.sandbox_failures == len(hostile)
    joined = " | ".join(rec.violations)
    for limit in ("memory limit", "process limit", "file-size limit"):
        assert limit in joined
    assert not reached and not outside.exists()
    results = [
        e.result
        for e in read_trajectory(bench / rec.trajectory)
        if e.kind == "tool_result" and isinstance(e.result, dict)
    ]
    by_name = dict(zip(hostile, results, strict=False))
    # CPU or wall-clock, whichever the loaded machine reaches first
    assert "limit" in str(by_name["endless loop"]["killed"])
    assert "killed" in by_name["fork bomb"]
    assert "ConnectionRefusedError" in str(by_name["connection"]["stderr"])
    assert "No such file or directory" in str(by_name["write outside"]["stderr"])
    assert "No such file or directory" in str(by_name["read outside"]["stderr"])
    assert (bench / "candidates" / "cfgA" / f"{first}.pptx").is_file()
    assert rec_other.status == "submitted" and rec_other.sandbox_failures == 0


def test_failing_episodes_are_recorded_with_their_reason_and_the_batch_goes_on(
    tmp_path: Path,
) -> None:
    bench = make_tasks(tmp_path, n_tasks=5)
    ids = sorted(p.name for p in (bench / "tasks").iterdir())
    broken = run_python("raise SystemExit(3)")
    scripts = {
        ids[0]: [broken, broken, broken, tool("submit")],  # repeats the same failing call
        ids[1]: [Reply(content="I am done."), Reply(content="Really."), Reply(content="Bye.")],
        ids[2]: [run_python("print(1)"), run_python("print(2)"), run_python("print(3)")],
        ids[3]: [tool("submit")],  # submits nothing
        ids[4]: [run_python(DECK_CODE)],  # then the endpoint fails (script exhausted: HTTP 400)
    }
    with serve(per_task(bench, scripts)) as fake:
        summary = run_generation(bench, settings(fake.base_url, max_turns=3))
        port = fake.server.server_address[1]
    status = {r.task_id: r.status for r in summary.records}
    assert status == {
        ids[0]: "repeated_failure",
        ids[1]: "no_submit",
        ids[2]: "max_turns",
        ids[3]: "no_deck",
        ids[4]: "model_error",
    }
    for rec in summary.records:
        assert rec.reason
        assert rec.candidate is None
        assert not (bench / "candidates" / "cfgA" / f"{rec.task_id}.pptx").exists()
    assert summary.records[0].sandbox_failures == 3
    assert "HTTP 400" in (summary.records[4].reason or "")

    # resume: finished records are reused, the model failure is generated again
    fixed = {ids[4]: [run_python(DECK_CODE), tool("submit")]}
    with serve(per_task(bench, fixed), port) as fake:
        again = run_generation(bench, settings(fake.base_url, max_turns=3))
    assert (again.reused, again.generated) == (4, 1)
    assert {r.task_id: r.status for r in again.records}[ids[4]] == "submitted"
    # the first answer (same conversation, same model) came from the cache
    rec4 = next(r for r in again.records if r.task_id == ids[4])
    assert rec4.cached_calls == 1 and len(fake.requests) == 1


def test_price_file_gives_the_cached_input_rate(tmp_path: Path) -> None:
    from generation.records import load_generation_prices

    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"m": {"input": 2.5, "output": 10, "cached_input": 1.25}}))
    assert load_generation_prices(table, "m") == GenerationPrices(
        input=2.5, output=10.0, cached_input=1.25
    )


def test_keep_work_keeps_the_sandbox_folder(tmp_path: Path) -> None:
    bench = make_tasks(tmp_path)
    with serve(by_turn([run_python(DECK_CODE), tool("submit")])) as fake:
        (rec,) = run_generation(bench, settings(fake.base_url, keep_work=True)).records
    work = generation_paths(bench, "cfgA", rec.task_id).work
    assert sorted(p.name for p in work.iterdir()) == [
        "assets",
        "deck.pptx",
        "program.py",
        "reference.png",
    ]


def test_resume_serves_a_killed_episode_from_the_model_cache(tmp_path: Path) -> None:
    bench = make_tasks(tmp_path)
    script = [run_python(DECK_CODE), tool("submit")]
    with serve(by_turn(script)) as fake:
        first = run_generation(bench, settings(fake.base_url))
        port = fake.server.server_address[1]
    (rec,) = first.records
    generation_paths(bench, "cfgA", rec.task_id).record.unlink()  # as if killed before writing
    with serve(by_turn([]), port) as fake:  # any request would fail
        again = run_generation(bench, settings(fake.base_url))
    (rec2,) = again.records
    assert fake.requests == []
    assert rec2.status == "submitted" and rec2.cached_calls == 2
    assert rec2.tokens == rec.tokens and rec2.cost_usd == rec.cost_usd
    assert json.loads((bench / rec2.trajectory).read_text().splitlines()[0])["stage"] == "generate"


def test_cli_sandbox_limits_reach_the_programs_and_bad_flags_are_refused(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    bench = make_tasks(tmp_path)
    script = [
        run_python("import time\ntime.sleep(30)\n"),
        run_python("x = bytearray(800 * 1024**2)\n"),
        run_python(DECK_CODE),
        tool("submit"),
    ]
    base = ["generate", str(bench), "--config", "cli", "--model", "m", "--api-key", "k"]
    with serve(by_turn(script)) as fake:
        bad = CliRunner().invoke(app, [*base, "--base-url", fake.base_url, "--effort", "max"])
        res = CliRunner().invoke(
            app,
            [
                *base,
                "--base-url",
                fake.base_url,
                "--sandbox-wall",
                "5",
                "--sandbox-memory-mb",
                "600",
            ],
        )
    assert bad.exit_code == 2 and "--effort 'max'" in bad.output
    assert res.exit_code == 0, res.output
    (rec,) = [read_record(p) for p in (bench / "generation" / "cli").glob("*.json")]
    assert rec is not None and rec.status == "submitted"
    assert rec.violations[0].startswith("wall-clock limit (5 s)")
    assert rec.violations[1].startswith("memory limit (600 MB")
