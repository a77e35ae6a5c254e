"""The floors of the code, read from its imports: a package imports only packages on its floor or below, and no
modules import each other in a circle (counting imports inside functions too: a late import hides a circle, it
does not break it).

From the ground up, in the method's order: ``schemas`` (record types, shard and catalog storage, caches, the LLM
client) → ``crawlers`` → ``filters`` (alignment, cleaning, dedup, text rules) → ``builders`` (items) →
``verifiers`` → ``review`` → ``warehouse`` (gate, publish, export, score) → ``flows`` (the DAG and the CLI) →
``bench``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ("schemas", "crawlers", "filters", "builders", "verifiers", "review", "warehouse", "flows", "bench")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for floor in FLOORS for p in sorted((ROOT / floor).rglob("*.py"))}


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project's modules that ``name`` imports, anywhere in the file (a name imported from a package is the
    submodule when there is one by that name, else the package)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # import a.b.c where c is a name: the module a.b
                target = target.rpartition(".")[0]
            if target and target.split(".")[0] in FLOORS and target != name:
                found.add(target)
    return found


GRAPH = {name: imports(name, path, modules()) for name, path in modules().items()}


def test_every_floor_imports_only_its_floor_or_below():
    climbs = [f"{name} -> {target}" for name, targets in sorted(GRAPH.items()) for target in sorted(targets)
              if FLOORS.index(target.split(".")[0]) > FLOORS.index(name.split(".")[0])]
    assert not climbs, "imports that climb a floor:\n" + "\n".join(climbs)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter[0]; counter[0] += 1
                    stack.append(child); on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop(); on_stack.discard(member); group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_modules_import_each_other_in_a_circle():
    found = circles(GRAPH)
    assert not found, "modules in a circle:\n" + "\n".join(" <-> ".join(group) for group in found)


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}, [["a", "b", "c"]]),
])
def test_the_circle_finder_finds_circles(graph, expected):
    assert circles(graph) == expected


def test_the_import_reader_sees_late_and_relative_imports(tmp_path, monkeypatch):
    known = {"filters.a": tmp_path / "a.py", "filters.b": tmp_path / "b.py", "filters": tmp_path / "__init__.py"}
    (tmp_path / "a.py").write_text("def f():\n    from filters.b import thing\n    from . import b\n")
    assert imports("filters.a", known["filters.a"], known) == {"filters.b"}


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_rooms_stay_small():
    """The flow reads as the method in under 200 lines, a command module stays a few parse-call-print commands
    (at most 150 lines), and no file of the product grows past 800."""
    assert lines(ROOT / "flows" / "cdtp.py") < 200
    commands = sorted(p for p in (ROOT / "flows" / "cli").glob("*.py") if p.name not in ("__init__.py", "common.py"))
    assert commands, "flows/cli/ holds the command modules"
    assert {p.name: lines(p) for p in commands if lines(p) > 150} == {}
    assert {str(p.relative_to(ROOT)): lines(p) for p in modules().values() if lines(p) > 800} == {}
