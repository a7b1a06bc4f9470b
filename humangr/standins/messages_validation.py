"""The stand-in server's request validation: the subset of the Messages API's checks that a
client could get wrong, with the API's error messages."""

from __future__ import annotations

from typing import Any

__all__ = ["check_body", "forced_tool"]


def forced_tool(body: Any) -> str:
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "tool":
        return str(choice["name"])
    tools = body.get("tools") or [{"name": "tool"}]
    return str(tools[0]["name"])


_FIELDS = frozenset(
    {
        "model", "max_tokens", "messages", "system", "tools", "tool_choice", "temperature",
        "top_p", "top_k", "stop_sequences", "stream", "metadata", "thinking", "service_tier",
        "cache_control", "container", "output_config", "inference_geo", "speed",
    }
)  # fmt: skip


def _blocks_ok(blocks: Any, *, text_only: bool = False) -> bool:
    if not isinstance(blocks, list):
        return False
    for block in blocks:
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            return False
        if (text_only or block["type"] == "text") and not isinstance(block.get("text"), str):
            return False
    return True


def check_body(body: dict[str, Any]) -> str | None:
    """The subset of the API's request validation that our client could get wrong."""
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            return f"{key}: Field required"
    unknown = sorted(set(body) - _FIELDS)
    if unknown:
        return f"{unknown[0]}: Extra inputs are not permitted"
    if "stream" in body and not isinstance(body["stream"], bool):
        return "stream: Input should be a valid boolean"
    if not isinstance(body["messages"], list):
        return "messages: Input should be a valid list"
    for i, message in enumerate(body["messages"]):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        content = message.get("content")
        if not isinstance(content, str) and not _blocks_ok(content):
            return f"messages.{i}.content: Input should be a string or a list of blocks"
    system = body.get("system", "")
    if not isinstance(system, str) and not _blocks_ok(system, text_only=True):
        return "system: Input should be a string or a list of text blocks"
    tools = body.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        return "tools: Input should be a list of tool objects"
    if not isinstance(body.get("tool_choice", {}), dict):
        return "tool_choice: Input should be an object"
    if not body["messages"]:
        return "messages: at least one message is required"
    tools = body.get("tools") or []
    for i, tool in enumerate(tools):
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return f"tools.{i}.custom.input_schema.type: Input should be 'object'"
    choice = body.get("tool_choice") or {}
    names = {tool.get("name") for tool in tools}
    if choice.get("type") == "tool" and choice.get("name") not in names:
        return f"tool_choice.name: no tool named {choice.get('name')!r}"
    blocks = [*(body.get("system") or []), *tools]
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            blocks.extend(content)
    breakpoints = sum(1 for b in blocks if isinstance(b, dict) and b.get("cache_control"))
    if breakpoints > 4:
        return f"a maximum of 4 blocks with cache_control may be provided. Found {breakpoints}."
    return None
