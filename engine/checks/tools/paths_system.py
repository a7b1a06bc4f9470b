"""Protected system paths: scratch folders (fine), credential and account files, cron, system
programs and configuration, logs, kernel interfaces and devices, macOS launch daemons, and
their Windows counterparts (registry hives, system folders, the startup folder)."""

from __future__ import annotations

from .paths_etc_apps import APP_CONFIG
from .paths_rule import CRED, PERSIST, SYSTEM, rule

__all__ = ["SCRATCH_RULES", "SYSTEM_RULES"]

SCRATCH_RULES = (
    rule("a scratch file", "", "---", r"^/(?:tmp|var/tmp|dev/shm|var/folders)/.", temp=True),
    rule(
        "a scratch file",
        "",
        "---",
        r"^(?:~/appdata/local/temp|[a-z]:/(?:windows/)?te?mp)/.",
        temp=True,
    ),
    rule(
        "a scratch file",
        "",
        "---",
        r"^~/(?:scratch|tmp|temp)/[^/]+$",
        temp=True,
    ),
    rule(
        "a terminal or null device",
        "",
        "---",
        r"^/dev/(?:null|zero|stdout|stderr|stdin|tty|u?random|fd/.*|pts/.*)$",
        temp=True,
    ),
)
"""Scratch folders and harmless devices: nothing, even outside the workspace."""

_DRIVE = r"^(?:[a-z]:|//[^/]+/[a-z]\$)"
"""A Windows drive, on this machine (``c:``) or through another's admin share (``//dc01/c$``)."""

SYSTEM_RULES = (
    rule(
        "a system credential file",
        "it holds password hashes or private keys of the machine",
        "CCC",
        r"^/etc/(?:g?shadow-?|security/opasswd|master\.passwd|spwd\.db|ssh/ssh_host_[^/]*_key"
        r"|ssl/private(?:/.*)?|pki/tls/private(?:/.*)?|krb5\.keytab|rancher/k3s/k3s\.yaml"
        r"|kubernetes/(?:admin|controller-manager|scheduler|kubelet|super-admin)\.conf"
        r"|kubernetes/pki/.+\.key|letsencrypt/(?:live|archive)/.+/privkey[^/]*)$",
    ),
    rule(
        "the system account database",
        "it decides who may log in and act as root",
        "CCH",
        r"^/etc/(?:passwd-?|group-?|sudoers|sudoers\.d(?:/.*)?|doas\.conf)$",
    ),
    rule(
        "the system cron tables",
        "it runs code on a schedule (persistence)",
        "CCH",
        r"^/(?:etc/(?:cron[^/]*|anacrontab)|var/spool/(?:cron|anacron)|var/at|var/cron"
        r"|usr/lib/cron)(?:/.*)?$",
    ),
    rule(
        "a system service or start-up file",
        PERSIST,
        "CC-",
        r"^/(?:etc/(?:systemd|init\.d|rc\.local|rc\d\.d|profile|profile\.d|bash\.bashrc|zsh"
        r"|environment|ld\.so\.preload|ld\.so\.conf(?:\.d)?|pam\.d|update-motd\.d|xdg/autostart)"
        r"|usr/lib/systemd|lib/systemd)(?:/.*)?$",
    ),
    rule(
        "the hosts file",
        "it sends the machine's requests for a name to another address",
        "CC-",
        r"^/etc/hosts$|^(?:[a-z]:|//[^/]+/[a-z]\$)/windows/system32/drivers/etc/hosts$",
    ),
    rule(
        "a system configuration file",
        "it configures one application for every user; a person confirms the change",
        "HH-",
        APP_CONFIG,
        system=True,
    ),
    rule("a system configuration file", SYSTEM, "CC-", r"^/etc(?:/.*)?$", system=True),
    rule(
        "a program or library of the system",
        SYSTEM,
        "CC-",
        r"^/(?:usr|bin|sbin|lib|lib32|lib64|libx32|boot|system|snap|nix/store)(?:/.*)?$",
        system=True,
    ),
    rule(
        "service secrets",
        CRED,
        "CCC",
        r"^/(?:var/)?run/secrets(?:/.*)?$|^/var/lib/jenkins/(?:secrets(?:/.*)?|credentials\.xml)$",
    ),
    rule(
        "the Docker daemon's socket",
        "whoever writes to it is root on the machine",
        "CCH",
        r"^/(?:var/)?run/docker\.sock$",
    ),
    rule("the system logs", "erasing logs hides what was done", "HC-", r"^/var/log(?:/.*)?$"),
    rule(
        "another process's memory or environment",
        "it holds the secrets of running programs",
        "CCC",
        r"^/proc/[^/]+/(?:environ|mem)$|^/proc/kcore$|^/dev/k?mem$|^/dev/port$",
    ),
    rule(
        "a kernel interface",
        "writing it changes the running kernel",
        "CC-",
        r"^/(?:proc|sys)(?:/.*)?$",
    ),
    rule(
        "a disk device",
        "writing it destroys the file systems on it",
        "CCH",
        r"^/dev/(?:sd|nvme|hd|vd|xvd|mmcblk|disk|dm-|mapper/|md|loop|rdisk)",
    ),
    rule("a device file", SYSTEM, "CC-", r"^/dev(?:/.*)?$"),
    rule(
        "a system launch daemon",
        PERSIST,
        "CC-",
        r"^/library/(?:launchdaemons|launchagents|startupitems|security)(?:/.*)?$",
    ),
    rule("a system keychain", CRED, "CCC", r"^/library/keychains(?:/.*)?$"),
    rule(
        "a system-wide folder",
        SYSTEM,
        "HH-",
        r"^/(?:library|applications|opt|srv|var)(?:/.*)?$",
        system=True,
    ),
    rule(
        "a Windows registry hive",
        "it holds the machine's password hashes and settings",
        "CCC",
        _DRIVE + r"/windows/(?:system32/config/(?:sam|system|security|software|default)"
        r"(?:\.[^/]*)?|ntds/ntds\.dit|repair/sam)$",
    ),
    rule(
        "a Windows answer file",
        "it may hold administrator passwords",
        "CCH",
        _DRIVE + r"/(?:windows/panther/)?unattend[^/]*\.xml$",
    ),
    rule(
        "the Windows startup folder",
        PERSIST,
        "CH-",
        _DRIVE + r"/programdata/microsoft/windows/start menu/programs/startup(?:/.*)?$",
    ),
    rule(
        "a Windows system folder",
        SYSTEM,
        "CC-",
        _DRIVE + r"/(?:windows|program files(?: \(x86\))?|progra~\d|window~\d|boot|bootmgr"
        r"|recovery|system volume information)(?:/.*)?$",
        system=True,
    ),
    rule(
        "a Windows system-wide folder",
        SYSTEM,
        "HH-",
        _DRIVE + r"/programdata(?:/.*)?$",
        system=True,
    ),
)
"""System rules, most specific first. Only whole system folders are ``system`` (nothing when
the workspace lies inside them, as ``/usr/src/app`` does); credentials, start-up files and
devices count wherever the workspace is."""
