"""Lines broken by their label, joined back (``judge.tools.bridges``): which halves pair up, and
when the joined line's direction is as sure as a drawn line's. Built from line components as
``arrows.detect_lines`` returns them; the drawn case is in ``test_mpl_reading.py``."""

from __future__ import annotations

from judge.tools.arrows import Contact, LabelBlock, LineComp
from judge.tools.bridges import bridged_lines

YES: LabelBlock = (100.0, 100.0, 30.0, 14.0, 14.0)
NO: LabelBlock = (300.0, 100.0, 24.0, 14.0, 14.0)


def _half(node: int, head: bool, *labels: LabelBlock) -> LineComp:
    c = Contact(node, (0.0, 0.0), head, 2.0)
    return LineComp((0, 0, 10, 10), 1.5, False, 50.0, [c], labels=list(labels))


def _edges(lines: list[LineComp]) -> set[tuple[int, int, str]]:
    out = set()
    for ln, sure in bridged_lines(lines):
        for a, b, how in ln.edges():
            out.add((a, b, how if sure or how != "high" else "medium"))
    return out


def test_two_halves_at_one_label_are_one_edge_and_three_are_none() -> None:
    assert _edges([_half(0, False, YES), _half(1, True, YES)]) == {(0, 1, "high")}
    # a third line reaching the label: which two belong together is not known
    assert _edges([_half(0, False, YES), _half(1, True, YES), _half(2, True, YES)]) == set()
    # both halves at one node: a loop through a label is not read
    assert _edges([_half(0, False, YES), _half(0, True, YES)]) == set()


def test_a_head_on_a_half_that_reaches_other_labels_too_is_less_sure() -> None:
    """Lines leaving one node together merge there into one half reaching several labels; a
    head seen at that node may belong to any of them. A tail half reaching two labels (a fan
    out of its node) leaves the heads at the far ends sure."""
    fan_tail = _half(0, False, YES, NO)
    assert _edges([fan_tail, _half(1, True, YES), _half(2, True, NO)]) == {
        (0, 1, "high"),
        (0, 2, "high"),
    }
    fan_head = _half(0, True, YES, NO)
    assert _edges([fan_head, _half(1, False, YES)]) == {(1, 0, "medium")}
