"""Rescoring a finished run from frozen round files (built here by hand, as the engine would)."""

from __future__ import annotations

import functools
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau
from typer.testing import CliRunner

from cli.app import app
from judge.errors import TaxonomyError
from judge.rundir import RESULTS, RUN_MANIFEST, case_dir, read_results, write_model
from judge.schema import (
    ArtifactReport,
    Candidate,
    CaseResult,
    CategoryFraction,
    CheckResult,
    DetailVerdict,
    Finding,
    GateReason,
    GateVerdict,
    Policy,
    RoundResult,
    RoundStatus,
    RunManifest,
    Taxonomy,
    Usage,
)
from scoring.case import build_case_result
from scoring.policy import resolve_policy
from scoring.rescore import rescore_run, rescored_path
from taxonomy.loader import DEFAULT_TAXONOMY, load_taxonomy, taxonomy_hash

runner = CliRunner()
TAX = load_taxonomy()


@functools.lru_cache(maxsize=8)
def _load(path: str, text: str) -> Taxonomy:
    """Parse a taxonomy once per (path, content), not once per case of a run."""
    return load_taxonomy(path)


def tax_of(path: Path) -> Taxonomy:
    return _load(str(path), Path(path).read_text(encoding="utf-8"))


SUBTYPES = sorted(TAX.subtypes())
OK = GateVerdict(passed=True)
NO = GateVerdict(passed=False, reasons=[GateReason(target="edge A -> B", evidence="reversed")])

CONFIGS = {"alpha": 1, "beta": 3, "gamma": 6}
"""Configuration -> most findings per passing round (so the configurations rank differently)."""
TASKS = [f"t{i}" for i in range(1, 7)]


def make_round(case_id: str, k: int, status: RoundStatus, subs: list[str], rng) -> RoundResult:
    findings, fractions = [], {}
    for i, sub in enumerate(subs):
        dim, cat, _ = TAX.subtype(sub)
        findings.append(
            Finding(dimension=dim, category=cat, subtype=sub, location=f"node {i}", description="d")
        )
        fractions[(dim, cat)] = round(rng.random(), 3)
    return RoundResult(
        case_id=case_id,
        round_index=k,
        status=status,
        semantic=NO if status == "semantic" else (OK if status in ("pass", "render") else None),
        render=NO if status == "render" else (OK if status == "pass" else None),
        detail=DetailVerdict(
            findings=findings,
            fractions=[
                CategoryFraction(dimension=d, category=c, fraction=v)
                for (d, c), v in fractions.items()
            ],
        )
        if status == "pass"
        else None,
        backend="builtin",
        usage=Usage(model_calls=3, tool_calls=k),
    )


def write_case(
    run: Path,
    config: str,
    task: str,
    rounds: list[RoundResult],
    *,
    valid: bool = True,
    error: str | None = None,
    tax_path: Path = DEFAULT_TAXONOMY,
    policy: Policy | None = None,
) -> CaseResult:
    """Write a case's frozen files the way the engine does and return its results line."""
    tax = tax_of(tax_path)
    cand = Candidate(
        case_id=f"{config}/{task}", task_id=task, config_id=config, pptx="x.pptx", reference="r.png"
    )
    cdir = case_dir(run, config, task)
    checks = [CheckResult(name="opens", passed=True, detail="ok")]
    if not valid:
        checks.append(CheckResult(name="one_slide", passed=False, detail="2 slides"))
    report = ArtifactReport(path=cand.pptx, valid=valid, checks=checks)
    write_model(cdir.stage0, report)
    for r in rounds:
        if r.status != "skipped":  # early-stopped rounds leave no file
            write_model(cdir.round_json(r.round_index), r)
    res = build_case_result(
        cand, report, rounds, tax, taxonomy_hash(tax), policy or resolve_policy([]), error
    )
    write_model(cdir.case_json, res)
    return res


def write_run(
    run: Path,
    results: list[CaseResult],
    tax_path: Path = DEFAULT_TAXONOMY,
    policy: Policy | None = None,
) -> Path:
    tax = tax_of(tax_path)
    manifest = RunManifest(
        package_version="0.1.0",
        created="2026-11-29T00:00:00Z",
        bench="bench",
        judge="builtin",
        rounds=3,
        policy=policy or resolve_policy([]),
        taxonomy_path=str(tax_path),
        taxonomy_version=tax.version,
        taxonomy_hash=taxonomy_hash(tax),
        render_dpi=150,
    )
    write_model(run / RUN_MANIFEST, manifest)
    (run / RESULTS).write_text("".join(r.model_dump_json() + "\n" for r in results), "utf-8")
    return run


def build_run(run: Path, seed: int = 7, tax_path: Path = DEFAULT_TAXONOMY) -> Path:
    """3 configurations x 6 tasks, with every kind of case: clean passes, passes with findings,
    one-rejection passes, gated cases, an early stop, an undecided case, an invalid artifact and
    a case whose render failed before judging."""
    rng = random.Random(seed)
    results = []
    for config, most in CONFIGS.items():
        for task in TASKS:
            cid = f"{config}/{task}"
            statuses: list[RoundStatus] = ["pass", "pass", "pass"]
            if task == "t3":
                statuses = ["pass", "semantic", "pass"]
            elif task == "t4" and config == "gamma":
                statuses = ["render", "semantic", "skipped"]
            elif task == "t4":
                statuses = ["pass", "pass", "skipped"]
            elif task == "t5" and config == "beta":
                statuses = ["pass", "errored", "render"]
            rounds = [
                make_round(cid, k, s, rng.sample(SUBTYPES, rng.randint(0, most)), rng)
                for k, s in enumerate(statuses)
            ]
            if task == "t6" and config == "alpha":
                res = write_case(run, config, task, [], valid=False, tax_path=tax_path)
            elif task == "t6" and config == "beta":
                res = write_case(
                    run, config, task, [], error="render failed: timeout", tax_path=tax_path
                )
            else:
                res = write_case(run, config, task, rounds, tax_path=tax_path)
            results.append(res)
    return write_run(run, results, tax_path)


@pytest.fixture(scope="module")
def frozen_run(tmp_path_factory) -> Path:
    return build_run(tmp_path_factory.mktemp("run"))


@pytest.fixture()
def run_copy(frozen_run, tmp_path) -> Path:
    return Path(shutil.copytree(frozen_run, tmp_path / "run"))


# ---------------------------------------------------------------------------- identity


def test_fixture_run_has_every_kind_of_case(frozen_run):
    recorded = {r.case_id: r for r in read_results(frozen_run)}
    assert recorded["alpha/t6"].gate == "artifact"
    assert recorded["beta/t6"].error == "render failed: timeout"
    assert recorded["beta/t5"].error is not None and recorded["beta/t5"].error.startswith(
        "undecided"
    )
    assert recorded["gamma/t4"].gate == "semantic" and recorded["gamma/t4"].rounds[2] == "skipped"
    assert any(r.score is not None and 0 < r.score < 100 for r in recorded.values())


def test_rescoring_with_the_original_settings_reproduces_every_result(frozen_run):
    rep = rescore_run(frozen_run)
    assert rep.identity and rep.mismatches == [] and rep.changed == 0 and rep.output is None
    assert [r.model_dump() for r in rep.results] == [
        r.model_dump() for r in read_results(frozen_run)
    ]
    assert sorted(p.name for p in frozen_run.glob("results*.jsonl")) == [RESULTS]


def test_naming_the_protocol_explicitly_is_still_identity(frozen_run):
    rep = rescore_run(frozen_run, DEFAULT_TAXONOMY, ["protocol"])
    assert rep.identity and rep.mismatches == []


def test_a_tampered_recorded_score_is_reported_as_a_mismatch(run_copy):
    lines = (run_copy / RESULTS).read_text().splitlines()
    rec = CaseResult.model_validate_json(lines[1])
    assert rec.score is not None
    rec.score += 0.5
    lines[1] = rec.model_dump_json()
    (run_copy / RESULTS).write_text("\n".join(lines) + "\n")
    rep = rescore_run(run_copy)
    assert len(rep.mismatches) == 1 and rep.mismatches[0].startswith(f"{rec.case_id}: recorded")
    result = runner.invoke(app, ["rescore", str(run_copy)])
    assert result.exit_code == 1 and "MISMATCH" in result.output


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000))
def test_rescoring_is_the_identity_for_any_frozen_rounds(seed):
    with tempfile.TemporaryDirectory() as tmp:
        run = build_run(Path(tmp), seed=seed)
        rep = rescore_run(run)
        assert rep.identity and rep.mismatches == []
        assert [r.model_dump() for r in rep.results] == [r.model_dump() for r in read_results(run)]


# ---------------------------------------------------------------------------- variants


def test_policy_variant_writes_results_beside_the_old_and_reports_shifts(run_copy):
    before = (run_copy / RESULTS).read_bytes()
    rep = rescore_run(run_copy, None, ["unit-multiplier"])
    assert not rep.identity
    out = rescored_path(run_copy, rep.policy, rep.taxonomy_hash)
    assert (
        rep.output == out and out.name == f"results.unit-multiplier.{rep.taxonomy_hash[:8]}.jsonl"
    )
    assert (run_copy / RESULTS).read_bytes() == before
    new = [CaseResult.model_validate_json(x) for x in out.read_text().splitlines()]
    assert [r.case_id for r in new] == [r.case_id for r in rep.recorded]
    old = {r.case_id: r for r in rep.recorded}
    for r in new:
        assert r.policy == "unit-multiplier"
        if r.score is not None and old[r.case_id].score is not None:
            # m = 1 never exceeds the staircase, so no score can drop
            assert r.score >= old[r.case_id].score
    assert rep.changed > 0
    # per-config means and tau, recomputed here from the two files
    for c in rep.configs:
        both = [
            (old[r.case_id].score, r.score)
            for r in new
            if r.config_id == c.config_id
            and r.score is not None
            and old[r.case_id].score is not None
        ]
        assert c.compared == len(both) > 0
        assert c.mean_before == pytest.approx(sum(b for b, _ in both) / len(both))
        assert c.mean_after == pytest.approx(sum(a for _, a in both) / len(both))
    tau = kendalltau([c.mean_before for c in rep.configs], [c.mean_after for c in rep.configs])
    assert rep.kendall_tau == pytest.approx(tau.statistic)


def test_vote_three_after_an_early_stop_is_undecided_not_guessed(run_copy):
    rep = rescore_run(run_copy, None, ["vote-3"])
    by = {r.case_id: r for r in rep.results}
    # alpha/t4: 2 passes, round 3 never judged; unanimity cannot be known
    assert by["alpha/t4"].score is None and "undecided" in (by["alpha/t4"].error or "")
    # alpha/t3: 2 passes, 1 rejection: unanimity fails
    assert (by["alpha/t3"].gate, by["alpha/t3"].score) == ("semantic", 0.0)
    assert by["alpha/t6"].gate == "artifact" and by["beta/t6"].error == "render failed: timeout"


def test_vote_one_decides_the_case_an_errored_round_left_open(run_copy):
    rep = rescore_run(run_copy, None, ["vote-1"])
    res = next(r for r in rep.results if r.case_id == "beta/t5")
    assert res.gate == "pass" and res.score is not None


def test_a_corrupt_round_file_is_a_case_error_and_the_batch_goes_on(run_copy):
    path = case_dir(run_copy, "beta", "t1").round_json(1)
    path.write_text("{not json")
    rep = rescore_run(run_copy, None, ["equal-weights"])
    assert len(rep.results) == len(CONFIGS) * len(TASKS)
    bad = next(r for r in rep.results if r.case_id == "beta/t1")
    assert bad.score is None and str(path) in (bad.error or "")
    assert any(e.startswith("beta/t1: cannot read") for e in rep.errors)


def test_taxonomy_edited_since_the_run_is_refused_without_a_file(tmp_path):
    tax_copy = tmp_path / "tax.yaml"
    shutil.copy(DEFAULT_TAXONOMY, tax_copy)
    run = build_run(tmp_path / "run", tax_path=tax_copy)
    tax_copy.write_text(tax_copy.read_text().replace("  high: 3.0\n", "  high: 2.0\n"))
    with pytest.raises(TaxonomyError, match="none of its files match"):
        rescore_run(run)
    # A copy kept in the run folder is found first.
    shutil.copy(DEFAULT_TAXONOMY, run / "taxonomy.yaml")
    rep = rescore_run(run)
    assert rep.identity and rep.mismatches == [] and rep.taxonomy_source.endswith("taxonomy.yaml")


def test_subtype_missing_from_the_new_taxonomy_is_listed_per_case(run_copy, tmp_path):
    used = {f.subtype for r in read_results(run_copy) for f in r.findings}
    victim = sorted(used)[0]
    text = DEFAULT_TAXONOMY.read_text()
    lines = [x for x in text.splitlines(keepends=True) if f"{{name: {victim}," not in x]
    path = tmp_path / "smaller.yaml"
    path.write_text("".join(lines))
    rep = rescore_run(run_copy, path)
    assert rep.errors and all(f"subtype {victim!r}" in e for e in rep.errors if "cannot score" in e)


# ---------------------------------------------------------------------------- maintainer flow


def test_maintainer_adds_a_subtype_validates_and_rescores_a_run(run_copy, tmp_path):
    # 1. Copy the packaged taxonomy and add a subtype under graphics/connectors.
    mine = tmp_path / "my-taxonomy.yaml"
    text = DEFAULT_TAXONOMY.read_text()
    anchor = "          - {name: connector_shadow,"
    new = (
        "          - {name: connector_crossing, tier: medium, "
        'description: "Connectors cross where the reference routes them apart."}\n'
    )
    mine.write_text(
        text.replace(anchor, new + anchor).replace('version: "1.0.0"', 'version: "1.1.0"')
    )
    # 2. Validate it.
    result = runner.invoke(app, ["taxonomy", "validate", str(mine)])
    assert result.exit_code == 0, result.output
    assert f"{len(SUBTYPES) + 1} subtypes" in result.output
    result = runner.invoke(app, ["taxonomy", "diff", str(DEFAULT_TAXONOMY), str(mine)])
    assert "added:\n  graphics/connectors/connector_crossing (medium)" in result.output
    # 3. Rescore the run with it: frozen verdicts never used the new subtype, so no score moves,
    #    but the results are written under the new taxonomy hash.
    result = runner.invoke(app, ["rescore", str(run_copy), "--taxonomy", str(mine)])
    assert result.exit_code == 0, result.output
    assert "0 of 18 cases changed score or gate" in result.output
    assert "Kendall tau of the configuration ranking, before vs after: 1.000" in result.output
    h8 = taxonomy_hash(load_taxonomy(mine))[:8]
    assert (run_copy / f"results.protocol.{h8}.jsonl").is_file()
    # 4. Re-tier an existing subtype the run did report: the effect shows per configuration.
    used = {f.subtype for r in read_results(run_copy) for f in r.findings}
    target = next(s for s in SUBTYPES if s in used and TAX.subtype(s)[2].tier == "low")
    line = next(x for x in mine.read_text().splitlines() if f"{{name: {target}, tier: low," in x)
    mine.write_text(mine.read_text().replace(line, line.replace("tier: low,", "tier: high,")))
    result = runner.invoke(app, ["rescore", str(run_copy), "--taxonomy", str(mine)])
    assert result.exit_code == 0, result.output
    assert "0 of 18 cases changed" not in result.output
    rep = rescore_run(run_copy, mine)
    assert rep.changed > 0
    assert all(c.mean_after <= c.mean_before for c in rep.configs if c.mean_after is not None)


# ---------------------------------------------------------------------------- CLI


def test_cli_rescore_with_original_settings_reports_exact_reproduction(frozen_run):
    result = runner.invoke(app, ["rescore", str(frozen_run)])
    assert result.exit_code == 0, result.output
    assert "18/18 results reproduced exactly" in result.output


def test_cli_rescore_combined_policies_prints_the_table(run_copy):
    result = runner.invoke(
        app, ["rescore", str(run_copy), "--policy", "category-max", "--policy", "vote-1"]
    )
    assert result.exit_code == 0, result.output
    assert "policy vote-1+category-max" in result.output
    for config in CONFIGS:
        assert config in result.output
    assert "results.vote-1+category-max." in result.output


def test_cli_rescore_unknown_policy_is_one_clear_error(frozen_run):
    result = runner.invoke(app, ["rescore", str(frozen_run), "--policy", "vote-9"])
    assert result.exit_code == 2
    assert "unknown policy 'vote-9'" in result.output and "Traceback" not in result.output


def test_cli_rescore_of_a_folder_that_is_no_run_is_one_clear_error(tmp_path):
    result = runner.invoke(app, ["rescore", str(tmp_path)])
    assert result.exit_code == 2 and "no run.json" in result.output


def test_worker_processes_give_the_same_results_as_one_process(run_copy, monkeypatch):
    import scoring.rescore as rescore_module

    single = rescore_run(run_copy, None, ["category-max"], workers=1)
    monkeypatch.setattr(rescore_module, "PARALLEL_MIN_CASES", 1)
    forked = rescore_run(run_copy, None, ["category-max"], workers=2)
    assert forked.lines == single.lines and forked.summaries == single.summaries
    assert forked.output is not None and forked.output.read_text() == "".join(single.lines)
