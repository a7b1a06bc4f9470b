"""What a source file's string literals say, for ``source_code``: the SQL it runs (what
would be critical when run, a migration's way back aside) and the addresses it calls (capture
and paste sites, metadata endpoints, raw IPs)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from humangr.contracts import Severity

from .base import Hit
from .build_files import AddedText
from .languages import migration_function
from .tools.http_sites import is_paste
from .tools.http_target import url_problems
from .tools.http_url import find_urls, parse_url

__all__ = ["sql_literals", "urls", "way_back"]

_SQL_START = re.compile(
    r"([\"'`])\s*(?=(?:DROP|TRUNCATE|DELETE\s+FROM|ALTER\s+TABLE|UPDATE\s+[\w.\"`\[\]]+\s+SET|GRANT)\b)",
    re.IGNORECASE,
)
"""Where a string literal that opens with a destructive or privileged statement starts."""
_JOINED = re.compile(r"\s*(?:[+.]|\\|&|\|\|)?\s*([\"'`])")
"""What joins one literal to the next (``"a " + "b"``, PHP's ``.``, adjacent literals)."""
_MAX_SQL = 2_000
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
        end = _closing(text, start, quote, _MAX_SQL - size)
        if end is None:
            return None if not parts else "".join(parts)
        parts.append(text[start:end])
        size += end - start
        joined = _JOINED.match(text, end + 1, min(len(text), end + 64))
        if joined is None or size >= _MAX_SQL:
            return "".join(parts)
        quote, start = joined.group(1), joined.end()


def _closing(text: str, start: int, quote: str, budget: int) -> int | None:
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
        if is_paste(url.host.name) and not writes:
            yield hit(
                Severity.HIGH,
                f"fetches from paste site {url.host.name}",
                t.text.find(raw),
                "What a paste site serves is whatever its poster put there last.",
            )
            continue
        for problem in url_problems(url, method="POST" if writes else "GET", writes=writes):
            if problem.kind in ("metadata", "capture") or problem.title.startswith("raw IP"):
                yield hit(problem.severity, problem.title, t.text.find(raw), problem.why)
                break
