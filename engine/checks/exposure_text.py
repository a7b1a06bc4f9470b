"""What a text grants, cuts or installs, read wherever it is written: a policy document, a
Terraform or Kubernetes file, a JSON body, a shell command's JSON argument, a SaaS call.

- **access given to anyone**: a policy principal ``"*"`` (AWS JSON and HCL), Google's
  ``allUsers``/``allAuthenticatedUsers``, Kubernetes' ``system:anonymous`` and
  ``system:unauthenticated`` groups, a canned ``public-read`` ACL;
- **recovery cut**: objects expired within a week by a lifecycle rule (not a scratch prefix),
  retention set to zero or one day, Time Travel off, versioning suspended, a table set to
  expire, an encryption key scheduled for deletion or destroyed, a history purge that skips its
  archive;
- **power handed out**: root or every-path grants of a secret store, servers without a token
  on every interface, alerts routed to nowhere;
- where code comes from (``exposure_supply``) and operations that blind or open a system
  (``exposure_ops``).

Pure functions of text: each yields ``(offset, title, why)``; callers bind them to a file's
line or a tool's argument. Typosquatted package names are ``package_names``'.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .exposure_ops import OPS_ANCHORS, ops_risks
from .exposure_supply import SUPPLY_ANCHORS, supply_risks

__all__ = ["SCRATCH", "TextRisk", "mentions", "text_risks"]

TextRisk = tuple[int, str, str]
"""``(offset, title, why)``."""

_MAX_TEXT = 200_000

# Anchors: words every match of a group's patterns contains, casefolded. A text that names none
# of a group's anchors cannot match it, so the group is not run (most texts name none: a
# command's arguments, a message). A pattern added to a group adds its anchor here.
_PUBLIC_ANCHORS = (
    "principal",
    "identifiers",
    "allusers",
    "allauthenticatedusers",
    "system:",
    "public-read",
)
_RECOVERY_ANCHORS = (
    "expiration",
    "days",
    "retention",
    "suspended",
    "versioning",
    "key",
    "kms",
    "skip-archive",
)
_POWER_ANCHORS = ("vault", "token_policies", "capabilities", "serverapp", "notebookapp", "auth")


def mentions(folded: str, anchors: tuple[str, ...]) -> bool:
    """Whether the casefolded text ``folded`` contains one of ``anchors``."""
    return folded is _EVERY or any(map(folded.__contains__, anchors))


_EVERY = "\x00every group"


_PUBLIC = re.compile(
    r"""(?x)
    "Principal"\s*:\s*"\*"
  | "Principal"\s*:\s*\{\s*"AWS"\s*:\s*(?:"\*"|\[\s*"\*"\s*\])
  | \bPrincipal\s*=\s*(?:"\*"|\{\s*AWS\s*=\s*"\*")
  | \bidentifiers\s*=\s*\[\s*"\*"\s*\]
  | \b(?:allUsers|allAuthenticatedUsers)\b
  | \bsystem:(?:anonymous|unauthenticated)\b
  | (?:--acl[\s=]+|"ACL"\s*:\s*"|\bacl\s*=\s*")public-read(?:-write)?\b
    """
)
SCRATCH = re.compile(
    r"(?i)(?:^|[^a-z])(?:tmp|temp|scratch|sandbox|cache|incomplete|multipart|dev)(?:[^a-z]|$)"
)
"""Words that name throwaway data (a ``tmp/`` prefix, a ``DEV.SCRATCH`` table)."""
_EFFECT = re.compile(r"""(?i)["']?\beffect["']?\s*[:=]\s*["'](allow|deny)["']""")
_EXPIRE_JSON = re.compile(
    r'"(?:Expiration|NoncurrentVersionExpiration)"\s*:\s*\{\s*"(?:Days|NoncurrentDays)"\s*:\s*(\d+)'
)
_EXPIRE_HCL_DAYS = re.compile(r"^\s*(?:days|noncurrent_days)\s*=\s*(\d+)\s*$", re.M)
_EXPIRE_HCL_BLOCK = re.compile(r"(?:expiration|noncurrent_version_expiration)\s*\{")
_RETENTION_ZERO = re.compile(
    r"""(?xi)
    \bDATA_RETENTION_TIME_IN_DAYS\s*=\s*0\b
  | ["']?\b(?:\w*_)?retention(?:_in)?_(?:days|period|time|hours)\b["']?\s*[:=]\s*["']?[01]\b(?!\.)
  | ["']?\bolder_than_days\b["']?\s*[:=]\s*["']?0\b
  | \bexpiration_timestamp\s*=
  | \bdefault_table_expiration_ms\s*[:=]
    """
)
_VERSIONING_OFF = re.compile(
    r"""(?xi)
    \bStatus\s*=\s*Suspended\b
  | "Status"\s*:\s*"Suspended"
  | \bversioning\s*\{\s*enabled\s*=\s*false
  | \bversioning_configuration\s*\{\s*status\s*=\s*"Suspended"
    """
)
_KEY_DESTROYED = re.compile(
    r"""(?xi)
    schedule[-_]?key[-_]?deletion
  | \bkms\s+keys\s+versions\s+destroy\b | \bcryptoKeyVersions/[^\s"':]+:destroy\b
  | \bkeyvault\s+key\s+(?:delete|purge)\b
    """
)
_HISTORY_PURGE = re.compile(r"(?i)\bdb\s+clean\b[^\n;&|]{0,300}--skip-archive\b")
_NULL_RECEIVER = re.compile(
    r"(?im)^\s*receiver:\s*[\"']?(?:null|blackhole|devnull|void)?[\"']?\s*$"
)


_ROOT_GRANT = re.compile(
    r"""(?xi)
    \bvault\s+token\s+create\b[^\n;|&]{0,300}?-policy[= ]["']?root\b
  | ["']?token_policies["']?\s*[:=]\s*\[?\s*["']?root\b
  | \bpath\s+"\*"\s*\{[^}]{0,300}?\bcapabilities\s*=\s*\[[^\]]*"sudo"
    """
)
_NO_AUTH_SERVER = re.compile(
    r"(?i)--(?:ServerApp|NotebookApp)\.(?:token|password)=(?:''|\"\"|\s|$)"
    r"|--(?:no-auth|disable-auth|auth[= ]none|auth-type[= ]none)\b"
)
_ALL_INTERFACES = re.compile(r"(?:--ip|--host|--bind|-b)[= ](?:0\.0\.0\.0|\*|::)(?:\s|:|$)")


def _power_granted(text: str) -> Iterator[TextRisk]:
    m = _ROOT_GRANT.search(text)
    if m is not None:
        yield (
            m.start(),
            "grants root or every path of a secret store",
            (
                "a root token or a policy with `sudo` on every path can read and change every "
                "secret, and outlives the task it was made for."
            ),
        )
    m = _NO_AUTH_SERVER.search(text)
    if m is not None and _ALL_INTERFACES.search(text):
        yield (
            m.start(),
            "serves without authentication on every interface",
            (
                "a server with its token or password empty, bound to 0.0.0.0, lets anyone who "
                "reaches the machine run code on it."
            ),
        )


def _alerts_silenced(text: str) -> Iterator[TextRisk]:
    for m in _NULL_RECEIVER.finditer(text):
        if re.search(
            r"(?i)critical|page|sev(?:erity)?[\s\"'=:]*[12]\b",
            text[max(0, m.start() - 200) : m.start()],
        ):
            yield (
                m.start(),
                "routes critical alerts to nowhere",
                ("alerts this route matched reach a receiver that drops them: nobody is paged."),
            )
            return


def text_risks(text: str, *, every_group: bool = False) -> Iterator[TextRisk]:
    """Every grant to anyone, cut to recovery, widened package index, code fetched and run,
    and silenced alert route in ``text``. ``every_group`` runs each group of patterns even on
    a text naming none of its anchors (the same findings, slower: for checking the anchors)."""
    text = text[:_MAX_TEXT]
    if not text.strip():
        return
    # casefolded: a superset of what the patterns' ignore-case matching finds
    folded = _EVERY if every_group else text.casefold()
    if mentions(folded, _PUBLIC_ANCHORS):
        yield from _public(text)
    if mentions(folded, _RECOVERY_ANCHORS):
        yield from _recovery_cut(text)
    if mentions(folded, SUPPLY_ANCHORS):
        yield from supply_risks(text)
    if mentions(folded, ("receiver",)):
        yield from _alerts_silenced(text)
    if mentions(folded, _POWER_ANCHORS):
        yield from _power_granted(text)
    if mentions(folded, OPS_ANCHORS):
        yield from ops_risks(text)


def _public(text: str) -> Iterator[TextRisk]:
    for m in _PUBLIC.finditer(text):
        if _denies(text, m.start()):
            continue  # a Deny for everyone (insecure transport, say) tightens access
        yield (
            m.start(),
            "grants access to anyone (a public principal)",
            f"`{m.group(0)[:60]}` opens what it governs to everyone on the internet (or every "
            "signed-in account).",
        )
        return


def _recovery_cut(text: str) -> Iterator[TextRisk]:
    for m in _EXPIRE_JSON.finditer(text):
        if int(m.group(1)) <= 7 and not SCRATCH.search(text[max(0, m.start() - 400) : m.end()]):
            yield m.start(), "expires stored objects within days", _EXPIRY_WHY
            break
    for m in _EXPIRE_HCL_DAYS.finditer(text):
        before = text[max(0, m.start() - 160) : m.start()]
        scratch = SCRATCH.search(text[max(0, m.start() - 400) : m.end()])
        if int(m.group(1)) <= 7 and _EXPIRE_HCL_BLOCK.search(before) and not scratch:
            yield m.start(), "expires stored objects within days", _EXPIRY_WHY
            break
    rules = (
        (_RETENTION_ZERO, "cuts retention to nothing", "data kept for recovery or audit is "
         "deleted at once or within a day, and nothing can bring it back."),
        (_VERSIONING_OFF, "suspends versioning", "overwritten or deleted objects can no "
         "longer be recovered from earlier versions."),
        (_KEY_DESTROYED, "destroys an encryption key", "everything encrypted under the key "
         "becomes unreadable for good once the deletion runs."),
        (_HISTORY_PURGE, "purges history without an archive", "the run, task and log "
         "history it removes is not archived first."),
    )  # fmt: skip
    for pattern, title, why in rules:
        found = pattern.search(text)
        if found is None:
            continue
        if pattern is _RETENTION_ZERO and SCRATCH.search(_statement(text, found.start())):
            continue
        yield found.start(), title, why


def _statement(text: str, offset: int) -> str:
    """The statement or line around ``offset`` (from the last ``;`` or line break before it)."""
    start = max(text.rfind(";", 0, offset), text.rfind("\n", 0, offset)) + 1
    end = min((i for i in (text.find(";", offset), text.find("\n", offset)) if i >= 0), default=-1)
    return text[start : end if end >= 0 else len(text)]


def _denies(text: str, offset: int) -> bool:
    """Whether the policy statement nearest ``offset`` has the effect Deny."""
    window = text[max(0, offset - 600) : offset + 600]
    here = min(offset, 600)
    nearest = min(_EFFECT.finditer(window), key=lambda e: abs(e.start() - here), default=None)
    return nearest is not None and nearest.group(1).lower() == "deny"


_EXPIRY_WHY = (
    "a lifecycle rule this short deletes backups, logs or exports (and their earlier "
    "versions) before anyone could need them."
)
