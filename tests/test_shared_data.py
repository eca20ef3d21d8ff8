"""The lookup of the shared data folder (tests/conftest.py): env var first, then ../shared."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SHARED_ENV, shared_folder, shared_path, shared_skip_reason


def test_shared_folder_defaults_to_the_folder_beside_the_clone(monkeypatch) -> None:
    monkeypatch.delenv(SHARED_ENV, raising=False)
    clone = Path(__file__).resolve().parents[1]
    assert shared_folder() == clone.parent / "shared"


def test_environment_variable_points_at_the_shared_folder(monkeypatch, tmp_path) -> None:
    (tmp_path / "real-decks").mkdir()
    monkeypatch.setenv(SHARED_ENV, str(tmp_path))
    assert shared_folder() == tmp_path.resolve()
    assert shared_path("real-decks").is_dir()


def test_skip_reason_names_the_folder_and_the_variable(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv(SHARED_ENV, str(tmp_path / "nowhere"))
    reason = shared_skip_reason("real-decks")
    assert str(tmp_path / "nowhere" / "real-decks") in reason
    assert SHARED_ENV in reason and "../shared" in reason
