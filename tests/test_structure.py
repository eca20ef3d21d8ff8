"""The shape of the code: import direction, no cycles, small modules (read with ast, nothing run).

Imports are read from the source, at module level and inside functions alike (a lazy import is
still a dependency); ``from package import name`` counts as importing ``package.name`` when that
is a module, else ``package``. Imports under ``if TYPE_CHECKING:`` are left out: they never run,
so they make no import cycle (:func:`type_only_imports` lists them for the record).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("judge", "scoring", "taxonomy", "cli", "generation")
"""The library packages (tests/ and bench/ are scripts on top of them)."""
MAX_MODULE_LINES = 800
MAX_ROOT_MODULES = 8
"""``.py`` files directly in ``judge/`` besides ``__init__.py`` (sub-packages do not count)."""
LONG_MODULES_ALLOWED = {
    "judge/schema.py": "the contract module: every on-disk record in one place",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _library_files() -> dict[str, Path]:
    files = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            files[_module_name(path)] = path
    return files


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST, type_only: bool) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run (``type_only`` False) or only type-check (True)."""
    out: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST, in_type_checking: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom) and in_type_checking == type_only:
            out.append(node)
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(node) and child in getattr(node, "body", []):
                visit(child, True)
            else:
                visit(child, in_type_checking)

    visit(tree, False)
    return out


def _imports(path: Path, name: str, known: set[str], type_only: bool = False) -> set[str]:
    """The library modules ``path`` (module ``name``) imports when it runs (or type-checks)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _import_nodes(tree, type_only):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def _graph(type_only: bool = False) -> dict[str, set[str]]:
    files = _library_files()
    known = set(files)
    return {name: _imports(path, name, known, type_only) for name, path in files.items()}


def type_only_imports() -> dict[str, set[str]]:
    """Imports made only for type checking, by module (back edges a reader may want to know)."""
    return {mod: deps for mod, deps in _graph(type_only=True).items() if deps}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_import_reader_sees_lazy_and_relative_imports() -> None:
    graph = _graph()
    # a function-level import (executors build error results through scoring.case)
    assert "scoring.case" in graph["judge.engine.executors"]
    # "from cli import generate_cmds" resolves to the submodule, not just the package
    assert "cli.generate_cmds" in graph["cli.app"]
    # an import under `if TYPE_CHECKING:` is a type-only edge, not a runtime one
    assert "judge.tools.ocr" not in graph["judge.tools.graphread"]
    assert "judge.tools.ocr" in type_only_imports()["judge.tools.graphread"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_among_library_modules() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_tools_never_import_the_engine_or_the_backends() -> None:
    graph = _graph()
    wrong = sorted(
        f"{mod} imports {dep}"
        for mod, deps in graph.items()
        if mod.startswith("judge.tools")
        for dep in deps
        if dep.startswith(("judge.engine", "judge.backends"))
    )
    assert wrong == []


def test_judge_root_holds_few_modules() -> None:
    root = sorted(p.name for p in (ROOT / "judge").glob("*.py") if p.name != "__init__.py")
    assert len(root) <= MAX_ROOT_MODULES, root


def test_no_module_is_over_the_line_limit() -> None:
    long = {}
    for pkg in (*PACKAGES, "tests", "bench"):
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_MODULE_LINES and rel not in LONG_MODULES_ALLOWED:
                long[rel] = lines
    assert long == {}


def test_every_library_package_is_installed() -> None:
    """A non-editable install ships only the packages pyproject lists: each folder with an
    ``__init__.py`` in a library package must be among them (the benchmark subpackages were
    missing)."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        p.parent.relative_to(ROOT).as_posix().replace("/", ".")
        for pkg in PACKAGES
        for p in (ROOT / pkg).rglob("__init__.py")
    }
    assert found - listed == set()
