"""The Messages API's shapes for ``AnthropicLLM``: the keyword arguments of a request, and the
``LLMReply`` and ``Usage`` read from the ``Message`` it returns."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from humangr.contracts import Usage

from .base import LLMReply, LLMRequest
from .errors import LLMReplyInvalid, LLMTransportError
from .schema import decode_reply, schema_name, tool_input_schema, tool_name_for

__all__ = ["message_params", "message_reply", "message_usage"]


def message_params(model: str, request: LLMRequest) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for ``request`` to ``model``."""
    system = [
        {"type": "text", "text": block.text}
        | ({"cache_control": {"type": "ephemeral"}} if block.cache else {})
        for block in request.system
    ]
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
    }
    if system:
        params["system"] = system
    if request.schema is not None:
        name = tool_name_for(request.schema)
        doc = (request.schema.__doc__ or "").strip()
        params["tools"] = [
            {
                "name": name,
                "description": doc or f"Submit the reply as a {schema_name(request.schema)}.",
                "input_schema": tool_input_schema(request.schema),
            }
        ]
        params["tool_choice"] = {
            "type": "tool",
            "name": name,
            "disable_parallel_tool_use": True,
        }
    if request.temperature is not None:
        params["extra_body"] = {"temperature": request.temperature}
    return params


def message_reply(
    message: Any,
    request: LLMRequest,
    usage: Usage,
    default_model: str,
    redact: Callable[[str], str],
) -> LLMReply:
    """The ``LLMReply`` of ``message`` for ``request``: its text, or the tool call decoded as
    the request's schema. ``default_model`` stands when the message names none; ``redact``
    cleans the text of a transport error."""
    content = getattr(message, "content", None)
    if not isinstance(content, list):
        raise LLMTransportError(
            redact("the Anthropic API sent a reply without content blocks; is base_url right?"),
            reason="malformed",
        )
    model = str(getattr(message, "model", None) or default_model)
    stop = getattr(message, "stop_reason", None)
    text = "".join(str(getattr(b, "text", "")) for b in content if b.type == "text")
    if request.schema is None:
        return LLMReply(text=text, data=None, raw=text, usage=usage, model=model, stop_reason=stop)
    name = tool_name_for(request.schema)
    calls = [b for b in content if b.type == "tool_use" and b.name == name]
    if not calls:
        problem = f"the model did not call the tool {name} (stop_reason {stop})"
        raise LLMReplyInvalid(
            schema_name(request.schema), [problem], raw=text, usage=usage, model=model
        )
    raw = json.dumps(calls[0].input, ensure_ascii=False)
    try:
        data = decode_reply(raw, request.schema, usage=usage, model=model)
    except LLMReplyInvalid as exc:
        if stop != "max_tokens":
            raise
        errors = [*exc.errors, "the reply was cut off at max_tokens; raise max_tokens"]
        raise LLMReplyInvalid(exc.schema_name, errors, raw=raw, usage=usage, model=model) from None
    return LLMReply(
        text=text or None, data=data, raw=raw, usage=usage, model=model, stop_reason=stop
    )


def message_usage(message: Any) -> Usage:
    """The token counts of ``message`` (0 for a count it lacks or that is not a count)."""
    raw = getattr(message, "usage", None)

    def count(name: str) -> int:
        value = getattr(raw, name, 0)
        return value if isinstance(value, int) and value >= 0 else 0

    return Usage(
        input_tokens=count("input_tokens"),
        output_tokens=count("output_tokens"),
        cache_read_tokens=count("cache_read_input_tokens"),
        cache_write_tokens=count("cache_creation_input_tokens"),
        calls=1,
    )
