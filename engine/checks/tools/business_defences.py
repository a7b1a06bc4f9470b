"""Defences and preservation taken down, read from a tool's name words and its argument pairs
(for ``business``), each high:

- evidence preservation released: a legal or litigation hold lifted or deleted, a retention
  policy removed, an ethical wall between matters taken down;
- a security product switched off: a WAF, firewall, fraud rule, EDR prevention policy or
  security defaults disabled, an exclusion that matches everything;
- access planted: a member added to a directory (administrator) role, an application secret
  minted for years, an SSH key put into a machine's metadata, authentication switched off;
- machines and stores destroyed: a VM, instance, database or historian deleted with its disks,
  archive or final backup, many machines powered off at once, indexed events deleted by a
  search, a service shut down through its management endpoint.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

from .business_holds import reservation_hold
from .business_words import DELETE_VERBS, Finding, Pair, acts, everything, switched_off

__all__ = ["defences_down"]

_HOLDS = frozenset({"hold", "holds", "legalhold", "legalholds", "litigationhold", "retention"})
_LIFTS = DELETE_VERBS | {"release", "lift", "disable", "deactivate", "end", "close"}
_WALLS = frozenset({"wall", "walls", "barrier", "barriers", "screen", "screening"})
_ON_KEYS = re.compile(r"(?i)^(?:\w*_)?(?:enabled|is_?enabled|enable|active|status|state|mode)$")
_DEFENCES = frozenset(
    {"waf", "firewall", "radar", "prevention", "edr", "antivirus", "antimalware", "defender",
     "detection", "detections", "securitydefaults", "guardduty", "ddos", "ids", "ips",
     "sensor", "tamper", "fraud", "security", "ruleset", "rulesets"}
)  # fmt: skip
_OFF_VERBS = frozenset({"disable", "deactivate", "unenforce", "pause"})
_ACTION_KEYS = re.compile(r"(?i)^(?:action\w*|operation|mode|state|status)$")
_EXCLUDES = frozenset(
    {"exclusion", "exclusions", "allowlist", "whitelist", "exception", "exceptions", "exempt"}
)  # fmt: skip
_MATCH_ALL = re.compile(r"^\s*(?:\.\*|\*|/\.\*/|\.\+|all|any|\*\.\*)\s*$", re.IGNORECASE)
_MINTS = frozenset({"add", "create", "new", "mint", "generate", "addpassword", "addkey"})
_APP_SECRETS = frozenset({"password", "secret", "credential", "credentials", "key", "keys"})
_APPS = frozenset(
    {"application", "applications", "app", "apps", "serviceprincipal", "serviceprincipals",
     "principal", "client"}
)  # fmt: skip
_END_KEYS = re.compile(r"(?i)^(?:end_?date\w*|expir\w*|valid_?(?:until|to)|not_?after)$")
_YEAR = re.compile(r"^(\d{4})-\d{2}")
_SSH_KEYS = re.compile(r"(?i)^(?:ssh[-_]?keys|sshkeys|authorized_?keys|ssh_?public_?keys?)$")
_NO_AUTH = re.compile(r"(?i)^(?:require_?auth\w*|auth\w*_required|authentication_?enabled)$")
_ANONYMOUS = re.compile(r"(?i)^allow_?anonymous\w*$")
_MACHINES = frozenset(
    {"vm", "vms", "instance", "instances", "server", "servers", "database", "databases", "db",
     "historian", "points", "cluster", "volume", "volumes", "disk", "disks", "machine",
     "machines", "host", "hosts"}
)  # fmt: skip
_NO_WAY_BACK = re.compile(
    r"(?i)^(?:delete_?from_?disk|skip_?final_?(?:backup|snapshot)|delete_?(?:archive|backups?|"
    r"data|disks?|snapshots?)\w*|hard|force|permanent\w*|purge\w*)$"
)
_POWER = frozenset({"poweroff", "shutdown", "halt", "stop"})
_PATTERN_KEYS = re.compile(r"(?i)^(?:\w*pattern|\w*filter|name_?\w*|selector|match)$")
_REACH = frozenset(
    {"subscribe", "subscription", "subscriptions", "audience", "audiences", "list", "lists",
     "campaign", "upload", "import", "consent", "profiles", "contacts", "segment"}
)  # fmt: skip
_OPTED_OUT = re.compile(
    r"(?i)unsubscrib|suppress(?:ed|ion)|opt[\s_-]?outs?\b|opted[\s_-]?out|do[\s_-]?not[\s_-]?"
    r"(?:sell|share|contact|email|mail)"
)
_CONTENT_KEYS = frozenset(
    {"html", "body", "text", "content", "subject", "message", "body_html", "body_text",
     "template", "markdown", "plain"}
)  # fmt: skip
"""What a message says (its own unsubscribe link), not whom it reaches."""
_STATUS_KEYS = re.compile(r"^(?:\w{0,30}_)?(?:status|state)$")
_SENDS = frozenset({"campaign", "campaigns", "send", "audience", "audiences", "segment"})
_LOG_INPUTS = frozenset({"input", "inputs", "collector", "collection", "forwarder", "ingestion"})
_OPEN_STORE = re.compile(
    r"(?i)^(?:allow_?blob_?public_?access|public_?network_?access|"
    r"network_?rule_?default_?action|default_?action)$"
)
_SEARCH_DELETE = re.compile(r"\|\s*delete\s*(?:$|\|)")


def defences_down(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Preservation released, security switched off, access planted or machines destroyed."""
    searched = _searched_delete(pairs)
    if searched is not None:
        yield searched
        return
    if not acts(words):
        return
    for reader in (_preservation, _security_off, _access_planted, _destroyed, _opted_out):
        found = reader(words, pairs)
        if found is not None:
            yield found
            return


def _off(pairs: Sequence[Pair], keys: re.Pattern[str]) -> str | None:
    return next(
        (k for k, v in pairs if keys.match(k) and switched_off(v)),
        None,
    )


def _preservation(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    holds = (words & _HOLDS or any("hold" in k for k, _ in pairs)) and not reservation_hold(words)
    if holds and (words & _LIFTS or _off(pairs, _ON_KEYS) or _off(pairs, re.compile(r".*hold"))):
        return (
            "releases a legal hold or retention",
            "data preserved for litigation, an investigation or the law can now be deleted.",
            "Let the legal or records owner lift holds and retention.",
        )
    dropped = words & DELETE_VERBS or any("delete" in k and v is True for k, v in pairs)
    if words & {"matter", "matters"} and dropped:
        return (
            "deletes a legal matter",
            "a matter's holds preserve evidence; deleted with it, the data can be purged.",
            "Let the legal or records owner close and delete matters.",
        )
    if words & _WALLS and words & (DELETE_VERBS | {"disable", "lift"}):
        return (
            "takes down an ethical wall",
            "people screened from a matter can now reach its files.",
            "Let the conflicts or compliance team change ethical walls.",
        )
    return None


def _security_off(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if words & _DEFENCES:
        said_off = words & _OFF_VERBS or _off(pairs, _ACTION_KEYS) or _off(pairs, _ON_KEYS)
        if said_off:
            return (
                "switches a security control off",
                "a firewall, fraud rule, endpoint protection or tenant security default stops "
                "protecting what it covered.",
                "Let the security team change security controls.",
            )
    if words & _LOG_INPUTS and words & _OFF_VERBS:
        return (
            "stops collecting logs",
            "events stop reaching the log platform: what happens next is not seen.",
            "Let the security team change what is collected.",
        )
    opened = next(
        (
            k
            for k, v in pairs
            if _OPEN_STORE.match(k)
            and (v is True or (isinstance(v, str) and v.strip().lower() in ("enabled", "allow")))
        ),
        None,
    )
    if opened is not None:
        return (
            "opens storage to the internet",
            f"`{opened}`: the store is reachable from any network, its blobs without sign-in.",
            "Keep storage private; share through named identities.",
        )
    if words & _EXCLUDES and any(isinstance(v, str) and _MATCH_ALL.match(v[:20]) for _, v in pairs):
        return (
            "exempts everything from detection",
            "an exclusion that matches anything blinds the control on every host or request.",
            "Exclude one named file, process or rule, and let the security team confirm.",
        )
    return None


def _access_planted(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if {"directory", "roles"} <= words and words & {"members", "member", "ref", "create"}:
        return (
            "adds a member to a directory role",
            "directory roles are administrator roles: the member gains control of the tenant.",
            "Let an identity administrator grant roles, for a limited time.",
        )
    if words & _APP_SECRETS and words & _APPS and words & _MINTS:
        years = _years_left(pairs)
        if years is None or years >= 2:
            return (
                "mints a long-lived application secret",
                "a secret on an app registration signs in as the app for years, unseen.",
                "Use a short-lived secret or a managed identity; let a person confirm.",
            )
    ssh = next((k for k, v in pairs if _SSH_KEYS.match(k) and isinstance(v, str) and v), None)
    if ssh is not None:
        return (
            "puts an SSH key on a machine",
            f"`{ssh}` lets whoever holds the key sign in to the machine from now on.",
            "Let the machine's owner add keys, through the usual access process.",
        )
    auth = _off(pairs, _NO_AUTH) or next(
        (k for k, v in pairs if _ANONYMOUS.match(k) and v is True), None
    )
    if auth is not None:
        return (
            "switches authentication off",
            f"`{auth}`: anyone who reaches the service can use it.",
            "Keep authentication on; let a person confirm exceptions.",
        )
    return None


def _years_left(pairs: Sequence[Pair]) -> int | None:
    for key, value in pairs:
        if _END_KEYS.match(key) and isinstance(value, str):
            m = _YEAR.match(value.strip())
            if m is not None:
                return int(m.group(1)) - datetime.now(UTC).year
    return None


def _searched_delete(pairs: Sequence[Pair]) -> Finding | None:
    """A log search piped to ``delete`` (a read tool's name does not make it a read)."""
    if any(isinstance(v, str) and _SEARCH_DELETE.search(v[:4096]) for k, v in pairs):
        return (
            "deletes indexed events",
            "a search piped to `delete` erases the events it matches from the index.",
            "Let the log platform's owner delete indexed data.",
        )
    return None


def _opted_out(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    """People who unsubscribed or opted out put back on a list or an ad audience."""
    if not words & _REACH:
        return None
    sets = words & {"update", "set", "patch", "edit", "modify"} and not words & _SENDS
    if any(
        isinstance(v, str)
        and k not in _CONTENT_KEYS
        and not (sets and _STATUS_KEYS.match(k))  # ``status="unsubscribed"``: an opt-out done
        and _OPTED_OUT.search(v[:300])
        for k, v in pairs
    ):
        return (
            "reaches people who opted out",
            "the call subscribes, uploads or targets people who unsubscribed or refused the "
            "sharing of their data.",
            "Leave suppressed and opted-out people out; let the privacy owner confirm.",
        )
    return None


def _destroyed(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if "actuator" in words and words & {"shutdown", "restart", "pause"}:
        return (
            "shuts a service down",
            "the management endpoint stops the running service for everyone.",
            "Let a person stop services, through a change.",
        )
    if not words & _MACHINES:
        return None
    flag = next((k for k, v in pairs if _NO_WAY_BACK.match(k) and v is True), None)
    if words & DELETE_VERBS and flag is not None:
        return (
            "destroys machines or stores for good",
            f"`{flag}`: what they held goes with them, with no backup to bring it back.",
            "Let a person confirm the delete, after a final backup.",
        )
    wide = any(
        _PATTERN_KEYS.match(k) and isinstance(v, str) and "*" in v for k, v in pairs
    ) or everything(pairs)
    if wide and (words & DELETE_VERBS or words & _POWER or {"power", "off"} <= words):
        return (
            "acts on every machine a pattern selects",
            "every machine or store the pattern matches is deleted or stopped at once.",
            "Name the machines one by one, and let a person confirm.",
        )
    return None
