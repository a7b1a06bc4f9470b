"""One error tree: every exception class of ours is a ``HumangrError`` (or a handler's signal),
and ``humangr.errors`` exports and documents each one the core raises."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import humangr.errors
from humangr.errors import HandlerSignal, HumangrError

ROOT = Path(__file__).resolve().parents[1]
CORE = ("contracts", "engine", "actors")
INTERNAL = {
    "BudgetExceeded": "the checks' analysis budget, raised and caught inside one check run",
    "RetryAfterRefused": "raised by the SDK middleware, turned into an LLMTransportError",
}
"""Public-looking exception classes that never leave their module, and why."""


def _modules() -> list[str]:
    names = []
    for folder in (*CORE, "humangr"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__main__":
                continue
            if parts[0] != "humangr":
                parts.insert(0, "humangr")
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


def _exception_classes() -> dict[type[BaseException], str]:
    found: dict[type[BaseException], str] = {}
    for name in _modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found[value] = name
    return found


def test_every_error_of_ours_is_in_the_tree() -> None:
    outside = sorted(
        f"{module}.{cls.__name__}"
        for cls, module in _exception_classes().items()
        if not issubclass(cls, HumangrError | HandlerSignal)
        and not cls.__name__.startswith("_")
        and cls.__name__ not in INTERNAL
    )
    assert outside == [], "derive these from HumangrError (humangr.errors) or make them private"


def test_humangr_errors_exports_and_documents_every_error_of_the_core() -> None:
    exported = set(humangr.errors.__all__)
    core = sorted(
        f"{module}.{cls.__name__}"
        for cls, module in _exception_classes().items()
        if module.split(".")[1] in CORE
        and not cls.__name__.startswith("_")
        and cls.__name__ not in INTERNAL
        and cls.__name__ not in exported
    )
    assert core == [], "export these from humangr.errors"
    doc = humangr.errors.__doc__ or ""
    undocumented = sorted(name for name in exported if name not in doc and name != "EngineError")
    assert undocumented == [], "add these to the tree in humangr.errors' docstring"


def test_the_tree_catches_what_users_catch() -> None:
    assert issubclass(humangr.errors.ReviewTimeout, TimeoutError)
    assert issubclass(humangr.errors.ConfigError, ValueError)
    assert humangr.errors.EngineError is HumangrError
    assert not issubclass(humangr.errors.MessageRefused, HumangrError)
