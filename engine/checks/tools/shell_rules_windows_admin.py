"""Windows directory, mail and virtualisation administration whose harm is in whom it
empowers or what it removes: accounts put in privileged directory groups, mailboxes opened to
someone else or forwarded away by rules, e-discovery purges and retention holds switched off,
credential caching switched on in the registry, virtual machines deleted for good and file
shares emptied through a pipeline. Read from the command as typed (PowerShell cmdlets and
``reg``/``net`` lines); reads (``Get-*``) are never flagged."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, rule
from .shell_rules_windows import as_typed, judge_line

__all__ = ["windows_admin", "windows_admin_line"]

_PRIVILEGED = (
    r"(?:domain|enterprise|schema|key|enterprise key) admins|administrators|account operators|"
    r"backup operators|server operators|print operators|dnsadmins|group policy creator owners|"
    r"organization management|exchange trusted subsystem|global administrator|"
    r"privileged role administrator"
)
_Rule = tuple[str, re.Pattern[str], str, str]
_CRITICAL: tuple[_Rule, ...] = (
    (
        "puts an account in a privileged directory group",
        re.compile(
            rf"(?i)^(?:add-adgroupmember|add-adprincipalgroupmembership|add-rolegroupmember|"
            rf"add-(?:azuread|mg)directoryrolemember\w*)\s.*['\"]?(?:{_PRIVILEGED})\b"
            rf"|^net(?:\.exe)?\s+group\s+['\"]?(?:{_PRIVILEGED})['\"]?\s.*/add\b"
        ),
        "the account gets control of the whole directory or mail organisation (privilege "
        "escalation).",
        "Change privileged group membership only through the directory's owners.",
    ),
    (
        "purges mail found by an e-discovery search",
        re.compile(
            r"(?i)^(?:new-compliancesearchaction\s.*-purge\b|search-mailbox\s.*-deletecontent\b)"
        ),
        "every message the search matched, across mailboxes, is deleted (evidence included).",
        "Leave purges to the compliance officer.",
    ),
    (
        "makes Windows keep passwords in clear text",
        re.compile(
            r"(?i)\\wdigest\b.*\buselogoncredential\b.*(?:/d\s+|-value\s+|\s)1\b"
            r"|\\control\\lsa\b.*\b(?:runasppl|disablerestrictedadmin|lsacfgflags)\b.*"
            r"(?:/d\s+|-value\s+)0\b"
        ),
        "WDigest caching or LSA protection changed so logon passwords can be read from memory "
        "(the step before a credential dump).",
        "Leave the machine's credential protections alone.",
    ),
    (
        "turns off Defender by policy",
        re.compile(
            r"(?i)\\windows defender(?:\\real-time protection)?\b.*\bdisable(?:antispyware|"
            r"antivirus|realtimemonitoring|behaviormonitoring)\b.*(?:/d\s+|-value\s+)1\b"
        ),
        "the antivirus is switched off for good through the registry.",
        "Leave the machine's defences on.",
    ),
)
_HIGH: tuple[_Rule, ...] = (
    (
        "forwards or hides mail with a rule",
        re.compile(
            r"(?i)^(?:new|set)-(?:inbox|transport)rule\s.*-(?:forwardto|redirectto|"
            r"forwardasattachmentto|redirectmessageto|blindcopyto|deletemessage\s+\$?true)\b"
            r"|^set-mailbox\s.*-(?:forwardingsmtpaddress|forwardingaddress)\s+['\"]?[^\s'\"$]"
        ),
        "mail is sent on to another address or deleted before it is read, silently and for good.",
        "Let the mailbox owner set up forwarding.",
    ),
    (
        "gives access to someone else's mailbox",
        re.compile(
            r"(?i)^add-mailboxpermission\s.*-accessrights\s+['\"]?\S*fullaccess"
            r"|^add-recipientpermission\s.*-accessrights\s+['\"]?sendas"
            r"|^add-adpermission\s.*-extendedrights\s+['\"]?send-?as"
            r"|^add-mailboxfolderpermission\s.*-accessrights\s+['\"]?(?:owner|editor)\b"
        ),
        "another account can read or send as this mailbox.",
        "Ask the mailbox owner and IT before granting mailbox access.",
    ),
    (
        "switches off a retention or litigation hold",
        re.compile(
            r"(?i)^set-(?:retentioncompliance|retention|dlpcompliance|holdcompliance|"
            r"auditlogretention)policy\s.*-enabled\s+\$?false\b"
            r"|^remove-(?:retentioncompliance(?:policy|rule)|compliancecase|holdcompliancepolicy)\b"
            r"|^set-mailbox\s.*-(?:litigationholdenabled|retentionholdenabled|"
            r"auditenabled)\s+\$?false\b|^set-adminauditlogconfig\s.*-\w*enabled\s+\$?false\b"
            r"|^set-organizationconfig\s.*-auditdisabled\s+\$?true\b"
        ),
        "mail and documents kept for a legal matter or an audit may then be deleted.",
        "Leave holds and retention to the legal or compliance team.",
    ),
    (
        "deletes a virtual machine for good",
        re.compile(
            r"(?i)^(?:remove-vm\s.*-(?:deletepermanently|deletefromdisk)\b"
            r"|remove-(?:vmhost|datastore|cluster|resourcepool)\b|stop-vm\s.*-kill\b)"
        ),
        "the machine and its disks are removed or killed without a clean shutdown.",
        "Ask the platform's owners before removing machines.",
    ),
    (
        "removes or locks directory accounts",
        re.compile(
            r"(?i)^(?:remove-ad(?:user|group|computer|organizationalunit|object)|remove-mailbox|"
            r"set-adaccountpassword\s.*-reset|disable-ad(?:account|user)|"
            r"remove-(?:azuread|mg)user)\b"
        ),
        "accounts are deleted, disabled or given a new password, locking people out.",
        "Change accounts through the directory's owners, one named account per request.",
    ),
    (
        "adds a Defender exclusion",
        re.compile(r"(?i)^(?:add|set)-mppreference\s.*-exclusion(?:path|process|extension)\b"),
        "files or programs the antivirus no longer scans.",
        "Leave the antivirus's scope alone.",
    ),
)
_BULK = re.compile(
    r"(?i)^get-(?:ad\w+|mailbox|vm|childitem|item|user)\b.*(?:-filter\s+['\"]?\*|-recurse\b|"
    r"-location\b|\\\\[\w.-]+\\)|^get-vm\s*$"
)
"""A read that yields many objects (every account, every VM of a cluster, a share's tree)."""
_SHARE = re.compile(r"\\\\[\w.$-]+\\[^\\\s'\"]+\\?(?:['\"\s]|$)")
"""A network share's root (``\\\\fs01\\Engineering``)."""
_NAMES = frozenset(["net", "net.exe", "reg", "reg.exe", "rm", "ri", "del", "rd", "rmdir", "erase"])
"""Programs besides PowerShell's cmdlets (``Verb-Noun``) these rules read."""


def windows_admin_line(typed: str) -> tuple[bool, str, str] | None:
    """What one administration line as typed does of what these rules name: critical or
    not, the title and why; ``None``: none."""
    return judge_line(typed, _CRITICAL, _HIGH)


def _fed_many(cmd: Cmd) -> str | None:
    """The read that feeds ``cmd`` many objects through a pipe, as typed, if any."""
    return next((as_typed(c) for c in cmd.upstream if _BULK.search(as_typed(c))), None)


@rule
def windows_admin(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Directory, mail, compliance, registry and virtualisation administration that
    escalates, forwards, purges, unprotects or deletes (see the module's docstring)."""
    name = cmd.name.lower()
    if name not in _NAMES and not re.match(r"^[a-z]+-[a-z]\w*$", name):
        return
    typed = as_typed(cmd)
    judged = windows_admin_line(typed)
    many = _fed_many(cmd)
    if name in ("remove-item", "rm", "ri", "del", "rd", "rmdir", "erase"):
        if re.search(r"(?i)\s-recurse\b|\s/s\b", typed) and (
            _SHARE.search(typed + " ") or (many is not None and _SHARE.search(many + " "))
        ):
            yield critical(
                "empties a network share",
                f"{many} | {typed}" if many else typed,
                "every file of a shared folder other people use is deleted for good.",
                "Delete only named files inside the workspace.",
            )
        return
    if judged is None:
        return
    is_critical, title, why = judged
    if many is not None and not is_critical:
        yield critical(f"{title}, for many at once", f"{many} | {typed}", why, "Ask first.")
        return
    fix = next(f for t, _, _, f in (*_CRITICAL, *_HIGH) if t == title)
    yield (critical if is_critical else high)(title, typed, why, fix)
