"""The root of HUMANGR's error tree and the errors of the wire contracts.

Every error HUMANGR raises on purpose is a ``HumangrError``; the whole tree is documented in
``humangr.errors``. This module imports nothing of ours, so the contracts stay at the bottom of
the house."""

from __future__ import annotations

__all__ = ["ConfigError", "ContractError", "HumangrError"]


class HumangrError(Exception):
    """Base of every error HUMANGR raises on purpose: what was wrong and what to do."""


class ConfigError(HumangrError, ValueError):
    """The configuration cannot work; the message names the setting.

    A ``ValueError``, so that settings carried in a message (``GateSettings`` in a ``LayerTask``)
    that fail their checks decode as a ``ContractError``, not as a crash."""


class ContractError(HumangrError, ValueError):
    """A payload does not match its contract: ``path`` is where (a JSON path such as
    ``$.action.code_diff``, empty when the whole payload is wrong)."""

    def __init__(self, type_name: str, path: str, problem: str) -> None:
        where = f" at {path}" if path else ""
        super().__init__(f"invalid {type_name}{where}: {problem}")
        self.type_name = type_name
        self.path = path
        self.problem = problem
