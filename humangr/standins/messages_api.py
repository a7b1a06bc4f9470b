"""A local HTTP server that speaks enough of the Anthropic Messages API to drive the real SDK.

Tests script its replies one request at a time (tool calls with usage, rate limits, overloads,
server errors, slow replies, malformed bodies) and then look at the requests it received::

    async with FakeAnthropic(api_key="sk-test") as fake:
        fake.script(ApiError.rate_limited(retry_after=0.01), ToolUse({"findings": []}))
        llm = AnthropicLLM(api_key="sk-test", base_url=fake.url)
        ...
        assert len(fake.requests) == 2

Scripted replies are used in order and the last one repeats; with nothing scripted the
``responder`` (or ``default``) answers. Requests the real API would refuse (no API key, a tool
schema that is not an object, more than four cache breakpoints, ...) get the API's 4xx errors.

A request with ``"stream": true`` gets its message as server-sent events (``message_start``
first); others get it whole. ``latency`` delays each message reply: a stream starts after
``first_byte_s`` and ends at ``total_s``, a whole reply comes at ``total_s``. Every message
reply goes through the prompt cache (``messages_cache``), and reports the tokens it counted unless
the reply scripts its own ``usage``: a cache entry is readable only after the response that
wrote it has begun, that is after its ``message_start`` was sent, or after the head of a whole
reply (which, as from the real API, comes when the whole message is ready).
"""

from __future__ import annotations

import itertools
import json
import time
from collections import deque
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import SocketAttribute, SocketStream, TaskGroup
from anyio.streams.buffered import BufferedByteReceiveStream

from .messages_cache import CachePlan, PromptCache, count_tokens
from .messages_replies import (
    ApiError,
    FakeUsage,
    Hangup,
    Interrupted,
    Latency,
    Raw,
    RecordedRequest,
    Reply,
    Slow,
    Text,
    ToolUse,
)
from .messages_sse import LAST_CHUNK, chunk, message_events, sse
from .messages_validation import check_body, forced_tool

__all__ = [
    "ApiError",
    "FakeAnthropic",
    "FakeUsage",
    "Hangup",
    "Interrupted",
    "Latency",
    "Raw",
    "RecordedRequest",
    "Reply",
    "Slow",
    "Text",
    "ToolUse",
]

_MAX_HEAD = 64 * 1024
_MAX_BODY = 32 * 1024 * 1024
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    411: "Length Required",
    429: "Too Many Requests",
    500: "Internal Server Error",
    529: "Overloaded",
}


class FakeAnthropic:
    """The fake Messages API server; use it as an async context manager."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        default: Reply | None = None,
        responder: Callable[[RecordedRequest], Reply] | None = None,
        model: str = "claude-fake-1",
        record_limit: int = 10_000,
        latency: Latency | None = None,
        cache: PromptCache | None = None,
    ) -> None:
        self.api_key = api_key
        self.latency = latency if latency is not None else Latency()
        self.cache = cache if cache is not None else PromptCache()
        self.default = default
        self.responder = responder
        self.model = model
        self.requests: deque[RecordedRequest] = deque(maxlen=record_limit)
        self.received = 0
        """Requests received in all (``requests`` keeps the last ``record_limit``)."""
        self._script: deque[Reply] = deque()
        self._ids = itertools.count(1)
        self._port: int | None = None
        self._stack: AsyncExitStack | None = None

    @property
    def url(self) -> str:
        if self._port is None:
            raise RuntimeError("the fake Anthropic server is not running; use `async with`")
        return f"http://127.0.0.1:{self._port}"

    def script(self, *replies: Reply) -> None:
        """Replace the scripted replies; they are used in order and the last one repeats."""
        self._script = deque(replies)

    async def __aenter__(self) -> FakeAnthropic:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        stack = AsyncExitStack()
        await stack.enter_async_context(listener)
        tg: TaskGroup = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(tg.cancel_scope.cancel)
        self._port = listener.extra(SocketAttribute.local_port)
        tg.start_soon(listener.serve, self._serve_connection)
        self._stack = stack
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        stack, self._stack, self._port = self._stack, None, None
        if stack is not None:
            await stack.aclose()

    async def _serve_connection(self, stream: SocketStream) -> None:
        async with stream:
            reader = BufferedByteReceiveStream(stream)
            try:
                while await self._serve_one(stream, reader):
                    pass
            except (
                anyio.EndOfStream,
                anyio.IncompleteRead,
                anyio.BrokenResourceError,
                anyio.ClosedResourceError,
                anyio.DelimiterNotFound,
                ValueError,
            ):
                return

    async def _serve_one(self, stream: SocketStream, reader: BufferedByteReceiveStream) -> bool:
        head = (await reader.receive_until(b"\r\n\r\n", _MAX_HEAD)).decode("latin-1")
        request_line, *header_lines = head.split("\r\n")
        method, path, _ = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", ""):
            await self._send(stream, _error(411, "invalid_request_error", "send Content-Length"))
            return False
        length = int(headers.get("content-length", "0"))
        if length > _MAX_BODY:
            raise ValueError("body too large")
        body = await reader.receive_exactly(length) if length else b""
        request = RecordedRequest(method, path, headers, body, received_at=time.monotonic())
        self.requests.append(request)
        self.received += 1
        reply = self._refusal(request) or self._next_reply(request)
        while isinstance(reply, Slow):
            await anyio.sleep(reply.delay_s)
            reply = reply.then
        if isinstance(reply, Hangup):
            return False
        if isinstance(reply, ToolUse | Text | Interrupted):
            if not await self._send_message(stream, reply, request):
                return False
        else:
            await self._send(stream, self._render(reply, request))
        return headers.get("connection", "").lower() != "close"

    async def _send_message(
        self, stream: SocketStream, reply: ToolUse | Text | Interrupted, request: RecordedRequest
    ) -> bool:
        """Send a message reply, streamed or whole; ``False`` when the connection must close."""
        body = request.json()
        streamed = body.get("stream") is True
        if isinstance(reply, Interrupted) and not streamed:
            if reply.error is None:
                return False
            await self._send(stream, self._render(reply.error, request))
            return True
        plan = self.cache.plan(body)
        shown = ToolUse({}) if isinstance(reply, Interrupted) else reply
        message = self._message(shown, request, plan)
        head = message_events(message) if streamed else None
        if head is None:
            await anyio.sleep(self.latency.total_s)
            await self._send(
                stream, Raw(json.dumps(message).encode(), headers=_request_id(message))
            )
            self._began(request, plan, message)
            request.ended_at = request.began_at
            return True
        start, deltas, tail = head
        await anyio.sleep(self.latency.first_byte_s)
        lines = [
            "HTTP/1.1 200 OK",
            "content-type: text/event-stream",
            "transfer-encoding: chunked",
            *(f"{k}: {v}" for k, v in _request_id(message).items()),
        ]
        await stream.send("\r\n".join(lines).encode() + b"\r\n\r\n" + chunk(start))
        self._began(request, plan, message)
        if isinstance(reply, Interrupted):
            if reply.error is None:
                return False
            error = {
                "type": "error",
                "error": {"type": reply.error.error_type, "message": reply.error.message},
            }
            await stream.send(chunk(sse("error", error)) + LAST_CHUNK)
            return True
        pause = (self.latency.total_s - self.latency.first_byte_s) / (len(deltas) + 1)
        for event in deltas:
            await anyio.sleep(pause)
            await stream.send(chunk(event))
        await anyio.sleep(pause)
        await stream.send(chunk(tail) + LAST_CHUNK)
        request.ended_at = time.monotonic()
        return True

    def _began(self, request: RecordedRequest, plan: CachePlan, message: dict[str, Any]) -> None:
        request.began_at = time.monotonic()
        request.usage = dict(message["usage"])
        self.cache.began(plan)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        if self._script:
            return self._script.popleft() if len(self._script) > 1 else self._script[0]
        if self.responder is not None:
            return self.responder(request)
        if self.default is not None:
            return self.default
        return ApiError(400, "invalid_request_error", "the fake server has no scripted reply")

    def _refusal(self, request: RecordedRequest) -> ApiError | None:
        if request.method != "POST" or request.path.split("?")[0] != "/v1/messages":
            return ApiError(404, "not_found_error", f"{request.method} {request.path} not found")
        bearer = request.headers.get("authorization", "")
        key = request.headers.get("x-api-key") or bearer.removeprefix("Bearer ").strip()
        if not key or (self.api_key is not None and key != self.api_key):
            return ApiError(401, "authentication_error", "invalid x-api-key")
        if "anthropic-version" not in request.headers:
            return ApiError(400, "invalid_request_error", "anthropic-version header is required")
        try:
            body = request.json()
        except ValueError:
            return ApiError(400, "invalid_request_error", "the body is not valid JSON")
        problem = check_body(body) if isinstance(body, dict) else "the body must be an object"
        return ApiError(400, "invalid_request_error", problem) if problem else None

    def _render(self, reply: Reply, request: RecordedRequest) -> Raw:
        number = next(self._ids)
        extra = {"request-id": f"req_fake_{number}"}
        if isinstance(reply, ApiError):
            return _error(reply.status, reply.error_type, reply.message, {**extra, **reply.headers})
        if isinstance(reply, Raw):
            return Raw(reply.body, reply.status, reply.content_type, {**extra, **reply.headers})
        raise TypeError(f"not a rendered reply: {reply!r}")

    def _message(
        self, reply: ToolUse | Text, request: RecordedRequest, plan: CachePlan
    ) -> dict[str, Any]:
        """The Messages API reply for ``reply``, with its usage counted unless scripted."""
        number = next(self._ids)
        if isinstance(reply, ToolUse):
            name = reply.name or forced_tool(request.json())
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_fake_{number}",
                "name": name,
                "input": reply.input,
            }
            produced = json.dumps(reply.input)
        else:
            block = {"type": "text", "text": reply.text}
            produced = reply.text
        if reply.usage is None:
            usage = {
                "input_tokens": plan.input,
                "output_tokens": count_tokens(produced) + 3,
                "cache_creation_input_tokens": plan.write,
                "cache_read_input_tokens": plan.read,
            }
        else:
            usage = {
                "input_tokens": reply.usage.input_tokens,
                "output_tokens": reply.usage.output_tokens,
                "cache_creation_input_tokens": reply.usage.cache_creation_input_tokens,
                "cache_read_input_tokens": reply.usage.cache_read_input_tokens,
            }
        return {
            "id": f"msg_fake_{number}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or self.model,
            "content": [block],
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }

    @staticmethod
    async def _send(stream: SocketStream, reply: Raw) -> None:
        head = [
            f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}",
            f"content-type: {reply.content_type}",
            f"content-length: {len(reply.body)}",
            *(f"{name}: {value}" for name, value in reply.headers.items()),
        ]
        await stream.send("\r\n".join(head).encode("latin-1") + b"\r\n\r\n" + reply.body)


def _request_id(message: dict[str, Any]) -> dict[str, str]:
    return {"request-id": "req_" + str(message["id"]).removeprefix("msg_")}


def _error(
    status: int, error_type: str, message: str, headers: Mapping[str, str] | None = None
) -> Raw:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return Raw(json.dumps(body).encode(), status, headers=dict(headers or {}))
