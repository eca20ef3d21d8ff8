"""Connections drawn through their label.

Mermaid, draw.io and Lucidchart paint an edge label's background over its line, so the line
stops at the label and goes on after it: two line components, each touching one node.
``arrows.detect_lines`` records the label blocks such a line reaches (``LineComp.labels``);
this module joins the two halves back into one connection.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # arrows imports graphread, which imports this module: no runtime import
    from judge.tools.arrows import LabelBlock, LineComp


def bridged_lines(lines: list[LineComp]) -> list[tuple[LineComp, bool]]:
    """Where exactly two lines that touch one node each (and not the same one) reach one label
    block, the pair as one line, and whether its direction is as sure as a drawn line's.

    Heads stay where each part saw them. A part carrying a head that reaches other labels too
    (lines leaving its node together, merged there) may owe that head to another line: the
    pair's direction is then no surer than a branching line's."""
    at: dict[LabelBlock, list[LineComp]] = {}
    for ln in lines:
        for block in ln.labels:
            at.setdefault(block, []).append(ln)
    out: list[tuple[LineComp, bool]] = []
    for pair in at.values():
        if len(pair) != 2 or pair[0].contacts[0].node == pair[1].contacts[0].node:
            continue
        a, b = pair
        sure = all(len(p.labels) == 1 for p in pair if p.contacts[0].head)
        x0, y0 = min(a.box[0], b.box[0]), min(a.box[1], b.box[1])
        x1 = max(a.box[0] + a.box[2], b.box[0] + b.box[2])
        y1 = max(a.box[1] + a.box[3], b.box[1] + b.box[3])
        line = replace(
            a,
            box=(x0, y0, x1 - x0, y1 - y0),
            thickness_px=round((a.thickness_px + b.thickness_px) / 2, 2),
            dashed=a.dashed and b.dashed,
            length_px=a.length_px + b.length_px,
            contacts=[*a.contacts, *b.contacts],
            pieces=a.pieces + b.pieces,
            labels=[],
            joins=None,
        )
        out.append((line, sure))
    return out
