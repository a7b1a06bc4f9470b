"""Dynamic SQL spelled through an encoding: the text an ``EXEC(…)``, ``EXECUTE IMMEDIATE …``,
``PREPARE … FROM …`` or ``SET @q = …`` is given when it is built by functions that only
re-spell characters — ``CHAR(68)+CHAR(82)``, a hex literal (``0x4452…``, ``X'4452'``),
``FROM_BASE64('…')``, ``decode('…', 'base64')``, ``UNHEX``, ``REVERSE``, ``REPLACE`` of
literals, ``CAST``/``CONVERT``/``convert_from`` around them — read back into the statement it
spells, so it is judged as the plain statement is.

Only an argument that uses one of these builders is read here (a plain ``'DR' || 'OP …'`` is
``sql_bodies.joined``'s). A builder the reader cannot undo (bad base64, a function it does not
know around one) is reported: text hidden that way is never taken as harmless."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from .sql_issue import H, Issue, fragment
from .sql_lex import Tok, TokKind
from .sql_parse import Parsed

__all__ = ["Decoded", "decoded", "opaque_dynamic"]

_MAX_TOKS = 4_096
_MAX_DEPTH = 16
_MAX_OUT = 65_536
_HEADS = frozenset({"EXEC", "EXECUTE", "SP_EXECUTESQL", "PREPARE", "SET", "DECLARE"})
_CHARS = frozenset({"CHAR", "CHR", "NCHAR", "UNISTR_CHAR"})
_B64 = frozenset(
    {"FROM_BASE64", "BASE64_DECODE_STRING", "TRY_BASE64_DECODE_STRING", "BASE64_DECODE",
     "FROM_BASE64_STRING", "UNBASE64"}
)  # fmt: skip
_HEX = frozenset({"UNHEX", "FROM_HEX", "HEXTORAW", "HEX_DECODE_STRING", "TRY_HEX_DECODE_STRING"})
_SAME = frozenset(
    {"CONVERT_FROM", "CAST_TO_VARCHAR2", "CAST_TO_NVARCHAR2", "TO_CHAR", "TO_VARCHAR",
     "TO_NCHAR", "CAST_TO_RAW", "N", "STRING", "TEXT", "UTL_RAW", "UTL_ENCODE", "QUOTE_IDENT",
     "QUOTENAME", "TRIM", "BTRIM", "LTRIM", "RTRIM", "DBMS_ASSERT"}
)  # fmt: skip
"""Functions that give back their first argument's characters unchanged."""
_TYPES = frozenset(
    {"VARCHAR", "NVARCHAR", "CHAR", "NCHAR", "VARBINARY", "BINARY", "TEXT", "NTEXT", "SYSNAME"}
)
_BUILDERS = _CHARS | _B64 | _HEX | {"REVERSE", "REPLACE", "DECODE", "TRANSLATE"}
"""Names whose presence makes an argument one this module reads."""


@dataclass(frozen=True, slots=True)
class Decoded:
    """The text spelled, whether a part stayed unknown (a variable: a stand-in name is put),
    and whether a builder could not be undone (``opaque``)."""

    text: str
    guessed: bool = False
    opaque: bool = False


def _literal(t: Tok) -> str:
    raw = t.text
    if raw[:1] in ("X", "x") and raw[1:2] == "'":
        return _unhex(raw[2:-1]) or ""
    inner = raw.lstrip("NnEe")
    if inner.startswith("$"):
        end = inner.find("$", 1)
        tag = inner[: end + 1] if end > 0 else "$$"
        return inner[len(tag) : len(inner) - len(tag)] if inner.endswith(tag) else ""
    return inner[1:-1].replace("''", "'") if len(inner) >= 2 else ""


def _unhex(text: str) -> str | None:
    digits = text.strip()
    digits = digits[2:] if digits[:2].lower() == "0x" else digits
    try:
        return bytes.fromhex(digits[: _MAX_OUT * 2]).decode("utf-8", "replace")
    except ValueError:
        return None


def _unb64(text: str) -> str | None:
    compact = "".join(text.split())[: _MAX_OUT * 2]
    try:
        return base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True).decode(
            "utf-8", "replace"
        )
    except (binascii.Error, ValueError):
        return None


class _Reader:
    """A recursive-descent reader of one string expression over tokens (bounded)."""

    def __init__(self, toks: tuple[Tok, ...]) -> None:
        self.toks = toks[:_MAX_TOKS]
        self.k = 0
        self.guessed = False
        self.opaque = False

    def peek(self, ahead: int = 0) -> Tok | None:
        k = self.k + ahead
        return self.toks[k] if k < len(self.toks) else None

    def skip_to_close(self) -> None:
        """Past the ``)`` that closes the call being read (whatever it holds)."""
        level = 0
        while (t := self.peek()) is not None:
            self.k += 1
            if t.kind is TokKind.LPAREN:
                level += 1
            elif t.kind is TokKind.RPAREN:
                if level == 0:
                    return
                level -= 1

    def expr(self, depth: int) -> str | None:
        out = self.term(depth)
        if out is None:
            return None
        while (t := self.peek()) is not None and t.text in ("+", "||"):
            self.k += 1
            nxt = self.term(depth)
            if nxt is None:
                return out
            out = (out + nxt)[:_MAX_OUT]
        return out

    def args(self, depth: int) -> list[str]:
        """The arguments of a call whose ``(`` was read, through its ``)``."""
        out: list[str] = []
        while (t := self.peek()) is not None and len(out) < 8:
            if t.kind is TokKind.RPAREN:
                self.k += 1
                return out
            if t.text == ",":
                self.k += 1
                continue
            got = self.expr(depth + 1)
            if got is None:
                out.append("")
                self.skip_to_close()
                return out
            out.append(got)
            if (t := self.peek()) is not None and t.upper in ("AS", "USING"):
                self.skip_to_close()
                return out
        return out

    def term(self, depth: int) -> str | None:
        t = self.peek()
        if t is None or depth > _MAX_DEPTH:
            return None
        if t.kind is TokKind.STRING:
            self.k += 1
            return _literal(t)
        if t.kind is TokKind.NUMBER and t.text == "0":
            nxt = self.peek(1)
            if nxt is not None and nxt.upper.startswith("X") and nxt.start == t.end:
                self.k += 2
                got = _unhex(nxt.text[1:])
                self.opaque = self.opaque or got is None
                return got or ""
        if t.kind is TokKind.LPAREN:
            self.k += 1
            got = self.expr(depth + 1)
            self.skip_to_close()
            return got
        if t.kind not in (TokKind.WORD, TokKind.QNAME, TokKind.PARAM):
            return None
        name = t.upper
        self.k += 1
        while (d := self.peek()) is not None and d.text == "." and (w := self.peek(1)):
            name, self.k = w.upper or w.text.upper(), self.k + 2  # ``utl_raw.cast_to_varchar2``
        opened = self.peek()
        if opened is None or opened.kind is not TokKind.LPAREN:
            self.guessed = True  # a variable: ``@q``, ``v_sql``
            return "x"
        self.k += 1
        f = self.peek()
        if name == "CONVERT" and f is not None and f.upper in _TYPES:
            while (g := self.peek()) is not None and g.text != "," and g.depth >= f.depth:
                self.k += 1  # ``CONVERT(NVARCHAR(MAX), …)``: the type first
        args = self.args(depth)
        return self.call(name, args)

    def call(self, name: str, args: list[str]) -> str:
        first = args[0] if args else ""
        got: str | None = first
        if name in _CHARS:
            try:
                code = int(first) if first.isdigit() else -1
                got = chr(code) if 0 < code < 0x110000 else None
            except ValueError:
                got = None
        elif name in _B64 or (name == "DECODE" and args[1:2] and args[1].lower() == "base64"):
            got = _unb64(first)
        elif name in _HEX or (name == "DECODE" and args[1:2] and args[1].lower() == "hex"):
            got = _unhex(first)
        elif name == "DECODE" and args[1:2] and args[1].lower() == "escape":
            got = first
        elif name == "REVERSE":
            got = first[::-1]
        elif name == "REPLACE" and len(args) == 3 and args[1]:
            got = first.replace(args[1], args[2])[:_MAX_OUT]
        elif name in ("CONCAT", "CONCAT_WS"):
            got = (args[0].join(args[1:]) if name == "CONCAT_WS" else "".join(args))[:_MAX_OUT]
        elif name in ("LOWER", "LCASE"):
            got = first.lower()
        elif name in ("UPPER", "UCASE"):
            got = first.upper()
        elif name not in _SAME and name not in ("CAST", "CONVERT", "DECODE"):
            got = None
        if got is None:
            self.opaque = True
            return ""
        return got


def decoded(toks: tuple[Tok, ...]) -> Decoded | None:
    """The text the expression that opens ``toks`` spells, when it uses an encoding builder
    (see the module); ``None`` when it uses none (``sql_bodies.joined`` reads it)."""
    window = toks[:_MAX_TOKS]
    if not any(
        t.upper in _BUILDERS
        or (t.kind is TokKind.STRING and t.text[:2] in ("X'", "x'"))
        or (t.kind is TokKind.NUMBER and t.text == "0" and k + 1 < len(window)
            and window[k + 1].upper.startswith("X") and window[k + 1].start == t.end)
        for k, t in enumerate(window)
    ):  # fmt: skip
        return None
    start = 0
    while start < len(window) and (
        window[start].upper in ("IMMEDIATE", "SP_EXECUTESQL") or window[start].text in ("(",)
    ):
        start += 1
    reader = _Reader(window[start:])
    reader.toks = tuple(
        Tok(TokKind.STRING, f"'{t.text}'", t.start, t.end, t.depth)
        if t.kind is TokKind.NUMBER and t.text != "0"
        else t
        for t in reader.toks
    )
    text = reader.expr(0) or ""
    return Decoded(text, reader.guessed, reader.opaque or not text.strip())


def opaque_dynamic(p: Parsed) -> Issue | None:
    """``p`` runs or keeps dynamic SQL spelled through an encoding the reader cannot undo."""
    toks = p.stmt.tokens
    words = p.stmt.words(2)
    if not words or words[0] not in _HEADS:
        return None
    for k, t in enumerate(toks[:64]):
        if t.upper in ("EXEC", "EXECUTE", "SP_EXECUTESQL", "FROM") or t.text in ("=", ":="):
            got = decoded(toks[k + 1 :])
            if got is not None and got.opaque:
                return Issue(
                    H,
                    "dynamic SQL spelled through an encoding that could not be read back",
                    fragment(p),
                    "unreadable",
                )
            if got is not None:
                return None
    return None
