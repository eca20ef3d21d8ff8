"""Evidence for semantic discrepancies: is a label present anywhere in a text corpus?

The raster readings of the reference and the render (same reader, so shared slips cancel) say
where two diagrams may differ; the candidate's object tree then confirms or refutes. For labels
the test is presence: a reference label whose text the candidate holds somewhere (a shape, a
text box, a group member) is not missing, however the reader grouped it; a candidate label the
reference shows somewhere is not invented. Presence is approximate substring matching on
normalised text with spaces removed (OCR drops and adds spaces, splits and joins lines).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from judge.tools.graphread import TEXT_CACHE_PAIRS, normalise_label
from judge.tools.thresholds import PRESENT_MAX_DISTANCE, PRESENT_MIN_CHARS


def compact(text: str) -> str:
    """Normalised text with every space removed."""
    return normalise_label(text).replace(" ", "")


VECTOR_MIN_HAY = 32
"""From this many characters of ``hay`` on, ``substring_distance`` computes each row with numpy
(about 20 times faster on a whole-corpus haystack; slower on a short one)."""


@lru_cache(maxsize=TEXT_CACHE_PAIRS)
def substring_distance(needle: str, hay: str) -> int:
    """Fewest edits turning ``needle`` into some substring of ``hay`` (semi-global alignment)."""
    if not needle:
        return 0
    if not hay:
        return len(needle)
    if len(hay) >= VECTOR_MIN_HAY:
        return _substring_distance_np(needle, hay)
    prev = [0] * (len(hay) + 1)  # a match may start anywhere in hay
    for i, ca in enumerate(needle, 1):
        cur = [i] + [0] * len(hay)
        for j, cb in enumerate(hay, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return min(prev)


def _substring_distance_np(needle: str, hay: str) -> int:
    """``substring_distance`` a row at a time: a cell's insertion term ``cur[j-1] + 1`` chains
    along the row, so ``cur[j] = min over k <= j of a[k] + (j - k)`` (``a``: the row from the
    other two terms), a running minimum of ``a - j`` plus ``j``."""
    h = np.frombuffer(hay.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(h) + 1)
    prev = np.zeros(len(h) + 1, dtype=np.int64)
    a = np.empty(len(h) + 1, dtype=np.int64)
    for i, ca in enumerate(np.frombuffer(needle.encode("utf-32-le"), dtype=np.uint32), 1):
        a[0] = i
        np.minimum(prev[1:] + 1, prev[:-1] + (h != ca), out=a[1:])
        prev = np.minimum.accumulate(a - idx) + idx
    return int(prev.min())


@dataclass
class Corpus:
    """Texts a label may be found in (compacted); ``joined`` = all of them in order."""

    texts: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, texts: Iterable[str]) -> Corpus:
        return cls([c for c in (compact(t) for t in texts) if c])

    @property
    def joined(self) -> str:
        return "".join(self.texts)

    def distance(self, label: str, owned: frozenset[str] = frozenset()) -> float:
        """0-1: the best normalised edit distance of ``label`` to a substring of the corpus
        (0 = present verbatim, 1 = absent). Texts in ``owned`` (compacted) belong to another
        label and are skipped ("Triaged" is not present because "Triaged Wait" is). Labels
        under ``PRESENT_MIN_CHARS`` must match a whole text exactly; a label whose words are
        all present, in any order, is present (OCR orders rotated or stacked lines freely)."""
        needle = compact(label)
        if not needle:
            return 0.0
        texts = [t for t in self.texts if t not in owned or t == needle]
        if len(needle) < PRESENT_MIN_CHARS:
            return 0.0 if needle in texts else 1.0
        best = len(needle)
        for t in texts:
            if needle in t:
                return 0.0
            if len(t) + len(needle) // 3 >= len(needle) * 2 // 3:
                best = min(best, substring_distance(needle, t))
        joined = "".join(texts)
        if best / len(needle) > PRESENT_MAX_DISTANCE:
            # a label split over several texts (lines of one box, a shape and its text box)
            best = min(best, substring_distance(needle, joined))
        if best / len(needle) > PRESENT_MAX_DISTANCE:
            # every word in some text, each within its share of edits (at least one: a misread
            # letter in a short word) and all within the label's (lines of boxes side by side
            # interleave in OCR order)
            words = [compact(w) for w in normalise_label(label).split()]
            words = [w for w in words if len(w) >= PRESENT_MIN_CHARS]
            edits = [min((substring_distance(w, t) for t in texts), default=len(w)) for w in words]
            if (
                words
                and all(
                    e <= max(1, int(len(w) * PRESENT_MAX_DISTANCE))
                    for e, w in zip(edits, words, strict=True)
                )
                and sum(edits) <= sum(len(w) for w in words) * PRESENT_MAX_DISTANCE
            ):
                best = min(best, int(len(needle) * PRESENT_MAX_DISTANCE))
        return best / len(needle)

    def owned_by_others(self, label: str, labels: Iterable[str]) -> frozenset[str]:
        """Texts of the corpus that read like one of ``labels`` other than ``label`` (within
        ``PRESENT_MAX_DISTANCE`` of the whole text) better than like ``label``."""
        me = compact(label)
        others = [compact(x) for x in labels if compact(x) and compact(x) != me]
        out = set()
        for t in self.texts:
            own = _whole_distance(me, t)
            for o in others:
                d = _whole_distance(o, t)
                if d <= PRESENT_MAX_DISTANCE and d < own:
                    out.add(t)
                    break
        return frozenset(out)

    def has_whole(self, label: str) -> bool:
        """Some text of the corpus as a whole reads like ``label`` (within
        ``PRESENT_MAX_DISTANCE``): not a substring, not words gathered from several texts."""
        me = compact(label)
        return bool(me) and any(_whole_distance(me, t) <= PRESENT_MAX_DISTANCE for t in self.texts)

    def has(self, label: str, owned: frozenset[str] = frozenset()) -> bool:
        return self.distance(label, owned) <= PRESENT_MAX_DISTANCE


def _whole_distance(a: str, b: str) -> float:
    """Normalised edit distance of two compacted texts."""
    if a == b:
        return 0.0
    if not a or not b:
        return 1.0
    longer = max(len(a), len(b))
    if abs(len(a) - len(b)) / longer > PRESENT_MAX_DISTANCE:
        return 1.0  # too different in length to be the same text (skips the alignment)
    return substring_distance(a, b) / max(len(a), len(b)) + abs(len(a) - len(b)) / max(
        len(a), len(b)
    )
