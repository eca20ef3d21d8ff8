"""Agreement of the judge with human labels, among the humans, and of the judge with itself.

The labels file and its reader are in :mod:`scoring.labels_file` (re-exported here).

Conventions (all statistics are on binary gate decisions unless said otherwise):

* The judge's decision on a case is its case gate (the vote of its rounds): ``pass`` passes,
  ``artifact``/``semantic``/``render`` fail. Errored cases are left out and counted.
* The human majority of a case is the decision of more than half of its annotators; a tie is
  *undecided*, left out of judge-vs-human statistics and counted.
* Gate failure is the positive class: an *extra gate* is a case the judge fails and the human
  majority passes (false positive), a *missed gate* one the judge passes and humans fail.
* Issue sets are compared on cases that both the judge and the human majority pass (Stage 3
  findings exist only there): the judge's set is the subtypes of its merged findings, each
  annotator's set the subtypes they listed. Jaccard of two empty sets is 1.
* Pairwise Cohen's kappa: for every two annotators, over the cases both labelled.
* Fleiss' kappa needs a fixed number of raters per case: it uses the cases rated by the most
  common number of annotators (>= 2). Krippendorff's alpha (nominal) uses every case with at
  least two ratings.
* Single-round unanimity is over the rounds that decided (pass, semantic or render); rounds
  skipped by an early stop or errored are left out, so a case needs two decided rounds.

Fractions are 0-1.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import norm

from judge.errors import LabelsError
from judge.schema import CaseResult
from scoring.labels_file import LABEL_COLUMNS as LABEL_COLUMNS
from scoring.labels_file import Label as Label
from scoring.labels_file import read_labels as read_labels
from scoring.labels_file import run_subtypes as run_subtypes
from scoring.leaderboard import json_safe

DEFAULT_CONFIDENCE = 0.95
"""Coverage of the Wilson intervals."""
VOTE_THRESHOLDS = (1, 2, 3)
"""Passing rounds needed for a case to pass, compared in the threshold study."""
DECIDED_ROUND = ("pass", "semantic", "render")
"""Round statuses that are a gate decision (errored and skipped rounds are not)."""


# ----------------------------------------------------------------------------------------------
# The run side of the labels


def copied_rounds_reason(run: Path) -> str | None:
    """Why a run's rounds 1.. are copies of round 0 (a deterministic backend: builtin, or a
    replay of one script file), from its ``run.json``; None when rounds were judged apart."""
    from judge.rundir import RUN_MANIFEST
    from judge.schema import RunManifest

    path = Path(run) / RUN_MANIFEST
    try:
        manifest = RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if manifest.rounds < 2:
        return None
    if manifest.judge == "builtin":
        return "the builtin judge is deterministic"
    source = manifest.settings.get("replay_source")
    if manifest.judge == "replay" and isinstance(source, str) and Path(source).is_file():
        return "a replay of one script file gives the same answer every round"
    return None


# ----------------------------------------------------------------------------------------------
# Statistics (plain functions, checked against statsmodels/krippendorff in the tests)


def wilson_interval(
    successes: int, n: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (0-1 bounds); (nan, nan) when n = 0."""
    if n == 0:
        return (math.nan, math.nan)
    z = float(norm.ppf(1.0 - (1.0 - confidence) / 2.0))
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa of two raters over the same items; nan when chance agreement is 1."""
    if len(a) != len(b):
        raise ValueError("raters must rate the same items")
    n = len(a)
    if n == 0:
        return math.nan
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb.get(k, 0) for k in ca) / (n * n)
    if expected >= 1.0:
        return math.nan
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(table: np.ndarray) -> float:
    """Fleiss' kappa from an items x categories table of rating counts (same raters per item)."""
    table = np.asarray(table, dtype=np.float64)
    n_items = table.shape[0]
    raters = table.sum(axis=1)
    if n_items == 0 or not np.all(raters == raters[0]) or raters[0] < 2:
        return math.nan
    r = raters[0]
    p_items = ((table * table).sum(axis=1) - r) / (r * (r - 1))
    p_bar = p_items.mean()
    p_cat = table.sum(axis=0) / (n_items * r)
    p_e = float((p_cat * p_cat).sum())
    if p_e >= 1.0:
        return math.nan
    return float((p_bar - p_e) / (1.0 - p_e))


def krippendorff_alpha_nominal(units: Sequence[Sequence[Hashable]]) -> float:
    """Krippendorff's alpha for nominal data; ``units`` holds each unit's ratings (any count).

    Units with fewer than two ratings carry no pairing information and are dropped.
    """
    values = sorted({v for u in units for v in u}, key=repr)
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    coincidence = np.zeros((k, k))
    for unit in units:
        m = len(unit)
        if m < 2:
            continue
        counts = np.zeros(k)
        for v in unit:
            counts[index[v]] += 1
        pairs = np.outer(counts, counts) - np.diag(counts)
        coincidence += pairs / (m - 1)
    n_c = coincidence.sum(axis=0)
    n = n_c.sum()
    if n <= 1:
        return math.nan
    observed = coincidence.sum() - np.trace(coincidence)
    expected = (n_c.sum() ** 2 - (n_c * n_c).sum()) / (n - 1)
    if expected == 0:
        return math.nan
    return float(1.0 - observed / expected)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b|, 1 for two empty sets."""
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


# ----------------------------------------------------------------------------------------------
# The report


@dataclass(frozen=True)
class BinaryAgreement:
    """Agreement of two binary gate decisions over the same cases (gate failure positive)."""

    cases: int
    agree: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    kappa: float | None
    extra_gates: int
    """Cases the first (judge) fails and the second (humans, or the other run) passes."""
    missed_gates: int
    """Cases the first passes and the second fails."""
    both_fail: int
    both_pass: int


@dataclass(frozen=True)
class ThresholdEffect:
    threshold: int
    passing: int
    """Cases (valid, not errored) with at least ``threshold`` passing rounds."""
    undetermined: int
    """Cases short of the threshold only because rounds were skipped or errored."""
    human_agreement: float | None
    """Share of labelled, human-decided, determined cases where this threshold agrees with the
    human majority."""


@dataclass(frozen=True)
class IssueSetStats:
    cases: int
    """Cases both the judge and the human majority pass (issue sets compared there)."""
    annotator_pairs: int
    annotator_exact: float | None
    annotator_jaccard: float | None
    judge_pairs: int
    """(case, annotator) pairs compared with the judge."""
    judge_exact: float | None
    judge_jaccard: float | None


@dataclass(frozen=True)
class PairwiseKappa:
    """Cohen's kappa of two annotators' gate calls on the cases both labelled."""

    a: str
    b: str
    cases: int
    agree: int
    kappa: float | None
    """None when undefined (no common case, or both always give the same call)."""


@dataclass(frozen=True)
class AgreementReport:
    labels_file: str
    labelled_cases: int
    annotators: list[str]
    label_rows: int
    errored_cases: int
    """Labelled cases the judge could not decide (left out)."""
    human_ties: int
    """Labelled cases whose annotators split evenly (no human majority, left out)."""
    judge_vs_humans: BinaryAgreement
    annotator_unanimity: float | None
    unanimity_cases: int
    fleiss_kappa: float | None
    fleiss_cases: int
    fleiss_raters: int
    krippendorff_alpha: float | None
    alpha_cases: int
    issue_sets: IssueSetStats
    single_round_unanimity: float | None
    repeatability_cases: int
    """Cases of the run with at least two decided rounds."""
    cases_with_skipped_rounds: int
    thresholds: list[ThresholdEffect]
    second_run: BinaryAgreement | None = None
    second_run_path: str | None = None
    confidence: float = DEFAULT_CONFIDENCE
    notes: list[str] = field(default_factory=list)
    skipped_labels: list[str] = field(default_factory=list)
    """``FILE:LINE: case ...`` of labels for cases the run does not have (left out)."""
    rounds_copied: str | None = None
    """Why the run's rounds are copies of round 0 (repeatability is then not measured)."""
    pairwise_kappas: list[PairwiseKappa] = field(default_factory=list)
    """Every pair of annotators (sorted by name)."""

    def to_dict(self) -> dict[str, object]:
        out = json_safe(asdict(self))
        assert isinstance(out, dict)
        return out


def _nan_none(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def judge_passes(case: CaseResult) -> bool:
    """The judge's binary gate decision for a case (True = passes every gate)."""
    return case.gate == "pass" and case.valid


def binary_agreement(
    first: Sequence[bool], second: Sequence[bool], confidence: float = DEFAULT_CONFIDENCE
) -> BinaryAgreement:
    """Agreement of two pass(True)/fail(False) sequences (first = judge)."""
    n = len(first)
    agree = sum(1 for a, b in zip(first, second, strict=True) if a == b)
    low, high = wilson_interval(agree, n, confidence)
    return BinaryAgreement(
        cases=n,
        agree=agree,
        rate=agree / n if n else None,
        ci_low=_nan_none(low),
        ci_high=_nan_none(high),
        kappa=_nan_none(cohen_kappa(list(first), list(second))),
        extra_gates=sum(1 for a, b in zip(first, second, strict=True) if not a and b),
        missed_gates=sum(1 for a, b in zip(first, second, strict=True) if a and not b),
        both_fail=sum(1 for a, b in zip(first, second, strict=True) if not a and not b),
        both_pass=sum(1 for a, b in zip(first, second, strict=True) if a and b),
    )


def _passing_rounds(case: CaseResult) -> tuple[int, int]:
    """(passing rounds, rounds that did not decide: skipped or errored)."""
    passes = sum(1 for s in case.rounds if s == "pass")
    open_ = sum(1 for s in case.rounds if s in ("skipped", "errored"))
    return passes, open_


def agreement_report(
    cases: Sequence[CaseResult],
    labels: Sequence[Label],
    *,
    labels_file: str = "",
    second: Sequence[CaseResult] | None = None,
    second_run_path: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    rounds_copied: str | None = None,
) -> AgreementReport:
    """Every agreement statistic of the module docstring for one run and its labels.

    Labels for cases the run does not have are listed in ``skipped_labels`` and left out (a
    subset run stays comparable to the full label file). ``rounds_copied`` (see
    :func:`copied_rounds_reason`): the rounds are copies, so round repeatability is not
    measured (``single_round_unanimity`` None)."""
    by_case = {c.case_id: c for c in cases}
    per_case, skipped = _labels_by_case(labels, by_case, labels_file)
    majority, ties = _human_majority(per_case)
    errored = sorted(
        cid for cid in per_case if by_case[cid].error is not None or by_case[cid].gate is None
    )
    decided = sorted(cid for cid in majority if cid not in errored)
    judge_vs = binary_agreement(
        [judge_passes(by_case[c]) for c in decided],
        [majority[c] for c in decided],
        confidence,
    )
    raters = _among_annotators(per_case)
    # Issue sets on cases both the judge and the human majority pass.
    issue_cases = [c for c in decided if majority[c] and judge_passes(by_case[c])]
    repeat = _repeatability(cases)
    second_agreement = None
    if second is not None:
        second_agreement = _second_run_agreement(cases, by_case, second, confidence)
    notes: list[str] = []
    if raters.fleiss_cases and raters.fleiss_cases < raters.multi:
        notes.append(
            f"Fleiss' kappa uses the {raters.fleiss_cases} cases with {raters.fleiss_raters} "
            f"annotators (of {raters.multi} with two or more)"
        )
    return AgreementReport(
        labels_file=labels_file,
        labelled_cases=len(per_case),
        annotators=sorted({lab.annotator for lab in labels}),
        label_rows=len(labels),
        errored_cases=len(errored),
        human_ties=ties,
        judge_vs_humans=judge_vs,
        annotator_unanimity=raters.unanimous / raters.multi if raters.multi else None,
        unanimity_cases=raters.multi,
        fleiss_kappa=_nan_none(raters.fleiss_kappa),
        fleiss_cases=raters.fleiss_cases,
        fleiss_raters=raters.fleiss_raters,
        krippendorff_alpha=_nan_none(raters.alpha),
        alpha_cases=raters.multi,
        issue_sets=_issue_sets(issue_cases, per_case, by_case),
        single_round_unanimity=(
            repeat.unanimous / repeat.cases if repeat.cases and rounds_copied is None else None
        ),
        repeatability_cases=repeat.cases,
        cases_with_skipped_rounds=repeat.with_skipped,
        thresholds=_threshold_study(cases, decided, majority),
        second_run=second_agreement,
        second_run_path=second_run_path,
        confidence=confidence,
        notes=notes,
        skipped_labels=skipped,
        rounds_copied=rounds_copied,
        pairwise_kappas=pairwise_kappas([lab for labs in per_case.values() for lab in labs]),
    )


@dataclass(frozen=True)
class CaseComparison:
    """One labelled case: the judge's decision beside its annotators' (for the report)."""

    case_id: str
    judge_gate: str
    """The case gate, or ``errored``."""
    judge_pass: bool | None
    """None when the judge could not decide (errored)."""
    judge_subtypes: list[str]
    human_pass: bool | None
    """The human majority; None on a tie."""
    humans: list[Label]
    """The case's labels, sorted by annotator."""

    @property
    def status(self) -> str:
        """``disagree`` (judge and human majority differ), ``undecided`` (a tie or an errored
        case) or ``agree``."""
        if self.judge_pass is None or self.human_pass is None:
            return "undecided"
        return "agree" if self.judge_pass == self.human_pass else "disagree"


COMPARISON_ORDER = {"disagree": 0, "undecided": 1, "agree": 2}
"""Order of the report's case-by-case table: disagreements first."""


def case_comparisons(cases: Sequence[CaseResult], labels: Sequence[Label]) -> list[CaseComparison]:
    """Every labelled case, judge beside humans: disagreements first, then undecided cases,
    then agreements (each by case id)."""
    by_case = {c.case_id: c for c in cases}
    per_case, _ = _labels_by_case(labels, by_case, "")
    majority, _ = _human_majority(per_case)
    out = []
    for cid, labs in per_case.items():
        case = by_case[cid]
        errored = case.error is not None or case.gate is None
        out.append(
            CaseComparison(
                case_id=cid,
                judge_gate="errored" if errored else str(case.gate),
                judge_pass=None if errored else judge_passes(case),
                judge_subtypes=sorted({f.subtype for f in case.findings}),
                human_pass=majority.get(cid),
                humans=sorted(labs, key=lambda lab: lab.annotator),
            )
        )
    return sorted(out, key=lambda c: (COMPARISON_ORDER[c.status], c.case_id))


def pairwise_kappas(labels: Sequence[Label]) -> list[PairwiseKappa]:
    """Cohen's kappa for every two annotators over the cases both labelled."""
    calls: dict[str, dict[str, bool]] = {}
    for lab in labels:
        calls.setdefault(lab.annotator, {})[lab.case_id] = lab.gate_pass
    out: list[PairwiseKappa] = []
    for a, b in itertools.combinations(sorted(calls), 2):
        common = sorted(set(calls[a]) & set(calls[b]))
        xa = [calls[a][c] for c in common]
        xb = [calls[b][c] for c in common]
        out.append(
            PairwiseKappa(
                a=a,
                b=b,
                cases=len(common),
                agree=sum(1 for x, y in zip(xa, xb, strict=True) if x == y),
                kappa=_nan_none(cohen_kappa(xa, xb)),
            )
        )
    return out


def _labels_by_case(
    labels: Sequence[Label], by_case: dict[str, CaseResult], labels_file: str
) -> tuple[dict[str, list[Label]], list[str]]:
    """The labels grouped by case, and one line per label for a case the run lacks (skipped);
    a :class:`LabelsError` when no label names a case of the run."""
    per_case: dict[str, list[Label]] = {}
    skipped: list[str] = []
    for lab in labels:
        if lab.case_id not in by_case:
            skipped.append(f"{labels_file}:{lab.line}: case {lab.case_id!r} is not in the run")
        else:
            per_case.setdefault(lab.case_id, []).append(lab)
    if skipped and not per_case:
        raise LabelsError(f"{skipped[0]}, and no other labelled case is either")
    return per_case, skipped


def _human_majority(per_case: dict[str, list[Label]]) -> tuple[dict[str, bool], int]:
    """The human majority gate per case (True = pass) and the number of tied cases (left out)."""
    majority: dict[str, bool] = {}
    ties = 0
    for cid, labs in per_case.items():
        passes = sum(1 for lab in labs if lab.gate_pass)
        fails = len(labs) - passes
        if passes == fails:
            ties += 1
        else:
            majority[cid] = passes > fails
    return majority, ties


@dataclass
class _RaterAgreement:
    """Agreement among annotators on the cases labelled twice or more."""

    multi: int
    """Cases with two or more labels."""
    unanimous: int
    fleiss_cases: int
    """Cases with the most common number of annotators (Fleiss' kappa needs equal counts)."""
    fleiss_raters: int
    fleiss_kappa: float
    alpha: float


def _among_annotators(per_case: dict[str, list[Label]]) -> _RaterAgreement:
    multi = {cid: labs for cid, labs in per_case.items() if len(labs) >= 2}
    unanimous = sum(1 for labs in multi.values() if len({lab.gate_pass for lab in labs}) == 1)
    rater_counts = Counter(len(labs) for labs in multi.values())
    fleiss_raters = max(rater_counts, key=lambda r: (rater_counts[r], r)) if rater_counts else 0
    fleiss_rows = [
        [sum(1 for lab in labs if not lab.gate_pass), sum(1 for lab in labs if lab.gate_pass)]
        for labs in multi.values()
        if len(labs) == fleiss_raters
    ]
    fk = fleiss_kappa(np.array(fleiss_rows)) if fleiss_rows else math.nan
    alpha = krippendorff_alpha_nominal([[lab.gate_pass for lab in labs] for labs in multi.values()])
    return _RaterAgreement(len(multi), unanimous, len(fleiss_rows), fleiss_raters, fk, alpha)


def _issue_sets(
    issue_cases: list[str], per_case: dict[str, list[Label]], by_case: dict[str, CaseResult]
) -> IssueSetStats:
    """Exact and Jaccard agreement of subtype sets, between annotators and judge vs annotator."""
    ann_exact: list[float] = []
    ann_jac: list[float] = []
    judge_exact: list[float] = []
    judge_jac: list[float] = []
    for cid in issue_cases:
        labs = per_case[cid]
        for x, y in itertools.combinations(labs, 2):
            ann_exact.append(1.0 if x.subtypes == y.subtypes else 0.0)
            ann_jac.append(jaccard(x.subtypes, y.subtypes))
        judged = frozenset(f.subtype for f in by_case[cid].findings)
        for lab in labs:
            judge_exact.append(1.0 if judged == lab.subtypes else 0.0)
            judge_jac.append(jaccard(judged, lab.subtypes))
    return IssueSetStats(
        cases=len(issue_cases),
        annotator_pairs=len(ann_exact),
        annotator_exact=_mean(ann_exact),
        annotator_jaccard=_mean(ann_jac),
        judge_pairs=len(judge_exact),
        judge_exact=_mean(judge_exact),
        judge_jaccard=_mean(judge_jac),
    )


@dataclass
class _Repeatability:
    cases: int
    """Decided cases with two or more decided rounds."""
    unanimous: int
    """Of those, cases whose decided rounds all agree (pass or not)."""
    with_skipped: int


def _repeatability(cases: Sequence[CaseResult]) -> _Repeatability:
    """Repeatability across rounds (every decided case of the run, labelled or not)."""
    rep = _Repeatability(0, 0, 0)
    for case in cases:
        if case.error is not None or case.gate is None:
            continue
        if "skipped" in case.rounds:
            rep.with_skipped += 1
        decided_rounds = [s == "pass" for s in case.rounds if s in DECIDED_ROUND]
        if len(decided_rounds) >= 2:
            rep.cases += 1
            rep.unanimous += len(set(decided_rounds)) == 1
    return rep


def _threshold_study(
    cases: Sequence[CaseResult], decided: list[str], majority: dict[str, bool]
) -> list[ThresholdEffect]:
    """What each vote threshold of :data:`VOTE_THRESHOLDS` would pass, and its human agreement."""
    thresholds: list[ThresholdEffect] = []
    judged_cases = [c for c in cases if c.error is None and c.gate is not None]
    for t in VOTE_THRESHOLDS:
        passing = 0
        undetermined = 0
        outcome: dict[str, bool] = {}
        for case in judged_cases:
            if not case.valid:
                outcome[case.case_id] = False
                continue
            passes, open_ = _passing_rounds(case)
            if passes >= t:
                passing += 1
                outcome[case.case_id] = True
            elif passes + open_ >= t:
                undetermined += 1
            else:
                outcome[case.case_id] = False
        comparable = [c for c in decided if c in outcome]
        thresholds.append(
            ThresholdEffect(
                threshold=t,
                passing=passing,
                undetermined=undetermined,
                human_agreement=_mean(
                    [1.0 if outcome[c] == majority[c] else 0.0 for c in comparable]
                ),
            )
        )
    return thresholds


def _second_run_agreement(
    cases: Sequence[CaseResult],
    by_case: dict[str, CaseResult],
    second: Sequence[CaseResult],
    confidence: float,
) -> BinaryAgreement:
    """Gate agreement between this run and a second run on their commonly decided cases."""
    other = {c.case_id: c for c in second if c.error is None and c.gate is not None}
    common = sorted(
        c.case_id for c in cases if c.case_id in other and c.error is None and c.gate is not None
    )
    return binary_agreement(
        [judge_passes(by_case[c]) for c in common],
        [judge_passes(other[c]) for c in common],
        confidence,
    )


def _mean(xs: Sequence[float]) -> float | None:
    return float(sum(xs) / len(xs)) if xs else None


# ----------------------------------------------------------------------------------------------
# Text rendering


def _num(x: float | None, fmt: str = "{:.3f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


MAX_SKIPPED_SHOWN = 10
"""Skipped label rows listed by the text report before the rest are counted."""


def _binary_lines(title: str, b: BinaryAgreement, confidence: float) -> list[str]:
    pct = int(round(confidence * 100))
    return [
        f"{title}: {b.agree}/{b.cases} agree = {_pct(b.rate)} "
        f"(Wilson {pct}% [{_pct(b.ci_low)}, {_pct(b.ci_high)}]), Cohen's kappa {_num(b.kappa)}",
        f"  extra gates (judge fails, other passes): {b.extra_gates}; "
        f"missed gates (judge passes, other fails): {b.missed_gates}; "
        f"both fail: {b.both_fail}; both pass: {b.both_pass}",
    ]


def agreement_text(rep: AgreementReport) -> str:
    lines = [
        f"labels: {rep.label_rows} rows, {rep.labelled_cases} cases, "
        f"{len(rep.annotators)} annotators ({', '.join(rep.annotators)})",
        f"left out: {rep.errored_cases} errored cases, {rep.human_ties} human ties",
    ]
    if rep.skipped_labels:
        lines.append(
            f"skipped {len(rep.skipped_labels)} label row(s) for cases the run does not have:"
        )
        lines += [f"  {x}" for x in rep.skipped_labels[:MAX_SKIPPED_SHOWN]]
        if len(rep.skipped_labels) > MAX_SKIPPED_SHOWN:
            lines.append(f"  ... and {len(rep.skipped_labels) - MAX_SKIPPED_SHOWN} more")
    lines += _binary_lines("judge vs human majority", rep.judge_vs_humans, rep.confidence)
    one = len(rep.annotators) < 2
    if one:
        lines.append(
            "among annotators: not measured (between-annotator figures need two annotators; "
            f"the labels have {len(rep.annotators)})"
        )
    else:
        lines.append(
            f"among annotators: unanimous on {_pct(rep.annotator_unanimity)} of "
            f"{rep.unanimity_cases} cases; Fleiss' kappa {_num(rep.fleiss_kappa)} "
            f"({rep.fleiss_cases} cases x {rep.fleiss_raters} raters); Krippendorff's alpha "
            f"(nominal) {_num(rep.krippendorff_alpha)} ({rep.alpha_cases} cases)"
        )
    if rep.pairwise_kappas:
        lines.append(
            "pairwise Cohen's kappa: "
            + "; ".join(
                f"{p.a}-{p.b} {_num(p.kappa)} ({p.agree}/{p.cases} agree)"
                for p in rep.pairwise_kappas
            )
        )
    s = rep.issue_sets
    among = (
        ""
        if one
        else f"annotators exact match {_pct(s.annotator_exact)}, mean Jaccard "
        f"{_num(s.annotator_jaccard)} ({s.annotator_pairs} pairs); "
    )
    lines.append(
        f"issue sets on {s.cases} cases both pass: {among}judge vs humans exact match "
        f"{_pct(s.judge_exact)}, mean Jaccard {_num(s.judge_jaccard)} ({s.judge_pairs} pairs)"
    )
    if rep.rounds_copied:
        lines.append(
            f"judge repeatability: not measured ({rep.rounds_copied}: rounds 1.. are copies "
            "of round 0; compare two runs with --second-run instead)"
        )
    else:
        lines.append(
            f"judge repeatability: single-round unanimity {_pct(rep.single_round_unanimity)} "
            f"of {rep.repeatability_cases} cases with >= 2 decided rounds "
            f"({rep.cases_with_skipped_rounds} cases had skipped rounds)"
        )
    if rep.second_run is not None:
        lines += _binary_lines(
            f"majority vs majority with {rep.second_run_path}", rep.second_run, rep.confidence
        )
    lines.append("vote threshold (passing rounds needed): passing cases, undetermined, vs humans")
    for t in rep.thresholds:
        lines.append(
            f"  {t.threshold}: {t.passing} pass, {t.undetermined} undetermined, "
            f"human agreement {_pct(t.human_agreement)}"
        )
    lines += [f"note: {n}" for n in rep.notes]
    return "\n".join(lines)
