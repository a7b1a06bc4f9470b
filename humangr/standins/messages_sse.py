"""The stand-in server's streamed replies: a message as the Messages API's server-sent events."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["LAST_CHUNK", "chunk", "message_events", "sse"]

LAST_CHUNK = b"0\r\n\r\n"


def sse(event: str, data: Any) -> bytes:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def chunk(data: bytes) -> bytes:
    """``data`` as one chunk of a ``transfer-encoding: chunked`` body."""
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // max(count, 1)))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def message_events(message: dict[str, Any], pieces: int = 8) -> tuple[bytes, list[bytes], bytes]:
    """The events of ``message`` (a whole Messages API reply): the head (``message_start``,
    then ``content_block_start`` of the first block), the deltas, and the tail (the last block's
    stop, ``message_delta`` with the stop reason and the final usage, ``message_stop``)."""
    usage = dict(message["usage"])
    started = dict(message, content=[], stop_reason=None, stop_sequence=None)
    started["usage"] = dict(usage, output_tokens=1)
    head = sse("message_start", {"type": "message_start", "message": started})
    deltas: list[bytes] = []
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            opening = dict(block, input={})
            text = json.dumps(block["input"], ensure_ascii=False)
            parts = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(text, pieces)]
        else:
            opening = dict(block, text="")
            parts = [{"type": "text_delta", "text": p} for p in _pieces(block["text"], pieces)]
        start = sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opening},
        )
        if index == 0:
            head += start + sse("ping", {"type": "ping"})
        else:
            deltas.append(start)
        deltas.extend(
            sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": p})
            for p in parts
        )
        if index < len(message["content"]) - 1:
            deltas.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    last = len(message["content"]) - 1
    tail = b""
    if last >= 0:
        tail += sse("content_block_stop", {"type": "content_block_stop", "index": last})
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    tail += sse("message_delta", {"type": "message_delta", "delta": delta, "usage": usage})
    tail += sse("message_stop", {"type": "message_stop"})
    return head, deltas, tail
