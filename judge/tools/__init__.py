"""Measurement tools the judge calls: a plain mapping of name to typed function.

Each module below keeps a ``TOOLS`` list of :class:`judge.tools.base.Tool`; this module joins
them into :data:`TOOLS`. To add a tool, write it in one of these modules (or a new one listed
in ``_MODULES``) and append it to that module's list.
"""

from __future__ import annotations

import importlib

from judge.tools.base import Tool, ToolContext, ToolOutput, ToolUsageError, tools_by_name

_MODULES: list[str] = [
    # "judge.tools.view",  (crop, matched crops)  -- added by the modules as they land
    "judge.tools.view",
    "judge.tools.tree",
    "judge.tools.measure",
    "judge.tools.ocr",
    "judge.tools.nodes",
    "judge.tools.arrows",
    "judge.tools.diff",
    "judge.tools.textfit",
    "judge.tools.graphs",
    "judge.tools.semantic",
    "judge.tools.details",
]


def _collect() -> dict[str, Tool]:
    tools: list[Tool] = []
    for name in _MODULES:
        tools.extend(importlib.import_module(name).TOOLS)
    return tools_by_name(tools)


TOOLS: dict[str, Tool] = _collect()

__all__ = ["TOOLS", "Tool", "ToolContext", "ToolOutput", "ToolUsageError"]
