"""Git binary patches (``GIT binary patch``): their blocks read and ``literal`` ones decoded.

A block is ``literal N`` (the whole new content) or ``delta N`` (instructions against the old
content), then lines of base85 (git's alphabet, RFC 1924), each led by a character giving the
bytes it holds (``A``-``Z``: 1-26, ``a``-``z``: 27-52), then a blank line; the data is zlib
deflated and inflates to N bytes. ``git apply`` writes the content; so a literal is decoded
and reviewed like any file, and what cannot be decoded (a delta needs the old file) is marked
so the checks can refuse it. Decoding is bounded: a block inflating past ``MAX_BYTES`` is
``corrupt``.
"""

from __future__ import annotations

import base64
import re
import zlib
from dataclasses import dataclass
from typing import Literal

__all__ = ["MAX_BYTES", "BinaryPatch", "read_binary_patch"]

MAX_BYTES = 1_000_000
"""What one diff's literals may inflate to in all (as much as a diff may hold); a literal past
it is ``corrupt`` (never silently skipped)."""

_HEAD = re.compile(r"^(literal|delta) (\d{1,12})$")
_LINE = re.compile(r"^[A-Za-z][0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]+$")

Kind = Literal["text", "data", "delta", "corrupt"]


@dataclass(frozen=True, slots=True)
class BinaryPatch:
    """The forward block of a binary patch: ``text`` (decoded UTF-8), ``data`` (decoded bytes
    that are not text), ``delta`` (not decodable without the old file) or ``corrupt``."""

    kind: Kind
    text: str = ""
    size: int = 0
    problem: str = ""


def _block(lines: list[str], i: int) -> tuple[str, int, list[str], int] | None:
    """``(kind, size, data lines, next index)`` of the block at ``lines[i]``, or None."""
    m = _HEAD.match(lines[i]) if i < len(lines) else None
    if m is None:
        return None
    i += 1
    data: list[str] = []
    while i < len(lines) and _LINE.match(lines[i]):
        data.append(lines[i])
        i += 1
    return m.group(1), int(m.group(2)), data, i


def _decode(data: list[str], size: int, budget: int) -> bytes | str:
    """The inflated bytes of a block, or why they cannot be had."""
    if size > budget:
        return f"it declares {size:,} bytes, over the {budget:,} left to decode in this diff"
    raw = bytearray()
    for line in data:
        c = line[0]
        count = ord(c) - ord("A") + 1 if c <= "Z" else ord(c) - ord("a") + 27
        body = line[1:]
        if len(body) % 5 or len(body) // 5 * 4 < count:
            return "a base85 line has the wrong length"
        try:
            raw += base64.b85decode(body)[:count]
        except ValueError:
            return "a line is not base85"
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(bytes(raw), size + 1)
    except zlib.error as exc:
        return f"the data does not inflate ({exc})"
    if len(out) != size or not inflater.eof:
        return f"the data inflates to {len(out):,} bytes, not the {size:,} declared"
    return out


def read_binary_patch(lines: list[str], i: int, budget: int = MAX_BYTES) -> tuple[BinaryPatch, int]:
    """The forward block after a ``GIT binary patch`` line at ``lines[i - 1]`` and the index
    after the patch (its reverse block, when present, is skipped). A literal is decoded if it
    inflates to at most ``budget`` bytes (what the diff has left). Never raises."""
    first = _block(lines, i)
    if first is None:
        return BinaryPatch("corrupt", problem="no literal or delta block follows"), i
    kind, size, data, i = first
    if i < len(lines) and lines[i] == "":
        i += 1
        reverse = _block(lines, i)
        if reverse is not None:
            i = reverse[3]
            if i < len(lines) and lines[i] == "":
                i += 1
    if kind == "delta":
        return BinaryPatch("delta", size=size), i
    decoded = _decode(data, size, budget)
    if isinstance(decoded, str):
        return BinaryPatch("corrupt", size=size, problem=decoded), i
    if b"\0" not in decoded:
        try:
            return BinaryPatch("text", text=decoded.decode("utf-8"), size=size), i
        except UnicodeDecodeError:
            pass
    return BinaryPatch("data", size=size), i
