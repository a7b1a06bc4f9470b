"""The stand-in server's token counts and prompt cache, modelled on the Messages API.

Tokens: ``count_tokens`` takes one token per 3.5 characters (rounded up), about what Claude's
tokenizer gives on English prose; the real API counts code, diffs and JSON somewhat denser. A
request also pays the API's fixed overheads: ``TOOL_PROMPT_TOKENS`` for the tool-use system
prompt when it defines tools, and ``MESSAGE_TOKENS`` per message.

Cache: the prompt is read in the API's order (tools, system blocks, messages); each block with
``cache_control`` is a breakpoint whose prefix (model and every block up to it) is one entry.
A request reads the longest readable entry among its breakpoints and writes the prefix up to
its last breakpoint beyond that, when that prefix reaches the model's minimum cacheable length.
An entry is readable only after the response that wrote it has begun (``PromptCache.began``);
it then lives ``ttl_s`` seconds after its last use.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from humangr.engine.llm.warmup import min_cacheable_tokens

__all__ = [
    "CHARS_PER_TOKEN",
    "MESSAGE_TOKENS",
    "TOOL_PROMPT_TOKENS",
    "CachePlan",
    "PromptCache",
    "count_tokens",
]

CHARS_PER_TOKEN = 3.5
TOOL_PROMPT_TOKENS = 313
"""The tool-use system prompt of Claude 4 models with ``tool_choice`` ``any`` or ``tool``."""
MESSAGE_TOKENS = 4


def count_tokens(text: str) -> int:
    """The stand-in's token count of ``text`` (see the module docstring)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _block_text(block: Any) -> str:
    if isinstance(block, dict):
        shown = {k: v for k, v in block.items() if k != "cache_control"}
        if set(shown) <= {"type", "text"} and isinstance(shown.get("text"), str):
            return str(shown["text"])
        return json.dumps(shown, ensure_ascii=False, sort_keys=True)
    return str(block)


def _blocks(body: dict[str, Any]) -> list[tuple[Any, int]]:
    """Every block of the prompt in the API's order, with its token count."""
    found: list[tuple[Any, int]] = []
    tools = body.get("tools") or []
    for i, tool in enumerate(tools):
        overhead = TOOL_PROMPT_TOKENS if i == 0 else 0
        found.append((tool, count_tokens(_block_text(tool)) + overhead))
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    found.extend((block, count_tokens(_block_text(block))) for block in system)
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks = content if isinstance(content, list) else []
        for j, block in enumerate(blocks):
            found.append(
                (block, count_tokens(_block_text(block)) + (MESSAGE_TOKENS if j == 0 else 0))
            )
    return found


@dataclass(frozen=True, slots=True)
class CachePlan:
    """How one request uses the cache: ``read`` and ``write`` tokens, ``input`` the rest, and
    the entries it writes (readable once its response has begun)."""

    input: int
    read: int
    write: int
    writes: tuple[tuple[bytes, int], ...] = ()


@dataclass(slots=True)
class PromptCache:
    """The entries written and readable, bounded to ``max_entries`` (least recently used go)."""

    ttl_s: float = 300.0
    max_entries: int = 10_000
    min_tokens: Callable[[str], int] = min_cacheable_tokens
    clock: Callable[[], float] | None = None
    _readable: OrderedDict[bytes, float] = field(default_factory=OrderedDict)

    def _now(self) -> float:
        return (self.clock or time.monotonic)()

    def plan(self, body: dict[str, Any]) -> CachePlan:
        """Look ``body`` up: what it reads, what it writes, what it pays as plain input."""
        model = str(body.get("model", ""))
        digest = hashlib.sha256(model.encode() + b"\0")
        total = 0
        breakpoints: list[tuple[bytes, int]] = []
        for block, tokens in _blocks(body):
            digest.update(json.dumps(_block_text(block)).encode() + b"\0")
            total += tokens
            if isinstance(block, dict) and block.get("cache_control"):
                breakpoints.append((digest.copy().digest(), total))
        now = self._now()
        read = 0
        for key, tokens in breakpoints:
            expires = self._readable.get(key)
            if expires is not None and expires > now:
                read = max(read, tokens)
                self._readable[key] = now + self.ttl_s
                self._readable.move_to_end(key)
        minimum = self.min_tokens(model)
        writes = tuple((k, t) for k, t in breakpoints if t > read and t >= minimum)
        write = max((t for _, t in writes), default=read) - read
        return CachePlan(input=total - read - write, read=read, write=write, writes=writes)

    def began(self, plan: CachePlan) -> None:
        """The response of the request that made ``plan`` has begun: its entries are readable."""
        expires = self._now() + self.ttl_s
        for key, _ in plan.writes:
            self._readable[key] = expires
            self._readable.move_to_end(key)
        while len(self._readable) > self.max_entries:
            self._readable.popitem(last=False)

    def __len__(self) -> int:
        return len(self._readable)
