"""The public API at ``humangr``: every name of ``__all__`` resolves, and importing the package
loads no engine runtime (``humangr --help`` imports it and must start fast)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import humangr

HEAVY = (
    "nats",
    "anthropic",
    "httpx",
    "humangr.actors.roles",
    "humangr.client",
    "humangr.engine.llm",
    "humangr.engine.checks",
    "humangr.testing",
    "humangr.actors",
    "humangr.contracts",
)


def test_import_humangr_loads_no_engine() -> None:
    probe = "import json, sys, humangr; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    modules = set(json.loads(done.stdout))
    assert "humangr" in modules
    assert [name for name in HEAVY if name in modules] == []


def test_every_public_name_resolves() -> None:
    for name in humangr.__all__:
        assert getattr(humangr, name) is not None, name
    assert set(humangr.__all__) <= set(dir(humangr))
    assert humangr.Decision is humangr.HumanLayerReport
    assert issubclass(humangr.Rejected, humangr.EngineError)
    assert issubclass(humangr.ReviewTimeout, TimeoutError)
    assert issubclass(humangr.ReviewTimeout, humangr.EngineError)
    assert humangr.testing_engine.__module__ == "humangr.testing.kit"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        getattr(humangr, "no_such_name")  # noqa: B009
