"""Prompt-injection text in what an upstream MCP tool returns, aimed at the agent that reads it.

The engine's detector of text addressed to an LLM (``engine.checks.security_text.INJECTION``:
"ignore previous instructions", "you are now …", chat-template markers) reads every text of a
result; a tool result adds what only a result needs: instructions to call tools or run
commands, to send secrets somewhere, and text hidden from the human who looks at it (Unicode
tag characters — decoded and read too —, bidirectional overrides, runs of zero-width
characters, HTML styled to be invisible). Scanning is bounded: ``MAX_SCAN_CHARS`` of text per
result, in overlapping windows so a long line costs linear time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcp import types

from humangr.engine.checks.base import snippet
from humangr.engine.checks.secrets_scan import windows
from humangr.engine.checks.security_text import INJECTION
from humangr.engine.redact import redact_secrets

__all__ = [
    "MAX_SCAN_CHARS",
    "UNREAD",
    "InjectionFinding",
    "result_texts",
    "scan_result",
    "scan_text",
]

MAX_SCAN_CHARS = 256_000
"""Characters of one result read for injection text (the rest is not read: see ``UNREAD``)."""
UNREAD = "text too long to read whole"
"""The kind of the finding of a result with more than ``MAX_SCAN_CHARS`` of text."""
_WINDOW, _OVERLAP = 10_000, 1_000
_MAX_FINDINGS = 20

_TOOL_ORDER = re.compile(
    r"(?i)\b(?:now|immediately|you\s+(?:must|should|need\s+to|have\s+to)|be\s+sure\s+to)\s+"
    r"(?:also\s+|first\s+)?(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+)?`?[\w.-]{1,64}`?"
    r"\s+tool\b"
    r"|\b(?:call|invoke|run|execute)\s+(?:the\s+)?`?[\w.-]{1,64}`?\s+tool\s+with\b"
    r"|\b(?:you\s+must|you\s+should|assistant\s*,?\s+(?:please\s+)?)"
    r"\s*(?:now\s+)?(?:run|execute)\s+(?:the\s+)?(?:following\s+)?(?:shell\s+)?commands?\b"
)
_EXFILTRATE = re.compile(  # atomic: the first secret word after a verb, never another
    r"(?i)(?>\b(?:send|post|upload|e-?mail|forward|exfiltrate|leak|transmit|copy|paste)\s+"
    r"[^\n]{0,60}?\b(?:secrets?|api[\s_-]?keys?|access\s+tokens?|tokens?|credentials?"
    r"|passwords?|\.env\b|ssh\s+keys?|id_rsa|private\s+keys?|environment\s+variables|cookies)\b)"
    r"[^\n]{0,80}?\b(?:to|at|into)\s+(?:https?://|\S+@\S+|[\w.-]+\.(?:com|net|org|io|xyz|ru)\b"
    r"|the\s+(?:url|address|endpoint|server))"
)
_ADDRESSED = re.compile(
    r"(?i)(?:^|[\s>*#\[(])(?:note|message|instructions?|important)\s+(?:to|for)\s+(?:the\s+)?"
    r"(?:ai|assistant|agent|model|llm|claude|chatgpt|copilot)\b"
    r"|\b(?:ai|assistant|agent|claude|chatgpt|copilot)\s*[:,]\s*(?:you\s+must|ignore|do\s+not"
    r"|don't|always|never|please\s+(?:run|call|send|delete|execute))\b"
)
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_ZERO_WIDTH = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff]{3,}")
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_HIDDEN_HTML = re.compile(
    r"(?i)\bstyle\s*=\s*[\"']?(?>[^\"'>]{0,200}?(?:display\s*:\s*none|visibility\s*:\s*hidden"
    r"|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])))"
)

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("instructions to the model", INJECTION),
    ("an order to call a tool or run a command", _TOOL_ORDER),
    ("an instruction to send secrets away", _EXFILTRATE),
    ("text addressed to the AI agent", _ADDRESSED),
)


@dataclass(frozen=True, slots=True)
class InjectionFinding:
    """One piece of text in a tool result that addresses the agent (``excerpt`` is short and
    has secrets redacted: safe to log)."""

    kind: str
    excerpt: str
    where: str

    def describe(self) -> str:
        """One line for a log or the audit, with the excerpt."""
        return f"{self.kind} in {self.where}: {self.excerpt!r}"

    def named(self) -> str:
        """What and where, without the text itself (for the agent, which must not read it)."""
        return f"{self.kind} in {self.where}"


def _excerpt(text: str) -> str:
    return redact_secrets(snippet(" ".join(text.split()), 120))


def _scan(text: str, where: str) -> Iterator[InjectionFinding]:
    for part in windows(text, _WINDOW, _OVERLAP):
        for kind, pattern in _PATTERNS:
            match = pattern.search(part)
            if match:
                yield InjectionFinding(kind, _excerpt(match.group(0)), where)


def scan_text(text: str, where: str = "the result") -> list[InjectionFinding]:
    """What in ``text`` (its first ``MAX_SCAN_CHARS``) addresses the agent; at most one finding
    per kind and place."""
    text = text[:MAX_SCAN_CHARS]
    found: dict[str, InjectionFinding] = {}
    for finding in _scan(text, where):
        found.setdefault(finding.kind, finding)
    if _BIDI.search(text):
        found.setdefault(
            "hidden text",
            InjectionFinding("hidden text", "bidirectional override characters", where),
        )
    if _ZERO_WIDTH.search(text):
        found.setdefault(
            "hidden text", InjectionFinding("hidden text", "a run of zero-width characters", where)
        )
    if _HIDDEN_HTML.search(text):
        found.setdefault(
            "hidden text", InjectionFinding("hidden text", "HTML styled to be invisible", where)
        )
    tags = "".join(m.group(0) for m in _TAGS.finditer(text))
    if tags:
        smuggled = "".join(chr(ord(c) - 0xE0000) for c in tags if 0x20 <= ord(c) - 0xE0000 < 0x7F)
        found["invisible tag characters"] = InjectionFinding(
            "invisible tag characters", _excerpt(smuggled) or f"{len(tags)} characters", where
        )
        for finding in _scan(smuggled, f"{where} (hidden in tag characters)"):
            found.setdefault(f"hidden {finding.kind}", finding)
    return list(found.values())


def _structured_texts(value: Any, budget: list[int], depth: int = 0) -> Iterator[str]:
    if depth > 32 or budget[0] <= 0:
        return
    if isinstance(value, str):
        budget[0] -= len(value)
        yield value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _structured_texts(key, budget, depth + 1)
            yield from _structured_texts(child, budget, depth + 1)
    elif isinstance(value, list):
        for child in value:
            yield from _structured_texts(child, budget, depth + 1)


def result_texts(result: types.CallToolResult) -> Iterator[tuple[str, str]]:
    """Every text of a tool result the agent may read, with where it is: text blocks,
    embedded text resources, resource links' descriptions, the structured content."""
    for i, block in enumerate(result.content):
        where = f"content[{i}]"
        if isinstance(block, types.TextContent):
            yield where, block.text
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                yield where, resource.text
        elif isinstance(block, types.ResourceLink):
            yield where, " ".join(t for t in (block.name, block.title, block.description) if t)
    if result.structured_content is not None:
        budget = [MAX_SCAN_CHARS]
        yield "structured_content", "\n".join(_structured_texts(result.structured_content, budget))


def scan_result(result: types.CallToolResult) -> list[InjectionFinding]:
    """The injection findings of every text of ``result`` (at most 20): ``MAX_SCAN_CHARS``
    are read in all; a result with more text has a finding saying so (what was not read
    may hold anything)."""
    findings: list[InjectionFinding] = []
    budget, total = MAX_SCAN_CHARS, 0
    for where, text in result_texts(result):
        total += len(text)
        if budget > 0 and len(findings) < _MAX_FINDINGS:
            findings.extend(scan_text(text[:budget], where))
        budget -= len(text)
    findings = findings[: _MAX_FINDINGS - 1]
    if total > MAX_SCAN_CHARS:
        unread = f"{total:,} characters, the first {MAX_SCAN_CHARS:,} read"
        findings.append(InjectionFinding(UNREAD, unread, "the result"))
    return findings
