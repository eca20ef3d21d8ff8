"""The labelling study, store and page API (no browser: tests/test_labelling_browser.py)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin
from typer.testing import CliRunner

from cli.app import app
from judge.errors import LabelsError
from judge.schema import HumanLabel
from scoring.labelling.server import (
    HOST,
    LabelPage,
    Responder,
    load_run_taxonomy,
    make_server,
    strip_png_metadata,
)
from scoring.labelling.store import LabelStore, export_labels
from scoring.labelling.study import (
    OfferedCase,
    annotator_order,
    draw_sample,
    opaque_id,
    open_study,
    run_secret,
    store_path,
)

REPO = Path(__file__).resolve().parent.parent
runner = CliRunner()


def _offered(configs: int, tasks: int) -> list[OfferedCase]:
    return [
        OfferedCase(
            case_id=f"cfg{c}/t{t}",
            config_id=f"cfg{c}",
            task_id=f"t{t}",
            judge_gate="pass" if (c + t) % 3 else "semantic",
            pair=Path("pair.png"),
            render=Path("render.png"),
            reference=None,
        )
        for c in range(configs)
        for t in range(tasks)
    ]


# --- study: sample, ids, order ------------------------------------------------------------


def test_stratified_sample_takes_each_configuration_in_turn() -> None:
    cases = _offered(configs=3, tasks=5)
    sample = draw_sample(cases, 6, seed=1, stratify="config")
    assert len(sample) == 6
    assert sorted(cid.split("/")[0] for cid in sample) == ["cfg0"] * 2 + ["cfg1"] * 2 + ["cfg2"] * 2
    assert draw_sample(cases, 6, seed=1, stratify="config") == sample  # seeded
    assert draw_sample(cases, 6, seed=2, stratify="config") != sample


def test_gate_stratified_sample_balances_the_judges_gates() -> None:
    cases = _offered(configs=3, tasks=5)  # 5 semantic, 10 pass
    gates = {c.case_id: c.judge_gate for c in cases}
    sample = draw_sample(cases, 8, seed=0, stratify="gate")
    assert sorted(gates[c] for c in sample) == ["pass"] * 4 + ["semantic"] * 4
    assert draw_sample(cases, 100, seed=0, stratify="gate") == sorted(gates)


def test_annotator_order_is_stable_per_name_and_differs_between_names() -> None:
    ids = [f"c{i}" for i in range(12)]
    alice = annotator_order(ids, "alice")
    assert alice == annotator_order(list(reversed(ids)), "alice")
    assert sorted(alice) == sorted(ids)
    assert alice != annotator_order(ids, "bob")


def test_opaque_ids_depend_on_the_run_secret(tmp_path: Path) -> None:
    s1 = run_secret(tmp_path / "r1")
    assert run_secret(tmp_path / "r1") == s1  # created once, then read
    s2 = run_secret(tmp_path / "r2")
    oid = opaque_id(s1, "agent-careful/task01")
    assert len(oid) == 20 and "careful" not in oid
    assert oid != opaque_id(s2, "agent-careful/task01")
    (tmp_path / "r1" / "labelling" / "secret").write_text("nope\n")
    with pytest.raises(LabelsError, match="secret"):
        run_secret(tmp_path / "r1")


# --- store --------------------------------------------------------------------------------


def test_store_keeps_one_row_per_annotator_and_case_with_timestamps(tmp_path: Path) -> None:
    store = LabelStore(tmp_path / "labels.sqlite")
    first = store.save("alice", "A/t1", HumanLabel(gate="fail", gate_reason="edge 1 -> 2"))
    again = store.save("alice", "A/t1", HumanLabel(gate="pass", subtypes={"node_fill": 0.5}))
    store.save("bob", "A/t1", HumanLabel(gate="fail"))
    assert again.revisions == 2 and again.created == first.created
    assert again.updated >= first.updated and again.updated.endswith("Z")
    got = store.get("alice", "A/t1")
    assert got is not None and got.label.gate == "pass" and got.label.subtypes == {"node_fill": 0.5}
    assert [(s.annotator, s.label.gate) for s in store.labels()] == [
        ("alice", "pass"),
        ("bob", "fail"),
    ]
    assert store.events() == 3  # the audit trail keeps every write
    journal = LabelStore(tmp_path / "labels.sqlite")._tx
    with journal(write=False) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_damaged_store_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "labels.sqlite"
    bad.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(LabelsError, match=r"labels\.sqlite"):
        LabelStore(bad)


WRITER = textwrap.dedent(
    """
    import sys
    from judge.schema import HumanLabel
    from scoring.labelling.store import LabelStore
    store = LabelStore(sys.argv[1])
    for i in range(int(sys.argv[3])):
        store.save(sys.argv[2], f"cfg/t{i}", HumanLabel(gate="pass" if i % 2 else "fail"))
    """
)


def test_two_processes_write_the_store_at_once_without_losing_a_label(tmp_path: Path) -> None:
    db = tmp_path / "labels.sqlite"
    LabelStore(db)
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db), name, "60"], cwd=REPO)
        for name in ("alice", "bob")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    labels = LabelStore(db).labels()
    assert len(labels) == 120
    assert {s.annotator for s in labels} == {"alice", "bob"}


def test_export_skips_unfinished_forms_and_writes_the_optional_columns(tmp_path: Path) -> None:
    store = LabelStore(tmp_path / "labels.sqlite")
    store.save(
        "alice", "A/t1", HumanLabel(gate="pass", subtypes={"node_fill": 0.25, "z_order": None})
    )
    store.save(
        "alice", "A/t2", HumanLabel(gate="fail", gate_stage="semantic", gate_reason='edge "a, b"')
    )
    store.save("bob", "A/t1", HumanLabel(subtypes={"node_fill": None}))  # no gate yet
    summary = export_labels(store, tmp_path / "labels.csv")
    assert (summary.rows, summary.unfinished, summary.annotators) == (2, 1, ["alice"])
    assert (tmp_path / "labels.csv").read_text("utf-8").splitlines() == [
        "case_id,annotator,gate,subtypes,gate_stage,gate_reason,fractions",
        "A/t1,alice,pass,node_fill;z_order,,,node_fill=0.25",
        'A/t2,alice,fail,,semantic,"edge ""a, b""",',
    ]


# --- the page API on a real run -------------------------------------------------------------


@pytest.fixture
def run_copy(fixture_run: Path, tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(fixture_run, run)
    return run


@pytest.mark.slow
def test_sample_is_drawn_once_and_other_options_are_refused(run_copy: Path) -> None:
    alice = open_study(run_copy, "alice", size=4, seed=3, stratify="config")
    assert alice.left_out == 2  # agent-cheat fails Stage 0: nothing rendered to label
    bob = open_study(run_copy, "bob")
    assert {c.case_id for c in bob.cases.values()} == {c.case_id for c in alice.cases.values()}
    assert set(bob.order) == set(alice.order)
    with pytest.raises(LabelsError, match="--sample 4 --seed 3 --stratify config"):
        open_study(run_copy, "carol", size=5, seed=3, stratify="config")
    with pytest.raises(LabelsError, match="annotator name"):
        open_study(run_copy, "bad name!")


def _page(run: Path, annotator: str) -> LabelPage:
    return LabelPage(open_study(run, annotator), load_run_taxonomy(run))


def _get(page: Responder, path: str) -> tuple[int, bytes]:
    reply = page.respond("GET", path, b"")
    return reply.status, reply.body


@pytest.mark.slow
def test_page_api_saves_labels_and_resumes_at_the_first_unlabelled_case(run_copy: Path) -> None:
    page = _page(run_copy, "alice")
    state = json.loads(_get(page, "/api/state")[1])
    assert state["done"] == 0 and state["total"] == 6 and state["current"] == state["order"][0]
    first, second = state["order"][:2]
    body = json.dumps({"gate": "pass", "subtypes": {"node_fill": 0.2}}).encode()
    saved = page.respond("PUT", f"/api/cases/{first}/label", body)
    assert saved.status == 200
    assert json.loads(saved.body)["current"] == second
    restarted = _page(run_copy, "alice")  # a new server process over the same store
    case = json.loads(_get(restarted, f"/api/cases/{first}")[1])
    assert case["position"] == 1 and case["label"]["subtypes"] == {"node_fill": 0.2}
    assert json.loads(_get(restarted, "/api/state")[1])["done"] == 1


@pytest.mark.slow
def test_page_api_refuses_bad_labels_and_unknown_ids(run_copy: Path) -> None:
    page = _page(run_copy, "alice")
    oid = json.loads(_get(page, "/api/state")[1])["order"][0]
    bad = {
        "unknown subtype": {"gate": "pass", "subtypes": {"no_such_subtype": 0.1}},
        "not in 0-1": {"gate": "pass", "subtypes": {"node_fill": 1.5}},
        "gate": {"gate": "maybe"},
        "Extra inputs": {"gate": "pass", "config_id": "x"},
    }
    for message, label in bad.items():
        reply = page.respond("PUT", f"/api/cases/{oid}/label", json.dumps(label).encode())
        assert reply.status == 400 and message in json.loads(reply.body)["error"], message
    for path in ("/api/cases/0000/label", "/api/cases/0000", "/api/nothing", "/../run.json"):
        assert _get(page, path)[0] == 404, path
    assert _get(page, f"/api/cases/{oid}/run.json.png")[0] == 404


@pytest.mark.slow
def test_page_api_never_sends_a_case_id_verdict_or_other_annotators_label(run_copy: Path) -> None:
    bob = _page(run_copy, "bob")
    for oid in json.loads(_get(bob, "/api/state")[1])["order"]:
        body = {"gate": "fail", "gate_reason": "bob-secret-reason", "subtypes": {}}
        assert (
            bob.respond("PUT", f"/api/cases/{oid}/label", json.dumps(body).encode()).status == 200
        )
    alice = _page(run_copy, "alice")
    results = [json.loads(line) for line in (run_copy / "results.jsonl").read_text().splitlines()]
    forbidden = {r["case_id"] for r in results} | {r["config_id"] for r in results}
    forbidden |= {str(run_copy), "bob-secret-reason", "gate_votes", '"findings"', '"score"'}
    state_body = _get(alice, "/api/state")[1]
    blobs = [state_body, _get(alice, "/")[1], _get(alice, "/assets/label.js")[1]]
    state = json.loads(state_body)
    assert state["done"] == 0  # bob's labels do not count for alice
    for oid in state["order"]:
        blobs.append(_get(alice, f"/api/cases/{oid}")[1])
        for image in ("pair", "reference", "render"):
            status, data = _get(alice, f"/api/cases/{oid}/{image}.png")
            assert status == 200 and data.startswith(b"\x89PNG")
            blobs.append(data)
    for blob in blobs:
        for s in forbidden:
            assert s.encode() not in blob, s


def test_png_text_chunks_are_dropped_and_the_pixels_kept() -> None:
    img = Image.new("RGB", (40, 30), (200, 10, 10))
    info = PngImagePlugin.PngInfo()
    info.add_text("Source", "agent-careful/task01.pptx")
    info.add_itxt("Comment", "gate: semantic")
    buf = io.BytesIO()
    img.save(buf, "PNG", pnginfo=info)
    assert b"agent-careful" in buf.getvalue()
    clean = strip_png_metadata(buf.getvalue())
    assert b"agent-careful" not in clean and b"semantic" not in clean
    with Image.open(io.BytesIO(clean)) as back:
        assert back.tobytes() == img.tobytes()
    with pytest.raises(LabelsError):
        strip_png_metadata(b"GIF89a")


@pytest.mark.slow
def test_server_binds_loopback_only_and_refuses_other_hosts(run_copy: Path) -> None:
    import http.client

    from scoring.labelling.server import serve_in_thread

    server = make_server(_page(run_copy, "alice"), 0)
    serve_in_thread(server)
    try:
        assert server.server_address[0] == HOST == "127.0.0.1"
        port = server.server_address[1]
        for host, status in ((f"127.0.0.1:{port}", 200), ("evil.example:80", 403)):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/api/state", headers={"Host": host})
            assert conn.getresponse().status == status
            conn.close()
        with pytest.raises(LabelsError, match="another --port"):
            make_server(_page(run_copy, "bob"), port)
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_label_export_command_writes_the_csv_judge_agree_reads(
    run_copy: Path, tmp_path: Path
) -> None:
    out = tmp_path / "labels.csv"
    res = runner.invoke(app, ["label", "export", str(run_copy), "--out", str(out)])
    assert res.exit_code == 2 and "no labelling study yet" in res.output
    for name, gate in (("alice", "pass"), ("bob", "fail"), ("carol", "pass")):
        study = open_study(run_copy, name)
        for oid in study.order:
            study.store.save(
                name, study.cases[oid].case_id, HumanLabel.model_validate({"gate": gate})
            )
    res = runner.invoke(app, ["label", "export", str(run_copy), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "18 label(s) of 6 case(s) by 3 annotator(s)" in res.output
    res = runner.invoke(app, ["agree", str(run_copy), "--labels", str(out), "--format", "json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["labelled_cases"] == 6 and rep["annotator_unanimity"] == 0.0
    assert store_path(run_copy).is_file()


# --- A/B pairs ------------------------------------------------------------------------------


def _pair_set(folder: Path, n: int = 4) -> None:
    (folder / "images").mkdir(parents=True)
    pairs = []
    for k in range(n):
        for side, colour in (("a", (200, 0, 0)), ("b", (0, 0, 200))):
            Image.new("RGB", (30, 20), colour).save(folder / "images" / f"q{k}{side}.png")
        pairs.append({"id": f"q{k}", "a": f"images/q{k}a.png", "b": f"images/q{k}b.png"})
    (folder / "pairs.json").write_text(json.dumps({"pairs": pairs}), "utf-8")


def test_pair_page_maps_left_right_to_a_b_per_annotator(tmp_path: Path) -> None:
    from scoring.labelling.pairs import PairPage, open_pair_study

    _pair_set(tmp_path / "prefs")
    page = PairPage(open_pair_study(tmp_path / "prefs", "alice"))
    state = json.loads(page.respond("GET", "/api/state", b"").body)
    assert state["mode"] == "pairs" and state["total"] == 4 and "q0" not in json.dumps(state)
    sides_of_a = set()
    for oid in state["order"]:
        left = page.respond("GET", f"/api/pairs/{oid}/left.png", b"").body
        with Image.open(io.BytesIO(left)) as im:
            a_left = im.getpixel((0, 0)) == (200, 0, 0)  # candidate A is drawn red
        sides_of_a.add(a_left)
        reply = page.respond("PUT", f"/api/pairs/{oid}/label", b'{"choice": "left"}')
        assert reply.status == 200
        pair_id = page.study.pairs[oid].pair_id
        stored = page.study.store.get_preference("alice", pair_id)
        assert stored is not None and stored.label.choice == ("a" if a_left else "b")
        shown = json.loads(page.respond("GET", f"/api/pairs/{oid}", b"").body)
        assert shown["label"]["choice"] == "left"
    assert sides_of_a == {True, False}  # A is not always on the same side
    assert json.loads(page.respond("GET", "/api/state", b"").body)["done"] == 4
    for bad in (b'{"choice": "a"}', b'{"choice": "left", "config": "x"}', b"nope"):
        assert page.respond("PUT", f"/api/pairs/{state['order'][0]}/label", bad).status == 400


def test_pair_set_images_must_stay_inside_the_folder(tmp_path: Path) -> None:
    from scoring.labelling.pairs import load_pairs

    _pair_set(tmp_path / "prefs", n=1)
    (tmp_path / "secret.png").write_bytes(b"x")
    (tmp_path / "prefs" / "pairs.json").write_text(
        json.dumps({"pairs": [{"id": "q0", "a": "../secret.png", "b": "images/q0b.png"}]})
    )
    with pytest.raises(LabelsError, match="leaves the pair-set folder"):
        load_pairs(tmp_path / "prefs")
    with pytest.raises(LabelsError, match="no pair set here"):
        load_pairs(tmp_path)


@pytest.mark.slow
def test_pairs_of_judge_prefs_export_are_answered_and_fit_with_its_key(
    fixture_run: Path, tmp_path: Path
) -> None:
    """The sibling protocol's export (pairs.csv, one composite image per pair, key outside)
    goes through the A/B page, and the exported answers go into `judge prefs fit --key`."""
    from scoring.labelling.pairs import PairPage, open_pair_study

    folder, key = tmp_path / "pairs", tmp_path / "key.csv"
    res = runner.invoke(
        app, ["prefs", "export", str(fixture_run), "--out", str(folder), "--key", str(key)]
    )
    assert res.exit_code == 0, res.output
    page = PairPage(open_pair_study(folder, "alice"))
    state = json.loads(page.respond("GET", "/api/state", b"").body)
    assert state["total"] == 6  # 2 tasks x 3 rendered configurations: 3 pairs each
    for n, oid in enumerate(state["order"]):
        shown = json.loads(page.respond("GET", f"/api/pairs/{oid}", b"").body)
        assert shown["sides"] == ["A", "B"] and shown["images"]["left"] is None
        status, data = _get(page, shown["images"]["composite"])
        assert status == 200 and data.startswith(b"\x89PNG")
        side = ("left", "right", "tie")[n % 3]
        body = json.dumps({"choice": side}).encode()
        assert page.respond("PUT", f"/api/pairs/{oid}/label", body).status == 200
        stored = page.study.store.get_preference("alice", page.study.pairs[oid].pair_id)
        assert stored is not None and stored.label.choice == {"left": "a", "right": "b"}.get(
            side, "tie"
        )
    blob = b"".join(
        page.respond("GET", p, b"").body
        for p in ["/api/state", *(f"/api/pairs/{o}" for o in state["order"])]
    )
    for cfg in ("agent-careful", "agent-sloppy", "agent-wrong", "s7-flow00", "p0001"):
        assert cfg.encode() not in blob, cfg
    out = tmp_path / "prefs.csv"
    res = runner.invoke(app, ["label", "pairs-export", str(folder), "--out", str(out)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["prefs", "fit", str(out), "--key", str(key), "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "agent-careful" in res.output
