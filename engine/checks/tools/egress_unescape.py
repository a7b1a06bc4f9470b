"""A payload spelled byte by byte: percent-encoded (``%67%68%70%5F…``) or as hex digits
(``6768705f…``). A body, a field or a mail that is nothing but such escapes carries what they
spell; it is read as that text, as base64 is (``egress_scan``)."""

from __future__ import annotations

import re
from urllib.parse import unquote

from .shell_decode import hex_text

__all__ = ["unescaped"]

_MAX = 200_000
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_HEX = re.compile(r"(?:0x)?(?:[0-9A-Fa-f]{2}[\s:]?){16,}")
_MIN_ESCAPES = 12


def unescaped(text: str) -> str | None:
    """The text ``text`` spells when it is mostly percent escapes (at least a third of it, and
    ``_MIN_ESCAPES`` of them) or wholly hex digits that decode to text; None otherwise."""
    if len(text) > _MAX:
        return None
    if text.count("%") >= _MIN_ESCAPES:
        escapes = len(_PERCENT.findall(text))
        if escapes >= _MIN_ESCAPES and escapes * 3 * 3 >= len(text):
            plain = unquote(text, errors="strict") if _utf8(text) else None
            return plain if plain is not None and plain != text else None
    stripped = text.strip()
    if len(stripped) >= 32 and stripped[:1].isalnum() and _HEX.fullmatch(stripped):
        return hex_text(stripped)
    return None


def _utf8(text: str) -> bool:
    try:
        unquote(text, errors="strict")
    except UnicodeDecodeError:
        return False
    return True
