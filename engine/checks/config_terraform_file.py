"""One Terraform file as the ``config_terraform`` rules read it: its text, its ``{ … }``
blocks, the region of text a rule reads as a unit (a rule, a statement, a bucket), and the
maker of its findings. Pure, bounded, never raises."""

from __future__ import annotations

from humangr.contracts import Severity

from .base import Hit
from .config_text import ConfigText, blocks, enclosing, inside

__all__ = ["MAX_MATCHES", "TerraformFile"]

MAX_MATCHES = 200
"""The most matches of one rule read in a file."""
_MAX_REGION = 20_000
"""The most characters of one block read as a unit (a rule, a statement, a bucket)."""
_NEAR = 2_000


class TerraformFile:
    """One Terraform file: its text ``t``, ``path``, the hosts data may go to (``allowed``)
    and its ``blocks``."""

    def __init__(self, t: ConfigText, path: str, allowed: frozenset[str]) -> None:
        self.t, self.path, self.allowed = t, path, allowed
        self.blocks = blocks(t.text, lines=True)

    def hit(self, severity: Severity, title: str, offset: int, why: str, fix: str) -> Hit:
        """A finding at ``offset``, its line quoted."""
        return self.t.hit(self.path, severity, title, offset, why, fix)

    def region(self, offset: int) -> tuple[str, int, int]:
        """The text of the innermost block around ``offset`` (its first ``_MAX_REGION``
        characters), or the lines near ``offset`` outside any block."""
        block = inside(self.blocks, offset)
        if block is None:
            start = max(0, self.t.text.rfind("\n", 0, max(0, offset - _NEAR)) + 1)
            end = min(len(self.t.text), offset + _NEAR)
        else:
            start, end = block.start, min(block.close, block.start + _MAX_REGION)
        return self.t.text[start:end], start, end

    def within(self, offset: int, kind: str) -> bool:
        """Whether a block around ``offset`` is a resource of ``kind`` (``network_acl``)."""
        return any(kind in b.header for b in enclosing(self.blocks, offset))
