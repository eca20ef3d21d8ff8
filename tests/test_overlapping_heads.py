"""Heads overlapping side by side on an outlined node, or glued to a pill's rim, leave it a node;
wide heads with a slanted stub are no nodes; a tapered arrow's thin end is its head (issue 10,
session 37: seed 7171, drawn fresh and measured before these changes)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tests.test_mpl_reading import _seeded_reference
from tests.test_passing_lines_and_big_heads import heads_on_ellipse


def _read_seeded(
    tmp_path: Path, index: int, seed: int = 7171
) -> tuple[set[str], set[str], set[tuple[str, str, str]]]:
    """A seed's matplotlib figure ``index``: its node labels, and the node labels and edges
    (source, target, confidence) read as the judge reads it (``bench/reading_diff.py``'s
    reading: enlarged when small, ``judge.tools.graphs.raster_graph``)."""
    from bench.reading_diff import read_reference

    img, labels = _seeded_reference(index, seed=seed)
    ref = tmp_path / "reference.png"
    cv2.imwrite(str(ref), img)
    got = read_reference(ref)
    edges: set[tuple[str, str, str]] = set()
    for e in got["edges"]:
        src, rest = e.split(" -> ", 1)
        dst, conf = rest.rsplit(" ", 1)
        edges.add((src, dst, conf))
    return set(labels.values()), set(got["nodes"]), edges


def test_two_heads_overlapping_on_an_outlined_ellipse_leave_it_a_node(tmp_path: Path) -> None:
    """Seed 7171, figure 5 (matplotlib, 600 px): five arrows with big solid heads end on the
    outlined ellipse "Optimizer"; two pairs of neighbouring heads overlap into one 65 x 44 px
    solid each (enlarged frame). Such a solid fills no triangle, so it counted as a node
    sitting on a loop of lines round the ellipse's interior, which was then left unfilled: no
    "Optimizer", its six edges lost, and the decks that drop it or move an edge's head passed.
    A solid shaped like heads with nothing inside is a head there, as the blob scan reads it."""
    truth, nodes, edges = _read_seeded(tmp_path, 5)
    assert nodes == truth, nodes
    for src in ("Router", "Ranker", "Cluster", "Sampler", "Memory"):
        assert (src, "Optimizer", "high") in edges, edges
    assert ("Optimizer", "Detector", "high") in edges, edges


def test_overlapping_heads_drawn_on_an_outline_leave_the_node() -> None:
    """The same drawn with OpenCV (not our generators): an unfilled, black-outlined ellipse
    with two 56 px solid heads overlapping side by side (one 95 x 57 px solid), their tips on
    its top, from thick slanted lines, is found as a blob the ellipse's height (the blob's
    opening shaves a flat ellipse's ends: its width is not asserted to the pixel)."""
    from judge.tools.nodes import detect_blobs

    img = np.full((700, 1200, 3), 255, np.uint8)
    centre, axes = (600, 470), (190, 66)
    cv2.ellipse(img, centre, axes, 0, 0, 360, (0, 0, 0), 3, cv2.LINE_AA)
    heads_on_ellipse(img, centre, axes, [((290, 150), 556), ((340, 150), 600)],
                     into=1, length=56, half=24, shaft=6)  # fmt: skip
    cv2.putText(img, "Optimizer", (520, 482), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
    blobs = detect_blobs(img)
    x0, y0 = centre[0] - axes[0], centre[1] - axes[1]
    assert any(
        abs(b.box[0] - x0) <= 30 and abs(b.box[1] - y0) <= 6 and b.box[3] >= 2 * axes[1]
        for b in blobs
    ), [b.box for b in blobs]


def test_a_head_glued_to_a_pills_rim_leaves_it_a_node_not_a_picture(tmp_path: Path) -> None:
    """Seed 7171, figure 4 (matplotlib, 1080 px, read at its own size): an arc's head ends on
    the right of the pill "Monitor" and widens the blob's mask past the outline, whose blend
    with the background then joined the head into one 422 px piece off the fill, over the
    size of a head glued to the rim; the head's 125 px inside made the pill "busy", a
    picture: "Monitor" and its three edges were lost. A glued piece is measured inside the
    rim only."""
    truth, nodes, edges = _read_seeded(tmp_path, 4)
    assert nodes == truth, nodes
    assert ("Reviewer", "Monitor", "high") in edges, edges
    assert ("Labeler", "Monitor", "high") in edges, edges
    assert ("Monitor", "Deploy", "high") in edges, edges


def test_wide_heads_with_a_slanted_stub_are_no_nodes(tmp_path: Path) -> None:
    """Seed 7171, figure 2 (matplotlib, 682 px, read at its own size): two 44 px solid heads
    at the end of slanted 8 px shafts, with the shaft's stub left by the opening, fill 0.695
    of the smallest triangle round them, under the 0.7 heads were known to fill: both read
    as unlabelled nodes, "Optimizer" -> "Embedding" and "Embedding" -> "Merger" ended at them,
    and a deck moving the first edge's head passed."""
    truth, nodes, edges = _read_seeded(tmp_path, 2)
    assert nodes == truth, nodes
    assert ("Optimizer", "Embedding", "high") in edges, edges
    assert ("Embedding", "Merger", "high") in edges, edges


def test_a_tapered_arrows_thin_end_is_its_head(tmp_path: Path) -> None:
    """Seed 7171, figure 13 (matplotlib, 712 px, read at its own size): arrows whose 12 px
    tails narrow to 4 px shafts end in heads 9 px wide, the one into "Validate" on the
    ellipse's outline, whose erasing takes half of it: the head read too small, and the
    thick end, a tapered tail, is no head (``headtests.untaper``), so the arrow had no
    direction and its reversed deck passed. A tapered arrow's thin end is its head."""
    truth, nodes, edges = _read_seeded(tmp_path, 13)
    assert nodes == truth, nodes
    assert ("Splitter", "Validate", "high") in edges, edges
    assert ("Splitter", "Tokenizer", "high") in edges, edges
