"""The house's arrows run one way: front doors (``humangr.*``) → ``humangr.actors`` →
``humangr.engine`` → ``humangr.contracts`` (docs/design.md, "The house"). Read from the source's
imports, type-only and function-level ones included."""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ("contracts", "engine", "actors", "agents")


def _module(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[0] != "humangr":
        parts.insert(0, "humangr")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> str:
    """``contracts``, ``engine``, ``actors``, ``agents``, ``standins``, ``testing`` or ``front``
    (the rest of ``humangr``)."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in (*CORE, "standins", "testing"):
        return parts[1]
    return "front"


def _imports(
    path: Path, module: str, modules: Collection[str] | None = None
) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                named = f"{target}.{alias.name}"
                if modules is None:
                    # `from humangr import cli` names a module too
                    found += [(node.lineno, target), (node.lineno, named)]
                else:
                    # a submodule imported from its package depends on the submodule only
                    found.append((node.lineno, named if named in modules else target))
    return [(line, name) for line, name in found if name.split(".")[0] == "humangr"]


ALLOWED: dict[str, frozenset[str]] = {
    "contracts": frozenset({"contracts"}),
    # the layers' prompts are assets of the agents package, read by the engine
    "engine": frozenset({"contracts", "engine", "agents"}),
    "actors": frozenset({"contracts", "engine", "actors", "agents"}),
    "agents": frozenset({"contracts", "agents"}),
    # the local stand-ins (a nats-server, the Messages API) serve the bench and the kit alike
    "standins": frozenset({"contracts", "engine", "standins"}),
    "front": frozenset({"contracts", "engine", "actors", "agents", "front", "standins"}),
    "testing": frozenset(
        {"contracts", "engine", "actors", "agents", "front", "standins", "testing"}
    ),
}


KNOWN: dict[tuple[str, str], str] = {
    # (file, imported module): why it is still there. Remove an entry when its import goes;
    # the test fails on an entry that no longer matches, so this list only shrinks.
}
"""Imports against the arrows that are still to be removed (issue 21)."""

EXEMPT = {"humangr/__init__.py"}
"""The public API re-exports the testing kit by name, imported on first use."""


def _violations() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    sources = [ROOT / "humangr", *(ROOT / folder for folder in CORE)]
    for folder in sources:
        for path in sorted(folder.rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative in EXEMPT:
                continue
            module = _module(path)
            layer = _layer(module)
            for _line, name in _imports(path, module):
                target = "front" if name == "humangr" else _layer(name)
                if target not in ALLOWED[layer]:
                    found.append((relative, name))
    return found


def _known(relative: str, name: str) -> tuple[str, str] | None:
    for file, prefix in KNOWN:
        if file == relative and (name == prefix or name.startswith(prefix + ".")):
            return (file, prefix)
    return None


def test_arrows_run_one_way() -> None:
    found = _violations()
    new = sorted({f"{file}: imports {name}" for file, name in found if not _known(file, name)})
    assert new == [], "imports against the arrows (front → actors → engine → contracts)"
    matched = {_known(file, name) for file, name in found}
    gone = sorted(f"{file}: {name}" for file, name in KNOWN if (file, name) not in matched)
    assert gone == [], "these no longer import against the arrows: remove them from KNOWN"


def _graph() -> dict[str, set[str]]:
    """Module → the modules of ours it imports (type-only and function-level imports too)."""
    paths = {
        _module(path): path
        for folder in (ROOT / "humangr", *(ROOT / f for f in CORE))
        for path in folder.rglob("*.py")
    }

    def owner(name: str) -> str:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets = {owner(name) for _line, name in _imports(path, module, paths)}
        graph[module] = {t for t in targets if t and t != module and t != "humangr"}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles_at_any_level() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
