"""Structured completion with repair: an invalid reply gets up to two repair prompts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from humangr.contracts import Usage
from humangr.engine.errors import LLMError
from humangr.engine.metrics import Metrics
from humangr.engine.redact import redact_secrets

from .base import LLMClient, LLMRequest, Message
from .errors import LLMReplyInvalid
from .fence import fence
from .schema import schema_name, tool_name_for

__all__ = [
    "MAX_RAW_IN_REPAIR",
    "Check",
    "StructuredOutcome",
    "complete_structured",
    "repair_request",
]

MAX_RAW_IN_REPAIR = 20_000
Check = Callable[[Any], Sequence[str]]
"""Extra validation of a decoded value (gates): returns the problems, empty when it passes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StructuredOutcome:
    """The result of ``complete_structured``: ``value`` on success, else ``error`` says why.

    ``attempts`` counts LLM calls, ``repairs`` the repair prompts sent, ``usage`` sums every
    call (invalid replies cost tokens too), ``errors`` are the last validator errors.
    """

    value: Any
    attempts: int
    repairs: int
    usage: Usage
    error: str | None
    model: str | None
    raw: str | None = None
    errors: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


def repair_request(
    original: LLMRequest, number: int, errors: Sequence[str], raw: str
) -> LLMRequest:
    """The request for repair ``number`` (1 or 2) of ``original``'s reply."""
    if original.schema is None:
        raise ValueError("only a request with a schema can be repaired")
    name = schema_name(original.schema)
    how = f"by calling the tool {tool_name_for(original.schema)} once"
    if number == 1:
        text = (
            f"Your previous reply could not be used: it was not a valid {name} JSON object. "
            f"Return only the JSON object that matches the {name} schema, {how}: no prose, "
            "no markdown, no comments."
        )
    else:
        shown = raw if len(raw) <= MAX_RAW_IN_REPAIR else raw[:MAX_RAW_IN_REPAIR] + "\n(truncated)"
        listed = "\n".join(f"- {error}" for error in errors) or "- (no details)"
        text = (
            f"Your reply is still not a valid {name}. The validator reported:\n{listed}\n\n"
            f"{fence(shown, 'Your previous reply', 'json')}\n\n"
            f"Fix exactly these problems and return only the corrected JSON object, {how}."
        )
    return original.with_messages(Message("user", text), tags={"repair": str(number)})


async def complete_structured(
    llm: LLMClient,
    request: LLMRequest,
    *,
    max_repairs: int = 2,
    check: Check | None = None,
    metrics: Metrics | None = None,
) -> StructuredOutcome:
    """Ask ``llm`` for a ``request.schema`` value, repairing invalid replies.

    A reply that does not decode (or fails ``check``) gets repair 1 ("return only the JSON"),
    then repair 2 (the validator errors and the previous reply, fenced as data). Still invalid,
    or a transport error, gives an outcome with ``error`` set: the caller must treat it as an
    error, never as an empty result. Cancellation propagates.
    """
    if request.schema is None:
        raise ValueError("complete_structured needs a request with a schema")
    if max_repairs < 0:
        raise ValueError(f"max_repairs must be >= 0, got {max_repairs}")
    usage, model = Usage(), None
    current = request
    errors: Sequence[str] = ()
    raw = ""
    for attempt in range(1, max_repairs + 2):
        try:
            reply = await llm.complete(current)
        except LLMReplyInvalid as exc:
            usage, model = usage + exc.usage, exc.model or model
            errors, raw = exc.errors, exc.raw
        except LLMError as exc:
            return StructuredOutcome(
                value=None,
                attempts=attempt,
                repairs=attempt - 1,
                usage=usage,
                error=redact_secrets(f"LLM call failed: {exc}"),
                model=model,
                raw=raw or None,
            )
        else:
            usage, model, raw = usage + reply.usage, reply.model, reply.raw
            if reply.data is None:
                errors = ["the reply carried no structured data"]
            else:
                errors = list(check(reply.data)) if check is not None else []
            if not errors:
                return StructuredOutcome(
                    value=reply.data,
                    attempts=attempt,
                    repairs=attempt - 1,
                    usage=usage,
                    error=None,
                    model=model,
                    raw=raw,
                )
        if attempt > max_repairs:
            break
        current = repair_request(request, attempt, errors, raw)
        if metrics is not None:
            who = request.tags.get("agent") or request.tags.get("layer") or "unknown"
            metrics.repairs.labels(agent=who).inc()
    return StructuredOutcome(
        value=None,
        attempts=max_repairs + 1,
        repairs=max_repairs,
        usage=usage,
        error=f"the reply is still invalid after {max_repairs} repair(s): " + "; ".join(errors),
        model=model,
        raw=raw or None,
        errors=tuple(errors),
    )
