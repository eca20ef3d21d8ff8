"""Replay drift reads as JSON paths (judge/engine/verify.py)."""

from __future__ import annotations

from judge.engine.verify import ToolDiff, json_changes


def test_changes_name_the_json_path_of_each_difference() -> None:
    old: dict[str, object] = {"frames": [{"overflow": False, "text": "a"}] * 6, "n": 6}
    new: dict[str, object] = {
        "frames": [{"overflow": False, "text": "a"}] * 5 + [{"overflow": True, "text": "a"}]
    }
    new["n"] = 6
    assert json_changes({"result": old}, {"result": new}) == [
        "result.frames[5].overflow: false -> true"
    ]


def test_keys_and_items_on_one_side_read_as_absent() -> None:
    assert json_changes({"a": 1, "l": [1, 2]}, {"l": [1], "b": None}) == [
        "a: 1 -> (absent)",
        "l[1]: 2 -> (absent)",
        "b: (absent) -> null",
    ]
    assert json_changes({"x": [1]}, {"x": {"0": 1}}) == ['x: [1] -> {"0": 1}']
    assert json_changes({"same": [1.0, {"k": "v"}]}, {"same": [1.0, {"k": "v"}]}) == []


def test_a_call_never_made_reads_as_such_not_as_null() -> None:
    recorded = {"result": {"ok": 1}, "images": []}
    gone = ToolDiff(0, "semantic", "crop", 3, recorded=recorded, replayed=None)
    assert gone.changes == ["the replay never made this call (recorded only)"]
    extra = ToolDiff(0, "semantic", "crop", 3, recorded=None, replayed=recorded)
    assert extra.changes == ["the recording never made this call (replay only)"]
