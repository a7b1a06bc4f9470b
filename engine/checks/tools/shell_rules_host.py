"""Rules about accounts and the host's defences: root shells and ``sudo``, group and user
changes, scheduled and enabled services (persistence), erased history and logs, and
firewalls, SELinux, AppArmor, audit or TLS verification switched off."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import PRIVILEGED
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, operands, rule, short_flags
from .shell_sudo import LOGGING, SECURITY, only_reads, remote_host, staging_restart
from .shell_sudo_service import routine_sudo

__all__: list[str] = []

_ADMIN_GROUPS = re.compile(r"(?:^|,)(?:sudo|wheel|admin|root|adm)(?:,|$)")
_ROOTISH_GROUPS = re.compile(r"(?:^|,)(?:docker|lxd|lxc|disk|shadow|kvm|libvirt)(?:,|$)")
_NO_TLS = re.compile(
    r"http\.sslverify\s*=?\s*false|strict-ssl\s*=?\s*false|sslverify\s*=?\s*false|"
    r"NODE_TLS_REJECT_UNAUTHORIZED=0|GIT_SSL_NO_VERIFY=(?:1|true)|PYTHONHTTPSVERIFY=0|"
    r"global\.trusted-host|--trusted-host|ssl_verify\s*=?\s*false|insecure\s*=?\s*true",
    re.IGNORECASE,
)


@rule
def privilege(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``sudo``/``su``/``doas`` themselves; root shells; admin group changes."""
    name = cmd.name
    if (
        name in PRIVILEGED
        and not cmd.guessed
        and not (
            name in ("sudo", "doas")
            and len(cmd.argv) == 2
            and cmd.argv[1] in ("-l", "-v", "-k", "-K")
        )
        and not (name in ("sudo", "doas") and not cmd.redirects and only_reads(cmd.argv))
        and not (name in ("sudo", "doas") and not cmd.redirects and staging_restart(cmd, ctx))
        and not (
            name in ("sudo", "doas")
            and not cmd.redirects
            and routine_sudo(cmd.argv, remote_host(cmd, ctx))
        )
    ):
        if cmd.shell_when_empty:
            yield critical(
                "opens a root shell",
                cmd.text,
                f"{name} starts an interactive shell as root; anything can follow.",
                "Run the one command needed, or ask a human.",
            )
        else:
            yield high(
                f"runs as root ({name})",
                cmd.text,
                "a command with root rights can change anything on the machine.",
                "Check the command is needed as root, or run it without sudo.",
            )
    elif name in ("usermod", "gpasswd", "adduser", "addgroup") and len(cmd.argv) > 2:
        words = " ".join(cmd.argv[1:])
        groups = [cmd.argv[i + 1] for i, w in enumerate(cmd.argv[:-1]) if w in ("-G", "-aG", "-a")]
        groups += [
            w for w in cmd.argv[2:] if name in ("adduser", "gpasswd") and not w.startswith("-")
        ]
        if any(_ADMIN_GROUPS.search(g) for g in groups):
            yield critical(
                "adds a user to an admin group",
                cmd.text,
                "membership of sudo/wheel/admin/root grants root.",
                "Ask an administrator.",
            )
        elif any(_ROOTISH_GROUPS.search(g) for g in groups) or "-u 0" in words or "-o" in words:
            yield high(
                "adds a user to a privileged group",
                cmd.text,
                "docker, lxd and disk groups are root in all but name.",
                "Ask an administrator.",
            )
    elif name in ("useradd", "passwd", "chpasswd", "userdel", "visudo", "vipw", "newusers") and (
        name != "passwd" or len(cmd.argv) > 1
    ):
        yield high(
            "changes user accounts",
            cmd.text,
            f"{name} changes who can log in.",
            "Ask an administrator to manage accounts.",
        )


@rule
def persistence(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """crontab, systemd units enabled or linked, ``at``, init scripts, launch agents."""
    name, args = cmd.name, cmd.argv[1:]
    if name == "crontab":
        flags = short_flags(cmd.argv)
        if flags & {"-l"}:
            return
        if flags & {"-r"}:
            yield high(
                "removes all cron jobs",
                cmd.text,
                "crontab -r deletes the user's whole crontab.",
                "Edit the one entry instead.",
            )
        else:
            yield critical(
                "persistence: installs a cron job",
                cmd.text,
                "cron runs the command on a schedule, long after this session.",
                "Do not schedule commands from an agent.",
            )
    elif name == "systemctl" and args:
        verbs = [w for w in args if not w.startswith("-")]
        verb = verbs[0] if verbs else ""
        units = " ".join(verbs[1:])
        if re.search(rf"\b(?:{LOGGING})\b", units) and verb in ("stop", "disable", "mask", "kill"):
            yield critical(
                "stops system logging",
                cmd.text,
                f"it {verb}s {units}; what follows is not recorded.",
                "Leave logging running.",
            )
        elif re.search(rf"\b(?:{SECURITY})\b", units) and verb in (
            "stop",
            "disable",
            "mask",
            "kill",
        ):
            yield critical(
                "disables a security service",
                cmd.text,
                f"it {verb}s {units}.",
                "Leave the machine's defences on.",
            )
        elif verb in ("enable", "link", "reenable", "preset", "add-wants", "edit"):
            if "/" in units or verb in ("link", "edit"):
                yield critical(
                    "persistence: installs a service",
                    cmd.text,
                    f"systemctl {verb} {units} makes a unit file run at boot.",
                    "Do not install services from an agent.",
                )
            else:
                yield high(
                    "enables a service at boot",
                    cmd.text,
                    f"{units} will start on every boot.",
                    "Ask the user before enabling services.",
                )
    elif name == "service" and len(args) >= 2 and args[1] in ("stop", "disable"):
        if re.search(rf"^(?:{LOGGING}|{SECURITY})$", args[0]):
            yield critical(
                "disables logging or a security service",
                cmd.text,
                f"it stops {args[0]}.",
                "Leave the machine's defences on.",
            )
    elif name in ("at", "batch") and not short_flags(cmd.argv) & {"-l", "-r", "-d", "-c"}:
        yield high(
            "schedules a command",
            cmd.text,
            "at runs it later, outside this session.",
            "Run the command now, or not at all.",
        )
    elif name in ("update-rc.d", "chkconfig", "rc-update", "launchctl") and any(
        w in ("defaults", "enable", "on", "add", "load", "bootstrap", "submit") for w in args
    ):
        yield high(
            "enables a service at boot",
            cmd.text,
            f"{name} makes it start on every boot.",
            "Ask the user before enabling services.",
        )


@rule
def traces(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """History cleared or switched off, journals vacuumed, audit rules deleted."""
    name, args = cmd.name, cmd.argv[1:]
    assigns = dict(cmd.assigns)
    if name in ("export", "declare", "typeset", "readonly", "set"):
        assigns.update((w.split("=", 1)[0], w.split("=", 1)[1]) for w in args if "=" in w)
    hidden = (
        (name == "history" and any(re.match(r"^-\w*[cd]", w) for w in args))
        or (name == "history" and "-w" in args and "/dev/null" in args)
        or (name == "unset" and any(w in ("HISTFILE", "HISTSIZE", "HISTFILESIZE") for w in args))
        or (name == "set" and "+o" in args and "history" in args)
        or assigns.get("HISTFILE", "x").strip("'\"") in ("", "/dev/null")
        or assigns.get("HISTSIZE", "x") == "0"
        or assigns.get("HISTFILESIZE", "x") == "0"
        or (name == "journalctl" and any(w.startswith("--vacuum") for w in args))
        or (name == "auditctl" and any(w in ("-D", "-e") for w in args[:1]))
        or (name == "wevtutil" and args[:1] in (["cl"], ["clear-log"]))
        or name == "clear-eventlog"
    )
    if hidden:
        yield critical(
            "hides its traces",
            cmd.text,
            "it clears or switches off shell "
            "history, journals or audit rules, so what was done cannot be "
            "reviewed.",
            "Leave history, logs and audit rules alone.",
        )


@rule
def defences(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Firewalls flushed, SELinux or AppArmor off, ASLR off, TLS verification off."""
    name, args = cmd.name, cmd.argv[1:]
    joined = " ".join(args)
    off = (
        (name == "setenforce" and joined.strip().lower() in ("0", "permissive"))
        or (name == "ufw" and (joined.startswith("disable") or "default allow" in joined))
        or (
            name in ("iptables", "ip6tables", "iptables-legacy", "iptables-nft")
            and (
                any(w in ("-F", "--flush", "-X") for w in args)
                or re.search(r"-P\s+(?:INPUT|FORWARD|OUTPUT)\s+ACCEPT", joined)
            )
        )
        or (name == "nft" and "flush ruleset" in joined)
        or name in ("aa-disable", "aa-teardown")
        or (name == "apparmor_parser" and "-R" in args)
        or (
            name == "sysctl"
            and re.search(
                r"randomize_va_space=0|ptrace_scope=0|kptr_restrict=0|dmesg_restrict=0", joined
            )
        )
        or (name == "spctl" and "--master-disable" in args)
        or (name == "csrutil" and "disable" in args)
        or (name in ("set-mppreference", "add-mppreference") and "disable" in joined.lower())
    )
    if off:
        yield critical(
            "turns off a security control",
            cmd.text,
            "firewall, SELinux, AppArmor, ASLR or malware protection is switched off.",
            "Leave the machine's defences on.",
        )
    elif _NO_TLS.search(" ".join(cmd.argv) + " " + " ".join(f"{k}={v}" for k, v in cmd.assigns)):
        yield high(
            "turns off TLS verification",
            cmd.text,
            "connections can then be intercepted and their content changed.",
            "Keep certificate checks on; install the right CA instead.",
        )
    if any(k == "LD_PRELOAD" and v for k, v in cmd.assigns) or (
        name == "export" and any(w.startswith("LD_PRELOAD=") for w in args)
    ):
        yield critical(
            "preloads a library",
            cmd.text,
            "LD_PRELOAD injects code into every "
            "program started (a classic privilege-escalation and hooking trick).",
            "Do not preload libraries.",
        )
    loads = name in ("insmod", "modprobe", "kldload") and not short_flags(cmd.argv) & {"-r", "-n"}
    if loads and operands(cmd.argv):
        yield high(
            "loads a kernel module",
            cmd.text,
            "kernel code runs with full control of the machine.",
            "Ask an administrator.",
        )
