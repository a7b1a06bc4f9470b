"""What scripted layers answer: reply helpers and ``ScriptBook``, the test kit's ``LLMClient``.

A ``ScriptBook`` keeps one rule per ``match`` (a layer, a layer and run, or everything) and
answers from a ``ScriptedLLM`` built from those rules; changing a rule rebuilds it, so a rule
says what the layer answers *from now on* (see the README, section "LLM scripts").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from humangr.contracts import LayerID, LayerVerdict, Severity
from humangr.engine.errors import ConfigError
from humangr.engine.llm import LLMReply, LLMRequest, ScriptedLLM

__all__ = [
    "Reply",
    "ReplyLike",
    "ScriptBook",
    "clean",
    "finding",
    "findings",
    "llm_error",
    "unparseable",
]


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer of a layer run: a verdict, raw text, or a transport error."""

    kind: Literal["json", "text", "error"]
    body: Any

    def line(self, match: Mapping[str, str], delay_ms: float = 0.0) -> dict[str, Any]:
        """The ``ScriptedLLM`` line that gives this answer to requests matching ``match``."""
        line: dict[str, Any] = {"match": dict(match), self.kind: self.body}
        if delay_ms:
            line["delay_ms"] = delay_ms
        return line


def finding(
    severity: Severity | str,
    title: str,
    *,
    file: str | None = None,
    line: int | None = None,
    description: str = "",
    suggestion: str | None = None,
) -> dict[str, Any]:
    """A finding as a reviewer model reports it; checked now, so a typo fails at once."""
    value: dict[str, Any] = {"severity": str(severity), "title": title, "description": description}
    for key, item in (("file", file), ("line", line), ("suggestion", suggestion)):
        if item is not None:
            value[key] = item
    _checked({"findings": [value]})
    return value


def findings(*items: Mapping[str, Any], summary: str = "") -> Reply:
    """A verdict listing ``items`` (made with ``finding``); with none it is a clean verdict."""
    return Reply("json", _checked({"findings": [dict(i) for i in items], "summary": summary}))


def clean(summary: str = "Nothing to report.") -> Reply:
    """A verdict without findings."""
    return findings(summary=summary)


def unparseable(text: str = "Looks good to me!") -> Reply:
    """Prose instead of the JSON verdict: repairs fail too, so every run is an ``error``."""
    return Reply("text", text)


def llm_error(message: str = "scripted outage") -> Reply:
    """A failing call (like a network or API error): the run is an ``error``."""
    return Reply("error", message)


ReplyLike = Reply | Mapping[str, Any] | Sequence[Mapping[str, Any]]
"""A ``Reply``; one finding; a list of findings; or a whole verdict ``{"findings": [...]}``."""


def to_reply(reply: ReplyLike) -> Reply:
    """Normalise what ``script(reply=...)`` accepts into a ``Reply``."""
    if isinstance(reply, Reply):
        return reply
    if isinstance(reply, Mapping):
        if "findings" in reply:
            return Reply("json", _checked(dict(reply)))
        return findings(reply)
    if isinstance(reply, Sequence) and not isinstance(reply, str | bytes):
        return findings(*reply)
    raise TypeError(
        f"cannot script a reply of type {type(reply).__name__}; "
        "use finding(...), findings(...), clean(), unparseable() or llm_error()"
    )


def _checked(verdict: dict[str, Any]) -> dict[str, Any]:
    try:
        msgspec.convert(verdict, LayerVerdict)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"scripted reply is not a valid layer verdict: {exc}") from None
    return verdict


def match_of(layer: LayerID | str | None, run: int | None) -> dict[str, str]:
    """The ``match`` of a rule: every run of every layer, of one layer, or one run of it."""
    match: dict[str, str] = {}
    if layer is not None:
        try:
            match["layer"] = LayerID(str(layer).upper()).value
        except ValueError:
            raise ConfigError(f"unknown layer {layer!r}; use HL1..HL7") from None
    if run is not None:
        if run < 1:
            raise ConfigError(f"run numbers start at 1, got {run}")
        match["run"] = str(run)
    return match


class ScriptBook:
    """An ``LLMClient`` answering from per-match rules; by default every layer is clean.

    ``calls`` counts calls and ``requests`` keeps the last ones, across rebuilds.
    """

    def __init__(self, *, history: int = 1_000) -> None:
        self._rules: dict[frozenset[tuple[str, str]], list[dict[str, Any]]] = {}
        self._raw: list[dict[str, Any]] = []
        self.calls = 0
        self.requests: deque[LLMRequest] = deque(maxlen=history)
        self.scripted = ScriptedLLM([])
        self.reset()

    def reset(self) -> None:
        """Forget every rule: every run of every layer answers a clean verdict."""
        self._rules.clear()
        self._raw.clear()
        self.set({}, [clean()])

    def set(self, match: Mapping[str, str], replies: Iterable[Reply], delay_ms: float = 0) -> None:
        """Requests matching ``match`` get ``replies`` in order (the last one repeats)."""
        lines = [reply.line(match, delay_ms) for reply in replies]
        if not lines:
            raise ConfigError("a rule needs at least one reply")
        self._rules[frozenset(match.items())] = lines
        self._rebuild()

    def add_raw(self, lines: Iterable[Mapping[str, Any]]) -> None:
        """Append raw script lines (the README's "LLM scripts" format); ``reset`` forgets them."""
        self._raw.extend(dict(line) for line in lines)
        self._rebuild()

    def _rebuild(self) -> None:
        lines = [line for rule in self._rules.values() for line in rule] + self._raw
        self.scripted = ScriptedLLM.from_lines(lines, source="<humangr test script>")

    async def complete(self, request: LLMRequest) -> LLMReply:
        """Answer from the current rules; see ``LLMClient.complete``."""
        self.calls += 1
        self.requests.append(request)
        return await self.scripted.complete(request)
