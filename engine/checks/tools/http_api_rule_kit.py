"""The parts the known-API rules are built from: the ``Rule`` record, its constructor
(``rule``), the path pieces they share (``ID``, ``DEFAULT_BRANCH``, ``GITHUB``) and the small
body tests the rules use (``flag``, ``privileged``, ``recipients``, ``to_list``, ``host_pod``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from humangr.contracts import Severity

from .egress_mail import ADDRESS, DISTRIBUTION

__all__ = [
    "DEFAULT_BRANCH",
    "GITHUB",
    "ID",
    "C",
    "H",
    "Rule",
    "flag",
    "host_pod",
    "privileged",
    "recipients",
    "rule",
    "to_list",
]

C, H = Severity.CRITICAL, Severity.HIGH
DEFAULT_BRANCH = r"(?:main|master|trunk|develop|development|production|prod|release|stable|live)"
ID = r"[^/]+"
GITHUB = ("api.github.com",)


@dataclass(frozen=True, slots=True)
class Rule:
    """A destructive call: its hosts (``None``: any), methods, path, and body test."""

    hosts: tuple[str, ...] | None
    methods: frozenset[str]
    path: re.Pattern[str]
    severity: Severity
    title: str
    body: Callable[[Any], bool] | None = None


def rule(
    hosts: tuple[str, ...] | None,
    methods: str,
    path: str,
    sev: Severity,
    title: str,
    body: Callable[[Any], bool] | None = None,
) -> Rule:
    """A ``Rule`` from space-separated ``methods`` and a case-blind ``path`` pattern."""
    return Rule(hosts, frozenset(methods.split()), re.compile(path, re.I), sev, title, body)


def flag(key: str, *values: Any) -> Callable[[Any], bool]:
    """A body test: the body is an object whose ``key`` holds one of ``values``."""

    def test(body: Any) -> bool:
        return isinstance(body, dict) and body.get(key) in values

    return test


def privileged(body: Any) -> bool:
    """A Docker create body that takes the host: privileged, the host's process space, or a
    bind of ``/``, ``/etc``, ``/root`` or the docker socket."""
    if not isinstance(body, dict):
        return False
    host = body.get("HostConfig") if isinstance(body.get("HostConfig"), dict) else body
    if not isinstance(host, dict):
        return False
    raw = host.get("Binds")
    binds: list[Any] = raw if isinstance(raw, list) else []
    return bool(
        host.get("Privileged") is True
        or host.get("PidMode") == "host"
        or any(
            isinstance(b, str)
            and b.split(":", 1)[0] in ("/", "/etc", "/root", "/var/run/docker.sock")
            for b in binds
        )
    )


_RECIPIENT_KEYS = frozenset({"to", "cc", "bcc", "personalizations", "recipients", "emails"})


def recipients(body: Any, depth: int = 0) -> int:
    """How many recipients a mail API's body names (bounded walk)."""
    if depth > 6:
        return 0
    if isinstance(body, dict):
        total = 0
        for key, value in list(body.items())[:200]:
            if key in _RECIPIENT_KEYS and isinstance(value, list):
                total += max(
                    len(value[:10_000]), sum(recipients(v, depth + 1) for v in value[:200])
                )
            elif key == "email" and isinstance(value, str):
                total += 1
            else:
                total += recipients(value, depth + 1)
        return total
    if isinstance(body, list):
        return sum(recipients(v, depth + 1) for v in body[:200])
    return 0


def to_list(body: Any) -> bool:
    """Whether a mail API's body sends to a customers' list (``customers@``, ``lists.``)."""
    text = json.dumps(body)[:65_536] if isinstance(body, dict | list) else ""
    return any(DISTRIBUTION.search(a.lower()) for a in ADDRESS.findall(text)[:500])


def host_pod(body: Any) -> bool:
    """A pod spec that takes the host: privileged, its process or network space, or a
    ``hostPath`` of ``/`` or the docker socket."""
    text = json.dumps(body)[:65_536] if isinstance(body, dict | list | str) else ""
    return bool(
        re.search(r'"(?:privileged|hostPID|hostNetwork|hostIPC)"\s*:\s*true', text)
        or re.search(r'"hostPath"\s*:\s*\{[^}]*"path"\s*:\s*"/(?:var/run/docker\.sock)?"', text)
    )
