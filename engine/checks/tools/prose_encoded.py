"""A message whose text hides records in base64: a long run of base64 that decodes to plain
text laid out as rows or fields (``emp_id,name,ni`` lines, ``key: value`` lines). People write
to people in words; data wrapped so that no reader (and no check) sees what it is, sent
outside, is how records are slipped past a review. A token or a key in base64 is the secret
checks' business; an image, a compressed file or a signed blob decodes to bytes, not rows, and
is left alone."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator, Sequence

__all__ = ["encoded_records"]

_RUN = re.compile(r"[A-Za-z0-9+/]{60,}={0,2}")
_WINDOW = 8_000
"""Characters of a text searched for a run (messages can be huge)."""
_DECODE = 3_000
"""Characters of a run decoded (enough for a few rows)."""


def _rows(plain: str) -> bool:
    """Whether decoded text reads as records: printable, and two or more lines or four or more
    field separators (commas, tabs, semicolons, pipes)."""
    if not plain or plain.lstrip()[:1] in ("{", "["):  # a JSON document: a token's claims
        return False
    printable = sum(1 for c in plain if c.isprintable() or c in "\n\r\t")
    if printable < 0.97 * len(plain):
        return False
    lines = [line for line in plain.splitlines() if line.strip()]
    fields = sum(plain.count(c) for c in ",\t;|")
    return (len(lines) >= 2 and fields >= 2) or fields >= 4


def encoded_records(
    texts: Iterable[tuple[str, str]], *, outside: Sequence[str]
) -> Iterator[tuple[str, str, str]]:
    """Each argument of ``texts`` (``(argument, text)``) that carries records hidden in base64
    to ``outside`` recipients: ``(argument, title, advice)``."""
    if not outside:
        return
    for argument, raw in texts:
        text = raw[:_WINDOW]
        if len(text) < 60:
            continue
        for match in _RUN.finditer(text):
            word = match.group(0)[:_DECODE]
            word = word[: len(word) - len(word) % 4] if not word.endswith("=") else word
            try:
                plain = base64.b64decode(word + "=" * (-len(word) % 4)).decode("utf-8")
            except (binascii.Error, ValueError):
                continue
            if _rows(plain):
                yield (
                    argument,
                    f"sends records hidden in base64 to {outside[0][:60]}",
                    "Send data in the open, through a channel the company approves, so a person "
                    "can see what leaves.",
                )
                break
