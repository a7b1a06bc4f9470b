"""Configuration files whose every line a local reader knows (for ``coverage``): an SSH
server's configuration that only sets security switches to their safe values, and a plain
``logrotate`` policy. Their text is read whole by ``paths_hardening``; what it does not
recognise (a weakening setting, a rotation script that runs a program) stays unread, so it
still needs a person when no LLM reviews it."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from .tools.paths_hardening import hardens, plain_rotation

__all__ = ["plain_config"]

_MAX_LINES = 200


def _kind(path: str) -> str | None:
    low = path.replace("\\", "/").lower()
    name = posixpath.basename(low)
    if name.startswith("sshd_config") or "/sshd_config.d/" in low:
        return "sshd"
    if "/logrotate.d/" in low or "/logrotate/" in low or name == "logrotate.conf":
        return "logrotate"
    return None


def plain_config(path: str, added: Sequence[str], removed: Sequence[str]) -> bool:
    """Whether the lines ``added`` and ``removed`` of the file ``path`` are an SSH server
    setting made safer or a plain log rotation policy: read in full, nothing in it to judge."""
    kind = _kind(path)
    if kind is None or not added or len(added) > _MAX_LINES or len(removed) > _MAX_LINES:
        return False
    new = [line.strip() for line in added]
    if kind == "sshd":
        return hardens(new, [line.strip() for line in removed])
    return plain_rotation("\n".join(new))
