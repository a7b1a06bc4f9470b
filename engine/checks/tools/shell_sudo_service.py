"""``sudo`` work of routine operations that needs no review of its own (for
``shell_rules_host.privilege``); what the command does is judged by the other rules all the
same.

- one named service restarted or reloaded: ``sudo systemctl restart app-worker``,
  ``sudo systemctl reload nginx``, ``sudo service php-fpm reload`` — not several at once, not a
  glob or a variable (a loop over every unit), never ``stop``/``disable``/``mask``, never a
  logging, security or network service (restarting those drops records, defences or the way
  in), and a server shared by the whole host (web server, database, container runtime, SSH)
  only reloaded: its restart drops everything it serves;
- a running server told to reload by signal: ``sudo kill -HUP <pid>`` or
  ``sudo kill -HUP $(cat /run/app.pid)`` (HUP and USR1/USR2 reopen logs or re-read
  configuration; they end nothing);
- a server's configuration only checked: ``sudo nginx -t``, ``sudo apachectl configtest``,
  ``sudo sshd -t``;
- (none of these on a remote host named for production: a person confirms there);
- one or a few named files' permissions tightened: ``sudo chmod 600 FILE`` (no rights for
  others, none to write for the group, no set-uid), ``sudo chmod go-rwx FILE``, and
  ``sudo chown app:app FILE`` of a file in an application's own place (not a system, account,
  sudo, SSH or start-up file, not a binary), never recursive.

A pure function of the command's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .shell_sudo import LOGGING, PRODUCTION, SECURITY, sudo_inner

__all__ = ["routine_sudo"]

_VERBS = frozenset(
    {"restart", "reload", "try-restart", "reload-or-restart", "try-reload-or-restart"}
)
_UNIT = re.compile(r"^[A-Za-z0-9][\w.@:-]{0,120}$")
_NETWORK = (
    r"networking|network|NetworkManager|systemd-networkd|systemd-resolved|wpa_supplicant|dbus"
)
_KEPT = re.compile(rf"^(?:{LOGGING}|{SECURITY}|{_NETWORK}|systemd-[\w-]+)(?:\.service)?$")
_SHARED = re.compile(
    r"^(?:nginx|apache2|httpd|haproxy|caddy|traefik|envoy|varnish|postgresql|postgres|mysql|"
    r"mysqld|mariadb|mongod|mongodb|redis|redis-server|memcached|elasticsearch|opensearch|"
    r"rabbitmq-server|kafka|zookeeper|etcd|docker|containerd|crio|kubelet|k3s|libvirtd|sshd|"
    r"ssh|cron|crond|named|bind9|unbound|dnsmasq|postfix|sendmail|exim4|dovecot|nfs-server|"
    r"smbd)(?:@[\w.-]+)?(?:\.service)?$"
)
"""Servers shared by everything on the host: restarting one drops every site, database
session or container it serves, so only their graceful ``reload`` is routine."""
_QUIET = frozenset({"--no-pager", "-q", "--quiet", "--no-block", "--no-ask-password"})
_SIGNALS = frozenset({"-HUP", "-1", "-SIGHUP", "-USR1", "-SIGUSR1", "-USR2", "-SIGUSR2"})
_PID = re.compile(r"^(?:[1-9]\d{1,6}|\$\(cat /(?:var/)?run/[\w.@/-]{1,120}\.pid\))$")
_CHECKS: dict[str, frozenset[str]] = {
    "nginx": frozenset({"-t", "-T", "-tq"}),
    "apachectl": frozenset({"configtest", "-t"}),
    "apache2ctl": frozenset({"configtest", "-t"}),
    "httpd": frozenset({"-t"}),
    "sshd": frozenset({"-t", "-T"}),
    "haproxy": frozenset({"-c"}),
}
_TIGHT_MODE = re.compile(r"^0?[0-7][0145]0$")
_TIGHT_SYMBOLIC = re.compile(r"^[ugoa]{0,4}-[rwx]{1,3}$")
_SYSTEM = re.compile(
    r"^/(?:bin|sbin|lib\w*|usr|boot|root|dev|proc|sys)(?:/|$)|^/etc/(?:passwd|shadow|group|"
    r"gshadow|sudoers|ssh|pam\.d|cron|systemd|init|rc\d?\.d|security|profile|ld\.so|"
    r"polkit|apt|yum)|/\.ssh(?:/|$)|authorized_keys"
)


def _service(program: str, rest: list[str]) -> bool:
    words = [w for w in rest if w not in _QUIET]
    if any(w.startswith("-") for w in words) or len(words) != 2:
        return False
    if program == "systemctl" and words[0] in _VERBS:
        verb, unit = words
    elif program == "service" and words[1] in _VERBS:
        unit, verb = words
    else:
        return False
    if not _UNIT.match(unit) or _KEPT.match(unit):
        return False
    return verb == "reload" or not _SHARED.match(unit)


def _signal(rest: list[str]) -> bool:
    if rest[:2] == ["-s", "HUP"] or rest[:2] == ["-s", "USR1"]:
        rest = rest[2:]
    elif rest and rest[0] in _SIGNALS:
        rest = rest[1:]
    else:
        return False
    return len(rest) == 1 and bool(_PID.match(rest[0]))


def _files(operands: list[str]) -> bool:
    return 1 <= len(operands) <= 4 and all(
        p.startswith("/")
        and ".." not in p
        and not re.search(r"[*?$`]", p)
        and not _SYSTEM.search(p)
        for p in operands
    )


def _tightens(program: str, rest: list[str]) -> bool:
    if any(w.startswith("-") for w in rest) or len(rest) < 2:
        return False  # -R and the like: not one file
    if program == "chmod":
        mode = rest[0]
        return bool(_TIGHT_MODE.match(mode) or _TIGHT_SYMBOLIC.match(mode)) and _files(rest[1:])
    owner = rest[0]
    if not re.fullmatch(r"[a-z_][\w-]{0,31}(?::[a-z_][\w-]{0,31})?", owner):
        return False
    user = owner.split(":", 1)[0]
    return _files(rest[1:]) and all(_owned_by_its_folder(p, user) for p in rest[1:])


_RUNS = re.compile(r"/s?bin/|\.(?:sh|bash|py|pl|rb|so|service|timer|socket)$|/\.?(?:bash|profile)")


def _owned_by_its_folder(path: str, user: str) -> bool:
    """A file handed to a user stays routine when it is no program or start-up file (whoever
    owns one can change what runs, perhaps as root), and, under ``/etc``, when it is the
    configuration of the user's own application (``/etc/billing/app.env`` to ``billing``)."""
    if _RUNS.search(path):
        return False
    return not path.startswith("/etc/") or user in path.split("/")[2:-1]


def routine_sudo(argv: Sequence[str], host: str | None = None) -> bool:
    """Whether ``sudo …`` is routine operations work that needs no review of its own (a named
    service restarted or reloaded, a reload signal, a configuration test, one file's
    permissions tightened; see the module). ``host`` is the machine it runs on when that is
    not this one: on a host named for production a person still confirms."""
    if host is not None and PRODUCTION.search(host):
        return False
    inner = sudo_inner(argv)[:40]
    if not inner or len(argv) > 40:
        return False
    program, rest = inner[0].rsplit("/", 1)[-1], inner[1:]
    if program in ("systemctl", "service"):
        return _service(program, rest)
    if program == "kill":
        return _signal(rest)
    if program in _CHECKS:
        return len(rest) >= 1 and all(w in _CHECKS[program] for w in rest)
    if program in ("chmod", "chown"):
        return _tightens(program, rest)
    return False
