"""Text fit measured from LibreOffice's SVG export of real decks."""

from __future__ import annotations

from pathlib import Path

import pytest
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Inches, Pt

from judge.tools.textfit import parse_svg


def _deck(path: Path) -> Path:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    ok = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(1), Inches(1), Inches(3), Inches(1))
    ok.text_frame.text = "Encoder"
    ok.text_frame.paragraphs[0].runs[0].font.size = Pt(14)
    bad = slide.shapes.add_shape(
        MSO_SHAPE.RECTANGLE, Inches(5), Inches(1), Inches(1.2), Inches(0.5)
    )
    bad.text_frame.text = "A label far too long for this little box to hold"
    bad.text_frame.paragraphs[0].runs[0].font.size = Pt(20)
    prs.save(str(path))
    return path


@pytest.mark.slow
def test_overflowing_frame_is_measured_and_fitting_one_is_not(
    tmp_path: Path, render_pool: object
) -> None:
    svg = render_pool.export_svg(_deck(tmp_path / "fit.pptx"))  # type: ignore[attr-defined]
    frames = {f.text.split()[0]: f for f in parse_svg(svg)}
    assert frames["Encoder"].lines == 1 and not frames["Encoder"].overflow
    assert frames["A"].lines > 1 and frames["A"].overflow
