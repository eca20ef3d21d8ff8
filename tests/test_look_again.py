"""Before an invented node is confirmed, the reference is read again at the node's place: text
detection over the whole image now and then misses a label that a crop of it reads plainly
(rapidocr at 960 px missed "Ingest" in a LibreOffice render of a block-arrow deck; the test
simulates that miss, so it does not depend on the detector's quirks).
Rendered by LibreOffice, judged through the semantic checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.render.pool import RenderPool
from tests.test_tools_blockarrows import _judge, _reference


@pytest.mark.slow
def test_a_label_the_whole_image_reading_missed_is_no_invented_node(
    render_pool: RenderPool, tmp_path: Path
) -> None:
    from judge.tools.evidence import Corpus
    from judge.tools.ocr import ocr_full
    from judge.tools.readings import readings
    from judge.tools.semantic import absence_pass

    ref_pptx, ref_png = tmp_path / "reference.pptx", tmp_path / "reference.png"
    _reference(ref_pptx)
    render_pool.render(ref_pptx, ref_png)
    ctx, _sc = _judge(render_pool, tmp_path, "same", ref_png, ref_pptx)
    r = readings(ctx)
    # the whole-image reading misses one label, as it did on the block-arrow render
    texts = [ln.text for ln in ocr_full(ctx, "reference") if ln.text != "Ingest"]
    r.ref_text = Corpus.of(texts)
    for n in r.ref.nodes:
        n.label = "" if n.label == "Ingest" else n.label
    extra = [j for j in absence_pass(r, []) if j.d.kind == "extra_node"]
    assert [(j.d.target, j.confirmed) for j in extra] == [('node "Ingest"', False)], extra
    assert any("read again at its place" in c for c in extra[0].checks), extra[0].checks
    # a label the reference really lacks at that place stays an invented node
    r.ref_text = Corpus.of([t for t in texts if t != "Audit"])
    for n in r.ref.nodes:
        n.label = "" if n.label == "Audit" else n.label
    assert r.ref_img is not None
    r.ref_img = r.ref_img.copy()
    x, y, w, h = (int(v) for v in next(n.box for n in r.ren.nodes if n.label == "Audit"))
    r.ref_img[y : y + h, x : x + w] = 255  # the reference shows nothing there
    got = {j.d.target: j.confirmed for j in absence_pass(r, []) if j.d.kind == "extra_node"}
    assert got.get('node "Audit"') is True, got
