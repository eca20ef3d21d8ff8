"""The graph's render step applies Stage 0's blank-render rule, not just "LibreOffice exited"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.oxml.ns import qn
from pptx.util import Inches

from judge.engine.runner import RunSettings, run_bench
from judge.render.pool import RenderPool
from judge.rundir import read_results


@pytest.mark.slow
def test_blank_render_makes_the_artifact_invalid(
    tmp_path: Path, judge_bench: Path, render_pool: RenderPool
) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(judge_bench / "tasks", bench / "tasks")
    (bench / "candidates" / "blank").mkdir(parents=True)
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for i in range(3):  # three boxes filled with "snow" (FFFAFA): ink Stage 0 counts, but
        # within the content threshold of the white background, so the render is blank
        box = slide.shapes.add_textbox(Inches(1 + 2 * i), Inches(2), Inches(1.5), Inches(1))
        sppr = box._element.spPr
        for no_fill in sppr.findall(qn("a:noFill")):
            sppr.remove(no_fill)
        fill = sppr.makeelement(qn("a:solidFill"), {})
        fill.append(sppr.makeelement(qn("a:prstClr"), {"val": "snow"}))
        sppr.append(fill)
    prs.save(str(bench / "candidates" / "blank" / "flow.pptx"))

    run_bench(bench, tmp_path / "run", RunSettings(rounds=1), render_pool=render_pool)

    (result,) = read_results(tmp_path / "run")
    assert result.valid is False
    assert result.gate == "artifact"
    assert result.artifact_failures == ["renders"]
    assert result.score == 0.0


@pytest.mark.slow
def test_builtin_judge_with_too_small_a_tool_budget_errors_instead_of_passing(
    tmp_path: Path, judge_bench: Path, render_pool: RenderPool
) -> None:
    from judge.engine.agent import Budgets

    bench = tmp_path / "bench"
    shutil.copytree(judge_bench / "tasks", bench / "tasks")
    (bench / "candidates" / "swapped").mkdir(parents=True)
    shutil.copy(
        judge_bench / "candidates" / "swapped" / "flow.pptx",
        bench / "candidates" / "swapped" / "flow.pptx",
    )
    settings = RunSettings(judge="builtin", rounds=1, budgets=Budgets(max_tool_calls=1))

    run_bench(bench, tmp_path / "run", settings, render_pool=render_pool)

    (result,) = read_results(tmp_path / "run")
    assert result.rounds == ["errored"]
    assert result.score is None and result.error
