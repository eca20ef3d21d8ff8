"""Merged findings -> points: the deterministic severity-times-prevalence ranker.

Every number comes from the taxonomy::

    penalty(finding) = base(tier of its subtype) x m(rho)     rho: its category's affected fraction
    points lost(dim) = min(cap(dim), sum of the dimension's counted penalties)
    score(dim)       = weight(dim) - points lost(dim)
    S                = layout + text + graphics                  (0-100)

A finding is counted in the dimension the taxonomy places its subtype in (the taxonomy is the
source of truth when a subtype has moved since the verdict was given). Outer whitespace, centring
and absolute scale never enter: only findings do.

Policies: ``unit_multiplier`` sets m = 1; ``category_max`` counts only the largest penalty per
(dimension, category) (ties: the first reported); ``equal_weights`` reports each dimension as
100/3 x score/weight, so S = 100 x mean retained fraction and layout + text + graphics == S
still holds. Gated and invalid cases never reach the ranker (they score 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from judge.errors import ScoringError
from judge.schema import (
    DimensionScore,
    FindingPenalty,
    MergedFinding,
    Policy,
    ScoreBreakdown,
    Taxonomy,
)
from taxonomy.loader import TOTAL_POINTS

RATIO_TOLERANCE = 1e-9
"""Slack when comparing rho with a step bound: fractions computed as counts / totals can land
one float ulp above a bound they equal (3 * 0.1 > 0.3)."""

DIMENSIONS = ("layout", "text", "graphics")
"""The dimensions in the order S adds them."""


def multiplier(tax: Taxonomy, rho: float) -> float:
    """m(rho): the multiplier of the first staircase step whose max_ratio >= rho (rho in 0-1)."""
    for step in tax.staircase:
        if rho <= step.max_ratio + RATIO_TOLERANCE:
            return step.multiplier
    return tax.staircase[-1].multiplier


def penalties(
    findings: Sequence[MergedFinding], tax: Taxonomy, policy: Policy
) -> list[FindingPenalty]:
    """One :class:`FindingPenalty` per merged finding, in order; ``counted`` per the policy.

    Raises :class:`ScoringError` when a subtype is not in the taxonomy.
    """
    out: list[FindingPenalty] = []
    for f in findings:
        try:
            dim, cat, st = tax.subtype(f.subtype)
        except KeyError:
            raise ScoringError(
                f"subtype {f.subtype!r} ({f.dimension}/{f.category}) is not in taxonomy "
                f"{tax.name} {tax.version}"
            ) from None
        base = tax.tiers[st.tier]
        m = 1.0 if policy.unit_multiplier else multiplier(tax, f.fraction)
        out.append(
            FindingPenalty(
                dimension=dim,
                category=cat,
                subtype=f.subtype,
                tier=st.tier,
                base=base,
                fraction=f.fraction,
                multiplier=m,
                penalty=base * m,
            )
        )
    if policy.category_max:
        best: dict[tuple[str, str], FindingPenalty] = {}
        for p in out:
            key = (p.dimension, p.category)
            if key not in best or p.penalty > best[key].penalty:
                best[key] = p
        keep = {id(p) for p in best.values()}
        for p in out:
            p.counted = id(p) in keep
    return out


def rank(findings: Sequence[MergedFinding], tax: Taxonomy, policy: Policy) -> ScoreBreakdown:
    """Score the merged findings of a passing case; returns the full breakdown."""
    pens = penalties(findings, tax, policy)
    dims: list[DimensionScore] = []
    contrib: dict[str, float] = {}
    for name in DIMENSIONS:
        dim = tax.dimension(name)
        total = 0.0
        for p in pens:
            if p.counted and p.dimension == name:
                total += p.penalty
        lost = min(dim.cap, total)
        score = dim.weight - lost
        dims.append(
            DimensionScore(
                name=dim.name, weight=dim.weight, cap=dim.cap, points_lost=lost, score=score
            )
        )
        if policy.equal_weights:
            contrib[name] = TOTAL_POINTS / len(DIMENSIONS) * (score / dim.weight)
        else:
            contrib[name] = score
    layout, text, graphics = contrib["layout"], contrib["text"], contrib["graphics"]
    return ScoreBreakdown(
        score=layout + text + graphics,
        layout=layout,
        text=text,
        graphics=graphics,
        dimensions=dims,
        penalties=pens,
    )
