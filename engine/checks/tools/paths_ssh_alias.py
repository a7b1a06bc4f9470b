"""An SSH client configuration written with nothing but host aliases (for ``paths``).

``~/.ssh/config`` is a protected path because some of its keywords run programs
(``ProxyCommand``, ``LocalCommand``, ``KnownHostsCommand``, ``Match exec``), open tunnels
(``LocalForward``, ``DynamicForward``), turn a safeguard off (``StrictHostKeyChecking no``,
``UserKnownHostsFile /dev/null``), lend the agent's keys (``ForwardAgent yes``) or pull in
another file (``Include``). A ``Host`` block that only names where and as whom to connect
(``HostName``, ``User``, ``Port``, ``IdentityFile``, ``ProxyJump``, keep-alives) is the everyday
alias a person adds for a bastion or a build box: its text is read, and when every line is such
a setting the path's verdict is quieted. Pure, at most ``_MAX`` characters.
"""

from __future__ import annotations

import re

from .edit_formats import NEW_KEYS, OLD_KEYS
from .view import ToolView

__all__ = ["SSH_CLIENT_CONFIG", "alias_only", "quiet_ssh_alias"]

SSH_CLIENT_CONFIG = "the SSH client configuration"
"""The catalogue's name for the path (``Verdict.title`` ends with it)."""
_CONTENT = ("content", "contents", "file_text", "text", "data")
_MAX = 8_000
_SAFE = frozenset(
    {
        "host", "hostname", "user", "port", "identityfile", "identitiesonly", "proxyjump",
        "serveraliveinterval", "serveralivecountmax", "connecttimeout", "compression",
        "addkeystoagent", "usekeychain", "preferredauthentications", "pubkeyauthentication",
        "loglevel", "certificatefile", "hashknownhosts", "controlmaster", "controlpersist",
        "addressfamily", "tcpkeepalive", "connectionattempts",
    }
)  # fmt: skip
"""Settings that only say where, as whom and how long to connect."""
_OFF_ONLY = frozenset({"forwardagent", "forwardx11", "forwardx11trusted"})
"""Settings that are everyday only when they say ``no``."""
_LINE = re.compile(r"([A-Za-z]{1,40})(?:\s*=\s*|\s+)([^\s=].{0,300})")
_VALUE = re.compile(r"[\w.@%:,~/*?\[\]+ -]{1,300}")
"""An alias value: names, hosts, ports, paths; no quotes, backquotes, ``$`` or ``;``."""


def alias_only(text: str) -> bool:
    """Whether an SSH client configuration text holds only host aliases (and comments)."""
    if len(text) > _MAX:
        return False
    settings = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            return False
        key, value = m.group(1).lower(), m.group(2).strip()
        if not _VALUE.fullmatch(value):
            return False
        if key in _OFF_ONLY:
            if value.lower() != "no":
                return False
        elif key not in _SAFE:
            return False
        settings += 1
    return settings > 0


def quiet_ssh_alias(view: ToolView) -> bool:
    """Whether the call writes or edits ``~/.ssh/config`` with nothing but host aliases (an
    edit keeping every line it replaces)."""
    where = view.text("file_path", "path", "filename", "file", "target_file")
    if where is None or not where[1].replace("\\", "/").endswith(".ssh/config"):
        return False
    got = view.text(*_CONTENT, *NEW_KEYS)
    if got is None or not alias_only(got[1]):
        return False
    old = view.text(*OLD_KEYS)
    if old is None:
        return True
    kept = {line.strip() for line in got[1].splitlines()}
    return len(old[1]) <= _MAX and all(
        line.strip() in kept for line in old[1].splitlines() if line.strip()
    )  # an edit that only adds: no line it replaces is lost
