"""What a source file's string literals say, for ``source_code``: the SQL it runs (what
would be critical when run, a migration's way back aside) and the addresses it calls (capture
and paste sites, metadata endpoints, raw IPs)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator

from humangr.contracts import Severity

from .base import Hit
from .build_files import AddedText
from .languages import migration_function
from .tools.http_sites import is_paste
from .tools.http_target import url_problems
from .tools.http_url import find_urls, parse_url

__all__ = ["closing_quote", "hidden_urls", "sql_literals", "urls", "way_back"]

_SQL_START = re.compile(
    r"([\"'`])\s*(?=(?:DROP|TRUNCATE|DELETE\s+FROM|ALTER\s+TABLE|UPDATE\s+[\w.\"`\[\]]+\s+SET|GRANT)\b)",
    re.IGNORECASE,
)
"""Where a string literal that opens with a destructive or privileged statement starts."""
_JOINED = re.compile(r"\s*(?:[+.]|\\|&|\|\|)?\s*([\"'`])")
"""What joins one literal to the next (``"a " + "b"``, PHP's ``.``, adjacent literals)."""
_MAX_SQL = 2_000
_ENCODED_URL = re.compile(
    r"[\"'`](aHR0c[A-Za-z0-9+/_-]{8,600}={0,2}|68747470[0-9a-fA-F]{8,1200})[\"'`]"
)
"""A base64 or hex literal that decodes to ``http…``."""
_WRITES = re.compile(r"(?i)\bpost\b|method\s*[:=]\s*[\"'](?:post|put|patch)|upload|\.send\(")


def way_back(t: AddedText) -> list[int]:
    """The offsets of a migration's lines that are in its way back (``migration_function``)."""
    offsets, reverting, start = [], False, 0
    for line in t.text.split("\n"):
        opened = migration_function(line)
        reverting = reverting if opened is None else opened
        if reverting:
            offsets.append(start)
        start += len(line) + 1
    return offsets


def sql_literals(
    t: AddedText, hit: Callable[[Severity, str, int, str], Hit], *, way_back: list[int] | None
) -> Iterator[Hit]:
    """SQL the code runs, in its string literals: what would be critical when run (in a
    migration's way back, what it drops is what its way forward created)."""
    from .tools.sql import review_sql  # sqlglot is imported only once SQL is read

    for m in list(_SQL_START.finditer(t.text))[:16]:
        if way_back and t.text.rfind("\n", 0, m.start()) + 1 in set(way_back):
            continue
        statement = _literal(t.text, m.end(), m.group(1))
        if statement is None:
            continue
        issues = [i for i in review_sql(statement) if i.severity is Severity.CRITICAL]
        if issues:
            yield hit(
                Severity.HIGH,
                f"runs SQL that {issues[0].title}",
                m.start(),
                "When this code runs, so does the statement.",
            )
            return


def _literal(text: str, start: int, quote: str) -> str | None:
    """The string literal from ``start`` to its closing ``quote`` (escaped quotes kept, other
    quotes inside it too), with the literals joined to it (``+``, ``.``, side by side) — the
    statement as the code sends it; ``None`` if it does not close within ``_MAX_SQL``."""
    parts: list[str] = []
    size = 0
    while True:
        end = closing_quote(text, start, quote, _MAX_SQL - size)
        if end is None:
            return None if not parts else "".join(parts)
        parts.append(text[start:end])
        size += end - start
        joined = _JOINED.match(text, end + 1, min(len(text), end + 64))
        if joined is None or size >= _MAX_SQL:
            return "".join(parts)
        quote, start = joined.group(1), joined.end()


def closing_quote(text: str, start: int, quote: str, budget: int) -> int | None:
    """The offset of the quote that closes a literal opened just before ``start``."""
    i, stop = start, min(len(text), start + budget)
    while i < stop:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i
        i += 1
    return None


def urls(t: AddedText, hit: Callable[[Severity, str, int, str], Hit]) -> Iterator[Hit]:
    writes = bool(_WRITES.search(t.text))
    seen: set[str] = set()
    for raw in find_urls(t.text, limit=32):
        url = parse_url(raw)
        if url is None or raw in seen:
            continue
        seen.add(raw)
        if is_paste(url.host.name):
            yield hit(
                Severity.HIGH,
                f"{'sends to' if writes else 'fetches from'} paste or file-drop site "
                f"{url.host.name}",
                t.text.find(raw),
                "Whatever is sent there is public to anyone with the link."
                if writes
                else "What a paste site serves is whatever its poster put there last.",
            )
            continue
        for problem in url_problems(url, method="POST" if writes else "GET", writes=writes):
            if problem.kind in ("metadata", "capture") or problem.title.startswith("raw IP"):
                yield hit(problem.severity, problem.title, t.text.find(raw), problem.why)
                break


def hidden_urls(t: AddedText, hit: Callable[[Severity, str, int, str], Hit]) -> Iterator[Hit]:
    """An address the code holds only encoded (base64 or hex of ``http…``): decoded at run
    time, it is where data goes without a reader seeing where."""
    for m in list(_ENCODED_URL.finditer(t.text))[:8]:
        decoded = _decoded(m.group(1))
        if decoded is None or not decoded.startswith(("http://", "https://")):
            continue
        shown = decoded[:80].encode("ascii", "backslashreplace").decode()
        yield hit(
            Severity.HIGH,
            "an address hidden in an encoded string",
            m.start(),
            f"The code decodes `{shown}` at run time: an address written so that no reader "
            "sees it is how code hides where it sends data.",
        )
        return


def _decoded(raw: str) -> str | None:
    try:
        if raw.startswith("68747470"):
            data = bytes.fromhex(raw)
        else:
            data = base64.b64decode(raw + "=" * (-len(raw) % 4), altchars=b"-_")
    except (ValueError, binascii.Error):
        return None
    return data.decode("utf-8", "replace")
