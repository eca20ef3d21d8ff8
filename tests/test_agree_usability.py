"""`judge agree` says what is wrong with a row, skips labels for cases the run lacks, and says
which figures one annotator or a deterministic judge cannot give."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.app import app
from judge.errors import LabelsError
from scoring.agreement import agreement_report, agreement_text, copied_rounds_reason, read_labels

runner = CliRunner()
HEADER = "case_id,annotator,gate,subtypes"


def _labels(tmp_path, *rows: str):
    path = tmp_path / "labels.csv"
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_row_with_missing_columns_says_which(tmp_path) -> None:
    path = _labels(tmp_path, "cfg/a,ann,pass,", "cfg/b,ann")
    with pytest.raises(LabelsError) as err:
        read_labels(path)
    assert str(err.value) == (
        f"{path}:3: 2 field(s), the header has 4: missing gate, subtypes (a row is {HEADER})"
    )


def test_a_row_with_an_extra_column_says_so(tmp_path) -> None:
    path = _labels(tmp_path, "cfg/a,ann,pass,node_fill,extra")
    with pytest.raises(
        LabelsError,
        match=r"labels\.csv:2: 5 fields, the header has 4 .*"
        r"extra value\(s\) 'extra' \(separate subtypes with ';'",
    ):
        read_labels(path)


def test_a_row_may_leave_out_an_empty_trailing_subtypes(tmp_path) -> None:
    (lab,) = read_labels(_labels(tmp_path, "cfg/a,ann,pass"))
    assert lab.gate_pass and lab.subtypes == frozenset()


def test_labels_for_cases_the_run_lacks_are_reported_and_skipped(runkit, tmp_path) -> None:
    cases = [runkit.case("cfg", "a"), runkit.case("cfg", "b", gate="semantic")]
    path = _labels(tmp_path, "cfg/a,ann,pass,", "cfg/zzz,ann,pass,", "cfg/b,ann,fail,")
    rep = agreement_report(cases, read_labels(path), labels_file=str(path))
    assert rep.skipped_labels == [f"{path}:3: case 'cfg/zzz' is not in the run"]
    assert rep.labelled_cases == 2 and rep.judge_vs_humans.cases == 2
    text = agreement_text(rep)
    assert "skipped 1 label row(s) for cases the run does not have:" in text
    run = runkit.write(tmp_path / "run", cases)
    out = runner.invoke(app, ["agree", str(run), "--labels", str(path)])
    assert out.exit_code == 0, out.output
    assert "cfg/zzz" in out.output and "2/2 agree" in out.output


def test_labels_for_no_case_of_the_run_are_an_error(runkit, tmp_path) -> None:
    path = _labels(tmp_path, "cfg/x,ann,pass,")
    with pytest.raises(LabelsError, match=r"labels\.csv:2: case 'cfg/x' is not in the run"):
        agreement_report([runkit.case("cfg", "a")], read_labels(path), labels_file=str(path))


def test_one_annotator_says_between_annotator_figures_need_two(runkit, tmp_path) -> None:
    cases = [runkit.case("cfg", "a"), runkit.case("cfg", "b")]
    rep = agreement_report(cases, read_labels(_labels(tmp_path, "cfg/a,ann,pass,")))
    text = agreement_text(rep)
    assert "among annotators: not measured (between-annotator figures need two annotators" in text
    assert "unanimous on n/a" not in text and "annotators exact match" not in text


def test_deterministic_judge_says_round_repeatability_is_not_measured(runkit, tmp_path) -> None:
    cases = [runkit.case("cfg", "a"), runkit.case("cfg", "b", gate="semantic")]
    run = runkit.write(tmp_path / "run", cases)  # run.json: judge builtin, 3 rounds
    assert copied_rounds_reason(run) == "the builtin judge is deterministic"
    path = _labels(tmp_path, "cfg/a,ann,pass,", "cfg/a,bob,pass,")
    out = runner.invoke(app, ["agree", str(run), "--labels", str(path)])
    assert out.exit_code == 0, out.output
    assert "judge repeatability: not measured (the builtin judge is deterministic" in out.output
    assert "single-round unanimity" not in out.output
    rep = agreement_report(cases, read_labels(path), rounds_copied=copied_rounds_reason(run))
    assert rep.single_round_unanimity is None
