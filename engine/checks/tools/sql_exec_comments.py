"""MySQL's and MariaDB's executable comments opened: ``/*! DROP TABLE t */``,
``/*!50000DROP*/ TABLE t`` and ``/*M! … */`` are not comments to those servers — they run
what they hold (from the version named, if any). Every other server treats them as comments, so
an agent may hide a statement in one; the review reads it as the MySQL server would.

The text keeps its length (the markers become blanks), so token offsets stay true."""

from __future__ import annotations

__all__ = ["opened"]

_MAX_MARKERS = 4_096


def _opener_end(text: str, at: int) -> int:
    """Where the content of the executable comment opening at ``at`` starts."""
    k = at + 3 if text.startswith("/*!", at) else at + 4  # ``/*!`` or ``/*M!``
    digits = 0
    while k < len(text) and digits < 6 and text[k].isdigit():
        k, digits = k + 1, digits + 1
    return k


def opened(text: str) -> str:
    """``text`` with each executable comment's markers (``/*!``, ``/*!50000``, ``/*M!``, and
    the ``*/`` that closes it) made blanks, quotes and ordinary comments left alone. Linear."""
    if "/*!" not in text and "/*M!" not in text:
        return text
    out = list(text)
    n, k, quote, inside, markers = len(text), 0, "", False, 0
    while k < n and markers < _MAX_MARKERS:
        c = text[k]
        if quote:
            if c == quote:
                quote = "" if text[k + 1 : k + 2] != quote else quote
                k += 2 if text[k + 1 : k + 2] == quote else 1
                continue
            k += 2 if c == "\\" else 1
            continue
        if c in "'\"`":
            quote, k = c, k + 1
        elif text.startswith("/*!", k) or text.startswith("/*M!", k):
            end = _opener_end(text, k)
            out[k:end] = " " * (end - k)
            inside, k, markers = True, end, markers + 1
        elif text.startswith("/*", k):
            close = text.find("*/", k + 2)
            k = n if close == -1 else close + 2
        elif inside and text.startswith("*/", k):
            out[k : k + 2] = "  "
            inside, k = False, k + 2
        elif text.startswith("--", k) or c == "#":
            close = text.find("\n", k)
            k = n if close == -1 else close + 1
        else:
            k += 1
    return "".join(out)
