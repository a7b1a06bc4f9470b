"""Reading a whole line for secrets in linear time, however long it is.

A long line is read in overlapping windows (``windows``): every secret shorter than the overlap
lies whole in some window, and each window costs at most what a line of the window's length
did. The detect-secrets patterns that backtrack over long runs — the keyword assignment
patterns, OpenAI and npm keys, JWTs — are replaced here by equivalents that visit each
character a bounded number of times:

- keyword patterns: their ``\\w*`` after the keyword is possessive, and a long word keeps only
  its part from its last keyword on (``trimmed``), so that a word of repeated keywords is not
  rescanned from each one;
- OpenAI, npm and JWT: one attempt per run of the characters the pattern scans.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.keyword import (
    DENYLIST,
    QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
    REGEX_BY_FILETYPE,
)

__all__ = [
    "KEYWORD_OVERLAP",
    "KEYWORD_WINDOW",
    "OVERLAP",
    "WINDOW",
    "aws_keys",
    "jwt_tokens",
    "keyword_regexes",
    "npm_tokens",
    "openai_keys",
    "trimmed",
    "windows",
]

WINDOW = 20_000
"""Characters of a line read at once by the token detectors."""
OVERLAP = 2_000
"""Characters two windows share: a secret shorter than this lies whole in one of them."""
KEYWORD_WINDOW = 4_000
"""Characters of a line read at once by the keyword assignment patterns."""
KEYWORD_OVERLAP = 500


def windows(line: str, size: int = WINDOW, overlap: int = OVERLAP) -> Iterator[str]:
    """``line`` in pieces of ``size`` characters, each sharing ``overlap`` with the next (the
    line itself when it is short)."""
    if len(line) <= size:
        yield line
        return
    step = size - overlap
    start = 0
    while True:
        yield line[start : start + size]
        if start + size >= len(line):
            return
        start += step


_KEYWORD = re.compile("|".join(DENYLIST), re.IGNORECASE)
_LONG_WORD = re.compile(r"\w{64,}")


def _from_last_keyword(m: re.Match[str]) -> str:
    word = m.group(0)
    last = -1
    for k in _KEYWORD.finditer(word):
        last = k.start()
    return word[last:] if last > 0 else word


def trimmed(line: str) -> str:
    """``line`` with each long word cut to its part from its last keyword on (a keyword
    pattern matches from there exactly as from any earlier keyword of the word)."""
    return _LONG_WORD.sub(_from_last_keyword, line)


def _possessive(table: dict[re.Pattern[str], int]) -> dict[re.Pattern[str], int]:
    out: dict[re.Pattern[str], int] = {}
    for rx, group in table.items():
        pattern = rx.pattern.replace(r"contrasena)\w*", r"contrasena)\w*+", 1)
        out[re.compile(pattern, rx.flags)] = group
    return out


_POSSESSIVE: dict[int, dict[re.Pattern[str], int]] = {
    id(t): _possessive(t)
    for t in [QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP, *REGEX_BY_FILETYPE.values()]
}


def keyword_regexes(table: dict[re.Pattern[str], int]) -> dict[re.Pattern[str], int]:
    """detect-secrets' keyword patterns of one file type with a possessive ``\\w*`` after the
    keyword (same matches: what follows it is never a word character)."""
    return _POSSESSIVE.get(id(table)) or _possessive(table)


_AWS_ID, _AWS_SECRET = AWSKeyDetector.denylist
_QUOTED_40 = re.compile(r"(?=['\"][0-9a-zA-Z/+]{40}['\"])")
_AWS_BEFORE = 80
"""Characters before a quoted value that ``aws ... key ... "<40>"`` can span."""


def aws_keys(line: str) -> list[str]:
    """AWS key ids, and secret keys named ``aws...key``/``token``/``password`` within 20
    characters of a quoted 40-character value (read only around such values)."""
    found = [str(v) for part in windows(line) for v in _AWS_ID.findall(part)]
    if found:
        return found
    for q in _QUOTED_40.finditer(line):
        part = line[max(0, q.start() - _AWS_BEFORE) : q.start() + 42]
        found = [str(v) for v in _AWS_SECRET.findall(part)]
        if found:
            return found
    return []


_CLASS = r"[A-Za-z0-9-_]"
_OPENAI_RUN = re.compile(rf"sk-{_CLASS}*")
_OPENAI_TAIL = re.compile(r"[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}")


def openai_keys(line: str) -> list[str]:
    """Legacy OpenAI keys, as detect-secrets' ``sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ...``
    finds them (every ``sk-`` of one run ends the same way: each run is tried once)."""
    if "T3BlbkFJ" not in line:
        return []
    found: list[str] = []
    for run in _OPENAI_RUN.finditer(line):
        m = _OPENAI_TAIL.search(line, run.start() + 3, run.end())
        if m is not None:
            found.append(line[run.start() : m.end()])
    return found


_NPM_MARK = "/:_authToken="
_NPM_VALUE = re.compile(r"\s*(npm_.+|[A-Fa-f0-9-]{36})")


def npm_tokens(line: str) -> list[str]:
    """npm tokens, as detect-secrets' ``//.+/:_authToken=\\s*(npm_.+|[A-Fa-f0-9-]{36})`` finds
    them, in one pass."""
    first = line.find("//")
    if first < 0:
        return []
    at = line.find(_NPM_MARK, first + 3)
    while at >= 0:
        m = _NPM_VALUE.match(line, at + len(_NPM_MARK))
        if m is not None:
            return [m.group(1)]
        at = line.find(_NPM_MARK, at + 1)
    return []


_JWT_CANDIDATE = re.compile(r"eyJ[A-Za-z0-9_=.+/-]+")
_JWT_RUN = re.compile(r"[A-Za-z0-9-_=]*")
_JWT: Any = JwtTokenDetector.denylist[0]


def jwt_tokens(line: str) -> Iterator[str]:
    """Formally valid JWTs, as detect-secrets finds them (one attempt per run of the header's
    characters: every ``eyJ`` of one run ends the same way)."""
    for cand in _JWT_CANDIDATE.finditer(line):
        tok = cand.group(0)
        if "." not in tok:
            continue
        pos = 0
        while (i := tok.find("eyJ", pos)) >= 0:
            m = _JWT.match(tok, i)
            if m is not None:
                if JwtTokenDetector.is_formally_valid(m.group(0)):
                    yield m.group(0)
                pos = m.end()
            else:
                run = _JWT_RUN.match(tok, i)
                pos = max(run.end() if run is not None else i + 1, i + 1)
