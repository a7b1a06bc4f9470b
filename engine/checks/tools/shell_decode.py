"""Payloads decoded from literals, read as the text they decode to: a command hidden in
base64, hex or rot13 is judged as the command it is, not passed over as noise.

- in interpreter code: ``base64.b64decode(b'…')``, ``bytes.fromhex('…')``,
  ``binascii.unhexlify('…')``, ``codecs.decode('…', 'rot13')``, Perl's ``pack("H*", "…")``
  and ``decode_base64('…')``, JavaScript's ``atob('…')`` and ``Buffer.from('…', 'base64')``,
  PHP's ``base64_decode('…')``, ``hex2bin('…')`` and ``str_rot13('…')`` become the quoted
  text they decode to;
- in the shell (``shell_feeds.decoded_pipeline``): the output of a substitution such as
  ``$(echo … | base64 -d)``, ``$(printf … | xxd -r -p)``, ``$(echo … | rev)`` or
  ``$(echo … | tr 'A-Za-z' 'N-ZA-Mn-za-m')``.

Only literals are decoded, only to printable text, and within bounds; anything else is left
as written.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from collections.abc import Callable

__all__ = ["MAX_LITERAL", "b64_text", "decoded_literals", "hex_text"]

MAX_LITERAL = 8_000
_MAX_DECODES = 32
_Q = r"""b?(?:"([^"\\\n]{4,8000})"|'([^'\\\n]{4,8000})')"""
_ENCODING = r"""\s*,\s*["'](\w+)["']"""


def _text(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c.isspace() for c in text)
    return text if text and printable > len(text) * 0.95 else None


def b64_text(value: str) -> str | None:
    """``value`` decoded from base64 (standard or URL-safe, padding optional), if it decodes
    to text; None otherwise."""
    cleaned = re.sub(r"\s+", "", value)
    try:
        return _text(base64.b64decode(cleaned + "=" * (-len(cleaned) % 4), validate=True))
    except (binascii.Error, ValueError):
        try:
            return _text(base64.urlsafe_b64decode(cleaned + "=" * (-len(cleaned) % 4)))
        except (binascii.Error, ValueError):
            return None


def hex_text(value: str) -> str | None:
    """``value`` decoded from hex (blanks, colons, ``\\x`` and ``0x`` allowed), if it
    decodes to text; None otherwise."""
    cleaned = re.sub(r"[\s:]|\\x|0x", "", value)
    try:
        return _text(bytes.fromhex(cleaned))
    except ValueError:
        return None


def _rot13(value: str) -> str | None:
    return codecs.decode(value, "rot13")


_BY_NAME: dict[str, Callable[[str], str | None]] = {
    "base64": b64_text,
    "b64": b64_text,
    "hex": hex_text,
    "rot13": _rot13,
    "rot_13": _rot13,
}
_CALLS: tuple[tuple[re.Pattern[str], Callable[[str], str | None] | None], ...] = (
    (re.compile(rf"(?:base64\.)?(?:urlsafe_|standard_)?b64decode\(\s*{_Q}\s*\)"), b64_text),
    (re.compile(rf"(?:base64\.)?decodebytes\(\s*{_Q}\s*\)"), b64_text),
    (re.compile(rf"(?:bytes|bytearray)\.fromhex\(\s*{_Q}\s*\)"), hex_text),
    (re.compile(rf"(?:binascii\.)?(?:unhexlify|a2b_hex)\(\s*{_Q}\s*\)"), hex_text),
    (re.compile(rf"\bpack\(\s*[\"']H\*?[\"']\s*,\s*{_Q}\s*\)"), hex_text),
    (re.compile(rf"\b(?:decode_base64|base64_decode|atob)\(\s*{_Q}\s*\)"), b64_text),
    (re.compile(rf"\bhex2bin\(\s*{_Q}\s*\)"), hex_text),
    (re.compile(rf"\bstr_rot13\(\s*{_Q}\s*\)"), _rot13),
    (re.compile(rf"\b(?:codecs\.decode|Buffer\.from)\(\s*{_Q}{_ENCODING}\s*\)"), None),
)


_AS_TEXT = re.compile(r"""(?<=[\w'")\]])\.decode\(\s*(?:["'][\w-]{1,16}["'])?\s*\)""")
"""Python's bytes-to-text call: it changes nothing of what the command says."""


def decoded_literals(code: str) -> str:
    """``code`` with each decode of a literal replaced by the quoted text it decodes to
    (``os.system(bytes.fromhex('726d…').decode())`` → ``os.system('rm …'.decode())``)."""
    if "(" not in code:
        return _assembled(code)
    done = 0
    for pattern, decode in _CALLS:
        if done >= _MAX_DECODES:
            break

        def one(m: re.Match[str], decode: Callable[[str], str | None] | None = decode) -> str:
            nonlocal done
            literal = m.group(1) if m.group(1) is not None else m.group(2)
            how = decode if decode is not None else _BY_NAME.get(m.group(3).lower())
            text = how(literal) if how is not None and done < _MAX_DECODES else None
            if text is None:
                return m.group(0)
            done += 1
            return repr(text[:MAX_LITERAL])

        code = pattern.sub(one, code)
    if done:  # ``p.decode()`` of what was decoded is the same text
        code = _AS_TEXT.sub("", code)
    return _assembled(code)


_CHAR_CODES = re.compile(
    r"(?:String\.fromCharCode|\bchr)\(\s*((?:\d{1,5}\s*,\s*){1,800}\d{1,5})\s*\)"
)
_BYTES = re.compile(
    r"new\s+String\(\s*new\s+(?:byte|char)\s*\[\s*\]\s*\{([^}]{1,8000})\}\s*(?:,[^()]{0,60})?\)"
    r"|\[\]byte\{([^}]{1,8000})\}|\bvec!\[([^\]]{1,8000})\]|&\[((?:\s*\d{1,3}u8\s*,?){2,800})\]"
)
_JOINED = re.compile(
    r"\[\s*((?:[\"'][^\"'\\\n]{0,200}[\"']\s*,\s*){1,64}[\"'][^\"'\\\n]{0,200}[\"'])\s*,?\s*\]"
    r"\s*\.join\(\s*[\"']([^\"'\n]{0,4})[\"']\s*\)"
)
_PIECE = re.compile(r"[\"']([^\"'\\\n]{0,200})[\"']")
_ELEMENT = re.compile(r"^\s*(?:(\d{1,5})|'(.)'|0x([0-9a-fA-F]{1,4}))(?:u8)?\s*$")


def _characters(listed: str) -> str | None:
    """The text of a list of character codes or character literals (``114, 109`` or
    ``'r', 'm'``), or ``None`` when it is not one, or not printable."""
    out: list[str] = []
    for item in listed.split(",")[:8000]:
        if not item.strip():
            continue
        m = _ELEMENT.match(item)
        if m is None:
            return None
        number, char, hexa = m.groups()
        code = int(number) if number else int(hexa, 16) if hexa else ord(char)
        if not (code in (9, 10, 13) or 32 <= code < 0x110000):
            return None
        out.append(chr(code))
    text = "".join(out)
    printable = text.isprintable() or "\n" in text
    return text if len(text) >= 2 and printable else None


def _assembled(code: str) -> str:
    """``code`` with strings assembled from pieces written as the one literal they make:
    ``String.fromCharCode(114, 109)``, ``new String(new byte[]{114, 109})``, Go's
    ``[]byte{…}``, Rust's ``vec![…]`` of codes, ``["r", "m"].join("")``."""

    def codes(m: re.Match[str]) -> str:
        text = _characters(next((g for g in m.groups() if g is not None), ""))
        return m.group(0) if text is None else repr(text[:MAX_LITERAL])

    if "fromCharCode" in code or "chr(" in code:
        code = _CHAR_CODES.sub(codes, code)
    if "byte" in code or "char" in code or "vec!" in code or "u8" in code:
        code = _BYTES.sub(codes, code)
    if ".join(" in code:
        code = _JOINED.sub(
            lambda m: repr(m.group(2).join(_PIECE.findall(m.group(1)))[:MAX_LITERAL]), code
        )
    return code
