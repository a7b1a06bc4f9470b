"""What a text grants, cuts or installs, read wherever it is written: a policy document, a
Terraform or Kubernetes file, a JSON body, a shell command's JSON argument, a SaaS call.

- **access given to anyone**: a policy principal ``"*"`` (AWS JSON and HCL), Google's
  ``allUsers``/``allAuthenticatedUsers``, Kubernetes' ``system:anonymous`` and
  ``system:unauthenticated`` groups, a canned ``public-read`` ACL;
- **recovery cut**: objects expired within a week by a lifecycle rule (not a scratch prefix),
  retention set to zero or one day, Time Travel off, versioning suspended, a table set to
  expire, an encryption key scheduled for deletion or destroyed, a history purge that skips its
  archive;
- **the package index widened**: ``--extra-index-url`` (a name on both indexes may come from
  either: dependency confusion), an index over plain HTTP or at a raw address.

Pure functions of text: each yields ``(offset, title, why)``; callers bind them to a file's
line or a tool's argument. Typosquatted package names are ``package_names``'.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .exposure_ops import ops_risks

__all__ = ["SCRATCH", "TextRisk", "text_risks"]

TextRisk = tuple[int, str, str]
"""``(offset, title, why)``."""

_MAX_TEXT = 200_000

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
_HISTORY_PURGE = re.compile(r"(?i)\bdb\s+clean\b[^\n;&|]*--skip-archive\b")
_EXTRA_INDEX = re.compile(r"(?i)(?:^|[\s\"'])--extra-index-url(?:[\s=]+)(\S+)")
_PLAIN_INDEX = re.compile(
    r"(?i)(?:^|[\s\"'])(?:--index-url|-i|--registry)(?:[\s=]+)(http://\S+|https?://\d[\d.]+\S*)"
)


_REMOTE_MODEL_CODE = re.compile(r"\btrust_remote_code\s*=\s*True\b")
_UNSAFE_WEIGHTS = re.compile(r"\bweights_only\s*=\s*False\b")
_ADD_URL = re.compile(r"(?im)^\s*ADD\s+(?!.*--checksum)(?:--\S+\s+)*(https?://\S+)\s+(\S+)\s*$")
_RUNS_LINE = re.compile(r"(?im)^\s*(?:RUN|ENTRYPOINT|CMD)\b.*$")
_NULL_RECEIVER = re.compile(
    r"(?im)^\s*receiver:\s*[\"']?(?:null|blackhole|devnull|void)?[\"']?\s*$"
)


_PINNED = re.compile(r"\brevision\s*=\s*[\"'][0-9a-f]{40}[\"']")
_ROOT_GRANT = re.compile(
    r"""(?xi)
    \bvault\s+token\s+create\b[^\n;|&]*?-policy[= ]["']?root\b
  | ["']?token_policies["']?\s*[:=]\s*\[?\s*["']?root\b
  | \bpath\s+"\*"\s*\{[^}]{0,300}?\bcapabilities\s*=\s*\[[^\]]*"sudo"
    """
)
_NO_AUTH_SERVER = re.compile(
    r"(?i)--(?:ServerApp|NotebookApp)\.(?:token|password)=(?:''|\"\"|\s|$)"
    r"|--(?:no-auth|disable-auth|auth[= ]none|auth-type[= ]none)\b"
)
_ALL_INTERFACES = re.compile(r"(?:--ip|--host|--bind|-b)[= ](?:0\.0\.0\.0|\*|::)(?:\s|:|$)")
_GEM_SOURCE = re.compile(r"(?m)^\s*source\s+[\"'](https?://[^\"']+)[\"']")
_GO_REPLACE = re.compile(r"(?m)^\s*(?:replace\s+)?(\S+)(?:\s+v\S+)?\s*=>\s*(\S+)")


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


def _sources_swapped(text: str) -> Iterator[TextRisk]:
    for m in _GEM_SOURCE.finditer(text):
        url = m.group(1).lower()
        if url.startswith("http://") or not re.match(r"https://(?:rubygems\.org|gems\.)", url):
            if url.startswith("https://rubygems.org"):
                continue
            yield (
                m.start(),
                "installs gems from another source",
                (
                    f"`{m.group(1)[:80]}` is not rubygems.org"
                    + (" and is plain HTTP" if url.startswith("http://") else "")
                    + ": whoever serves it chooses every gem installed."
                ),
            )
            break
    for m in _GO_REPLACE.finditer(text):
        source, target = m.group(1), m.group(2)
        if target.startswith((".", "/")) or "/" not in source or "/" not in target:
            continue  # a local checkout: the developer's own code
        if source.split("/")[:2] != target.split("/")[:2]:
            yield (
                m.start(),
                "replaces a dependency with another module",
                (
                    f"`{source[:60]}` is built from `{target[:60]}`, another owner's code, "
                    "wherever the module is imported."
                ),
            )
            break


def _code_fetched(text: str) -> Iterator[TextRisk]:
    m = _REMOTE_MODEL_CODE.search(text)
    if m is not None and not _PINNED.search(text[max(0, m.start() - 300) : m.end() + 300]):
        yield (
            m.start(),
            "runs a model repository's own code (trust_remote_code)",
            (
                "`trust_remote_code=True` runs the Python the hub repository ships when the model "
                "loads: whoever controls that repository runs code here."
            ),
        )
    m = _UNSAFE_WEIGHTS.search(text)
    if m is not None:
        yield (
            m.start(),
            "loads a pickle that can run code (weights_only=False)",
            (
                "`weights_only=False` unpickles the whole checkpoint: a crafted file runs its own "
                "code when loaded."
            ),
        )
    for add in _ADD_URL.finditer(text):
        name = add.group(2).rstrip("/").rsplit("/", 1)[-1]
        runs = [r.group(0) for r in _RUNS_LINE.finditer(text, add.end())]
        if name and any(name in line for line in runs):
            yield (
                add.start(),
                "runs a file downloaded at build time",
                (
                    f"`{add.group(1)[:80]}` is fetched unverified (no `--checksum`) and then run: "
                    "whoever serves it chooses the code in every image."
                ),
            )
            break


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


def text_risks(text: str) -> Iterator[TextRisk]:
    """Every grant to anyone, cut to recovery, widened package index, code fetched and run,
    and silenced alert route in ``text``."""
    text = text[:_MAX_TEXT]
    if not text.strip():
        return
    for m in _PUBLIC.finditer(text):
        if _denies(text, m.start()):
            continue  # a Deny for everyone (insecure transport, say) tightens access
        yield (
            m.start(),
            "grants access to anyone (a public principal)",
            f"`{m.group(0)[:60]}` opens what it governs to everyone on the internet (or every "
            "signed-in account).",
        )
        break
    yield from _recovery_cut(text)
    yield from _index_widened(text)
    yield from _code_fetched(text)
    yield from _alerts_silenced(text)
    yield from _power_granted(text)
    yield from _sources_swapped(text)
    yield from ops_risks(text)


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


def _index_widened(text: str) -> Iterator[TextRisk]:
    m = _EXTRA_INDEX.search(text)
    if m is not None:
        yield (
            m.start(),
            "adds a second package index (dependency confusion)",
            f"with `--extra-index-url {m.group(1)[:80]}`, a package name on both indexes "
            "installs whichever offers the higher version: anyone who publishes that name on "
            "the other index runs code here.",
        )
    m = _PLAIN_INDEX.search(text)
    if m is not None:
        yield (
            m.start(),
            "installs packages from an unverified index",
            f"`{m.group(1)[:80]}` is plain HTTP or a raw address: whoever sits on the path "
            "chooses the code installed.",
        )
