"""Named scoring policies: the PPTBench protocol and the variants used in sensitivity studies.

A policy changes how rounds become a case result and how findings become points; it never
changes a verdict. Presets combine (``--policy vote-3 --policy unit-multiplier``) as long as no
two of them set the same knob differently.

=====================  ==========================================================================
``protocol``           majority vote (R // 2 + 1 passing rounds), staircase multiplier, weights
                       and caps from the taxonomy, every merged finding counts
``vote-1``             one passing round suffices
``vote-2``             two passing rounds needed
``vote-3``             three passing rounds needed (unanimity when R = 3)
``two-round-support``  drop merged findings seen in fewer than two passing rounds
``unit-multiplier``    m(rho) = 1: prevalence is ignored
``equal-weights``      S = 100 x mean of the three dimensions' retained fractions (score / weight)
``category-max``       within each (dimension, category) only the largest penalty counts
=====================  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judge.errors import ScoringError
from judge.schema import Policy

TWO_ROUND_SUPPORT = 2
"""Rounds that must report a finding under ``two-round-support`` (the policy's definition)."""

PRESETS: dict[str, Policy] = {
    "protocol": Policy(name="protocol"),
    "vote-1": Policy(vote_threshold=1, name="vote-1"),
    "vote-2": Policy(vote_threshold=2, name="vote-2"),
    "vote-3": Policy(vote_threshold=3, name="vote-3"),
    "two-round-support": Policy(min_support=TWO_ROUND_SUPPORT, name="two-round-support"),
    "unit-multiplier": Policy(unit_multiplier=True, name="unit-multiplier"),
    "equal-weights": Policy(equal_weights=True, name="equal-weights"),
    "category-max": Policy(category_max=True, name="category-max"),
}
"""Every named policy, in the order combined names are written."""

_DEFAULT = Policy()


def _knobs(policy: Policy) -> dict[str, Any]:
    """The policy's settings, without its name."""
    return policy.model_dump(exclude={"name"})


def same_settings(a: Policy, b: Policy) -> bool:
    """True when two policies score identically (their names may differ)."""
    return _knobs(a) == _knobs(b)


def resolve_policy(names: Sequence[str]) -> Policy:
    """Combine named presets into one policy; an empty list is the protocol.

    Raises :class:`ScoringError` for an unknown name or two presets setting one knob differently
    (``vote-1`` with ``vote-3``). The result is named by its presets joined with ``+`` in
    :data:`PRESETS` order (``vote-3+unit-multiplier``), ``protocol`` when none changes anything.
    """
    unknown = [n for n in names if n not in PRESETS]
    if unknown:
        raise ScoringError(f"unknown policy {unknown[0]!r}; known policies: {', '.join(PRESETS)}")
    chosen = [n for n in PRESETS if n in set(names) and n != "protocol"]
    defaults = _knobs(_DEFAULT)
    settings = dict(defaults)
    set_by: dict[str, str] = {}
    for name in chosen:
        for key, value in _knobs(PRESETS[name]).items():
            if value == defaults[key]:
                continue
            if key in set_by and settings[key] != value:
                raise ScoringError(
                    f"policies {set_by[key]!r} and {name!r} conflict: both set {key}"
                )
            settings[key] = value
            set_by[key] = name
    return Policy(**settings, name="+".join(chosen) if chosen else "protocol")
