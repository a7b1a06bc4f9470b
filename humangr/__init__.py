"""HUMANGR: a gate between AI agents and their side effects.

The public API for agents::

    async with humangr.connect() as hg:          # or connect("nats://…", public_key="N…")
        @hg.guard
        async def write_file(path: str, content: str) -> None: ...

        report = await hg.review(action)          # an ActionContext or a dict

Names are imported on first use (``humangr --help`` imports this package and must start fast).
The installed package is ``humangr``; the repository's ``contracts/``, ``engine/``, ``actors/``
and ``agents/`` folders are its sub-packages ``humangr.contracts``, ``humangr.engine``,
``humangr.actors`` and ``humangr.agents``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from humangr.client import Client, ConnectOptions, SyncClient, connect, connect_sync
    from humangr.contracts import (
        ActionContext,
        ConsensusResult,
        Decision,
        Finding,
        HumanLayerReport,
        LayerID,
        Outcome,
        ReviewCost,
        ReviewResolution,
        Severity,
        Usage,
        VetoLevel,
    )
    from humangr.engine.config import ReviewConfig
    from humangr.engine.llm import ScriptedLLM
    from humangr.engine.trust import UNSIGNED_NOTE
    from humangr.errors import (
        ConfigError,
        ContractError,
        DecisionMismatch,
        EngineError,
        HumangrError,
        Rejected,
        ReviewTimeout,
        SignatureError,
        SubmissionRefused,
    )
    from humangr.testing import (
        HumangrTestEngine,
        KitError,
        KitTimeout,
        clean,
        finding,
        findings,
    )
    from humangr.testing import humangr as testing_engine
    from humangr.verifying import verify_decision

__version__ = "0.1.0"

_HOME: dict[str, tuple[str, str]] = {
    **{
        name: ("humangr.client", name)
        for name in ("Client", "ConnectOptions", "SyncClient", "connect", "connect_sync")
    },
    **{
        name: ("humangr.contracts", name)
        for name in (
            "ActionContext",
            "ConsensusResult",
            "Decision",
            "Finding",
            "HumanLayerReport",
            "LayerID",
            "Outcome",
            "ReviewCost",
            "ReviewResolution",
            "Severity",
            "Usage",
            "VetoLevel",
        )
    },
    **{
        name: ("humangr.errors", name)
        for name in (
            "ConfigError",
            "ContractError",
            "DecisionMismatch",
            "EngineError",
            "HumangrError",
            "Rejected",
            "ReviewTimeout",
            "SignatureError",
            "SubmissionRefused",
        )
    },
    "ReviewConfig": ("humangr.engine.config", "ReviewConfig"),
    "ScriptedLLM": ("humangr.engine.llm", "ScriptedLLM"),
    "verify_decision": ("humangr.verifying", "verify_decision"),
    "UNSIGNED_NOTE": ("humangr.engine.trust", "UNSIGNED_NOTE"),
    **{
        name: ("humangr.testing", name)
        for name in ("HumangrTestEngine", "KitError", "KitTimeout", "clean", "finding", "findings")
    },
    "testing_engine": ("humangr.testing", "humangr"),
}

__all__ = [
    "UNSIGNED_NOTE",
    "ActionContext",
    "Client",
    "ConfigError",
    "ConnectOptions",
    "ConsensusResult",
    "ContractError",
    "Decision",
    "DecisionMismatch",
    "EngineError",
    "Finding",
    "HumanLayerReport",
    "HumangrError",
    "HumangrTestEngine",
    "KitError",
    "KitTimeout",
    "LayerID",
    "Outcome",
    "Rejected",
    "ReviewConfig",
    "ReviewCost",
    "ReviewResolution",
    "ReviewTimeout",
    "ScriptedLLM",
    "Severity",
    "SignatureError",
    "SubmissionRefused",
    "SyncClient",
    "Usage",
    "VetoLevel",
    "__version__",
    "clean",
    "connect",
    "connect_sync",
    "finding",
    "findings",
    "testing_engine",
    "verify_decision",
]


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'humangr' has no attribute {name!r}")
    value = getattr(import_module(home[0]), home[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
