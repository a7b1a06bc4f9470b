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
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import SocketAttribute, SocketStream, TaskGroup
from anyio.streams.buffered import BufferedByteReceiveStream

__all__ = [
    "ApiError",
    "FakeAnthropic",
    "FakeUsage",
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


@dataclass(frozen=True, slots=True)
class FakeUsage:
    input_tokens: int = 10
    output_tokens: int = 5
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A 200 reply whose content is one ``tool_use`` block (named after ``tool_choice``)."""

    input: Any
    name: str | None = None
    usage: FakeUsage = FakeUsage()
    model: str | None = None
    stop_reason: str = "tool_use"


@dataclass(frozen=True, slots=True)
class Text:
    """A 200 reply whose content is one text block."""

    text: str
    usage: FakeUsage = FakeUsage()
    model: str | None = None
    stop_reason: str = "end_turn"


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error reply in the API's format: ``{"type": "error", "error": {...}}``."""

    status: int
    error_type: str
    message: str
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def rate_limited(
        cls, retry_after: float | None = None, *, retry_after_ms: float | None = None
    ) -> ApiError:
        headers = {}
        if retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
        if retry_after_ms is not None:
            headers["retry-after-ms"] = f"{retry_after_ms:g}"
        return cls(
            429, "rate_limit_error", "Number of request tokens has exceeded your limit.", headers
        )

    @classmethod
    def overloaded(cls, retry_after: float | None = None) -> ApiError:
        headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
        return cls(529, "overloaded_error", "Overloaded", headers)

    @classmethod
    def server_error(cls) -> ApiError:
        return cls(500, "api_error", "Internal server error")


@dataclass(frozen=True, slots=True)
class Raw:
    """Any bytes at all, e.g. a malformed JSON body."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Slow:
    """Wait ``delay_s`` seconds before sending ``then`` (to trip the client's timeout)."""

    delay_s: float
    then: Reply


Reply = ToolUse | Text | ApiError | Raw | Slow


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """A request as the server received it (header names lowercased)."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


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
    ) -> None:
        self.api_key = api_key
        self.default = default
        self.responder = responder
        self.model = model
        self.requests: deque[RecordedRequest] = deque(maxlen=record_limit)
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
        request = RecordedRequest(method, path, headers, body)
        self.requests.append(request)
        reply = self._refusal(request) or self._next_reply(request)
        while isinstance(reply, Slow):
            await anyio.sleep(reply.delay_s)
            reply = reply.then
        await self._send(stream, self._render(reply, request))
        return headers.get("connection", "").lower() != "close"

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
        problem = _check_body(body) if isinstance(body, dict) else "the body must be an object"
        return ApiError(400, "invalid_request_error", problem) if problem else None

    def _render(self, reply: Reply, request: RecordedRequest) -> Raw:
        number = next(self._ids)
        extra = {"request-id": f"req_fake_{number}"}
        if isinstance(reply, ApiError):
            return _error(reply.status, reply.error_type, reply.message, {**extra, **reply.headers})
        if isinstance(reply, Raw):
            return Raw(reply.body, reply.status, reply.content_type, {**extra, **reply.headers})
        if isinstance(reply, ToolUse):
            name = reply.name or _forced_tool(request.json())
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_fake_{number}",
                "name": name,
                "input": reply.input,
            }
        elif isinstance(reply, Text):
            block = {"type": "text", "text": reply.text}
        else:
            raise TypeError(f"not a reply: {reply!r}")
        message = {
            "id": f"msg_fake_{number}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or self.model,
            "content": [block],
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": reply.usage.input_tokens,
                "output_tokens": reply.usage.output_tokens,
                "cache_creation_input_tokens": reply.usage.cache_creation_input_tokens,
                "cache_read_input_tokens": reply.usage.cache_read_input_tokens,
            },
        }
        return Raw(json.dumps(message).encode(), headers=extra)

    @staticmethod
    async def _send(stream: SocketStream, reply: Raw) -> None:
        head = [
            f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}",
            f"content-type: {reply.content_type}",
            f"content-length: {len(reply.body)}",
            *(f"{name}: {value}" for name, value in reply.headers.items()),
        ]
        await stream.send("\r\n".join(head).encode("latin-1") + b"\r\n\r\n" + reply.body)


def _error(
    status: int, error_type: str, message: str, headers: Mapping[str, str] | None = None
) -> Raw:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return Raw(json.dumps(body).encode(), status, headers=dict(headers or {}))


def _forced_tool(body: Any) -> str:
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "tool":
        return str(choice["name"])
    tools = body.get("tools") or [{"name": "tool"}]
    return str(tools[0]["name"])


def _check_body(body: dict[str, Any]) -> str | None:
    """The subset of the API's request validation that our client could get wrong."""
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            return f"{key}: Field required"
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
