"""LLM access: the ``LLMClient`` protocol, ``AnthropicLLM``, ``ScriptedLLM``, structured
completion with repair, and the layer prompts."""

from .anthropic import DEFAULT_MODEL, AnthropicLLM
from .base import MATCH_TAGS, LLMClient, LLMReply, LLMRequest, Message, SystemBlock
from .errors import LLMReplyInvalid, LLMTransportError, NoScriptMatch, ScriptError
from .fence import fence
from .prompts import prompts_digest, render_layer_request
from .retry import RetryPolicy
from .schema import tool_input_schema, tool_name_for
from .scripted import ScriptedLLM
from .structured import StructuredOutcome, complete_structured

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
