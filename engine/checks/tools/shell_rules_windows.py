"""Windows and macOS commands whose harm the POSIX rules do not name: living-off-the-land
downloads (``certutil -urlcache``, ``mshta http…``), Run-key and scheduled-task persistence,
shadow copies and event logs deleted, firewalls and Defender switched off, accounts made
administrators, LSASS dumped, drives and system folders removed, script policy opened, and
macOS privacy permissions reset. Read from the command as typed, since the POSIX reader drops
Windows paths' backslashes."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, rule

__all__ = ["as_typed", "judge_line", "windows_harm", "windows_line"]

_URL = re.compile(r"(?i)\b(?:https?|ftp)://")
_CRITICAL: tuple[tuple[str, re.Pattern[str], str, str], ...] = (
    (
        "downloads code with a system tool",
        re.compile(
            r"(?i)^(?:certutil(?:\.exe)?\s.*-(?:urlcache|verifyctl)\b.*(?:https?|ftp)://"
            r"|mshta(?:\.exe)?\s+(?:https?|vbscript|javascript):|regsvr32(?:\.exe)?\s.*/i:\s*https?://"
            r"|rundll32(?:\.exe)?\s.*javascript:|bitsadmin(?:\.exe)?\s.*/transfer\b)"
        ),
        "a built-in Windows program fetches a file from the network to run it.",
        "Download through the package manager, from a source the user trusts.",
    ),
    (
        "persistence: runs at every logon",
        re.compile(
            r"(?i)^reg(?:\.exe)?\s+(?:add|import)\s.*\\(?:Run|RunOnce|RunServices|Winlogon|"
            r"Image File Execution Options|Explorer\\Shell Folders)\b"
            r"|^(?:new-itemproperty|set-itemproperty)\s.*\\CurrentVersion\\Run"
        ),
        "a program is registered to start by itself at every logon.",
        "Do not install anything that runs by itself.",
    ),
    (
        "deletes backups and recovery",
        re.compile(
            r"(?i)^(?:vssadmin(?:\.exe)?\s+(?:delete\s+shadows|resize\s+shadowstorage)"
            r"|wmic(?:\.exe)?\s+shadowcopy\s+delete|wbadmin(?:\.exe)?\s+delete\s+(?:catalog|backup)"
            r"|bcdedit(?:\.exe)?\s.*recoveryenabled\s+no|format(?:\.com)?\s+[a-z]:"
            r"|diskpart\b.*\bclean\b)"
        ),
        "shadow copies, backups or the recovery environment are removed (ransomware's first step).",
        "Leave backups and recovery alone.",
    ),
    (
        "turns off a security control",
        re.compile(
            r"(?i)^(?:netsh(?:\.exe)?\s+(?:advfirewall\s+set\s+\w+\s+state\s+off|firewall\s+set\s+"
            r"opmode\s+(?:mode=)?disable)|sc(?:\.exe)?\s+(?:stop|config|delete)\s+(?:WinDefend|"
            r"wscsvc|MpsSvc|EventLog|Sense)\b|set-mppreference\s.*-Disable\w+\s+(?:\$true|1)"
            r"|spctl\s+--master-disable)"
        ),
        "the firewall, Defender or the event log service is switched off.",
        "Leave the machine's defences on.",
    ),
    (
        "creates an administrator account",
        re.compile(
            r"(?i)^net(?:\.exe)?\s+localgroup\s+(?:administrators|admins|\"?remote desktop users)"
            r"\s.*/add\b|^add-localgroupmember\s.*-Group\s+['\"]?Administrators"
            r"|^dscl\s.*-append\s+/Groups/admin\s+GroupMembership"
        ),
        "an account is made an administrator of the machine (privilege escalation).",
        "Change administrators through the machine's owner.",
    ),
    (
        "dumps credentials from memory",
        re.compile(
            r"(?i)(?:procdump(?:64)?(?:\.exe)?\s.*\blsass\b|comsvcs(?:\.dll)?[,\s]+#?\s*(?:24|"
            r"MiniDump)|\bmimikatz\b|sekurlsa::|lsadump::|reg(?:\.exe)?\s+save\s+hklm\\(?:sam|"
            r"security|system)\b)"
        ),
        "the memory of LSASS or the SAM hive holds every logged-on user's password hashes.",
        "Never read the machine's credential stores.",
    ),
    (
        "erases event logs",
        re.compile(r"(?i)^(?:wevtutil(?:\.exe)?\s+(?:cl|clear-log)\b|clear-eventlog\b)"),
        "the machine's record of what happened is erased, hiding what was done.",
        "Leave event logs alone.",
    ),
    (
        "deletes a drive or a system folder",
        re.compile(
            r"(?i)^(?:remove-item|rm|ri|del|rd|rmdir|erase)\s.*(?:-recurse|/s)\b.*\s['\"]?"
            r"(?:[a-z]:\\?(?:\s|['\"]|$)|[a-z]:\\(?:windows|program files|programdata)\b"
            r"|[a-z]:\\users(?:\\[^\\\s'\"]+(?:\\(?:documents|desktop|downloads|pictures|music|"
            r"videos|appdata|onedrive[^\\\s'\"]*))?)?\\?(?:\s|['\"]|$)|\$env:"
            r"(?:userprofile|systemroot|windir|homedrive)\b|~(?:\s|$))"
        ),
        "the drive, the Windows folder or the user's profile is removed for good.",
        "Delete only build output inside the workspace.",
    ),
)
_HIGH: tuple[tuple[str, re.Pattern[str], str, str], ...] = (
    (
        "opens PowerShell's script policy",
        re.compile(
            r"(?i)^set-executionpolicy\s.*\b(?:unrestricted|bypass)\b.*\b(?:localmachine|"
            r"machinepolicy)\b"
        ),
        "every script, downloaded ones included, may then run machine-wide.",
        "Keep the policy; sign the scripts that must run.",
    ),
    (
        "runs a program as administrator",
        re.compile(r"(?i)^start-process\s.*-verb\s+['\"]?runas\b"),
        "the program gets the administrator's rights on the machine.",
        "Ask a human to run elevated programs.",
    ),
    (
        "schedules a task",
        re.compile(r"(?i)^(?:schtasks(?:\.exe)?\s+/create\b|register-scheduledtask\b)"),
        "a task runs by itself later, and on, after this session.",
        "Let a person schedule tasks.",
    ),
    (
        "resets macOS privacy permissions",
        re.compile(r"^tccutil\s+reset\b"),
        "every app's camera, microphone, files and accessibility permissions are reset.",
        "Leave privacy permissions to the user.",
    ),
)
_NAMES = frozenset(
    {
        "certutil", "mshta", "regsvr32", "rundll32", "bitsadmin", "reg", "new-itemproperty",
        "set-itemproperty", "vssadmin", "wmic", "wbadmin", "bcdedit", "format", "diskpart",
        "netsh", "sc", "set-mppreference", "spctl", "net", "add-localgroupmember", "dscl",
        "procdump", "procdump64", "wevtutil", "clear-eventlog", "remove-item", "rm", "ri",
        "del", "rd", "rmdir", "erase", "set-executionpolicy", "start-process", "schtasks",
        "register-scheduledtask", "tccutil", "mimikatz",
    }
)  # fmt: skip


def as_typed(cmd: Cmd) -> str:
    """The command as typed, from its program name on (its backslashes kept)."""
    text = cmd.text
    at = text.lower().find(cmd.argv[0].lower()) if cmd.argv else -1
    return text[at:] if at >= 0 else text


def windows_line(typed: str) -> tuple[bool, str, str] | None:
    """What one Windows command line as typed (a PowerShell script's line, from its cmdlet
    on) does of what these rules name: critical or not, the title and why; ``None``: none."""
    return judge_line(typed, _CRITICAL, _HIGH)


def judge_line(
    typed: str,
    critical: Sequence[tuple[str, re.Pattern[str], str, str]],
    high: Sequence[tuple[str, re.Pattern[str], str, str]],
) -> tuple[bool, str, str] | None:
    """The first of ``critical`` (then ``high``) rules — title, pattern, why, fix — whose
    pattern finds ``typed``: critical or not, the title and why."""
    for title, pattern, why, _ in critical:
        if pattern.search(typed):
            return True, title, why
    for title, pattern, why, _ in high:
        if pattern.search(typed):
            return False, title, why
    return None


@rule
def windows_harm(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Windows and macOS commands that download code, persist, wipe backups, logs or drives,
    switch defences off, make administrators or dump credentials."""
    name = cmd.name.removesuffix(".exe")
    if name not in _NAMES and not name.endswith(("procdump", "mimikatz")):
        return
    typed = as_typed(cmd)
    if name in ("rm", "rmdir") and "\\" not in typed and "$env:" not in typed.lower():
        return  # a POSIX rm: the POSIX rules read it
    for title, pattern, why, fix in _CRITICAL:
        if pattern.search(typed):
            yield critical(title, typed, why, fix)
            return
    for title, pattern, why, fix in _HIGH:
        if pattern.search(typed):
            yield high(title, typed, why, fix)
            return
    if name == "net" and re.search(r"(?i)^net(?:\.exe)?\s+user\s+\S+\s+\S+\s+/add\b", typed):
        yield high(
            "creates a user account",
            typed,
            "a new login on the machine outlives this task.",
            "Let the machine's owner create accounts.",
        )
    if name == "msiexec" and _URL.search(typed):
        yield high("installs from the network", typed, "a remote installer runs.", "Ask first.")
