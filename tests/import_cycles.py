"""The import cycles among the service's modules, counting every import: at the top of a module,
inside a function, or under ``TYPE_CHECKING`` (a dependency is one wherever it is written; an import
moved into a function only hides it).

    .venv/bin/python -m tests.import_cycles

prints each knot of modules that all reach one another (a strongly connected component of the
import graph), the shortest cycle through each of its modules, and the imports inside the knot,
each with its line and where it is written. ``tests/test_import_cycles.py`` keeps any of three or
more modules from forming again. import-linter's contracts (pyproject.toml) say what must never import what;
this says what is still tangled.
"""

from __future__ import annotations

import ast
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    where: str  # "top", "function" or "type-checking"


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root`` by dotted name (migrations left out: Alembic's)."""
    out: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if "migrations" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module ``name`` is, or the innermost known module it lies in (``service.game.app.Service``)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(module: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), str(path))

    def walk(node: ast.AST, where: str) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            here = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                here = "function" if where == "top" else where
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    yield from walk_one(stmt, "type-checking")
                for stmt in child.orelse:
                    yield from walk_one(stmt, where)
                continue
            yield from walk_one(child, here)

    def walk_one(node: ast.AST, where: str) -> Iterator[Import]:
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [
                f"{base}.{a.name}" if _resolve(f"{base}.{a.name}", known) == f"{base}.{a.name}" else base
                for a in node.names
            ]
        for name in names:
            target = _resolve(name, known)
            if target is not None and target != module:
                yield Import(module, target, getattr(node, "lineno", 0), where)
        yield from walk(node, where)

    yield from walk(tree, "top")


def graph(root: Path = ROOT, package: str = "service") -> list[Import]:
    known = modules(root, package)
    return [i for m, p in known.items() for i in imports_of(m, p, known)]


def knots(edges: list[Import], least: int = 3) -> list[list[str]]:
    """The strongly connected components of at least ``least`` modules (Tarjan's), largest first."""
    succ: dict[str, set[str]] = {}
    for e in edges:
        succ.setdefault(e.importer, set()).add(e.imported)
        succ.setdefault(e.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(succ) + 100))
    try:
        for v in sorted(succ):
            if v not in index:
                connect(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted((c for c in found if len(c) >= least), key=lambda c: (-len(c), c))


def shortest_cycle(start: str, edges: list[Import], within: set[str]) -> list[str]:
    """The shortest cycle from ``start`` back to it through modules of ``within`` (BFS)."""
    succ: dict[str, list[str]] = {}
    for e in edges:
        if e.importer in within and e.imported in within:
            succ.setdefault(e.importer, []).append(e.imported)
    came: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(set(succ.get(v, []))):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(came[path[-1]])
                return [*reversed(path), start]
            if w not in came:
                came[w] = v
                queue.append(w)
    return []


def report(root: Path = ROOT) -> str:
    edges = graph(root)
    lines: list[str] = []
    found = knots(edges, least=2)
    if not any(len(k) >= 3 for k in found):
        lines.append("no import cycle of three or more modules among service/")
    for knot in found:
        inside = set(knot)
        if len(knot) == 2:
            lines.append(f"2 modules that import each other: {', '.join(knot)}")
        else:
            lines.append(f"{len(knot)} modules that all reach one another: {', '.join(knot)}")
            lines.append("  the shortest cycle through each:")
            for m in knot:
                lines.append("    " + " -> ".join(shortest_cycle(m, edges, inside)))
        lines.append("  the imports inside it:")
        for e in sorted(
            {(e.importer, e.imported, e.line, e.where) for e in edges if e.importer in inside and e.imported in inside}
        ):
            lines.append(f"    {e[0]} -> {e[1]}  (line {e[2]}, {e[3]})")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(report(), end="")
