"""Globs in file tool paths: the instances a rule can match (``~/.ssh/id_*`` →
``~/.ssh/id_x`` and ``~/.ssh/id_``; ``{src,/etc}/*`` → each brace alternative) and the folder
whose whole content a glob names (``./*`` → ``.``, ``/*`` → ``/``). Bounded: at most
``MAX_GLOBS`` brace alternatives."""

from __future__ import annotations

import re

__all__ = ["MAX_GLOBS", "glob_root", "instances"]

MAX_GLOBS = 16
_GLOB = re.compile(r"[*?\[{]")
_ALL_WILD = re.compile(r"^[*?.]*[*?][*?.]*$")
_BRACES = re.compile(r"\{([^{}]*)\}")
_WILD = re.compile(r"\[[^\]/]*\]|[*?]")


def instances(text: str) -> list[str]:
    """``text`` and, when it is a glob, an instance of each of its brace alternatives."""
    if _GLOB.search(text) is None:
        return [text]
    variants = [text]
    for _ in range(4):
        grown: list[str] = []
        for v in variants:
            m = _BRACES.search(v)
            if m is None:
                grown.append(v)
                continue
            grown.extend(v[: m.start()] + alt + v[m.end() :] for alt in m.group(1).split(","))
        variants = grown[:MAX_GLOBS]
    out = [text]
    for v in variants:
        parts = [p for p in v.replace("\\", "/").split("/") if p != "**"]
        for fill in ("x", ""):
            inst = "/".join((_WILD.sub(fill, p) or "x") if p else p for p in parts)
            if inst not in out:
                out.append(inst)
    return out


def glob_root(text: str) -> str | None:
    """The folder whose whole content a glob names (``./*`` → ``.``), if it does."""
    parts = text.replace("\\", "/").split("/")
    if not _ALL_WILD.match(parts[-1] or (parts[-2] if len(parts) > 1 else "")):
        return None
    while parts and (_ALL_WILD.match(parts[-1]) or (len(parts) > 1 and not parts[-1])):
        parts.pop()
    if parts == [""]:
        return "/"
    return "/".join(parts) if parts else "."
