"""Rescore a finished run from its frozen files, under its own or another taxonomy and policy.

No model is called and nothing is rendered: for every case listed in ``results.jsonl`` the
rescorer reads ``stage0.json`` and ``rounds/round-<k>.json`` (k < the run's round count) and
rebuilds the results line with :func:`scoring.case.case_result`.

* **Identity** (no ``--taxonomy``, or one whose content hash equals the run's, and a policy with
  the run's settings): every rebuilt score must equal the recorded one exactly; differences are
  reported as mismatches and nothing is written.
* **Any other configuration**: the new lines go to ``results.<policy>.<hash8>.jsonl`` beside
  ``results.jsonl`` (which is never touched), and the report gives per-configuration mean S
  before and after and Kendall's tau between the two configuration rankings.

Frozen-file rules: a round file that does not exist counts as ``skipped`` (never judged; the
engine writes every round it judges). A case recorded with an error and no round files (it
failed before judging) keeps its recorded error. A missing ``stage0.json`` means Stage 0 left
no report; the recorded rounds are then scored as judged. An unreadable file makes that case an
error and the batch goes on.

The original taxonomy is ``<run>/taxonomy.yaml`` when the run kept a copy, else the
``taxonomy_path`` of ``run.json``; either must still hash to the run's recorded hash.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError
from scipy.stats import kendalltau

from judge.errors import BenchmarkError, TaxonomyError
from judge.rundir import RESULTS, RUN_MANIFEST, atomic_write_text, case_dir, read_results
from judge.schema import (
    ArtifactReport,
    CaseResult,
    Policy,
    RoundResult,
    RunManifest,
    Taxonomy,
)
from scoring.case import case_result
from scoring.policy import resolve_policy, same_settings
from taxonomy.loader import DEFAULT_TAXONOMY, load_taxonomy, taxonomy_hash

RUN_TAXONOMY_COPY = "taxonomy.yaml"
"""Name of the copy of the taxonomy a run may keep beside ``run.json``."""

HASH_PREFIX_CHARS = 8
"""Characters of the taxonomy hash in a rescored results file name (enough to tell variants
apart in one run folder)."""


@dataclass
class ConfigShift:
    """Mean S of one configuration before and after rescoring (cases with a score only)."""

    config_id: str
    cases: int
    scored_before: int
    scored_after: int
    mean_before: float | None
    mean_after: float | None

    @property
    def delta(self) -> float | None:
        if self.mean_before is None or self.mean_after is None:
            return None
        return self.mean_after - self.mean_before


@dataclass
class RescoreReport:
    """What :func:`rescore_run` did and what moved."""

    run: Path
    taxonomy_source: str
    """The taxonomy file used (or a note that the run's original was used)."""
    taxonomy_version: str
    taxonomy_hash: str
    recorded_taxonomy_hash: str
    policy: Policy
    recorded_policy: Policy
    identity: bool
    """True when taxonomy and policy equal the run's: then scores must reproduce exactly."""
    results: list[CaseResult] = field(default_factory=list)
    recorded: list[CaseResult] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    """Identity only: cases whose rebuilt result differs from the recorded one."""
    changed: int = 0
    """Cases whose score (or gate) differs from the recorded one."""
    errors: list[str] = field(default_factory=list)
    """``case_id: error`` for every rescored case that could not be scored."""
    configs: list[ConfigShift] = field(default_factory=list)
    kendall_tau: float | None = None
    """Kendall's tau between the configuration rankings by mean S before and after; None with
    fewer than two configurations or a constant ranking."""
    output: Path | None = None
    """The rescored results file (None for identity rescoring)."""
    seconds: float = 0.0


def _read_manifest(run: Path) -> RunManifest:
    path = run / RUN_MANIFEST
    try:
        return RunManifest.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise BenchmarkError(f"{path}: no run.json (is {run} a run directory?)") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BenchmarkError(f"{path}: not a run manifest: {where}: {first['msg']}") from None


def original_taxonomy(run: Path, manifest: RunManifest) -> tuple[Taxonomy, str]:
    """The taxonomy the run was scored with, and where it was found.

    Raises :class:`TaxonomyError` when neither the run's copy nor ``taxonomy_path`` hashes to
    the run's recorded ``taxonomy_hash`` (the file was edited since).
    """
    candidates: list[Path] = []
    if (run / RUN_TAXONOMY_COPY).is_file():
        candidates.append(run / RUN_TAXONOMY_COPY)
    if manifest.taxonomy_path:
        p = Path(manifest.taxonomy_path)
        candidates.append(p if p.is_absolute() else run / p)
        if not p.is_absolute():
            candidates.append(p)
    else:
        candidates.append(DEFAULT_TAXONOMY)
    tried: list[str] = []
    for path in candidates:
        if not path.is_file():
            tried.append(f"{path} (missing)")
            continue
        tax = load_taxonomy(path)
        h = taxonomy_hash(tax)
        if h == manifest.taxonomy_hash:
            return tax, str(path)
        tried.append(f"{path} (hash {h[:HASH_PREFIX_CHARS]})")
    raise TaxonomyError(
        f"{run / RUN_MANIFEST}: the run was scored with taxonomy hash "
        f"{manifest.taxonomy_hash[:HASH_PREFIX_CHARS]}, but none of its files match: "
        f"{'; '.join(tried)}; pass --taxonomy FILE to rescore under a given file"
    )


def _read_case(
    run: Path, recorded: CaseResult, n_rounds: int
) -> tuple[ArtifactReport | None, list[RoundResult], str | None]:
    """Stage 0 report, round results and a read error (if any) of one recorded case."""
    cdir = case_dir(run, recorded.config_id, recorded.task_id)
    report: ArtifactReport | None = None
    try:
        report = ArtifactReport.model_validate_json(cdir.stage0.read_bytes())
    except FileNotFoundError:
        report = None
    except (ValidationError, OSError) as exc:
        return None, [], f"cannot read {cdir.stage0}: {_short(exc)}"
    rounds: list[RoundResult] = []
    found = 0
    for k in range(n_rounds):
        path = cdir.round_json(k)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            rounds.append(RoundResult(case_id=recorded.case_id, round_index=k, status="skipped"))
            continue
        except OSError as exc:
            return report, [], f"cannot read {path}: {_short(exc)}"
        try:
            rounds.append(RoundResult.model_validate_json(data))
        except ValidationError as exc:
            return report, [], f"cannot read {path}: {_short(exc)}"
        found += 1
    if found == 0:
        # Nothing was judged: the recorded outcome (an error before judging, or an invalid
        # artifact) is all there is.
        return report, [], recorded.error if recorded.error else None
    return report, rounds, None


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        e = exc.errors()[0]
        return f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
    return str(exc)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _differs(a: CaseResult, b: CaseResult) -> bool:
    return (a.gate, a.score, a.layout, a.text, a.graphics, a.error is None) != (
        b.gate,
        b.score,
        b.layout,
        b.text,
        b.graphics,
        b.error is None,
    )


def _describe(r: CaseResult) -> str:
    if r.error is not None:
        return f"error ({r.error})"
    return (
        f"gate {r.gate}, S {r.score!r} (layout {r.layout!r}, text {r.text!r}, "
        f"graphics {r.graphics!r})"
    )


def config_shifts(before: list[CaseResult], after: list[CaseResult]) -> list[ConfigShift]:
    """Per-configuration mean S before and after (cases without a score are left out)."""
    configs = sorted({r.config_id for r in before} | {r.config_id for r in after})
    out = []
    for cid in configs:
        b = [r.score for r in before if r.config_id == cid and r.score is not None]
        a = [r.score for r in after if r.config_id == cid and r.score is not None]
        n = len({r.case_id for r in before if r.config_id == cid})
        out.append(ConfigShift(cid, n, len(b), len(a), _mean(b), _mean(a)))
    return out


def ranking_tau(shifts: list[ConfigShift]) -> float | None:
    """Kendall's tau between the mean-S rankings before and after; None when undefined."""
    pairs = [
        (s.mean_before, s.mean_after)
        for s in shifts
        if s.mean_before is not None and s.mean_after is not None
    ]
    before = [p[0] for p in pairs]
    after = [p[1] for p in pairs]
    if len(pairs) < 2 or len(set(before)) < 2 or len(set(after)) < 2:
        return None
    tau = float(kendalltau(before, after).statistic)
    return None if math.isnan(tau) else tau


def rescored_path(run: Path, policy: Policy, tax_hash: str) -> Path:
    """``<run>/results.<policy>.<hash8>.jsonl``."""
    return run / f"results.{policy.name}.{tax_hash[:HASH_PREFIX_CHARS]}.jsonl"


def rescore_run(
    run: Path, taxonomy: Path | None = None, policies: list[str] | None = None
) -> RescoreReport:
    """Recompute every case of a finished run from its frozen files (see the module docstring).

    ``taxonomy`` None uses the run's own taxonomy; ``policies`` (preset names, combined) empty
    or None uses the run's policy. Raises :class:`BenchmarkError` or :class:`TaxonomyError`
    when the run or taxonomy cannot be read; per-case problems land in ``errors``.
    """
    start = time.perf_counter()
    run = Path(run)
    manifest = _read_manifest(run)
    recorded = read_results(run)
    if taxonomy is None:
        tax, source = original_taxonomy(run, manifest)
    else:
        tax, source = load_taxonomy(taxonomy), str(taxonomy)
    tax_hash = taxonomy_hash(tax)
    policy = resolve_policy(policies) if policies else manifest.policy
    identity = tax_hash == manifest.taxonomy_hash and same_settings(policy, manifest.policy)

    report = RescoreReport(
        run=run,
        taxonomy_source=source,
        taxonomy_version=tax.version,
        taxonomy_hash=tax_hash,
        recorded_taxonomy_hash=manifest.taxonomy_hash,
        policy=policy,
        recorded_policy=manifest.policy,
        identity=identity,
        recorded=recorded,
    )
    for old in recorded:
        stage0, rounds, read_error = _read_case(run, old, manifest.rounds)
        new = case_result(
            old.case_id,
            old.task_id,
            old.config_id,
            stage0,
            rounds,
            tax,
            tax_hash,
            policy,
            read_error,
        )
        if stage0 is None and not rounds:
            # No Stage 0 report and nothing judged: keep what was recorded about the artifact.
            new.valid = old.valid
            new.artifact_failures = list(old.artifact_failures)
            if old.gate == "artifact":
                new.gate, new.error = "artifact", None
                new.score = new.layout = new.text = new.graphics = 0.0
        new.usage = old.usage
        new.generation_cost_usd = old.generation_cost_usd
        report.results.append(new)
        if new.error is not None:
            report.errors.append(f"{new.case_id}: {new.error}")
        if _differs(old, new):
            report.changed += 1
            if identity:
                report.mismatches.append(
                    f"{old.case_id}: recorded {_describe(old)}; rescored {_describe(new)}"
                )
    report.configs = config_shifts(recorded, report.results)
    report.kendall_tau = ranking_tau(report.configs)
    if not identity:
        out = rescored_path(run, policy, tax_hash)
        if out.name == RESULTS:
            raise BenchmarkError(f"{out}: refusing to overwrite the run's results")
        atomic_write_text(out, "".join(r.model_dump_json() + "\n" for r in report.results))
        report.output = out
    report.seconds = time.perf_counter() - start
    return report
