"""A machine's or a directory's own defences weakened by one administration line, each a class
any Windows or Linux estate has:

- the host firewall switched off for a profile (``Set-NetFirewallProfile … -Enabled False``);
- a remote-login port (remote desktop, SSH, WinRM, VNC, SMB, telnet) opened to every address
  by a firewall rule (``netsh advfirewall firewall add rule … action=allow localport=3389
  remoteip=any``, ``New-NetFirewallRule -Action Allow -LocalPort 3389``);
- auditing switched off or cleared (``auditpol /set … /success:disable``, ``auditpol
  /clear``);
- the domain's or a machine's password policy weakened (lockout off, complexity off, short
  passwords: ``Set-ADDefaultDomainPasswordPolicy -LockoutThreshold 0``, ``net accounts
  /lockoutthreshold:0``);
- an account's sign-in protection removed (``-DoesNotRequirePreAuth $true``,
  ``-PasswordNotRequired $true``, reversible encryption, unconstrained delegation);
- the system clock set by hand (``Set-Date``, ``date -s``, ``timedatectl set-time``): every
  record written afterwards carries a false time.

Each is high: a person confirms. Everyday neighbours run: ``Get-NetFirewallProfile``, a rule
opening 443, ``auditpol /get``, ``net accounts`` alone, ``date +%F``, ``timedatectl status``.
Gated on the program's name; read from the command as typed."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, rule
from .shell_rules_windows import as_typed

__all__ = ["clock_set", "defences_weakened"]

_MAX = 4_000
_OFF = r"(?:\$?false|0|no|off|disabled?)"
_ON = r"(?:\$?true|1|yes|on)"
_LOGIN_PORTS = frozenset({"22", "23", "445", "3389", "5900", "5985", "5986"})
_PORTS = re.compile(r"(?i)(?:localport=|-localport\s+)['\"]?([\d, -]{1,80})")
_ANY_REMOTE = re.compile(
    r"(?i)(?:remoteip=|-remoteaddress\s+)['\"]?(?:any|\*|0\.0\.0\.0/0|internet)\b"
)
_SOME_REMOTE = re.compile(r"(?i)remoteip=|-remoteaddress\s")
_Rule = tuple[str, re.Pattern[str], str]
_RULES: tuple[_Rule, ...] = (
    (
        "switches the host firewall off",
        re.compile(rf"(?i)^set-netfirewallprofile\b.*\s-enabled[\s:]+['\"]?{_OFF}\b"),
        "the machine's firewall stops filtering for the profiles named: every listening "
        "service is reachable.",
    ),
    (
        "switches auditing off",
        re.compile(
            r"(?i)^auditpol(?:\.exe)?\s+(?:/set\b.*/(?:success|failure):\s*disable\b|/clear\b"
            r"|/remove\b)|^set-auditpolicy\b|^auditctl\s+-e\s*0\b"
        ),
        "the events it stops recording (file access, logons, changes) leave no trace from now on.",
    ),
    (
        "weakens the password policy",
        re.compile(
            rf"(?i)^(?:set-ad(?:defaultdomain|finegrained)passwordpolicy\b.*\s-(?:lockoutthreshold"
            rf"\s+0\b|complexityenabled[\s:]+{_OFF}\b|reversibleencryptionenabled[\s:]+{_ON}\b|"
            rf"minpasswordlength\s+[0-7]\b)|net(?:\.exe)?\s+accounts\b.*/(?:lockoutthreshold:0\b|"
            rf"minpwlen:[0-7]\b))"
        ),
        "accounts can then be guessed without lockout, or hold short and simple passwords.",
    ),
    (
        "removes an account's sign-in protection",
        re.compile(
            rf"(?i)^(?:set-adaccountcontrol|set-aduser|set-adcomputer|set-adserviceaccount)\b.*"
            rf"\s-(?:doesnotrequirepreauth|passwordnotrequired|allowreversiblepasswordencryption"
            rf"|trustedfordelegation|usedeskeyonly)[\s:]+{_ON}\b"
        ),
        "the account's password can then be cracked offline or skipped, or its tickets reused "
        "against any service.",
    ),
)
_NAMES = frozenset(
    {"set-netfirewallprofile", "auditpol", "set-auditpolicy", "auditctl", "net", "netsh",
     "set-addefaultdomainpasswordpolicy", "set-adfinegrainedpasswordpolicy",
     "set-adaccountcontrol", "set-aduser", "set-adcomputer", "set-adserviceaccount",
     "new-netfirewallrule", "set-netfirewallrule"}
)  # fmt: skip


def _login_port_opened(typed: str) -> str | None:
    """The remote-login port an allow rule opens to every address, if any."""
    lower = typed.lower()
    if not re.match(r"^(?:netsh(?:\.exe)?\s+advfirewall\s+firewall\s+add\s+rule\b|"
                    r"(?:new|set)-netfirewallrule\b)", lower):  # fmt: skip
        return None
    if not re.search(r"action=allow|-action\s+['\"]?allow\b", lower):
        return None
    if "dir=out" in lower or re.search(r"-direction\s+['\"]?outbound", lower):
        return None
    ports = _PORTS.search(lower)
    if ports is None:
        return None
    opened = {p.strip() for p in re.split(r"[,\s]+", ports.group(1)) if p.strip()}
    login = sorted(opened & _LOGIN_PORTS)
    if not login:
        return None
    if _SOME_REMOTE.search(lower) and not _ANY_REMOTE.search(lower):
        return None  # scoped to named addresses
    return login[0]


@rule
def defences_weakened(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Firewall off, a login port opened to all, auditing off, the password policy or an
    account's sign-in protection weakened (see the module's docstring)."""
    name = cmd.name.lower().removesuffix(".exe")
    if name not in _NAMES:
        return
    typed = as_typed(cmd)[:_MAX]
    for title, pattern, why in _RULES:
        if pattern.search(typed):
            yield high(title, typed, why, "Have the machine's or directory's owner make it.")
            return
    port = _login_port_opened(typed)
    if port is not None:
        yield high(
            "opens a remote-login port to every address",
            typed,
            f"port {port} takes logins; allowed from anywhere, anyone can try passwords on it.",
            "Allow the port from the named addresses that need it.",
        )


@rule
def clock_set(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """The system clock set by hand: ``Set-Date``, ``date -s``, ``timedatectl set-time``,
    ``hwclock --set``."""
    name = cmd.name.lower().removesuffix(".exe")
    argv = cmd.argv[1:16]
    if name == "set-date":
        hit = True
    elif name == "date":
        hit = any(w in ("-s", "-us") or w.startswith("--set") for w in argv)
    elif name == "timedatectl":
        hit = "set-time" in argv
    elif name == "hwclock":
        hit = any(w.startswith("--set") for w in argv)
    else:
        return
    if hit:
        yield high(
            "sets the system clock by hand",
            as_typed(cmd),
            "every record, log and signature made afterwards carries a false time.",
            "Keep the clock on time synchronisation (NTP).",
        )
