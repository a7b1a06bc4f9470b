"""Testing helpers: the test kit for users' agents (``humangr()``), and the local stand-ins it
offers tests (``natsserver``: a real nats-server; ``fake_anthropic``: the Messages API; both
from ``humangr.standins``). The kit is imported on first use, so ``humangr.testing.natsserver``
stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .kit import HumangrTestEngine, humangr
    from .recorder import KitError, KitTimeout
    from .replies import clean, finding, findings, llm_error, unparseable

__all__ = [
    "HumangrTestEngine",
    "KitError",
    "KitTimeout",
    "clean",
    "finding",
    "findings",
    "humangr",
    "llm_error",
    "unparseable",
]

_HOME = {
    "HumangrTestEngine": "kit",
    "KitError": "recorder",
    "KitTimeout": "recorder",
    "humangr": "kit",
    "clean": "replies",
    "finding": "replies",
    "findings": "replies",
    "llm_error": "replies",
    "unparseable": "replies",
}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'humangr.testing' has no attribute {name!r}")
    return getattr(import_module(f"humangr.testing.{module}"), name)
