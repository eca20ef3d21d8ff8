"""The raster reader on diagrams drawn by matplotlib (``bench/mpl_smoke.py``'s seeded
figures: ``FancyBboxPatch`` boxes, ``FancyArrowPatch`` arrows): no edge is read backwards, and
where lines fan out of one point and arrows meet at one head (figure 7) every edge is read
with its direction."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from bench.mpl_smoke import draw, read


@pytest.mark.slow
def test_matplotlib_fans_are_not_read_as_arrowheads(tmp_path: Path) -> None:
    """Before, the point several lines leave from read as a head (figure 7: 2 of 8 edges) and
    the ``simple`` wedge arrows of figure 4 read backwards."""
    backwards: dict[int, set[tuple[str, str]]] = {}
    for seed in range(8):
        png = tmp_path / f"m{seed}.png"
        truth, _style = draw(seed, png)
        got = read(png)
        wrong = {(b, a) for a, b in truth} & got
        if wrong:
            backwards[seed] = wrong
        if seed == 7:
            assert truth <= got, f"fan figure: missing {sorted(truth - got)}"
    assert not backwards, backwards


def _bbox_text_figure(png: Path) -> None:
    """Three nodes drawn the most common matplotlib way, ``ax.text`` with a tight ``bbox``
    (filled and outlined), joined by ``ax.annotate`` arrows; one edge label in a filled pill
    with no outline."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3), dpi=120)
    ax.set_xlim(0, 8)
    ax.set_ylim(0, 3)
    ax.axis("off")
    places = {"Encoder": (1.2, 1.5), "Decoder": (4.0, 1.5), "Output": (6.8, 1.5)}
    for name, (x, y) in places.items():
        box = {"boxstyle": "round,pad=0.3", "fc": "#dde8f5", "ec": "#1f3a5f", "lw": 1.2}
        ax.text(x, y, name, ha="center", va="center", fontsize=13, bbox=box)
    for a, b in (("Encoder", "Decoder"), ("Decoder", "Output")):
        (x0, y0), (x1, y1) = places[a], places[b]
        ax.annotate("", xy=(x1 - 0.47, y1), xytext=(x0 + 0.47, y0),
                    arrowprops={"arrowstyle": "-|>", "lw": 1.5, "color": "black"})  # fmt: skip
    ax.text(2.6, 2.2, "tokens", ha="center", va="center", fontsize=11,
            bbox={"boxstyle": "round,pad=0.2", "fc": "#eeeeee", "ec": "none"})  # fmt: skip
    fig.savefig(png, facecolor="white")
    plt.close(fig)


def test_boxes_drawn_tight_round_their_labels_are_nodes(tmp_path: Path) -> None:
    """Before, a filled, outlined box hugging its label (``bbox`` text) read as a cluster of
    glyphs, so no node at all. A filled pill with no outline is still text."""
    import cv2

    from judge.tools.graphread import node_blobs
    from judge.tools.nodes import detect_blobs
    from judge.tools.ocr import ocr_image

    png = tmp_path / "bbox.png"
    _bbox_text_figure(png)
    img = cv2.imread(str(png))
    assert img is not None, png
    blobs = detect_blobs(img)
    ocr = ocr_image(img)
    leaves = node_blobs(blobs, ocr, img)[0]

    def words(i: int) -> list[str]:
        x, y, w, h = blobs[i].box
        return [t.text for t in ocr if x <= t.box[0] + t.box[2] / 2 <= x + w
                and y <= t.box[1] + t.box[3] / 2 <= y + h]  # fmt: skip

    assert sorted(w for i in leaves for w in words(i)) == ["Decoder", "Encoder", "Output"]
