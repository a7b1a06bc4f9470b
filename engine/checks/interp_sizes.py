"""The predicted size of a folded constant, computed from its operands before the fold.

``operation_size`` (binary operators), ``method_size`` (text methods), ``percent_size``
(``%`` formatting, ``*`` widths read from the arguments), ``format_size`` (``str.format``) and
``spec_size`` (a format spec: ``'{:>999999999}'``, f-strings) bound the characters, bytes or
entries of a result; ``weight`` measures a constant (nested tuples counted in full, as
``repr``, hashing and comparison walk them). None means "not folded": kinds of operand or
formats the engine does not predict.
"""

from __future__ import annotations

import operator
import re
import string
from collections.abc import Callable
from typing import Any

from .interp_budget import MAX_FOLD, MAX_INT_BITS

__all__ = [
    "format_size",
    "method_size",
    "operation_size",
    "percent_size",
    "spec_size",
    "weight",
]


def weight(value: object, limit: int = MAX_FOLD) -> int:
    """The size of a constant as text (nested tuples counted in full), stopping past ``limit``."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str | bytes):
            total += len(v) + 2
        elif isinstance(v, bool) or v is None:
            total += 5
        elif isinstance(v, int):
            total += v.bit_length() // 3 + 2
        elif isinstance(v, float):
            total += _FLOAT_WEIGHT
        elif isinstance(v, complex):  # (-1.0) ** 0.5
            total += _COMPLEX_WEIGHT
        elif isinstance(v, tuple):
            total += 2
            if total + len(v) > limit:
                return limit + 1
            stack.extend(v)
        else:
            return limit + 1
        if total > limit:
            return limit + 1
    return total


def _length(v: str | bytes | tuple[object, ...]) -> int:
    """Characters of text, the full weight of a tuple."""
    return len(v) if isinstance(v, str | bytes) else weight(v)


_FLOAT_WEIGHT = 24
"""``weight`` of any float."""
_COMPLEX_WEIGHT = 2 * _FLOAT_WEIGHT + 4
"""``weight`` of any complex number: two floats, a sign, ``j`` and parentheses."""


def _repeated(v: str | bytes | tuple[object, ...], n: int) -> int:
    """The size of ``v * n``."""
    if isinstance(v, str | bytes):
        return len(v) * max(n, 0)
    return (weight(v) - 2) * max(n, 0) + 2


def _bits(v: int | float) -> int:
    return v.bit_length() if isinstance(v, int) else 64


_NUMBER_BITS: dict[Callable[[Any, Any], Any], Callable[[int, int], int]] = {
    operator.add: lambda a, b: max(a, b) + 1,
    operator.sub: lambda a, b: max(a, b) + 1,
    operator.mul: lambda a, b: a + b,
    # One bit more than the operands: with negative numbers (two's complement) the result can
    # outgrow both (1 ^ -3 == -4).
    operator.and_: lambda a, b: max(a, b) + 1,
    operator.or_: lambda a, b: max(a, b) + 1,
    operator.xor: lambda a, b: max(a, b) + 1,
    operator.floordiv: lambda a, b: a + 1,
    operator.mod: lambda a, b: max(a, b) + 1,
    operator.truediv: lambda a, b: 64,
}


def _number_size(fn: Callable[[Any, Any], Any], a: int | float, b: int | float) -> int | None:
    if fn is operator.pow:
        if isinstance(b, int) and b > 0 and isinstance(a, int) and abs(a) > 1:
            bits = _bits(a) * b
        else:
            bits = 64
    else:
        rule = _NUMBER_BITS.get(fn)
        if rule is None:
            return None
        bits = rule(_bits(a), _bits(b))
    floats = isinstance(a, float) or isinstance(b, float) or fn is operator.truediv
    if fn is operator.pow and a < 0 and not isinstance(b, int):
        return _COMPLEX_WEIGHT  # a negative base to a fractional power is complex
    if floats or (fn is operator.pow and b < 0):
        return _FLOAT_WEIGHT
    return bits // 3 + 2 if bits <= MAX_INT_BITS else MAX_FOLD + bits


def operation_size(fn: Callable[[Any, Any], Any], a: object, b: object) -> int | None:
    """The predicted size of ``fn(a, b)`` for a binary operator, or None when it is not folded
    (kinds of operand the engine does not fold)."""
    if isinstance(a, int | float) and isinstance(b, int | float):
        return _number_size(fn, a, b)
    if fn is operator.mul:
        if isinstance(a, str | bytes | tuple) and isinstance(b, int):
            return _repeated(a, b)
        if isinstance(b, str | bytes | tuple) and isinstance(a, int):
            return _repeated(b, a)
        return None
    if fn is operator.add and isinstance(a, str | bytes | tuple) and type(a) is type(b):
        return _length(a) + _length(b)
    if fn is operator.mod and isinstance(a, str | bytes):
        return percent_size(a, b)
    return None


_PERCENT = re.compile(r"%(\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d*))?[hlL]?(.?)", re.S)
_DIGITS = 9


def _number(text: str | None) -> int | None:
    """A width or precision written in digits (None when absent or absurdly long)."""
    if not text:
        return 0
    return int(text) if len(text) <= _DIGITS else None


_REPR = 10
"""Characters of ``repr`` per character of text at most (``\U0001f600`` escapes)."""
_FLOAT_TEXT = 420
"""Characters of a float written out, at most (1e308 with ``f`` and grouping), with no width."""


def _rendered(value: object, conversion: str = "") -> int:
    """An upper bound on the text of ``value`` formatted (``r``/``a``: its repr)."""
    if conversion not in ("r", "a"):
        if isinstance(value, str):
            return len(value)
        if isinstance(value, int):
            return value.bit_length() * 5 // 4 + 24  # binary with grouping; "%", "e": 6 decimals
        if isinstance(value, float):
            return _FLOAT_TEXT
    return _REPR * weight(value) + 32


def percent_size(fmt: str | bytes, args: object) -> int | None:
    """The predicted size of ``fmt % args`` (``*`` widths read from ``args``), or None."""
    text = fmt.decode("latin-1") if isinstance(fmt, bytes) else fmt
    values = list(args) if isinstance(args, tuple) else [args]
    total = len(text) + 32
    for m in _PERCENT.finditer(text):
        if m.group(1) is not None:
            return None
        sizes: list[int] = []
        for part in (m.group(2), m.group(3)):
            if part == "*":
                star = values.pop(0) if values else 0
                sizes.append(abs(star) if isinstance(star, int) else 0)
            else:
                n = _number(part)
                if n is None:
                    return MAX_FOLD + 1
                sizes.append(n)
        if m.group(4) == "%":
            continue
        value = values.pop(0) if values else ""
        if isinstance(fmt, bytes) and isinstance(value, bytes) and m.group(4) in ("s", "b"):
            rendered = len(value)
        else:
            rendered = _rendered(value, m.group(4))
        total += sum(sizes) + rendered
    return total


_SPEC = re.compile(r"(?s)(?:.?[<>=^])?[-+ ]?z?#?0?(\d*)[,_]?(?:\.(\d*))?[a-zA-Z%]?")


def spec_size(spec: str, value: object, conversion: str = "") -> int | None:
    """The predicted size of ``format(value, spec)`` (after the ``!r``/``!a`` conversion), or
    None when the spec is not understood."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        return None
    width, precision = _number(m.group(1)), _number(m.group(2))
    if width is None or precision is None:
        return MAX_FOLD + 1
    return width + precision + _rendered(value, conversion)


def format_size(fmt: str, args: list[Any]) -> int | None:
    """The predicted size of ``fmt.format(*args)``, or None (nested or indexed fields)."""
    try:
        fields = list(string.Formatter().parse(fmt))
    except ValueError:
        return None
    total, auto = 32, 0
    for literal, name, spec, conv in fields:
        total += len(literal)
        if name is None:
            continue
        if "{" in (spec or "") or "." in name or "[" in name:
            return None
        if name == "":
            index, auto = auto, auto + 1
        elif name.isdigit() and len(name) <= _DIGITS:
            index = int(name)
        else:
            return None
        if index >= len(args):
            return None
        size = spec_size(spec or "", args[index], conv or "")
        if size is None:
            return None
        total += size
    return total


_SAME = frozenset(
    {"strip", "lstrip", "rstrip", "removeprefix", "removesuffix", "hexdigest", "digest"}
)
_CASES = frozenset({"lower", "upper", "title", "capitalize", "casefold", "swapcase"})
_SPLITS = frozenset({"split", "rsplit", "splitlines", "partition", "rpartition"})
_PADS = frozenset({"center", "ljust", "rjust", "zfill"})


def method_size(recv: str | bytes, method: str, args: list[Any]) -> int | None:
    """The predicted size of ``recv.method(*args)`` for a foldable text method, or None when
    it is not folded."""
    n = len(recv)
    if method in _SAME:
        return n
    if method in _CASES:
        return 3 * n + 16
    if method in _SPLITS:
        return 3 * n + 16
    if method in ("encode", "decode"):
        return 10 * n + 64
    if method in _PADS:
        width = args[0] if args else 0
        return max(n, width) if isinstance(width, int) else None
    if method == "expandtabs":
        tab = args[0] if args else 8
        if not isinstance(tab, int):
            return None
        tabs = recv.count("\t") if isinstance(recv, str) else recv.count(b"\t")
        return n + tabs * max(tab, 0)
    if method == "replace":
        return _replace_size(recv, args)
    if method == "join":
        return _join_size(recv, args)
    if method == "format" and isinstance(recv, str):
        return format_size(recv, args)
    return None


def _count(text: str | bytes, part: object) -> int | None:
    if isinstance(text, str):
        return text.count(part) if isinstance(part, str) else None
    return text.count(part) if isinstance(part, bytes) else None


def _replace_size(recv: str | bytes, args: list[Any]) -> int | None:
    if len(args) < 2 or type(args[0]) is not type(recv) or type(args[1]) is not type(recv):
        return None
    old, new = args[0], args[1]
    hits = _count(recv, old) if old else len(recv) + 1
    if hits is None:
        return None
    if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
        hits = min(hits, args[2])
    return len(recv) + hits * max(len(new) - len(old), 0)


def _join_size(sep: str | bytes, args: list[Any]) -> int | None:
    if len(args) != 1:
        return None
    parts = args[0]
    if isinstance(parts, str | bytes):
        return len(parts) * (len(sep) + 1)
    if not isinstance(parts, list | tuple):
        return None
    return sum(weight(p) for p in parts) + len(sep) * len(parts)
