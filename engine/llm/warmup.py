"""Cache warming: the first call of a cacheable prompt prefix goes alone, the others wait.

The Messages API makes a prompt-cache entry readable only once the response that wrote it has
begun. Calls sent in parallel before that all miss, and each pays a cache write (1.25 × the
input price) instead of a read (0.1 ×). ``CacheWarmer`` holds the calls that share a prefix
until the first one, the leader, reports that its response began (``WarmTurn.started``); a
leader that fails or is cancelled releases them at once, and no call waits longer than
``hold_s``. It is keyed on a hash of the prefix, keeps at most ``max_entries`` prefixes, and
forgets a warm prefix after ``ttl_s`` (the API keeps an entry five minutes after its last use).
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

from humangr.engine.errors import ConfigError

__all__ = [
    "MIN_CACHEABLE_TOKENS",
    "UNKNOWN_MODEL_MIN_TOKENS",
    "CacheWarmer",
    "WarmTurn",
    "WarmupSettings",
    "estimate_tokens",
    "min_cacheable_tokens",
    "warmup_settings",
]

MIN_CACHEABLE_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-opus-5", 512),
    ("claude-fable-5", 512),
    ("claude-mythos-5", 512),
    ("claude-mythos-preview", 2048),
    ("claude-sonnet-5", 1024),
    ("claude-opus-4-8", 1024),
    ("claude-opus-4-7", 2048),
    ("claude-opus-4-6", 4096),
    ("claude-opus-4-5", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-sonnet-4-6", 1024),
    ("claude-sonnet-4-5", 1024),
    ("claude-opus-4-1", 1024),
    ("claude-opus-4", 1024),
    ("claude-sonnet-4", 1024),
    ("claude-3-7-sonnet", 1024),
    ("claude-3-5-haiku", 2048),
    ("claude-3-haiku", 2048),
)
"""The minimum cacheable prompt length of each Claude model family, from Anthropic's
prompt-caching documentation and, for the models it does not list yet, from measurements
against the live API: a shorter prefix is processed at full price and no entry is written.
The first family whose name occurs in the model name applies (the specific names come first;
a later version of a listed family, such as ``claude-opus-5-5``, counts as that family)."""

UNKNOWN_MODEL_MIN_TOKENS = 4096
"""For a model not in the table: the highest minimum of the current models, so that a prompt is
held back only when any of them would cache it."""

_CHARS_PER_TOKEN = 4


def min_cacheable_tokens(model: str) -> int:
    """The minimum cacheable prompt length of ``model`` (see ``MIN_CACHEABLE_TOKENS``)."""
    name = model.lower()
    for family, tokens in MIN_CACHEABLE_TOKENS:
        if family in name:
            return tokens
    return UNKNOWN_MODEL_MIN_TOKENS


def estimate_tokens(characters: int) -> int:
    """A low estimate of the tokens of ``characters`` characters of prompt.

    Claude's tokenizer gives about 3 to 3.5 characters a token on English prose and fewer on
    code, diffs and JSON, so a quarter of the characters rarely overestimates: a prefix is
    warmed only when the API will cache it.
    """
    return math.floor(max(characters, 0) / _CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class WarmupSettings:
    """How calls are warmed: ``enabled``; ``stream`` (release at ``message_start``) or a plain
    first call that releases the others ``delay_s`` after it was sent."""

    enabled: bool = True
    stream: bool = True
    delay_s: float = 2.0


def warmup_settings(
    enabled: bool | None = None,
    stream: bool | None = None,
    delay_s: float | None = None,
    environ: Mapping[str, str] | None = None,
) -> WarmupSettings:
    """The settings given, the rest from ``HUMANGR_CACHE_WARMING`` (``stream``, the default;
    ``delay``; ``off``) and ``HUMANGR_WARMUP_DELAY_MS`` (default 2000)."""
    env = os.environ if environ is None else environ
    mode = env.get("HUMANGR_CACHE_WARMING", "stream").strip().lower() or "stream"
    if mode not in ("stream", "delay", "off"):
        raise ConfigError(f"HUMANGR_CACHE_WARMING must be stream, delay or off, got {mode[:40]!r}")
    if delay_s is None:
        text = env.get("HUMANGR_WARMUP_DELAY_MS", "2000").strip()
        try:
            delay_s = float(text) / 1000
        except ValueError:
            delay_s = -1.0
        if not 0 <= delay_s <= 600:
            raise ConfigError(
                f"HUMANGR_WARMUP_DELAY_MS must be a number of milliseconds in 0..600000, "
                f"got {text[:40]!r}"
            )
    if not 0 <= delay_s <= 600:
        raise ConfigError(f"the warm-up delay must be 0..600 seconds, got {delay_s}")
    return WarmupSettings(
        enabled=mode != "off" if enabled is None else enabled,
        stream=mode != "delay" if stream is None else stream,
        delay_s=delay_s,
    )


@dataclass(slots=True)
class _Entry:
    released: anyio.Event
    hold_until: float
    warm_until: float = 0.0


class WarmTurn:
    """A call's place in the warm-up of its prefix. The leader calls ``started`` when its
    response has begun (the entry is readable from then on) and ``release`` when an attempt
    failed; both release the calls waiting on it and may be called any number of times."""

    def __init__(self, warmer: CacheWarmer | None, key: bytes, entry: _Entry | None) -> None:
        self._warmer = warmer
        self._key = key
        self._entry = entry
        self._started = False

    @property
    def leader(self) -> bool:
        """Whether this call warms the prefix (the others wait for it)."""
        return self._entry is not None

    def started(self) -> None:
        """The response began: the prefix is cached; release the others and keep it warm."""
        if self._entry is None or self._warmer is None:
            return
        self._started = True
        self._entry.warm_until = self._warmer.clock() + self._warmer.ttl_s
        self._entry.released.set()

    def release(self) -> None:
        """Release the waiting calls now; unless the response began, the prefix is not warm."""
        if self._entry is None or self._warmer is None:
            return
        if not self._started:
            self._warmer.forget(self._key, self._entry)
        self._entry.released.set()


class CacheWarmer:
    """Orders the calls that share a cacheable prefix (one instance per process and client)."""

    def __init__(
        self,
        *,
        hold_s: float,
        ttl_s: float = 270.0,
        max_entries: int = 4096,
        clock: Callable[[], float] = anyio.current_time,
    ) -> None:
        if hold_s < 0 or ttl_s <= 0 or max_entries < 1:
            raise ValueError("hold_s must be >= 0, ttl_s > 0 and max_entries >= 1")
        self.hold_s = hold_s
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()
        self.led = 0
        self.held = 0

    def __len__(self) -> int:
        return len(self._entries)

    @asynccontextmanager
    async def turn(self, key: bytes) -> AsyncIterator[WarmTurn]:
        """Wait until the call with prefix hash ``key`` may go, then run it inside.

        A warm prefix goes at once; while a leader is in flight, wait for its release (at most
        until ``hold_s`` after it was sent); otherwise this call leads. When the block ends the
        leader's waiting calls are released, whatever happened inside (failure, cancellation).
        """
        now = self.clock()
        entry = self._entries.get(key)
        if entry is not None and entry.warm_until > now:
            entry.warm_until = now + self.ttl_s
            self._entries.move_to_end(key)
            yield WarmTurn(None, key, None)
            return
        if entry is not None and not entry.released.is_set():
            if entry.hold_until > now:
                self.held += 1
                with anyio.move_on_after(entry.hold_until - now):
                    await entry.released.wait()
            yield WarmTurn(None, key, None)
            return
        entry = _Entry(anyio.Event(), now + self.hold_s)
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        self.led += 1
        turn = WarmTurn(self, key, entry)
        try:
            yield turn
        finally:
            turn.release()

    def forget(self, key: bytes, entry: _Entry) -> None:
        """Drop ``entry`` (a leader's that never started) unless another replaced it."""
        if self._entries.get(key) is entry:
            del self._entries[key]
