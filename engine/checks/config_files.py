"""Configuration files that make a host run or serve something, read with no LLM: systemd
units, crontabs, web-server configurations (nginx, Apache, Caddy) and Terraform.

Public API (pure: no I/O, never raises):

- ``config_kind(path) -> str | None``: the kind of configuration this module reads for a path
  (``systemd``, ``cron``, ``nginx``, ``apache``, ``caddy``, ``terraform``), or None. A file of
  a kind is read fully by ``config_file``: coverage counts it as read.
- ``config_file(file, path, *, allowed_hosts=frozenset(), change=()) -> list[Hit]``: the
  findings of one file of a change (none when its kind is None, or nothing is wrong).
  ``allowed_hosts`` are the hosts data may go to (``CheckOptions.allowed_hosts``); ``change``
  is every file of the action (a Terraform resource removed from one file and added to
  another is moved, not destroyed). At most one hit per line (the most severe, the others
  named in its description) and ``MAX_HITS`` per file.

What each kind is read for: ``config_hosts`` (systemd units, crontabs: their commands judged
by the shell rules), ``config_web`` (what a web server exposes) and ``config_terraform`` (what
infrastructure code destroys or opens, beyond ``change_risks``). Only what the change adds is
judged; the unchanged lines around it give it its place (the block it is in). A file too
large to read whole (over ``MAX_TEXT`` characters) is a finding of its own.

The kinds, by path, are ``config_kinds``'. The commands of units and crontabs
(``HOST_JOB_KINDS``) are judged here only: the shell checks' reading of configuration values
(``tools.shell_files``) leaves those files to this module, so a command is reported once.
"""

from __future__ import annotations

from collections.abc import Sequence

from humangr.contracts import Severity

from .base import Hit
from .config_hosts import cron_hits, systemd_hits
from .config_kinds import CONFIG_KINDS, config_kind
from .config_terraform import terraform_hits
from .config_text import MAX_TEXT, ConfigText
from .config_web import web_hits
from .diff import FileDiff

__all__ = ["CONFIG_KINDS", "MAX_HITS", "config_file", "config_kind"]

_MAX_ELSEWHERE = 200_000
MAX_HITS = 50
"""Hits of one file at most (the most severe are kept)."""


def config_file(
    file: FileDiff,
    path: str | None = None,
    *,
    allowed_hosts: frozenset[str] = frozenset(),
    change: Sequence[FileDiff] = (),
) -> list[Hit]:
    """The findings of one configuration file of a change (see the module's docstring)."""
    path = path if path is not None else file.path or ""
    kind = config_kind(path)
    if kind is None or file.binary:
        return []
    try:
        hits = _read(file, path, kind, allowed_hosts, change)
    except Exception as exc:  # a reader's bug must not pass the file as reviewed
        hits = [
            Hit(
                Severity.HIGH,
                "could not read this configuration file",
                f"The {kind} reader failed ({type(exc).__name__}): the file was not checked.",
                "Have a human review it.",
                file=path,
            )
        ]
    return _merged(hits)


def _read(
    file: FileDiff,
    path: str,
    kind: str,
    allowed_hosts: frozenset[str],
    change: Sequence[FileDiff],
) -> list[Hit]:
    t = ConfigText(file)
    unchanged = file.deleted or not any(t.added_lines)
    if unchanged and (kind != "terraform" or not file.removed):
        return []
    hits: list[Hit] = []
    if not t.complete:
        hits.append(
            Hit(
                Severity.HIGH,
                "configuration file too large to read whole",
                f"Only its first {MAX_TEXT:,} characters were read; the rest was not checked.",
                "Split the file, or have a human review it.",
                file=path,
                line=t.numbers[-1] if t.numbers else None,
            )
        )
    if kind == "systemd":
        whole = bool(t.numbers) and t.numbers[0] == 1 and all(t.added_lines)
        user_unit = "/systemd/user/" in "/" + path.replace("\\", "/").lower()
        hits.extend(
            systemd_hits(t, path, whole=whole, user_unit=user_unit, allowed_hosts=allowed_hosts)
        )
    elif kind == "cron":
        hits.extend(cron_hits(t, path, allowed_hosts=allowed_hosts))
    elif kind == "terraform":
        hits.extend(
            terraform_hits(
                t,
                path,
                removed=file.removed,
                elsewhere=_elsewhere(file, change),
                allowed_hosts=allowed_hosts,
            )
        )
    else:
        hits.extend(web_hits(t, path, kind=kind, allowed_hosts=allowed_hosts))
    return hits


def _elsewhere(file: FileDiff, change: Sequence[FileDiff]) -> str:
    """The lines the change adds to its other files (bounded)."""
    parts: list[str] = []
    total = 0
    for other in change:
        if other is file or other.path == file.path:
            continue
        for line in other.added[:5_000]:
            total += len(line.text) + 1
            if total > _MAX_ELSEWHERE:
                return "\n".join(parts)
            parts.append(line.text)
    return "\n".join(parts)


def _merged(hits: list[Hit]) -> list[Hit]:
    """One hit per line: the most severe, the titles of the others added to its description."""
    by_line: dict[int | None, list[Hit]] = {}
    for hit in hits:
        by_line.setdefault(hit.line, []).append(hit)
    out: list[Hit] = []
    for group in by_line.values():
        group.sort(key=lambda h: h.severity, reverse=True)
        top, rest = group[0], group[1:8]
        if rest:
            also = "; ".join(f"{h.title} ({h.severity.value})" for h in rest)
            top = Hit(
                top.severity,
                top.title,
                f"{top.description} Also: {also}.",
                top.suggestion,
                file=top.file,
                line=top.line,
            )
        out.append(top)
    kept = sorted(out, key=lambda h: h.severity, reverse=True)[:MAX_HITS]
    return sorted(kept, key=lambda h: h.line or 0)
