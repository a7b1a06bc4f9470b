"""Literal text that commands pass on: what ``echo``/``printf``/``cat <<EOF`` feed to the
next command or write to a file, and the strings inside JSON written that way."""

from __future__ import annotations

import json
import re

from .shell_lex import ansi_c
from .shell_model import Cmd

__all__ = ["echoed", "json_strings", "record_write"]


def json_strings(content: str) -> list[str] | None:
    """The string values of JSON content (``package.json`` scripts), or None if not JSON."""
    stripped = content.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        return None
    out: list[str] = []
    todo = [data]
    while todo and len(out) < 64:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return out


def echoed(cmd: Cmd) -> str | None:
    if cmd.name == "echo":
        words = cmd.argv[1:]
        escapes = any(re.match(r"^-[nE]*e[neE]*$", w) for w in words[:2])
        text = " ".join(w for w in words if not re.match(r"^-[neE]+$", w))
        return ansi_c(text) if escapes else text
    if cmd.name == "printf" and len(cmd.argv) > 1:
        return cmd.argv[1].replace("\\n", "\n").replace("\\t", "\t")
    return cmd.stdin if cmd.name == "cat" and len(cmd.argv) == 1 else None


def record_write(cmd: Cmd, writes: dict[str, str]) -> None:
    content = echoed(cmd) if cmd.name in ("echo", "printf", "cat") else None
    targets = [
        r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.fd in (None, 1)
    ]
    if cmd.name == "tee" and cmd.stdin is not None:
        content, targets = cmd.stdin, [w for w in cmd.argv[1:] if not w.startswith("-")]
    if content is None:
        return
    for target in targets:
        if len(writes) < 64:
            writes[target] = (writes.get(target, "") + "\n" + content)[-65_536:]
