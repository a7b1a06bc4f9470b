"""One web-server configuration file as the ``config_web`` rules read it: its text, its blocks
(nginx and Caddy ``{ … }`` blocks, Apache ``<Section> … </Section>`` sections), the headers
around an offset, and the maker of its findings. Pure, bounded, never raises."""

from __future__ import annotations

import re

from humangr.contracts import Severity

from .base import Hit
from .config_text import Block, ConfigText, blocks, enclosing

__all__ = ["MAX_MATCHES", "WebFile"]

MAX_MATCHES = 200
"""The most matches of one rule read in a file."""
_SECTION = re.compile(r"(?m)^[ \t]*<(/?)([A-Za-z]\w*)\b([^>\n]*)>")


def _sections(text: str) -> list[Block]:
    """Apache's ``<Directory …> … </Directory>`` sections, as blocks."""
    found: list[Block] = []
    stack: list[tuple[str, str, int]] = []
    for m in _SECTION.finditer(text):
        if len(found) + len(stack) >= 5_000:
            break
        name = m.group(2).lower()
        if not m.group(1):
            stack.append((name, f"{m.group(2)} {m.group(3).strip()}"[:500], m.end()))
            continue
        while stack:
            opened, header, at = stack.pop()
            found.append(Block(header, at, at, m.start()))
            if opened == name:
                break
    found.extend(Block(header, at, at, len(text)) for _, header, at in stack)
    return sorted(found, key=lambda b: b.open)


class WebFile:
    """One web-server file: its text ``t``, ``path``, ``kind`` (``nginx``, ``apache`` or
    ``caddy``), the hosts traffic may go to (``allowed``) and its ``blocks``."""

    def __init__(self, t: ConfigText, path: str, kind: str, allowed: frozenset[str]) -> None:
        self.t, self.path, self.kind, self.allowed = t, path, kind, allowed
        text = t.text
        if kind == "caddy":
            self.blocks = blocks(text, lines=True)
        else:
            self.blocks = blocks(text) + _sections(text)

    def hit(self, severity: Severity, title: str, offset: int, why: str, fix: str) -> Hit:
        """A finding at ``offset``, its line quoted."""
        return self.t.hit(self.path, severity, title, offset, why, fix)

    def context(self, offset: int) -> str:
        """The headers of the blocks around ``offset``, innermost first."""
        return " ".join(b.header for b in enclosing(self.blocks, offset))
