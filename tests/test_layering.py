"""The house's arrows run one way: front doors (``humangr.*``) → ``humangr.actors`` →
``humangr.engine`` → ``humangr.contracts`` (docs/design.md, "The house"). Read from the source's
imports, type-only and function-level ones included."""

from __future__ import annotations

import ast
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
    """``contracts``, ``engine``, ``actors``, ``agents``, ``testing`` or ``front`` (the rest of
    ``humangr``)."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in (*CORE, "testing"):
        return parts[1]
    return "front"


def _imports(path: Path, module: str) -> list[tuple[int, str]]:
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
            found.append((node.lineno, target))
            # `from humangr import cli` names a module too
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name.split(".")[0] == "humangr"]


ALLOWED: dict[str, frozenset[str]] = {
    "contracts": frozenset({"contracts"}),
    # the layers' prompts are assets of the agents package, read by the engine
    "engine": frozenset({"contracts", "engine", "agents"}),
    "actors": frozenset({"contracts", "engine", "actors", "agents"}),
    "agents": frozenset({"contracts", "agents"}),
    "front": frozenset({"contracts", "engine", "actors", "agents", "front"}),
    "testing": frozenset({"contracts", "engine", "actors", "agents", "front", "testing"}),
}


KNOWN: dict[tuple[str, str], str] = {
    # (file, imported module): why it is still there. Remove an entry when its import goes;
    # the test fails on an entry that no longer matches, so this list only shrinks.
    ("humangr/cli/bench.py", "humangr.testing.natsserver"): "the bench's servers leave the kit",
    ("humangr/cli/bench_llm.py", "humangr.testing.fake_anthropic"): "likewise",
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
