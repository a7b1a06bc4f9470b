"""More ``sudo`` commands that only look (for ``shell_sudo.only_reads``): a firewall's rules
listed (``iptables -L``, ``nft list ruleset``), a bounded packet capture kept on this machine
(``tcpdump -c 500 -w /tmp/x.pcap``), and a log rotation forced by its own configuration
(``logrotate -f /etc/logrotate.d/app``). A ``timeout N`` in front is looked through."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["inspects", "past_timeout"]

_LISTS = frozenset({"-L", "-S", "--list", "--list-rules"})
_TABLE_CHANGES = re.compile(
    r"^-(?:[AIDRFXPNZE]|-(?:append|insert|delete|replace|flush|delete-chain|policy|new-chain|"
    r"zero|rename-chain))"
)
_FIREWALLS = frozenset({"iptables", "ip6tables", "iptables-legacy", "iptables-nft"})
_CAPTURE_LOCAL = re.compile(r"^(?:/tmp/|/var/tmp/|~/|/home/[^/]+/)[\w./@+-]{1,200}$")
_TCPDUMP_VALUED = frozenset({"-i", "-c", "-w", "-s", "-C", "-G", "-W", "-F", "-E", "-y", "-B"})


def past_timeout(inner: Sequence[str]) -> list[str]:
    """``inner`` past a ``timeout [-s SIG] N`` wrapper (``timeout 60 tcpdump …``: ``tcpdump …``)."""
    if not inner or inner[0].rsplit("/", 1)[-1] != "timeout":
        return list(inner)
    i = 1
    while i < len(inner) and inner[i].startswith("-"):
        i += 2 if inner[i] in ("-s", "-k", "--signal", "--kill-after") else 1
    return list(inner[i + 1 :]) if i < len(inner) else []


def _tcpdump_bounded(rest: Sequence[str]) -> bool:
    """A capture that stops by itself (``-c N``) and writes, if anywhere, to a local scratch
    or home file; no ``-z`` (a program run on each file) and no rotation by size or time."""
    counted = False
    i = 0
    while i < len(rest):
        word = rest[i]
        if word in ("-z", "-Z") or word.startswith(("-z", "--relinquish")):
            return False
        if word in _TCPDUMP_VALUED:
            value = rest[i + 1] if i + 1 < len(rest) else ""
            if word == "-c":
                counted = value.isdigit() and 0 < int(value[:9]) <= 1_000_000
            elif (word == "-w" and not _CAPTURE_LOCAL.match(value)) or word in ("-C", "-G"):
                return False
            i += 2
            continue
        i += 1
    return counted


def inspects(program: str, rest: Sequence[str]) -> bool:
    """Whether ``program rest…`` run as root only lists, captures a bounded sample locally or
    forces a configured log rotation."""
    if program in _FIREWALLS:
        return any(w in _LISTS or re.match(r"^-[a-zA-Z]*[LS]", w) for w in rest) and not any(
            _TABLE_CHANGES.match(w) for w in rest
        )
    if program == "nft":
        words = [w for w in rest if not w.startswith("-")]
        return bool(words) and words[0] == "list"
    if program == "tcpdump":
        return _tcpdump_bounded(rest)
    if program == "logrotate":
        files = [w for w in rest if not w.startswith("-")]
        flags = [w for w in rest if w.startswith("-")]
        return (
            bool(files)
            and all(re.match(r"^/etc/logrotate\.(?:conf|d/[\w.@-]{1,80})$", f) for f in files)
            and all(f in ("-f", "--force", "-d", "--debug", "-v", "--verbose") for f in flags)
        )
    return False
