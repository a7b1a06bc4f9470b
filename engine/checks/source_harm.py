"""More of what a source file in another language, or a deployment manifest, can do to a
machine and its data, read as text by ``source_code``:

- the browser's saved passwords and cookies read (whoever has them is signed in as the user);
- passwordless root granted (a ``sudoers`` line);
- a shell startup file or ``authorized_keys`` written from code (persistence, a way in);
- a database deleted through a cloud SDK, with no final snapshot;
- SQL that runs a program on the database server (``COPY … PROGRAM``), wherever it is written,
  a function's body included;
- in a Kubernetes manifest: cluster control bound to anonymous or every user, a miner's image.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .tools.shell_rules_windows import windows_line

__all__ = [
    "CODE_RULES",
    "MANIFEST_RULES",
    "SQL_RULES",
    "Rule",
    "code_harms",
    "manifest_harms",
    "powershell_harms",
    "searched",
]

Rule = tuple[re.Pattern[str], Severity, str, str]
"""A search of a file's added text, the severity of a match, its title and why it matters."""

_WRITE = re.compile(
    r"(?i)append|write|\bopen\([^)]{0,200}[\"'][aw]\+?[\"']|>>|O_APPEND|O_WRONLY|File\.open|"
    r"fopen|fputs|FileWriter|FileOutputStream|Files\.write|\.puts\b|tee\b"
)
"""A call that writes or appends to a file (checked beside a path that matters)."""

_BROWSER_STORE = re.compile(
    r"[\"'/\\]Login Data[\"'/\\]|\blogins\.json\b|\bkey[34]\.db\b|\bcookies\.sqlite\b|"
    r"\bsignons\.sqlite\b|\blogin\.keychain(?:-db)?\b|"
    r"(?:Chrome|Chromium|Edge|BraveSoftware|Brave-Browser|Opera|Vivaldi)\b[^\n]{0,160}"
    r"[\"'/\\](?:Cookies|Web Data|Local State)[\"'/\\]"
)
_PASSWORDLESS_ROOT = re.compile(r"\bNOPASSWD\s*:\s*ALL\b")
_SHELL_PROFILE = re.compile(
    r"[\"'/\\]\.(?:bashrc|bash_profile|bash_login|zshrc|zprofile|zshenv|profile)[\"')]|"
    r"[\"']\.config/fish/config\.fish[\"']|\bPowerShell_profile\.ps1\b|\$PROFILE\b"
)
_AUTHORIZED_KEYS = re.compile(r"\bauthorized_keys2?\b")
_DATABASE_DELETE = re.compile(
    r"\b(?:Delete|delete_?)(?:DB|Db|db_)(?:Instance|Cluster|instance|cluster)\w*\s*\(|"
    r"\bdelete_db_(?:instance|cluster)\s*\("
)
_NO_SNAPSHOT = re.compile(r"(?i)skip_?final_?snapshot\W{0,12}(?:aws\.Bool\(\s*)?true")
_SERVER_PROGRAM = re.compile(r"(?is)\bCOPY\b[^;]{0,400}?\b(?:TO|FROM)\s+PROGRAM\b")
_OPEN_BINDING = re.compile(
    r"(?s)kind:\s*(?:Cluster)?RoleBinding\b.{0,2000}?"
    r"(?:name:\s*[\"']?(?:cluster-admin|admin|edit)[\"']?\s*$.{0,600}?"
    r"name:\s*[\"']?system:(?:anonymous|unauthenticated|authenticated|serviceaccounts)[\"']?\s*$|"
    r"name:\s*[\"']?system:(?:anonymous|unauthenticated|authenticated|serviceaccounts)[\"']?\s*$"
    r".{0,600}?name:\s*[\"']?(?:cluster-admin|admin|edit)[\"']?\s*$)",
    re.MULTILINE,
)
_MINER_IMAGE = re.compile(
    r"(?i)\bimage:\s*[\"']?[\w./-]*(?:xmrig|xmr-stak|cpuminer|minerd|nbminer|t-rex|lolminer|"
    r"phoenixminer|ethminer|nanominer)\b|stratum\+(?:tcp|ssl|tls)://"
)

_UNVERIFIED_TOKEN = re.compile(
    r"\bJWT\.decode\(\s*\w+\s*\)|\bjwt\.decode\(\s*\w+\s*(?:,\s*\{[^}]{0,80}complete[^}]*\})?\)|"
    r"\bjwt_decode\(|\bparseClaimsJwt\(|\bparseUnsecuredClaims\(|"
    r"algorithms\s*[:=]\s*\[\s*[\"']none[\"']|\bdangerous_insecure_decode\b|"
    r"insecure_disable_signature_validation\(\)|\bJwtSecurityToken\(\s*\w+\s*\)"
)
_VERIFIES = re.compile(r"(?i)\bverify\w*\(|\.require\(|parseClaimsJws|validate\w*token")
_SERVER_AUTH = re.compile(
    r"\bprincipal\b|\bPrincipal\(|\bauthenticate\b|\bSecurityContext|\bcanActivate\b|"
    r"\breq\.user\s*=|\bctx\.state\.user\s*=|\bcurrent_user\b|\bsetAuthentication\(|"
    r"\bClaimsPrincipal\b|\bconn\s*\|>\s*assign\(\s*:current_user"
)
_REVERSED = re.compile(
    r"strrev\(\s*[\"'](\w{3,30})[\"']\s*\)|[\"'](\w{3,30})[\"']\.split\(\s*[\"']{2}\s*\)"
    r"\.reverse\(\)\.join\(|[\"'](\w{3,30})[\"']\.reverse\b|reverse\(\s*[\"'](\w{3,30})[\"']\s*\)"
)
_HIDDEN_NAMES = frozenset(
    {
        "eval", "exec", "system", "shell_exec", "passthru", "popen", "proc_open", "assert",
        "create_function", "base64_decode", "execSync", "spawn", "child_process", "Function",
        "require", "unserialize", "Invoke-Expression", "iex", "Runtime", "ProcessBuilder",
    }
)  # fmt: skip
"""Names code has no honest reason to write backwards."""

_ROOT_RULE: Rule = (
    _PASSWORDLESS_ROOT,
    Severity.HIGH,
    "grants passwordless root (a sudoers line)",
    "`NOPASSWD: ALL` lets that account run anything as root without a password.",
)
_PROGRAM_RULE: Rule = (
    _SERVER_PROGRAM,
    Severity.CRITICAL,
    "runs a program on the database server (COPY … PROGRAM)",
    "COPY … PROGRAM runs a shell command as the database server's account.",
)

CODE_RULES: tuple[Rule, ...] = (
    (
        _BROWSER_STORE,
        Severity.CRITICAL,
        "reads the browser's saved passwords or cookies",
        "A browser's password and cookie stores sign whoever holds them in as the user.",
    ),
    _ROOT_RULE,
    _PROGRAM_RULE,
)
"""Rules of one search each, for source files in other languages."""

MANIFEST_RULES: tuple[Rule, ...] = (
    (
        _OPEN_BINDING,
        Severity.CRITICAL,
        "gives cluster control to anonymous or every user",
        "A role binding of cluster-admin, admin or edit to system:anonymous, "
        "system:unauthenticated or every account hands the cluster to anyone who can reach it.",
    ),
    (
        _MINER_IMAGE,
        Severity.CRITICAL,
        "runs a crypto-miner",
        "A miner's image or pool: the cluster's power goes to someone else.",
    ),
    _ROOT_RULE,
    _PROGRAM_RULE,
)
"""Rules for deployment manifests and configuration (YAML)."""

SQL_RULES: tuple[Rule, ...] = (_PROGRAM_RULE,)
"""Rules for SQL files beyond their statements' own checks (a function's body is text)."""


def code_harms(text: str) -> Iterator[tuple[int, Rule]]:
    """The offset and rule of each harm a source file's added ``text`` shows."""
    yield from searched(text, CODE_RULES)
    unverified = _UNVERIFIED_TOKEN.search(text)
    if unverified and _SERVER_AUTH.search(text) and not _VERIFIES.search(text):
        yield (
            unverified.start(),
            (
                _UNVERIFIED_TOKEN,
                Severity.HIGH,
                "trusts a token's claims without checking its signature",
                "Anyone can write a token that says who they are: it signs them in as anyone.",
            ),
        )
    for m in _REVERSED.finditer(text):
        word = next(g for g in m.groups() if g)
        if word[::-1] in _HIDDEN_NAMES:
            yield (
                m.start(),
                (
                    _REVERSED,
                    Severity.CRITICAL,
                    f"hides the name {word[::-1]!r}, written backwards",
                    "A dangerous call's name is spelt backwards so that a reader misses it.",
                ),
            )
            break
    if _WRITE.search(text):
        yield from _writes(text)
    yield from _deletes(text)


def manifest_harms(text: str) -> Iterator[tuple[int, Rule]]:
    """The offset and rule of each harm a manifest's added ``text`` shows."""
    yield from searched(text, MANIFEST_RULES)


def searched(text: str, rules: tuple[Rule, ...]) -> Iterator[tuple[int, Rule]]:
    """The offset and rule of each of ``rules`` that ``text`` matches (its first match)."""
    for rule in rules:
        found = rule[0].search(text)
        if found is not None:
            yield found.start(), rule


def _writes(text: str) -> Iterator[tuple[int, Rule]]:
    profile = _SHELL_PROFILE.search(text)
    if profile is not None:
        yield (
            profile.start(),
            (
                _SHELL_PROFILE,
                Severity.HIGH,
                "writes a shell startup file",
                "What a shell startup file holds runs at every login: a way to stay.",
            ),
        )
    keys = _AUTHORIZED_KEYS.search(text)
    if keys is not None:
        yield (
            keys.start(),
            (
                _AUTHORIZED_KEYS,
                Severity.CRITICAL,
                "writes authorized_keys (a key that logs in over SSH)",
                "A key added to authorized_keys logs its holder in, now and later.",
            ),
        )


def _deletes(text: str) -> Iterator[tuple[int, Rule]]:
    deleted = _DATABASE_DELETE.search(text)
    if deleted is None:
        return
    unsaved = _NO_SNAPSHOT.search(text)
    yield (
        deleted.start(),
        (
            _DATABASE_DELETE,
            Severity.CRITICAL if unsaved else Severity.HIGH,
            "deletes a database" + (" with no final snapshot" if unsaved else ""),
            "A deleted database instance takes its data with it"
            + ("; with no final snapshot nothing can bring it back." if unsaved else "."),
        ),
    )


_PS_RUN = re.compile(
    r"(?i)\|\s*(?:iex|invoke-expression)\b|(?<![\w-])(?:iex|invoke-expression)\s*[($'\"]"
)
_PS_FETCHED = re.compile(
    r"(?i)\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|downloadfile|"
    r"net\.webclient|frombase64string|-enc(?:odedcommand)?)\b"
)
_PS_SEGMENT = re.compile(r"\s*(?:\|\||&&|;|\||\{|\})\s*")


def powershell_harms(text: str) -> Iterator[tuple[int, Rule]]:
    """What a PowerShell script's lines do, by the Windows rules of the shell checks (each
    statement from its cmdlet on), and code downloaded or decoded and then run."""
    offset = 0
    for line in text.split("\n")[:5_000]:
        statement = line.strip()
        if statement and not statement.startswith("#"):
            if _PS_RUN.search(statement) and _PS_FETCHED.search(statement):
                yield (
                    offset,
                    (
                        _PS_RUN,
                        Severity.CRITICAL,
                        "runs code it downloads or decodes",
                        "Invoke-Expression runs whatever the download or the encoded text holds.",
                    ),
                )
            for part in _PS_SEGMENT.split(statement)[:32]:
                judged = windows_line(part) if part else None
                if judged is not None:
                    worst, title, why = judged
                    severity = Severity.CRITICAL if worst else Severity.HIGH
                    yield offset, (_PS_SEGMENT, severity, title, why)
                    break
        offset += len(line) + 1
