"""Rounds -> case: gate votes, the case gate, and the merged findings of the passing rounds.

The decision rule, with R = the number of rounds of the case (every status counts in R) and
t = the policy's vote threshold (default majority, R // 2 + 1):

* ``pass`` rounds passed both judged gates; ``semantic``/``render`` rounds are rejections;
  ``errored`` rounds never produced a verdict; ``skipped`` rounds were not judged (early stop).
* The case **passes** when at least t rounds passed.
* The case is **gated** (score 0) when the rejections alone make t passing rounds impossible:
  passes + errored + skipped < t, i.e. rejections > R - t. Its gate is the stage most rejections
  failed at; a tie goes to ``semantic`` (the earlier, more fundamental gate).
* Otherwise the case is **undecided**: errored (or skipped) rounds could still tip it either way.
  The gate is None and the caller records an error instead of a score -- never a silent pass or
  fail. With R = 3 and majority this happens only when an errored round leaves 1 pass and
  1 rejection (or worse).

Skipped rounds never change a decided result: the engine only skips rounds that cannot, and if a
different policy makes them matter (vote-3 after an early stop) the case becomes undecided.

Merging (passing rounds only): findings are grouped by (dimension, category, subtype) as reported;
a finding from any passing round enters; its fraction is the largest affected fraction of its
category over the rounds that reported it; ``support`` lists those rounds; each sighting is kept
as an :class:`Observation` for audit. Merged findings seen in fewer passing rounds than the
policy's ``min_support`` are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from judge.errors import ScoringError
from judge.schema import (
    CaseGate,
    MergedFinding,
    Observation,
    Policy,
    RoundResult,
    RoundStatus,
)

STATUS_ORDER: tuple[RoundStatus, ...] = ("pass", "semantic", "render", "errored", "skipped")
"""Order of statuses in vote dictionaries."""


class Aggregate(NamedTuple):
    """What :func:`aggregate` returns; unpacks as ``gate, votes, findings``."""

    gate: CaseGate | None
    """``pass``, ``semantic`` or ``render``; None when the case is undecided."""
    votes: dict[RoundStatus, int]
    """Rounds per status (statuses with no round are left out)."""
    findings: list[MergedFinding]
    """Merged findings of the passing rounds (empty unless the gate is ``pass``)."""


def vote_threshold(policy: Policy, n_rounds: int) -> int:
    """Passing rounds the case needs: the policy's threshold, else a majority of ``n_rounds``.

    Raises :class:`ScoringError` when the threshold exceeds the rounds judged.
    """
    t = policy.vote_threshold if policy.vote_threshold is not None else n_rounds // 2 + 1
    if t < 1 or t > n_rounds:
        raise ScoringError(
            f"policy {policy.name!r} needs {t} passing rounds but the case has {n_rounds} rounds"
        )
    return t


def count_votes(rounds: Sequence[RoundResult]) -> dict[RoundStatus, int]:
    """Rounds per status, in :data:`STATUS_ORDER`, zero counts left out."""
    counts = {s: 0 for s in STATUS_ORDER}
    for r in rounds:
        counts[r.status] += 1
    return {s: n for s, n in counts.items() if n}


def decide(votes: dict[RoundStatus, int], threshold: int) -> CaseGate | None:
    """The case gate from the votes (see the module docstring); None when undecided."""
    passes = votes.get("pass", 0)
    semantic = votes.get("semantic", 0)
    render = votes.get("render", 0)
    open_rounds = votes.get("errored", 0) + votes.get("skipped", 0)
    if passes >= threshold:
        return "pass"
    if passes + open_rounds < threshold:
        return "semantic" if semantic >= render else "render"
    return None


def describe_undecided(votes: dict[RoundStatus, int], threshold: int) -> str:
    """One line saying why a case could not be decided."""
    shown = ", ".join(f"{n} {s}" for s, n in votes.items())
    return (
        f"undecided: rounds {shown}; {threshold} passing rounds needed, and the errored/skipped "
        "rounds could tip the result either way"
    )


def merge_findings(passing: Sequence[RoundResult], min_support: int = 1) -> list[MergedFinding]:
    """Merge the findings of passing rounds by (dimension, category, subtype).

    Order: first sighting (rounds by index, findings in reported order). Raises
    :class:`ScoringError` when a round has a finding but no affected fraction for its category.
    """
    merged: dict[tuple[str, str, str], MergedFinding] = {}
    for rnd in sorted(passing, key=lambda r: r.round_index):
        if rnd.detail is None:
            continue
        fractions: dict[tuple[str, str], float] = {}
        for fr in rnd.detail.fractions:
            key2 = (fr.dimension, fr.category)
            fractions[key2] = max(fractions.get(key2, 0.0), fr.fraction)
        for f in rnd.detail.findings:
            rho = fractions.get((f.dimension, f.category))
            if rho is None:
                raise ScoringError(
                    f"{rnd.case_id} round {rnd.round_index}: finding {f.subtype!r} has no "
                    f"affected fraction for category {f.dimension}/{f.category}"
                )
            obs = Observation(
                round_index=rnd.round_index,
                location=f.location,
                description=f.description,
                affected_count=f.affected_count,
                fraction=rho,
                bbox=f.bbox,
                reference_bbox=f.reference_bbox,
            )
            key = (f.dimension, f.category, f.subtype)
            m = merged.get(key)
            if m is None:
                merged[key] = MergedFinding(
                    dimension=f.dimension,
                    category=f.category,
                    subtype=f.subtype,
                    fraction=rho,
                    support=[rnd.round_index],
                    observations=[obs],
                )
            else:
                m.fraction = max(m.fraction, rho)
                if rnd.round_index not in m.support:
                    m.support.append(rnd.round_index)
                m.observations.append(obs)
    return [m for m in merged.values() if len(m.support) >= min_support]


def aggregate(rounds: Sequence[RoundResult], policy: Policy) -> Aggregate:
    """Votes, case gate and merged findings of one case's rounds under ``policy``.

    Raises :class:`ScoringError` for no rounds, duplicate round indices, a threshold above the
    number of rounds, or a passing round whose findings lack a category fraction.
    """
    if not rounds:
        raise ScoringError("no rounds to aggregate")
    indices = [r.round_index for r in rounds]
    if len(set(indices)) != len(indices):
        raise ScoringError(f"{rounds[0].case_id}: duplicate round indices {sorted(indices)}")
    votes = count_votes(rounds)
    threshold = vote_threshold(policy, len(rounds))
    gate = decide(votes, threshold)
    if gate != "pass":
        return Aggregate(gate, votes, [])
    passing = [r for r in rounds if r.status == "pass"]
    return Aggregate(gate, votes, merge_findings(passing, policy.min_support))
