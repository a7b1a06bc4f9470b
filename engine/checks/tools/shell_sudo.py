"""``sudo`` that needs no review of its own: a command that only shows the machine's state
(``systemctl status``, ``journalctl``, ``du``, ``ls``, a log under ``/var/log`` read), and one
named service restarted or reloaded on a staging, dev or test host reached remotely (an
``ssh_exec`` tool's host, or ``ssh HOST '…'``). What the command itself does is judged by the
other rules all the same."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .shell_model import Cmd
from .shell_rule_kit import Context
from .shell_sudo_reads import inspects, past_timeout

__all__ = [
    "LOGGING",
    "PRODUCTION",
    "SECURITY",
    "only_reads",
    "remote_host",
    "staging_restart",
    "sudo_inner",
]

LOGGING = r"auditd|rsyslog|syslog|syslog-ng|systemd-journald|journald|auditbeat|filebeat"
SECURITY = (
    r"firewalld|ufw|apparmor|iptables|ip6tables|nftables|netfilter-persistent|fail2ban|"
    r"clamav-daemon|clamd|crowdsec|falco|osqueryd|wazuh-agent|sshguard|selinux|"
    r"sentinelone|falcon-sensor|csagent|mdatp|ossec"
)

_SUDO_VALUED = frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U"})
_READS_STATE: dict[str, frozenset[str] | None] = {
    "systemctl": frozenset(
        {"status", "is-active", "is-enabled", "is-failed", "list-units", "list-unit-files",
         "list-timers", "list-sockets", "show", "cat"}
    ),
    "docker": frozenset({"ps", "logs", "inspect", "images", "stats", "top", "version", "info"}),
    "podman": frozenset({"ps", "logs", "inspect", "images", "stats", "top", "version", "info"}),
    "crictl": frozenset({"ps", "logs", "inspect", "images", "stats", "pods", "version", "info"}),
    "ufw": frozenset({"status", "show"}),
    "journalctl": None,
    "ss": None,
    "netstat": None,
    "lsof": None,
    "ps": None,
    "df": None,
    "free": None,
    "lsblk": None,
    "uptime": None,
    "du": None,
    "ls": None,
    "stat": None,
    "findmnt": None,
    "lscpu": None,
    "lsmod": None,
    "lspci": None,
    "lsusb": None,
    "vmstat": None,
    "iostat": None,
    "uname": None,
    "id": None,
    "who": None,
    "w": None,
    "last": None,
    "getfacl": None,
    "dmesg": None,
}  # fmt: skip
"""Programs (with the subcommands) that only show the machine's state: run as root to see
everything, they change nothing."""
_CHANGES_JOURNAL = re.compile(r"^--(?:vacuum|rotate|flush|sync|relinquish|setup-keys|update)")
_LOG_READERS = frozenset({"cat", "tail", "head", "zcat", "grep", "zgrep", "wc"})


def sudo_inner(argv: Sequence[str]) -> list[str]:
    """The command ``sudo …`` runs: ``argv`` past ``sudo`` and its own options."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in _SUDO_VALUED else 1
    return list(argv[i:])


def only_reads(argv: list[str]) -> bool:
    """Whether ``sudo …`` only shows state: ``systemctl status``, ``journalctl -u x``,
    ``docker logs``, ``ss -tlnp``, or a log under ``/var/log`` read."""
    inner = past_timeout(sudo_inner(argv))
    if not inner:
        return False
    program, rest = inner[0].rsplit("/", 1)[-1], inner[1:]
    if inspects(program, rest):
        return True
    if program in _READS_STATE:
        subcommands = _READS_STATE[program]
        words = [a for a in rest if not a.startswith("-")]
        if subcommands is not None:
            return bool(words) and words[0] in subcommands
        if program == "journalctl":
            return not any(_CHANGES_JOURNAL.match(a) for a in rest)
        if program == "dmesg":
            return not any(re.match(r"^(?:-[a-zA-Z]*[cCDE]|--(?:clear|console))", a) for a in rest)
        return True
    if program in _LOG_READERS:
        paths = [a for a in rest if not a.startswith("-") and not a.isdigit()][
            1 if program in ("grep", "zgrep") else 0 :
        ]
        return bool(paths) and all(p.startswith("/var/log/") and ".." not in p for p in paths)
    return False


_STAGING = re.compile(
    r"(?i)(?:^|[.\-_])(?:stg|staging|stage|dev|test|qa|uat|sandbox)(?:[.\-_\d]|$)"
)
PRODUCTION = re.compile(r"(?i)(?:^|[^a-z])(?:prod|production|prd|live)(?:[^a-z]|$)")
"""A host name that says production."""
_SERVICE_VERBS = frozenset({"restart", "reload", "start", "try-restart", "reload-or-restart"})
_DEFENCES = re.compile(rf"^(?:{LOGGING}|{SECURITY})(?:\.service)?$")


def remote_host(cmd: Cmd, ctx: Context) -> str | None:
    """The host a command runs on when it is not this machine: the tool's ``host`` or the
    ``ssh HOST`` it was given to."""
    for label in reversed(cmd.via):
        if label.startswith("ssh ") and label != "ssh localhost":
            return label[4:]
    return ctx.host


def staging_restart(cmd: Cmd, ctx: Context) -> bool:
    """``sudo systemctl restart one-service`` (or ``service one-service restart``) on a
    staging, dev or test host reached remotely: routine operations. Audit, logging and
    security services are not routine to stop or restart."""
    host = remote_host(cmd, ctx)
    if host is None or not _STAGING.search(host) or PRODUCTION.search(host):
        return False
    inner = [w for w in sudo_inner(cmd.argv) if not w.startswith("-")]
    if len(inner) != 3:
        return False
    program = inner[0].rsplit("/", 1)[-1]
    if program == "systemctl" and inner[1] in _SERVICE_VERBS:
        unit = inner[2]
    elif program == "service" and inner[2] in _SERVICE_VERBS:
        unit = inner[1]
    else:
        return False
    return not _DEFENCES.match(unit) and re.fullmatch(r"[\w.@-]+", unit) is not None
