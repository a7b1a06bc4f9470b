"""What an Ansible playbook or role's tasks do to the hosts they manage, read by
``deploy_files``: the commands of ``shell``, ``command``, ``raw`` and ``script`` (a string, a
block scalar, ``cmd:`` or ``argv:``; ``ansible.builtin.shell`` too), and the modules that
switch a protection off:

- ``validate_certs: no`` on a download, a package or a request (high); packages installed
  without their signatures checked (high);
- SELinux disabled or permissive (high);
- the firewall turned off (a firewall service stopped or disabled, ``ufw`` disabled or its
  incoming policy allow, ``iptables`` flushed or its policy ``ACCEPT``, a ``firewalld`` zone
  that accepts everything) or ``auditd`` / AppArmor / fail2ban stopped (high);
- a key added to root's ``authorized_keys`` (high);
- ``sshd_config`` set to let root, passwords or empty passwords sign in (high);
- a user put in an admin or root-equivalent group (high: a medium finding is only a
  warning at the gate);
- a file made writable by anyone (high); a sudoers rule without a password (high: one of
  ``NOPASSWD: ALL`` is ``source_harm``'s already).

A task is any list item whose keys name one of these modules (``community.general.ufw``
as ``ufw``), wherever it sits (plays, ``block:``, handlers, a role's task file). Pure."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from humangr.contracts import Severity

from .ci_yaml import Node, Tree
from .deploy_yaml import (
    Command,
    Finding,
    Window,
    falsy,
    items,
    nodes,
    scalar,
    shell_join,
    truthy,
)
from .tools.shell_catalogue import words

__all__ = ["ansible_commands", "ansible_findings"]

_COMMANDS = frozenset({"shell", "command", "raw", "script"})
_MODULES = _COMMANDS | words(
    """
    get_url uri pip yum dnf apt package apt_key apt_repository rpm_key yum_repository
    unarchive git selinux service systemd systemd_service sysvinit ufw firewalld iptables
    authorized_key lineinfile blockinfile replace copy template file user
    """
)
_FREE_PARAMS = re.compile(
    r"\s+(?:chdir|creates|removes|executable|stdin|warn|stdin_add_newline|strip_empty_ends)="
    r"\S+\s*$"
)
_FIREWALLS = frozenset({"firewalld", "ufw", "iptables", "ip6tables", "nftables"})
_GUARDS = {"auditd": "the audit log", "apparmor": "AppArmor", "fail2ban": "fail2ban"}
_ADMIN_GROUPS = re.compile(r"^(?:sudo|wheel|admin|root|adm)$")
_ROOTISH_GROUPS = re.compile(r"^(?:docker|lxd|disk|libvirt)$")
_SSHD = re.compile(
    r"(?im)^\s*(PermitRootLogin|PasswordAuthentication|PermitEmptyPasswords)\s+yes\b"
)
_SSHD_TITLES = {
    "permitrootlogin": "lets root sign in over SSH",
    "passwordauthentication": "turns on password sign-in over SSH",
    "permitemptypasswords": "lets accounts sign in over SSH with no password",
}
_NOPASSWD = re.compile(r"\bNOPASSWD\s*:")
_NOPASSWD_ALL = re.compile(r"\bNOPASSWD\s*:\s*ALL\b")
_ROOT_KEYS = re.compile(r"^/root/\.ssh/authorized_keys2?$")
_WORLD_SYMBOLIC = re.compile(r"(?:^|,)[ugo]*[oa][ugo]*[+=][rwxXst]*w")

Params = dict[str, tuple[str, int]]


def _tasks(w: Window) -> Iterator[tuple[str, str, Node, Params]]:
    """Each task of the window: its name, its module (short name), the module's node and
    its parameters (text and line)."""
    for node, _ in nodes(w.tree):
        if node.key is not None or not node.children or node.children[0].key is None:
            continue
        for child in node.children:
            module = (child.key or "").rsplit(".", 1)[-1]
            if module in _MODULES and w.touched(node):
                name = node.get("name")
                label = (scalar(w.tree, name) or "") if name is not None else ""
                yield label[:80] or module, module, child, _params(w.tree, node, child)
                break


def _params(tree: Tree, task: Node, module: Node) -> Params:
    out: Params = {}
    value = scalar(tree, module)
    if value is not None and value.strip():
        out["_raw"] = (value, module.line)
        for word in _words(value)[:64]:
            key, eq, v = word.partition("=")
            if eq and re.fullmatch(r"\w{1,40}", key):
                out[key] = (v, module.line)
    extra = task.get("args")
    for holder in (extra, module):
        for child in holder.children if holder is not None else ():
            if child.key is None:
                continue
            listed = items(tree, child)
            if listed is not None:
                out[child.key] = (",".join(listed), child.line)
    return out


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text[:4_000])
    except ValueError:
        return text[:4_000].split()


def ansible_commands(w: Window) -> Iterator[Command]:
    """The commands of the window's ``shell``/``command``/``raw``/``script`` tasks."""
    for name, module, node, params in _tasks(w):
        if module not in _COMMANDS:
            continue
        folder = params.get("chdir", ("", 0))[0] or None
        where = f"Run on the managed hosts by the Ansible task `{name}`"
        last = w.last(node)
        if "argv" in params and node.get("argv") is not None:
            listed = items(w.tree, node.get("argv")) or []
            yield Command(params["argv"][1], last, shell_join(listed), where, True, folder)
        elif "cmd" in params:
            yield Command(params["cmd"][1], last, params["cmd"][0], where, True, folder)
        elif "_raw" in params:
            text = params["_raw"][0]
            for _ in range(8):
                text = _FREE_PARAMS.sub("", text)
            yield Command(node.line, last, text, where, True, folder)


def ansible_findings(w: Window) -> Iterator[Finding]:
    """The protections the window's tasks switch off (see the module's docstring)."""
    for name, module, node, params in _tasks(w):
        p = _Task(f"The Ansible task `{name}`", module, params, node.line)
        yield from _unchecked(p)
        yield from _guards(p)
        yield from _access(p)


class _Task:
    """A task's parameters as text (quotes off) and the line of each."""

    def __init__(self, label: str, module: str, params: Params, line: int) -> None:
        self.label, self.module, self.params, self.line = label, module, params, line
        self.state = self.get("state").lower()

    def get(self, key: str) -> str:
        return self.params.get(key, ("", 0))[0].strip().strip("'\"")

    def low(self, key: str) -> str:
        return self.get(key).lower()

    def at(self, key: str) -> int:
        return self.params.get(key, ("", self.line))[1]


def _unchecked(p: _Task) -> Iterator[Finding]:
    if falsy(p.get("validate_certs") or None):
        yield Finding(
            Severity.HIGH,
            "downloads without checking TLS certificates",
            f"{p.label} sets `validate_certs: no` on `{p.module}`: anyone on the network path "
            "can serve what the host installs or runs.",
            p.at("validate_certs"),
        )
    for key in ("disable_gpg_check", "allow_unauthenticated"):
        if truthy(p.get(key) or None):
            yield Finding(
                Severity.HIGH,
                "installs packages without checking their signatures",
                f"{p.label} sets `{key}`: a package altered on its way is installed as root.",
                p.at(key),
            )
    if p.module == "selinux" and p.state in ("disabled", "permissive"):
        yield Finding(
            Severity.HIGH,
            "turns SELinux off",
            f"{p.label} sets SELinux {p.state}: the host loses the policy that contains a "
            "compromised service.",
            p.at("state"),
        )


def _guards(p: _Task) -> Iterator[Finding]:
    """A firewall turned off; the audit log, AppArmor or fail2ban stopped."""
    off = ""
    if p.module in ("service", "systemd", "systemd_service", "sysvinit"):
        unit = p.low("name").removesuffix(".service")
        stopped = p.state == "stopped" or falsy(p.low("enabled") or None) or truthy(p.low("masked"))
        if stopped and unit in _FIREWALLS:
            off = f"stops or disables the `{unit}` firewall service"
        elif stopped and unit in _GUARDS:
            yield Finding(
                Severity.HIGH,
                f"stops {_GUARDS[unit]}",
                f"{p.label} stops or disables `{unit}`: what happens on the host is no longer "
                "recorded or contained.",
                p.line,
            )
    elif p.module == "ufw" and (
        p.state == "disabled"
        or (p.low("policy") in ("allow", "accept") and p.low("direction") in ("", "incoming"))
    ):
        off = "disables ufw or lets every incoming connection in"
    elif p.module == "iptables" and (
        truthy(p.low("flush") or None)
        or (p.low("policy") == "accept" and p.low("chain") in ("input", "forward"))
    ):
        off = "flushes the iptables rules or accepts every incoming packet"
    elif p.module == "firewalld" and (
        p.low("target") == "accept"
        or (p.low("zone") == "trusted" and p.low("source") in ("0.0.0.0/0", "::/0"))
    ):
        off = "makes a firewalld zone accept everything"
    if off:
        yield Finding(
            Severity.HIGH,
            "turns the host's firewall off",
            f"{p.label} {off}: every service of the host is reachable from the network.",
            p.line,
        )


def _access(p: _Task) -> Iterator[Finding]:
    """Root's keys, SSH sign-in, sudo, admin groups and world-writable files."""
    dest = p.get("dest") or p.get("path")
    text = "\n".join(p.get(k) for k in ("line", "block", "content", "replace"))
    kept = p.state != "absent"
    if kept and (
        (p.module == "authorized_key" and p.get("user") == "root") or _ROOT_KEYS.match(dest)
    ):
        yield Finding(
            Severity.HIGH,
            "adds a key to root's authorized_keys",
            f"{p.label} lets whoever holds that key sign in to the host as root, with no "
            "password and outside any account review.",
            p.at("user") if p.module == "authorized_key" else p.at("dest"),
        )
    if kept and "sshd_config" in dest and (m := _SSHD.search(text)) is not None:
        yield Finding(
            Severity.HIGH,
            _SSHD_TITLES[m.group(1).lower()],
            f"{p.label} writes `{m.group(0).strip()}` to {dest}: the host's SSH server takes "
            "guessable sign-ins from the network.",
            p.line,
        )
    if (
        dest.startswith("/etc/sudoers")
        and _NOPASSWD.search(text)
        and not _NOPASSWD_ALL.search(text)
    ):
        yield Finding(
            Severity.HIGH,
            "grants passwordless sudo",
            f"{p.label} writes a sudoers rule with `NOPASSWD` to {dest}: those commands run as "
            "root without a password.",
            p.line,
        )
    if p.module == "user" and kept:
        groups = {g for g in re.split(r"[,\s]+", f"{p.get('groups')},{p.get('group')}") if g}
        admin = sorted(g for g in groups if _ADMIN_GROUPS.match(g))
        rootish = sorted(g for g in groups if _ROOTISH_GROUPS.match(g))
        if admin or rootish:
            yield Finding(
                Severity.HIGH,
                "adds a user to an admin group" if admin else "adds a user to a privileged group",
                f"{p.label} puts `{p.get('name') or 'a user'}` in {', '.join(admin + rootish)}: "
                "membership of that group is root on the host.",
                p.at("groups") if p.get("groups") else p.at("group"),
            )
    if p.module in ("copy", "template", "file") and _world_writable(p.get("mode")):
        yield Finding(
            Severity.HIGH,
            "makes a file anyone can change",
            f"{p.label} sets mode {p.get('mode')} on {dest or 'a file'}: any account or service "
            "of the host can rewrite it (and what runs it then runs theirs).",
            p.at("mode"),
        )


def _world_writable(mode: str) -> bool:
    """An octal or symbolic mode that lets others write (a sticky folder, like /tmp, aside)."""
    mode = mode.strip().lower()
    if re.fullmatch(r"0?[0-7]{3,4}", mode):
        digits = mode[1:] if len(mode) == 5 or (len(mode) == 4 and mode[0] == "0") else mode
        sticky = len(digits) == 4 and int(digits[0]) & 1
        return int(digits[-1]) & 2 == 2 and not sticky
    return bool(_WORLD_SYMBOLIC.search(mode))
