"""The labelling page in a real headless Chromium (Debian's, driven by Playwright): two
annotators label a real builtin run of fixtures/bench with the keyboard, in parallel, through a
reload and a killed server; the export goes into `judge agree`; nothing in the traffic unblinds."""

from __future__ import annotations

import csv
import json
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from scoring.agreement import cohen_kappa

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
"""Playwright's ``launch`` gives the browser a fresh temporary profile (user data dir) itself."""
REPO = Path(__file__).resolve().parent.parent

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed"),
]

ALICE = ["pass", "fail", "pass", "pass", "fail"]
"""Alice's gate per position of her order (she ticks a subtype on position 3)."""
BOB = ["pass", "pass", "fail", "pass", "pass"]
ALICE_MARKER = "alice-marker-7f3a"
BOB_MARKER = "bob-marker-91c2"
ALICE_REASON = f'edge "Encode" -> "Train" reversed ({ALICE_MARKER})'
BOB_REASON = f"{BOB_MARKER} missing node"
API_KEYS = {
    "mode", "annotator", "order", "taxonomy", "done", "total", "current", "name",
    "categories", "description", "subtypes", "id", "position", "label", "saved_at", "images",
    "pair", "reference", "render", "gate", "gate_stage", "gate_reason", "error",
}  # fmt: skip
"""Every JSON key the page's API may send (a judge verdict or a case id has no key here)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LabelServer:
    """`judge label RUN --annotator NAME --port P` as a real process."""

    def __init__(self, run: Path, annotator: str, port: int, extra: list[str]) -> None:
        self.args = [sys.executable, "-m", "cli.app", "label", str(run), "--annotator", annotator,
                     "--port", str(port), *extra]  # fmt: skip
        self.url = f"http://127.0.0.1:{port}/"
        self.port = port
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> LabelServer:
        self.proc = subprocess.Popen(
            self.args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.proc.stdout.read() if self.proc.stdout else ""
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"{self.args}: server did not start")

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, like a crash."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=10)
        if self.proc.stdout:
            self.proc.stdout.close()


class Traffic:
    """Every request and response of a browser context (through a route that fetches and
    fulfils each request, so no body is missed)."""

    def __init__(self) -> None:
        self.records: list[tuple[str, str, bytes, bytes, str]] = []

    def handler(self, route: Any) -> None:
        from playwright.sync_api import Error

        req = route.request
        for attempt in range(3):
            try:
                # a keep-alive connection to a killed server resets: retry on a fresh one, as
                # the browser itself does when nothing intercepts its requests
                resp = route.fetch()
                break
            except Error:
                if attempt == 2:
                    route.abort()
                    return
                time.sleep(0.5)
        body = resp.body()
        self.records.append(
            (
                req.method,
                req.url,
                req.post_data_buffer or b"",
                body,
                resp.headers.get("content-type", ""),
            )
        )
        route.fulfill(response=resp, body=body)

    def blob(self) -> bytes:
        return b"\n".join(m.encode() + b" " + u.encode() + b"\n" + rq + b"\n" + rs
                          for m, u, rq, rs, _ in self.records)  # fmt: skip


def _open(context: Any, server: LabelServer) -> Any:
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def _label(page: Any, gate: str, position: int, total: int, reason: str = "") -> None:
    """Label the shown case with the keyboard and go on to the next."""
    assert page.inner_text("#position") == f"case {position} of {total}"
    page.locator("body").press("p" if gate == "pass" else "f")
    if reason:
        page.locator("#gate-reason").press_sequentially(reason)
        page.locator("#gate-reason").press("Escape")
    page.keyboard.press("n")
    if position < total:
        _at(page, position + 1, total)
    else:
        page.wait_for_selector("#done-panel:not([hidden])")


CLOSED_TAB_EDIT = " (closed-tab edit)"


def _wait_for_reason(run: Path, annotator: str, text: str) -> None:
    """Wait (up to 10 s) until a gate reason of ``annotator`` in the store holds ``text``."""
    from scoring.labelling.store import LabelStore

    store = LabelStore(run / "labelling" / "labels.sqlite")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        reasons = [s.label.gate_reason for s in store.labels(annotator)]
        if any(text in r for r in reasons):
            return
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never reached the store: {reasons}")


def _at(page: Any, position: int, total: int) -> None:
    """Wait until the page shows case ``position`` (locator assertions run outside the page's
    script world, so the page's strict Content-Security-Policy stays on)."""
    from playwright.sync_api import expect

    expect(page.locator("#position")).to_have_text(f"case {position} of {total}")


def _progress(page: Any) -> str:
    return str(page.inner_text("#progress-text"))


def _json_keys(value: object) -> set[str]:
    if isinstance(value, dict):
        keys = set(value)
        for k, v in value.items():
            # subtypes maps taxonomy names to fractions: its keys are data, not fields
            keys |= _json_keys(v) if k != "subtypes" or isinstance(v, list) else set()
        return keys
    if isinstance(value, list):
        return set().union(*(_json_keys(v) for v in value)) if value else set()
    return set()


TEXT_KEYS = ("evidence", "description", "location", "target")
"""Keys of the judge's free texts in round files (gate reasons, findings)."""


def _judge_strings(run: Path) -> set[str]:
    """Strings only the judge's outputs hold: configuration names, case and task ids, the gate
    reasons and finding texts of every round."""
    out: set[str] = set()
    for line in (run / "results.jsonl").read_text("utf-8").splitlines():
        rec = json.loads(line)
        out |= {rec["case_id"], rec["config_id"], rec["task_id"]}
    for round_file in (run / "cases").glob("*/*/rounds/round-*.json"):
        data = json.loads(round_file.read_text("utf-8"))

        def walk(v: object) -> None:
            if isinstance(v, dict):
                for k, x in v.items():
                    if k in TEXT_KEYS and isinstance(x, str) and len(x) >= 12:
                        out.add(x)
                    walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)

        walk(data)
    return out


def test_two_annotators_label_with_the_keyboard_through_reload_and_crash(
    fixture_run: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    from scoring.labelling.study import open_study

    run = tmp_path / "run"
    shutil.copytree(fixture_run, run)
    alice = LabelServer(run, "alice", _free_port(), ["--sample", "5", "--stratify", "config"])
    bob = LabelServer(run, "bob", _free_port(), [])  # takes the sample alice's start drew
    alice.start()
    bob.start()
    traffic = {"alice": Traffic(), "bob": Traffic()}
    console: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            contexts = {}
            for name in ("alice", "bob"):
                contexts[name] = browser.new_context(viewport={"width": 1400, "height": 900})
                contexts[name].route("**/*", traffic[name].handler)
            pa = _open(contexts["alice"], alice)
            pb = _open(contexts["bob"], bob)
            for p in (pa, pb):
                p.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
            assert _progress(pa) == "0/5 done" and _progress(pb) == "0/5 done"

            # alice 1-2, bob 1, in parallel
            _label(pa, ALICE[0], 1, 5)
            _label(pb, BOB[0], 1, 5)
            _label(pa, ALICE[1], 2, 5, ALICE_REASON)
            # reload mid-way: continues at the first unlabelled case
            pa.reload()
            pa.wait_for_selector("body[data-ready='1']")
            assert _progress(pa) == "2/5 done"
            assert pa.inner_text("#position") == "case 3 of 5"
            pa.keyboard.press("+")  # zoom the full-resolution views, then back to fit
            expect(pa.locator("#zoom-level")).to_have_text("×1.5")
            pa.keyboard.press("0")
            expect(pa.locator("#zoom-level")).to_have_text("fit")
            _label(pb, BOB[1], 2, 5)
            _label(pb, BOB[2], 3, 5, BOB_REASON)

            # alice ticks a subtype with a fraction on case 3, then the server is killed
            pa.locator("body").press("p")
            pa.locator("#st-node_fill").check()
            pa.locator("#fr-node_fill").fill("0.25")
            pa.locator("#fr-node_fill").press("Enter")  # Enter in a field = next
            _at(pa, 4, 5)
            assert _progress(pa) == "3/5 done"
            alice.kill()
            alice = LabelServer(run, "alice", alice.port, []).start()
            pa.reload()
            pa.wait_for_selector("body[data-ready='1']")
            assert _progress(pa) == "3/5 done"  # no label lost
            assert pa.inner_text("#position") == "case 4 of 5"
            _label(pa, ALICE[3], 4, 5)
            _label(pb, BOB[3], 4, 5)
            _label(pa, ALICE[4], 5, 5, "node missing")
            _label(pb, BOB[4], 5, 5)
            assert _progress(pa) == "5/5 done" and _progress(pb) == "5/5 done"

            # going back shows alice's own earlier label, as she gave it
            pa.keyboard.press("b")
            _at(pa, 5, 5)
            assert pa.locator("#gate-fail").is_checked()
            page_html = {"alice": pa.content(), "bob": pb.content()}
            # an edit typed just before the tab is closed is still saved (in a context without
            # the capture route, which would drop a closing page's requests)
            plain = browser.new_context(viewport={"width": 1400, "height": 900})
            pc = _open(plain, alice)
            pc.wait_for_selector("#done-panel:not([hidden])")
            pc.keyboard.press("b")
            _at(pc, 5, 5)
            pc.locator("#gate-reason").press_sequentially(CLOSED_TAB_EDIT)
            pc.close(run_before_unload=True)
            _wait_for_reason(run, "alice", CLOSED_TAB_EDIT)
            browser.close()
    finally:
        alice.kill()
        bob.kill()
    assert console == []

    # --- blinding: nothing the browsers sent or received names a configuration or case, holds
    # a judge verdict, or the other annotator's label
    forbidden = _judge_strings(run)
    assert any(s.startswith("agent-") for s in forbidden)
    for name, other_marker in (("alice", BOB_MARKER), ("bob", ALICE_MARKER)):
        blob = traffic[name].blob() + page_html[name].encode()
        assert other_marker.encode() not in blob, name
        for s in forbidden:
            assert s.encode() not in blob, (name, s)
        for _method, url, _req, body, ctype in traffic[name].records:
            assert url.startswith(("http://127.0.0.1:",)), url
            if ctype.startswith("application/json"):
                keys = _json_keys(json.loads(body))
                assert keys <= API_KEYS, (url, keys - API_KEYS)
            if ctype == "image/png":
                for chunk in (b"tEXt", b"iTXt", b"zTXt", b"eXIf", b"tIME"):
                    assert chunk not in body, (url, chunk)
        assert any(u.endswith("/reference.png") for _, u, *_ in traffic[name].records)
    assert ALICE_MARKER.encode() in traffic["alice"].blob()  # the capture does see labels
    assert BOB_MARKER.encode() in traffic["bob"].blob()

    # --- export round-trips into judge agree
    labels_csv = tmp_path / "labels.csv"
    res = subprocess.run(
        [sys.executable, "-m", "cli.app", "label", "export", str(run), "--out", str(labels_csv)],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "10 label(s) of 5 case(s) by 2 annotator(s)" in res.stdout
    rows = list(csv.DictReader(labels_csv.open(encoding="utf-8")))
    got = {(r["case_id"], r["annotator"]): r for r in rows}
    order = {}
    for name, plan in (("alice", ALICE), ("bob", BOB)):
        study = open_study(run, name)
        order[name] = [study.cases[oid].case_id for oid in study.order]
        for cid, gate in zip(order[name], plan, strict=True):
            assert got[(cid, name)]["gate"] == gate
    a3 = got[(order["alice"][2], "alice")]
    assert a3["subtypes"] == "node_fill" and a3["fractions"] == "node_fill=0.25"
    a2 = got[(order["alice"][1], "alice")]
    assert a2["gate_reason"] == ALICE_REASON
    assert CLOSED_TAB_EDIT in got[(order["alice"][4], "alice")]["gate_reason"]
    assert set(order["alice"]) == set(order["bob"]) and order["alice"] != order["bob"]
    configs = {cid.split("/")[0] for cid in order["alice"]}
    assert len(configs) == 3  # stratified by configuration: each rendered config drawn

    res = subprocess.run(
        [sys.executable, "-m", "cli.app", "agree", str(run), "--labels", str(labels_csv),
         "--format", "json"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    assert rep["labelled_cases"] == 5 and rep["annotators"] == ["alice", "bob"]
    by_case_a = dict(zip(order["alice"], ALICE, strict=True))
    by_case_b = dict(zip(order["bob"], BOB, strict=True))
    cases = sorted(by_case_a)
    ties = sum(1 for c in cases if by_case_a[c] != by_case_b[c])
    assert rep["human_ties"] == ties
    kappa = cohen_kappa([by_case_a[c] for c in cases], [by_case_b[c] for c in cases])
    pair = rep["pairwise_kappas"][0]
    assert (pair["a"], pair["b"], pair["cases"]) == ("alice", "bob", 5)
    assert pair["kappa"] == pytest.approx(kappa)
    assert re.match(r"^[0-9a-f]{64}$", (run / "labelling" / "secret").read_text().strip())


def make_pair_set(run: Path, folder: Path, task: str) -> dict[str, tuple[str, str]]:
    """An A/B pair set as a preference exporter writes it: every two rendered configurations of
    ``task``, images under opaque names, and a key file (pair id -> (config A, config B))."""
    import itertools

    images = folder / "images"
    images.mkdir(parents=True)
    configs = sorted(p.parent.parent.name for p in (run / "cases").glob(f"*/{task}/render.png"))
    ref = json.loads(next((run / "cases").glob(f"*/{task}/pair.json")).read_text())
    shutil.copy(ref["reference_image"], images / "ref.png")
    pairs, key = [], {}
    for k, (a, b) in enumerate(itertools.combinations(configs, 2)):
        pid = f"p{k:03d}"
        shutil.copy(run / "cases" / a / task / "render.png", images / f"{pid}-a.png")
        shutil.copy(run / "cases" / b / task / "render.png", images / f"{pid}-b.png")
        pairs.append({"id": pid, "reference": "images/ref.png", "a": f"images/{pid}-a.png",
                      "b": f"images/{pid}-b.png"})  # fmt: skip
        key[pid] = (a, b)
    (folder / "pairs.json").write_text(json.dumps({"pairs": pairs}), "utf-8")
    (folder / "key.json").write_text(json.dumps(key), "utf-8")
    return key


def test_ab_pairs_are_answered_with_the_keyboard_blinded_and_exported(
    fixture_run: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    from scoring.labelling.pairs import a_on_left, open_pair_study

    folder = tmp_path / "prefs"
    key = make_pair_set(fixture_run, folder, "s7-flow00")
    assert len(key) == 3
    port = _free_port()
    server = LabelServer(folder, "alice", port, [])
    server.args.insert(4, "pairs")  # judge label pairs DIR --annotator alice --port P
    server.start()
    traffic = Traffic()
    sides = ["left", "right", "tie"]
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.route("**/*", traffic.handler)
            page = _open(context, server)
            for i, side in enumerate(sides, 1):
                expect(page.locator("#position")).to_have_text(f"pair {i} of 3")
                page.locator("body").press({"left": "1", "right": "ArrowRight", "tie": "t"}[side])
                if side == "tie":
                    page.locator("#reason").press_sequentially("both drop an arrow")
                    page.locator("#reason").press("Enter")
                else:
                    page.keyboard.press("n")
                if i == 2:  # reload mid-way: continues at the first unanswered pair
                    expect(page.locator("#position")).to_have_text("pair 3 of 3")
                    page.reload()
                    page.wait_for_selector("body[data-ready='1']")
                    expect(page.locator("#progress-text")).to_have_text("2/3 done")
            page.wait_for_selector("#done-panel:not([hidden])")
            expect(page.locator("#progress-text")).to_have_text("3/3 done")
            html = page.content()
            browser.close()
    finally:
        server.kill()
    blob = traffic.blob() + html.encode()
    forbidden = {c for pair in key.values() for c in pair} | set(key) | {"-a.png", "-b.png"}
    for s in forbidden:
        assert s.encode() not in blob, s

    out = tmp_path / "prefs.csv"
    res = subprocess.run(
        [sys.executable, "-m", "cli.app", "label", "pairs-export", str(folder), "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    got = {r["pair_id"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    study = open_pair_study(folder, "alice")
    for oid, side in zip(study.order, sides, strict=True):
        pid = study.pairs[oid].pair_id
        expected = {"tie": "tie", "left": "a", "right": "b"}[side]
        if side != "tie" and not a_on_left("alice", pid):
            expected = "b" if expected == "a" else "a"
        assert got[pid]["winner"] == expected, (pid, side)
    assert got[study.pairs[study.order[2]].pair_id]["reason"] == "both drop an arrow"
