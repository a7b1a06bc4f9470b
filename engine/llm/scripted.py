"""``ScriptedLLM``: a real ``LLMClient`` that replays replies from a JSON Lines script.

The format is documented in the README, section "LLM scripts".
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import msgspec

from humangr.contracts import Usage
from humangr.engine.errors import LLMError

from .base import MATCH_TAGS, LLMReply, LLMRequest
from .errors import LLMTransportError, NoScriptMatch, ScriptError
from .schema import decode_reply

__all__ = ["ScriptLine", "ScriptedLLM", "parse_script_line", "select_line"]

SCRIPTED_MODEL = "scripted"
_KEYS = {"match", "json", "text", "error", "delay_ms", "usage"}
_ONE_CALL = Usage(calls=1)
_USAGE_KEYS = {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"}


@dataclass(frozen=True, slots=True)
class ScriptLine:
    """One parsed script line; exactly one of ``json``/``text``/``error`` is the reply."""

    line: int
    match: Mapping[str, str]
    kind: str
    body: Any
    delay_ms: float = 0.0
    usage: Usage = _ONE_CALL

    @property
    def key(self) -> frozenset[tuple[str, str]]:
        return frozenset(self.match.items())


def parse_script_line(obj: Any, line: int, source: str = "<script>") -> ScriptLine:
    """Validate one decoded script line; any problem is a ``ScriptError`` naming the line."""

    def fail(problem: str) -> ScriptError:
        return ScriptError(source, line, problem)

    if not isinstance(obj, dict):
        raise fail(f"a line must be a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - _KEYS
    if unknown:
        raise fail(f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    match = obj.get("match", None)
    if not isinstance(match, dict):
        raise fail('"match" is required and must be an object ({} matches every request)')
    bad = sorted(set(match) - MATCH_TAGS)
    if bad:
        raise fail(f"cannot match on {bad}; match keys are {sorted(MATCH_TAGS)}")
    for name, value in match.items():
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise fail(f'"match.{name}" must be a string, got {json.dumps(value)}')
    kinds = [kind for kind in ("json", "text", "error") if kind in obj]
    if len(kinds) != 1:
        raise fail('a line needs exactly one reply: "json", "text" or "error"')
    kind = kinds[0]
    if kind in ("text", "error") and not isinstance(obj[kind], str):
        raise fail(f'"{kind}" must be a string')
    delay = obj.get("delay_ms", 0)
    if not isinstance(delay, int | float) or isinstance(delay, bool) or delay < 0:
        raise fail('"delay_ms" must be a number >= 0')
    usage_obj = obj.get("usage", {})
    if (
        not isinstance(usage_obj, dict)
        or set(usage_obj) - _USAGE_KEYS
        or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in usage_obj.values()
        )
    ):
        raise fail(f'"usage" must be an object of counts >= 0 with keys {sorted(_USAGE_KEYS)}')
    return ScriptLine(
        line=line,
        match={name: str(value) for name, value in match.items()},
        kind=kind,
        body=obj[kind],
        delay_ms=float(delay),
        usage=Usage(calls=1, **usage_obj),
    )


def select_line(
    groups: Mapping[frozenset[tuple[str, str]], list[ScriptLine]], tags: Mapping[str, str]
) -> frozenset[tuple[str, str]] | None:
    """The key of the most specific group whose match fits ``tags`` (first in file on a tie)."""
    best: frozenset[tuple[str, str]] | None = None
    for key in groups:
        fits = all(tags.get(name) == value for name, value in key)
        if fits and (best is None or len(key) > len(best)):
            best = key
    return best


class ScriptedLLM:
    """Replays scripted replies matched on the request's tags.

    Replies of one ``match`` are used in order and the last one repeats. ``calls`` counts calls
    started, ``completed`` calls that returned or raised a scripted error, ``cancelled`` calls
    cancelled while in flight.
    """

    def __init__(self, lines: Iterable[ScriptLine], *, history: int = 1_000) -> None:
        self._groups: dict[frozenset[tuple[str, str]], list[ScriptLine]] = {}
        self._used: dict[frozenset[tuple[str, str]], int] = {}
        self.calls = 0
        self.completed = 0
        self.cancelled = 0
        self.requests: deque[LLMRequest] = deque(maxlen=history)
        self.extend(lines)

    def extend(self, lines: Iterable[ScriptLine]) -> None:
        """Append parsed lines; a match's sequence continues with them."""
        for line in lines:
            self._groups.setdefault(line.key, []).append(line)
            self._used.setdefault(line.key, 0)

    def add_lines(self, lines: Iterable[Any], *, source: str = "<added>") -> None:
        """Append already-decoded lines (dicts), validated like ``from_lines``."""
        self.extend([parse_script_line(obj, n, source) for n, obj in enumerate(lines, 1)])

    @classmethod
    def from_lines(cls, lines: Iterable[Any], *, source: str = "<script>") -> ScriptedLLM:
        """A client from already-decoded lines (dicts); line numbers count from 1."""
        return cls(parse_script_line(obj, n, source) for n, obj in enumerate(lines, 1))

    @classmethod
    def from_text(cls, text: str, *, source: str = "<script>") -> ScriptedLLM:
        """A client from JSON Lines text; blank lines and lines starting with ``#`` are skipped."""
        parsed = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ScriptError(source, n, f"not valid JSON: {exc.msg}") from None
            parsed.append(parse_script_line(obj, n, source))
        if not parsed:
            raise ScriptError(source, 0, "the script has no reply lines")
        return cls(parsed)

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedLLM:
        """A client from a ``.jsonl`` script file."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ScriptError(str(path), 0, f"cannot read the script: {exc.strerror}") from None
        return cls.from_text(text, source=str(path))

    def next_line(self, tags: Mapping[str, str]) -> ScriptLine:
        """Pick (and consume) the line that answers a request with ``tags``."""
        key = select_line(self._groups, tags)
        if key is None:
            raise NoScriptMatch(dict(tags))
        group = self._groups[key]
        used = self._used[key]
        self._used[key] = used + 1
        return group[min(used, len(group) - 1)]

    async def complete(self, request: LLMRequest) -> LLMReply:
        """Answer with the next matching scripted reply; see ``LLMClient.complete``."""
        self.calls += 1
        self.requests.append(request)
        try:
            line = self.next_line(request.tags)
            if line.delay_ms:
                await anyio.sleep(line.delay_ms / 1000)
            reply = self._reply(line, request)
        except anyio.get_cancelled_exc_class():
            self.cancelled += 1
            raise
        except LLMError:
            self.completed += 1
            raise
        self.completed += 1
        return reply

    @staticmethod
    def _reply(line: ScriptLine, request: LLMRequest) -> LLMReply:
        if line.kind == "error":
            raise LLMTransportError(
                f"scripted error (script line {line.line}): {line.body}", reason="scripted"
            )
        raw = line.body if line.kind == "text" else msgspec.json.encode(line.body).decode()
        if request.schema is None:
            return LLMReply(
                text=raw,
                data=None,
                raw=raw,
                usage=line.usage,
                model=SCRIPTED_MODEL,
                stop_reason="end_turn",
            )
        data = decode_reply(raw, request.schema, usage=line.usage, model=SCRIPTED_MODEL)
        return LLMReply(
            text=None,
            data=data,
            raw=raw,
            usage=line.usage,
            model=SCRIPTED_MODEL,
            stop_reason="tool_use",
        )
