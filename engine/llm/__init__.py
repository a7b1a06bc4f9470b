"""LLM access: the ``LLMClient`` protocol, ``AnthropicLLM``, ``ScriptedLLM``, structured
completion with repair, and the layer prompts.

``AnthropicLLM`` and ``DEFAULT_MODEL`` are imported on first use: the ``anthropic`` SDK takes
seconds to import, which every command line run would pay otherwise."""

from typing import TYPE_CHECKING, Any

from .base import MATCH_TAGS, LLMClient, LLMReply, LLMRequest, Message, SystemBlock
from .errors import LLMReplyInvalid, LLMTransportError, NoScriptMatch, ScriptError
from .fence import fence
from .prompts import prompts_digest, render_layer_request
from .retry import RetryPolicy
from .schema import tool_input_schema, tool_name_for
from .scripted import ScriptedLLM
from .structured import StructuredOutcome, complete_structured

if TYPE_CHECKING:
    from .anthropic import DEFAULT_MODEL, AnthropicLLM

__all__ = [
    "DEFAULT_MODEL",
    "MATCH_TAGS",
    "AnthropicLLM",
    "LLMClient",
    "LLMReply",
    "LLMReplyInvalid",
    "LLMRequest",
    "LLMTransportError",
    "Message",
    "NoScriptMatch",
    "RetryPolicy",
    "ScriptError",
    "ScriptedLLM",
    "StructuredOutcome",
    "SystemBlock",
    "complete_structured",
    "fence",
    "prompts_digest",
    "render_layer_request",
    "tool_input_schema",
    "tool_name_for",
]


def __getattr__(name: str) -> Any:
    if name in ("AnthropicLLM", "DEFAULT_MODEL"):
        from . import anthropic

        return getattr(anthropic, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
