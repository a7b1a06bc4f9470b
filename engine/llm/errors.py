"""Errors of LLM access. All are ``engine.errors.LLMError`` (or ``ConfigError`` for scripts)."""

from __future__ import annotations

from collections.abc import Sequence

from humangr.contracts import Usage
from humangr.engine.errors import ConfigError, LLMError

__all__ = [
    "LLMReplyInvalid",
    "LLMTransportError",
    "NoScriptMatch",
    "ScriptError",
]


class LLMTransportError(LLMError):
    """The call itself failed (HTTP status, timeout, connection, malformed body) after retries."""

    def __init__(
        self,
        message: str,
        *,
        reason: str,
        status: int | None = None,
        attempts: int = 1,
        retryable: bool = False,
    ) -> None:
        super().__init__(message, retryable=retryable)
        self.reason = reason
        self.status = status
        self.attempts = attempts


class LLMReplyInvalid(LLMError):
    """The model answered, but the answer does not match the requested schema.

    ``raw`` is the reply as received (for a repair prompt), ``errors`` what the validator said,
    ``usage`` the tokens the call consumed anyway.
    """

    def __init__(
        self,
        schema_name: str,
        errors: Sequence[str],
        *,
        raw: str,
        usage: Usage | None = None,
        model: str | None = None,
    ) -> None:
        listed = "; ".join(errors) or "unknown problem"
        super().__init__(f"the reply does not match {schema_name}: {listed}")
        self.schema_name = schema_name
        self.errors = tuple(errors)
        self.raw = raw
        self.usage = usage if usage is not None else Usage(calls=1)
        self.model = model


class NoScriptMatch(LLMError):
    """A ``ScriptedLLM`` has no line whose ``match`` fits the request's tags."""

    def __init__(self, tags: dict[str, str]) -> None:
        super().__init__(
            f"the LLM script has no line matching the request tags {tags}; add a line whose "
            '"match" is a subset of these tags, or a catch-all line with "match": {}'
        )
        self.tags = tags


class ScriptError(ConfigError):
    """An LLM script (JSON Lines) is malformed; the message names the line."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}:{line}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem
