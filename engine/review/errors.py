"""Errors of the review logic: a caller handed it inputs that cannot belong together."""

from __future__ import annotations

from humangr.engine.errors import EngineError

__all__ = ["ReviewError"]


class ReviewError(EngineError, ValueError):
    """The review logic was called with inconsistent inputs (a bug in the caller, not the LLM)."""
