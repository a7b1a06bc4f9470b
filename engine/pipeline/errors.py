"""``CommandRefused``: the pipeline refuses a command or a step; the project is unchanged."""

from __future__ import annotations

from humangr.engine.errors import EngineError

__all__ = ["CommandRefused"]


class CommandRefused(EngineError):
    """The command (or a task's transition, ``TransitionRefused``) does not apply to the
    project as it is; ``reason`` says why and the project is unchanged."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
