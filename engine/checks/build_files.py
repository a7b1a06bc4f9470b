"""Files that decide what runs later, read by ``source_code``: SQL files (migrations, seeds),
statement by statement with the SQL checks — one that would be critical when run (a table
dropped, every row deleted) needs a human (high), since it runs when the migration does, a
migration's way back aside — and manifests whose dependency is fetched from a bare address or
a file host rather than a package index or forge."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, snippet
from .diff import FileDiff
from .languages import DOWN_FILE, sql_section
from .tools.http_sites import FORGES, PACKAGE_INDEXES
from .tools.http_url import parse_url

__all__ = ["MANIFESTS", "AddedText", "manifest", "migration"]

_MAX_TEXT = 200_000
"""The most characters of a file's added lines read as one text."""
MANIFESTS = frozenset(
    {
        "package.json",
        "composer.json",
        "Gemfile",
        "Cargo.toml",
        "go.mod",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
    }
)
_DEPENDENCY_URL = re.compile(
    r"""["'=:>(\s]((?:git\+)?https?://[^"'\s,}]{4,300}\.(?:tgz|tar\.gz|zip|gem|crate|git)\b[^"'\s,}]*|"""
    r"""(?:git\+)?https?://\d{1,3}(?:\.\d{1,3}){3}[^"'\s,}]{0,300})"""
)
"""A dependency given as an archive's or repository's address, or as any bare address."""


class AddedText:
    """The added lines of one file as one text, with the line number of each offset."""

    def __init__(self, file: FileDiff) -> None:
        lines = file.added
        self.text = "\n".join(ln.text for ln in lines)[:_MAX_TEXT]
        self.numbers = [ln.number for ln in lines]
        self.starts = [0]
        for ln in lines[:-1]:
            self.starts.append(self.starts[-1] + len(ln.text) + 1)

    def line(self, offset: int) -> int | None:
        if not self.numbers:
            return None
        return self.numbers[max(0, bisect.bisect_right(self.starts, offset) - 1)]

    def at(self, offset: int) -> str:
        index = max(0, bisect.bisect_right(self.starts, offset) - 1)
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.text)
        return snippet(self.text[self.starts[index] : end])


def manifest(file: FileDiff, path: str) -> Iterator[Hit]:
    """A dependency a manifest fetches from an address: one that is no package index or forge
    (a raw IP, a file host) puts whatever that host serves into every install."""
    for line in file.added:
        for m in _DEPENDENCY_URL.finditer(line.text):
            url = parse_url(m.group(1).removeprefix("git+"))
            if url is None:
                continue
            host = url.host.name
            if FORGES.search(host) or PACKAGE_INDEXES.search(host):
                continue
            raw = url.host.addr is not None
            yield Hit(
                Severity.CRITICAL if raw and url.scheme == "http" else Severity.HIGH,
                f"a dependency fetched from {host[:80]}",
                f"`{snippet(line.text)}`: no package index or forge serves it"
                + (", over plain HTTP from a bare address." if raw else "."),
                "Depend on the registry's release, or add the host to a reviewed mirror.",
                file=path,
                line=line.number,
            )
            break


def migration(file: FileDiff, path: str) -> Iterator[Hit]:
    """A SQL file's statements that would destroy data when it runs (its way back aside)."""
    from .tools.sql import review_sql  # sqlglot is imported only once SQL is read

    if DOWN_FILE.search(path):
        return  # a migration's way back drops what its way forward created
    t = AddedText(file)
    up, section = [], "up"
    for line in t.text.split("\n"):
        section = sql_section(line) or section
        up.append(line if section == "up" else "")
    issues = [i for i in review_sql("\n".join(up)) if i.severity is Severity.CRITICAL]
    if not issues:
        return
    worst = issues[0]
    detail = "; ".join(i.title for i in issues[:4])
    offset = max(0, t.text.find(worst.detail)) if worst.detail else 0
    yield Hit(
        Severity.HIGH,
        f"a SQL file that, when it runs, {worst.title}",
        f"When this file runs (a migration, a seed): {detail}.",
        "Have a human confirm the data may go (a backup, a reversible migration).",
        file=path,
        line=t.line(offset),
    )
