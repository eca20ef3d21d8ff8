"""The static HTML report, loaded in real headless Chromium."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw
from typer.testing import CliRunner

from cli.app import app
from judge.rundir import case_dir, write_model
from judge.schema import (
    Box,
    DetailVerdict,
    Finding,
    FindingPenalty,
    GateReason,
    GateVerdict,
    MergedFinding,
    Observation,
    PairGeometry,
    PanelMapping,
    RoundResult,
    ScoreBreakdown,
    TrajectoryEvent,
    Usage,
)
from scoring.report import case_slug, write_report

CHROMIUM = "/usr/bin/chromium"
EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'
PANEL_W, PANEL_H, GAP = 1200, 900, 4

runner = CliRunner()


def _pair_png() -> bytes:
    im = Image.new("RGB", (2 * PANEL_W + GAP, PANEL_H), "white")
    d = ImageDraw.Draw(im)
    for left in (0, PANEL_W + GAP):
        d.rectangle([left + 150, 300, left + 450, 500], outline="black", width=6)
        d.rectangle([left + 750, 300, left + 1050, 500], outline="black", width=6)
        d.line([left + 450, 400, left + 750, 400], fill="black", width=6)
        d.polygon([(left + 750, 400), (left + 720, 385), (left + 720, 415)], fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def _crop_png() -> tuple[str, bytes]:
    im = Image.new("RGB", (200, 120), (230, 240, 255))
    ImageDraw.Draw(im).rectangle([20, 20, 180, 100], outline=(200, 0, 0), width=5)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    data = buf.getvalue()
    return hashlib.sha256(data).hexdigest(), data


def _geometry() -> PairGeometry:
    def mapping(left: int) -> PanelMapping:
        return PanelMapping(
            image_width=1600,
            image_height=1200,
            crop_box=Box(x=0, y=0, w=1600, h=1200),
            background_rgb=(255, 255, 255),
            scale=0.75,
            offset_x=0,
            offset_y=0,
            panel_left=left,
        )

    return PairGeometry(
        panel_width=PANEL_W,
        panel_height=PANEL_H,
        gap=GAP,
        reference=mapping(0),
        candidate=mapping(PANEL_W + GAP),
        reference_image="reference.png",
        candidate_image="render.png",
        pair_image="pair.png",
    )


def _build_run(kit, root: Path) -> Path:
    sha, crop = _crop_png()
    bbox = Box(x=150, y=300, w=300, h=200)
    typo = MergedFinding(
        dimension="text",
        category="labels",
        subtype="typo",
        fraction=0.5,
        support=[0, 2],
        observations=[
            Observation(
                round_index=0,
                location='node "Encoder"',
                description=EVIL,
                affected_count=1,
                fraction=0.5,
                bbox=bbox,
            ),
            Observation(
                round_index=2,
                location='node "Encoder"',
                description="label reads Encodr",
                affected_count=1,
                fraction=0.5,
                bbox=bbox,
            ),
        ],
    )
    cases = [
        kit.case(
            "alpha",
            "t1",
            dims=(35.0, 20.0, 30.0),
            findings=[typo],
            breakdown=ScoreBreakdown(
                score=85,
                layout=35,
                text=20,
                graphics=30,
                penalties=[
                    FindingPenalty(
                        dimension="text",
                        category="labels",
                        subtype="typo",
                        tier="medium",
                        base=10,
                        fraction=0.5,
                        multiplier=1.0,
                        penalty=10.0,
                    )
                ],
            ),
            usage=Usage(cost_usd=0.01),
        ),
        kit.case("alpha", "t2", gate="semantic"),
        kit.case("beta", "t1", dims=(20.0, 25.0, 20.0)),
        kit.case("beta", "t2", gate="artifact"),
        kit.case("beta", "t3", gate=None),
        kit.case("alpha", "t3", dims=(40.0, 30.0, 30.0)),
    ]
    run = kit.write(root, cases)
    for c in cases:
        if c.valid and c.gate is not None:
            folder = case_dir(run, c.config_id, c.task_id)
            folder.root.mkdir(parents=True, exist_ok=True)
            folder.pair_png.write_bytes(_pair_png())
            write_model(folder.pair_json, _geometry())
    # Rich rounds for alpha/t1 and alpha/t2.
    f1 = case_dir(run, "alpha", "t1")
    f1.images_dir.mkdir(parents=True, exist_ok=True)
    (f1.images_dir / f"{sha}.png").write_bytes(crop)
    for k in range(3):
        detail = DetailVerdict(
            findings=[
                Finding(
                    dimension="text",
                    category="labels",
                    subtype="typo",
                    location='node "Encoder"',
                    description=EVIL,
                    bbox=bbox,
                )
            ]
        )
        write_model(
            f1.round_json(k),
            RoundResult(
                case_id="alpha/t1",
                round_index=k,
                status="pass",
                semantic=GateVerdict(passed=True),
                render=GateVerdict(passed=True, measurements={"overflowing_text_fraction": 0.1}),
                detail=detail,
                backend="builtin",
            ),
        )
        events = [
            TrajectoryEvent(seq=0, stage="semantic", kind="message", role="user", content=EVIL),
            TrajectoryEvent(
                seq=1,
                stage="detail",
                kind="tool_call",
                tool_name="crop",
                tool_call_id="c1",
                arguments={"panel": "candidate", "x": 150, "y": 300, "w": 300, "h": 200},
            ),
            TrajectoryEvent(
                seq=2,
                stage="detail",
                kind="tool_result",
                tool_name="crop",
                tool_call_id="c1",
                result={"ok": True, "text": EVIL},
                images=[sha, "../../../../etc/passwd"],
            ),
            TrajectoryEvent(
                seq=3,
                stage="detail",
                kind="submit",
                tool_name="submit_verdict",
                arguments=detail.model_dump(),
            ),
        ]
        f1.trajectory(k).write_text(
            "".join(e.model_dump_json() + "\n" for e in events), encoding="utf-8"
        )
    f2 = case_dir(run, "alpha", "t2")
    write_model(
        f2.round_json(1),
        RoundResult(
            case_id="alpha/t2",
            round_index=1,
            status="semantic",
            semantic=GateVerdict(
                passed=False,
                reasons=[
                    GateReason(target='edge "A" -> "B"', evidence="arrowhead reversed " + EVIL)
                ],
            ),
            backend="builtin",
        ),
    )
    f2.trajectory(1).write_text("this is not json\n", encoding="utf-8")
    return run


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from conftest import RunKit

    root = tmp_path_factory.mktemp("report")
    run = _build_run(RunKit(), root / "run")
    index = write_report(run, root / "out", n_resamples=300)
    return run, index


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.scripts = 0
        self.handlers: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append(f"{tag} {name}={value}")
            if name in ("src", "href") and value:
                self.refs.append(value)


def _refs(page: Path) -> _Refs:
    p = _Refs()
    p.feed(page.read_text(encoding="utf-8"))
    return p


def _chromium(page: Path, shot: Path, tmp: Path) -> str:
    """Load a page in headless Chromium, take a screenshot, return its log (stderr)."""
    profile = tmp / f"profile-{shot.stem}"
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            "--window-size=1400,1800",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stderr


CONSOLE_LINE = re.compile(r"CONSOLE[:(]")


def _assert_renders_cleanly(page: Path, tmp: Path) -> Path:
    shot = tmp / f"{page.parent.name}.png"
    log = _chromium(page, shot, tmp)
    console = [line for line in log.splitlines() if CONSOLE_LINE.search(line)]
    assert console == [], console
    with Image.open(shot) as im:
        arr = np.asarray(im.convert("L"), dtype=np.float64)
    assert arr.std() > 20  # not a blank page
    assert (arr < 128).mean() > 0.01  # some dark text or lines drawn
    return shot


needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed")


@needs_chromium
def test_console_check_catches_a_script_error(tmp_path):
    bad = tmp_path / "bad" / "index.html"
    bad.parent.mkdir()
    bad.write_text("<!doctype html><p>x</p><script>nope();</script>", encoding="utf-8")
    log = _chromium(bad, tmp_path / "bad.png", tmp_path)
    assert any(CONSOLE_LINE.search(line) for line in log.splitlines())


@needs_chromium
def test_index_renders_in_chromium_without_console_errors(report, tmp_path):
    _, index = report
    shot = _assert_renders_cleanly(index, tmp_path)
    shutil.copy(shot, index.parent / "index-screenshot.png")


@needs_chromium
def test_case_page_renders_in_chromium_without_console_errors(report, tmp_path):
    _, index = report
    page = index.parent / "cases" / case_slug("alpha/t1") / "index.html"
    shot = _assert_renders_cleanly(page, tmp_path)
    shutil.copy(shot, index.parent / "case-screenshot.png")


def test_every_local_link_and_image_exists_and_nothing_is_external(report):
    _, index = report
    pages = [index, *sorted((index.parent / "cases").glob("*/index.html"))]
    assert len(pages) == 1 + 6
    for page in pages:
        refs = _refs(page)
        assert refs.scripts == 0
        for ref in refs.refs:
            assert not re.match(r"^[a-z]+:", ref), (page, ref)  # no http:, file:, data:, ...
            assert (page.parent / ref).exists(), (page, ref)


def test_untrusted_text_is_escaped(report):
    _, index = report
    for page in [index, *(index.parent / "cases").glob("*/index.html")]:
        refs = _refs(page)
        assert refs.scripts == 0 and refs.handlers == [], page
    t1 = (index.parent / "cases" / case_slug("alpha/t1") / "index.html").read_text("utf-8")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in t1


def test_case_page_shows_pair_boxes_crops_reasons_and_support(report):
    _, index = report
    folder = index.parent / "cases" / case_slug("alpha/t1")
    t1 = (folder / "index.html").read_text("utf-8")
    assert (folder / "pair.png").is_file()
    # the finding box is drawn in the candidate panel: x shifted by panel_left
    assert f'<rect x="{PANEL_W + GAP + 150:.1f}" y="300.0" width="300.0"' in t1
    sha, _ = _crop_png()
    assert f'src="img/{sha}.png"' in t1 and (folder / "img" / f"{sha}.png").is_file()
    assert "missing images" in t1  # the path-like reference is refused, not followed
    assert "overflowing_text_fraction" in t1 and "crop" in t1
    t2 = (index.parent / "cases" / case_slug("alpha/t2") / "index.html").read_text("utf-8")
    assert "arrowhead reversed" in t2 and "semantic gate failed" in t2
    assert "<h2>Gate failures</h2><ul><li>round 1, semantic" in t2
    assert "round-1.trajectory.jsonl:1: not a trajectory event" in t2


def test_index_lists_leaderboard_plots_and_links_every_case(report):
    _, index = report
    text = index.read_text("utf-8")
    assert text.count("<svg") >= 4
    for cid in ("alpha/t1", "alpha/t2", "beta/t1", "beta/t2", "beta/t3", "alpha/t3"):
        assert f'href="cases/{case_slug(cid)}/index.html"' in text
    assert "Adjacent pairs" in text and "typo" in text


def test_case_slugs_are_unique_and_safe():
    a, b = case_slug("cfg/../x"), case_slug("cfg/.._x")
    assert a != b and "/" not in a and not a.startswith(".")


def test_cli_report_writes_index(runkit, tmp_path):
    run = runkit.write(tmp_path / "run", [runkit.case("A", "t1"), runkit.case("B", "t1")])
    res = runner.invoke(
        app, ["report", str(run), "--out", str(tmp_path / "out"), "--resamples", "50"]
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "index.html").is_file()


def test_cli_report_with_labels_adds_agreement_and_rejects_unknown_cases(runkit, tmp_path):
    run = runkit.write(
        tmp_path / "run", [runkit.case("A", "t1"), runkit.case("A", "t2", gate="semantic")]
    )
    labels = tmp_path / "labels.csv"
    labels.write_text("case_id,annotator,gate,subtypes\nA/t1,ann,pass,\nA/t2,ann,pass,\n", "utf-8")
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["report", str(run), "--out", str(out), "--resamples", "50", "--labels", str(labels)]
    )
    assert res.exit_code == 0, res.output
    text = (out / "index.html").read_text("utf-8")
    assert "Agreement with human labels" in text and "1/2 agree" in text
    labels.write_text("case_id,annotator,gate,subtypes\nA/t9,ann,pass,\n", "utf-8")
    res = runner.invoke(app, ["report", str(run), "--out", str(out), "--labels", str(labels)])
    assert res.exit_code == 2 and "labels.csv:2" in res.output


def test_report_with_labels_lists_disagreements_with_the_human_majority_first(runkit, tmp_path):
    run = runkit.write(
        tmp_path / "run",
        [
            runkit.case("A", "t1"),
            runkit.case("A", "t2", gate="semantic"),
            runkit.case("A", "t3"),
            runkit.case("A", "t4"),
        ],
    )
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "case_id,annotator,gate,subtypes,gate_stage,gate_reason,fractions\n"
        "A/t1,ann,pass,node_fill,,,node_fill=0.25\nA/t1,bob,pass,,,,\n"
        "A/t2,ann,fail,,semantic,edge <b>1</b> -> 2,\nA/t2,bob,fail,,,,\n"
        "A/t3,ann,fail,,render,text overflows,\nA/t3,bob,fail,,,,\n"
        "A/t4,ann,pass,,,,\nA/t4,bob,fail,,,,\n",
        "utf-8",
    )
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["report", str(run), "--out", str(out), "--resamples", "50", "--labels", str(labels)]
    )
    assert res.exit_code == 0, res.output
    text = (out / "index.html").read_text("utf-8")
    assert "1 disagreement(s) with the human majority first" in text
    table = text[text.index("<table class=cmp>") :]
    rows = re.findall(r'<tr class="cmp-(\w+)"><td class=l><a href="[^"]*">([^<]+)</a>', table)
    assert rows == [
        ("disagree", "A/t3"),
        ("undecided", "A/t4"),
        ("agree", "A/t1"),
        ("agree", "A/t2"),
    ]
    assert "text overflows" in table and "node_fill (0.25)" in table
    assert "edge &lt;b&gt;1&lt;/b&gt;" in table  # annotators' text is escaped
    assert "pairwise Cohen&#x27;s kappa: ann-bob" in text


FIXTURE_BENCH = Path(__file__).resolve().parent.parent / "fixtures" / "bench"
REAL_TASK = "s7-flow00"
REAL_CONFIGS = ("agent-sloppy", "agent-wrong", "agent-cheat")


@pytest.mark.slow
@needs_chromium
@pytest.mark.skipif(not (FIXTURE_BENCH / "labels.jsonl").is_file(), reason="no fixtures/bench")
def test_study_commands_on_a_real_builtin_run_of_fixtures_bench(render_pool, tmp_path):
    """Judge one task of fixtures/bench for three configurations with the builtin judge (real
    Stage 0, LibreOffice and tools), then run every study command on that run."""
    from judge.engine.runner import RunSettings, run_bench
    from judge.rundir import read_results

    bench = tmp_path / "bench"
    shutil.copytree(FIXTURE_BENCH / "tasks" / REAL_TASK, bench / "tasks" / REAL_TASK)
    for cfg in REAL_CONFIGS:
        (bench / "candidates" / cfg).mkdir(parents=True)
        shutil.copy(
            FIXTURE_BENCH / "candidates" / cfg / f"{REAL_TASK}.pptx", bench / "candidates" / cfg
        )
    run = tmp_path / "run"
    run_bench(bench, run, RunSettings(judge="builtin", early_stop=True), render_pool=render_pool)
    results = {c.case_id: c for c in read_results(run)}
    assert len(results) == 3

    # Labels from the fixture's truth: two annotators follow it, a third flips every gate.
    truth = {}
    for line in (FIXTURE_BENCH / "labels.jsonl").read_text("utf-8").splitlines():
        rec = json.loads(line)
        if rec["case_id"] in results:
            truth[rec["case_id"]] = rec
    rows = ["case_id,annotator,gate,subtypes"]
    for cid, rec in sorted(truth.items()):
        gate = "pass" if rec["gate"] == "pass" else "fail"
        flipped = "fail" if gate == "pass" else "pass"
        subtypes = ";".join(rec["subtypes"])
        rows += [
            f"{cid},a1,{gate},{subtypes}",
            f"{cid},a2,{gate},{subtypes}",
            f"{cid},a3,{flipped},",
        ]
    labels = tmp_path / "labels.csv"
    labels.write_text("\n".join(rows) + "\n", encoding="utf-8")

    res = runner.invoke(app, ["leaderboard", str(run), "--format", "json", "--resamples", "500"])
    assert res.exit_code == 0, res.output
    board = json.loads(res.output)
    by_cfg = {r["config_id"]: r for r in board["rows"]}
    assert set(by_cfg) == set(REAL_CONFIGS)
    assert by_cfg["agent-cheat"]["validity"] == 0.0
    for case in results.values():
        ok = case.gate == "pass"
        assert by_cfg[case.config_id]["gate_pass"] == (1.0 if ok else 0.0)

    res = runner.invoke(app, ["findings", str(run), "--format", "json"])
    assert res.exit_code == 0, res.output
    stages = json.loads(res.output)["stages"]
    assert stages["artifact_cases"] == sum(1 for c in results.values() if c.gate == "artifact")

    res = runner.invoke(app, ["agree", str(run), "--labels", str(labels), "--format", "json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    expected_agree = sum(
        1 for cid, c in results.items() if (c.gate == "pass") == (truth[cid]["gate"] == "pass")
    )
    assert rep["judge_vs_humans"]["cases"] == 3
    assert rep["judge_vs_humans"]["agree"] == expected_agree
    assert rep["annotator_unanimity"] == 0.0

    out = tmp_path / "report"
    res = runner.invoke(
        app, ["report", str(run), "--out", str(out), "--resamples", "500", "--labels", str(labels)]
    )
    assert res.exit_code == 0, res.output
    _assert_renders_cleanly(out / "index.html", tmp_path)
    sloppy = out / "cases" / case_slug(f"agent-sloppy/{REAL_TASK}") / "index.html"
    _assert_renders_cleanly(sloppy, tmp_path)
    page = sloppy.read_text("utf-8")
    assert 'src="pair.png"' in page or 'href="pair.png"' in page
    for finding in results[f"agent-sloppy/{REAL_TASK}"].findings:
        assert finding.subtype in page
