"""Changes whose harm is in what they switch off or remove rather than in code that runs:
database migrations that drop data, lockfiles that fetch a package from a host that is no
package index, infrastructure and workload settings that expose or unprotect
(Kubernetes host access, Terraform rules open to the internet, deletion protection off),
production settings weakened, and authentication checks removed or short-circuited.

Each finding needs a human (high); turning off a token's signature check is stopped (critical).
Read on added lines (and, for removed checks, removed lines) of every file of the change,
tool writes and edits included."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from humangr.contracts import Severity

from .access_opened import (
    any_origin_with_credentials,
    audit_dropped,
    bypass_header,
    opens_access,
    opens_line,
)
from .base import CheckInput, Hit, is_test_path, snippet
from .diff import FileDiff
from .diff_model import DiffLine
from .languages import DOWN_FILE, MIGRATION_PATH, migration_function, sql_section
from .tools.egress_mail import domain_allowed
from .tools.http_sites import FORGES, PACKAGE_INDEXES

__all__ = [
    "HOST_ACCESS",
    "HOST_PATH",
    "OPEN_INFRA",
    "auth_weakened",
    "credential_upload",
    "risky_settings",
]

_DROPS = re.compile(
    r"\bop\.drop_(?:table|column)\b|\bremove_column\b|\bdrop_table\b|\bremove_reference\b"
    r"|\bmigrations\.(?:DeleteModel|RemoveField)\b|\bDROP\s+(?:TABLE|COLUMN)\b"
    r"|\.dropTable(?:IfExists)?\(|\.dropColumn\(|\bdropColumn\b",
    re.IGNORECASE,
)
HOST_ACCESS = re.compile(
    r"^\s*-?\s*(?:privileged|hostNetwork|hostPID|hostIPC|allowPrivilegeEscalation)\s*:\s*"
    r"(?:true|\"true\")\s*$|^\s*-?\s*add\s*:\s*\[?\s*[\"']?(?:ALL|SYS_ADMIN)",
)
HOST_PATH = re.compile(
    r"hostPath\s*:\s*\n\s*path\s*:\s*[\"']?/(?:var/run/docker\.sock|proc|etc|root|home)?"
    r"/?[\"']?\s*$",
    re.MULTILINE,
)
_CODE = (
    ".py",
    ".js",
    ".jsx",
    ".ts",
    ".tsx",
    ".mjs",
    ".cjs",
    ".rb",
    ".go",
    ".java",
    ".kt",
    ".php",
    ".cs",
    ".rs",
    ".scala",
    ".ex",
    ".exs",
    ".swift",
    ".lua",
    ".groovy",
    ".clj",
    ".dart",
    ".vue",
    ".svelte",
)
_CHECK_LINE = re.compile(
    r"^\s*(?:if\b|elif\b|unless\b|@|assert\b|before_action\b|guard\b|\w+\.use\()"
    r"|^\s*[\"'][\w.]*Middleware[\"'],?\s*$|\baudit\w*\.\w+\("
    r"|(?:login_required|requires?_auth|authenticate|authorize|check_password|verify_password|"
    r"bcrypt\.compare|compare_digest|has_perm|verifyToken|jwt\.verify|ensureAuth)\w*\s*\(",
    re.IGNORECASE,
)
OPEN_INFRA = re.compile(
    r"\b(?:cidr_blocks|ipv6_cidr_blocks|source_ranges|source_address_prefix(?:es)?)\s*=\s*"
    r"\[?\s*\"(?:0\.0\.0\.0/0|::/0|\*|Internet)\""
    r"|\bdeletion_protection\s*=\s*false\b|\bskip_final_snapshot\s*=\s*true\b"
    r"|\bprevent_destroy\s*=\s*false\b|\bpublicly_accessible\s*=\s*true\b"
    r"|\bacl\s*=\s*\"public-read(?:-write)?\""
    r"|\bblock_public_(?:acls|policy)\s*=\s*false\b|\brestrict_public_buckets\s*=\s*false\b"
    r"|\bactions\s*=\s*\[[^\]]*\"(?:\*|[a-z0-9-]+:\*)\"|\"Action\"\s*:\s*\"\*\"",
)
_PRODUCTION_PATH = re.compile(r"(?:^|[/._-])prod(?:uction)?(?:[/._-]|$)", re.IGNORECASE)
_WEAK_SETTING = re.compile(
    r"^\s*(?:DEBUG\s*=\s*True|ALLOWED_HOSTS\s*=\s*\[\s*[\"']\*[\"']\s*\]"
    r"|\w*(?:COOKIE_SECURE|SSL_REDIRECT|COOKIE_HTTPONLY)\s*=\s*False"
    r"|debug\s*:\s*true|\w*(?:verify_ssl|ssl_verify|tls_verify)\s*[:=]\s*(?:false|False))\b"
)


_LOCKFILE = re.compile(
    r"(?:^|/)(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|"
    r"poetry\.lock|Pipfile\.lock|uv\.lock|pdm\.lock|Gemfile\.lock|composer\.lock|Cargo\.lock)$"
)
_LOCK_URL = re.compile(r"\b(?:git\+)?(?:https?|git|ssh)://(?:[^@/\s\"']+@)?([A-Za-z0-9.-]+)")


def _lines(f: FileDiff) -> Iterator[tuple[int, str]]:
    for line in f.added[:5_000]:
        yield line.number, line.text


def risky_settings(ctx: CheckInput) -> Iterator[Hit]:
    """Migrations that drop tables or columns; Kubernetes workloads given the host; Terraform
    open to the internet or unprotected from deletion; production settings weakened."""
    for f in ctx.files:
        path = f.path or ""
        if path.startswith("<") or is_test_path(path):
            continue
        found = _finding(path, f, ctx.options.allowed_hosts)
        if found is not None:
            line, title, why = found
            yield Hit(
                severity=Severity.HIGH,
                title=title,
                description=f"{path}:{line}: {why}",
                suggestion="Have a person confirm it: what it removes or exposes is not "
                "taken back by reverting the file.",
                file=path,
                line=line,
            )


def _owners(lines: Iterable[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for text in lines:
        words = text.split("#", 1)[0].split()
        if words:
            out.setdefault(words[0], set()).update(words[1:])
    return out


def _owners_dropped(f: FileDiff) -> bool:
    """A CODEOWNERS change that takes an owner off a path (a line removed, or rewritten
    without one of its owners)."""
    before = _owners(line.text for line in f.removed[:5_000])
    after = _owners(line.text for line in f.added[:5_000])
    return any(not owners <= after.get(pattern, set()) for pattern, owners in before.items())


def _foreign_source(f: FileDiff, allowed: frozenset[str]) -> tuple[int, str] | None:
    """The first added line of a lockfile that fetches a package from a host that is no
    package index or forge (nor in ``allowed_hosts``): its line and that host."""
    for number, text in _lines(f):
        for m in _LOCK_URL.finditer(text):
            host = m.group(1).lower()
            if not (
                FORGES.search(host) or PACKAGE_INDEXES.search(host) or domain_allowed(host, allowed)
            ):
                return number, host
    return None


def _finding(
    path: str, f: FileDiff, allowed: frozenset[str] = frozenset()
) -> tuple[int, str, str] | None:
    if path.endswith("CODEOWNERS") and _owners_dropped(f):
        line = f.added[0].number if f.added else 1
        return line, "review owners removed", "a path no longer needs its owners' approval."
    if _LOCKFILE.search(path) and (foreign := _foreign_source(f, allowed)) is not None:
        number, host = foreign
        return (
            number,
            "a lockfile fetches a package from another host",
            f"a package now comes from {host[:80]}, which is no package index: its install "
            "scripts run whatever that host serves.",
        )
    migration = bool(MIGRATION_PATH.search(path))
    infra = path.endswith((".tf", ".tf.json", ".hcl", ".bicep"))
    manifest = path.endswith((".yaml", ".yml"))
    production = bool(_PRODUCTION_PATH.search(path))
    if manifest and f.added:
        whole = "\n".join(line.text for line in f.added[:5_000])
        m = HOST_PATH.search(whole)
        if m is not None:
            number = f.added[whole.count("\n", 0, m.start())].number
            return number, "a workload given the host", "a hostPath volume mounts the host's files."
    reverting = bool(DOWN_FILE.search(path))
    for number, text in _lines(f):
        if migration and (opened := migration_function(text)) is not None:
            reverting = opened
        elif migration and (section := sql_section(text)) is not None:
            reverting = section == "down"
        if migration and not reverting and _DROPS.search(text):
            return number, "migration drops data", f"`{snippet(text)}` removes a table or column."
        if infra and OPEN_INFRA.search(text):
            return (
                number,
                "infrastructure opened or unprotected",
                (f"`{snippet(text)}` opens a resource to the internet or lets it be deleted."),
            )
        if manifest and HOST_ACCESS.search(text):
            return (
                number,
                "a workload given the host",
                (
                    f"`{snippet(text)}` gives a container the host's network, processes, files "
                    "or privileges."
                ),
            )
        if production and _WEAK_SETTING.search(text):
            return (
                number,
                "production settings weakened",
                (f"`{snippet(text)}` turns off a protection of the production configuration."),
            )
    return None


_AUTH_WORDS = re.compile(
    r"is_authenticated|login_required|requires?_auth|authenticate|authoriz|permission|"
    r"check_password|verify_password|bcrypt\.compare|compare_digest|csrf|has_perm|"
    r"\bis_admin\b|isAuthenticated|ensureAuth|verifyToken|jwt\.verify|passport\.authenticate|"
    r"CsrfViewMiddleware|SecurityMiddleware|AuthenticationMiddleware|limiter\.limit|"
    r"rate_?limit|throttle|helmet\(|csurf|audit_?log|\baudit\.\w+\(|record_audit",
    re.IGNORECASE,
)
_SHORTED = re.compile(
    r"\bif\s*\(?\s*(?:false\s*&&|False\s+and\b|true\s*\|\||True\s+or\b|0\s*&&|1\s*\|\|)"
)
_EXEMPTED = re.compile(
    r"^\s*@(?:csrf_exempt|csrf\.exempt|skip_before_action\s+:verify_authenticity)"
)
_TOKEN_UNCHECKED = re.compile(
    r"[\"']?verify_signature[\"']?\s*:\s*False|verify\s*=\s*False.*\bjwt\b|\bjwt\b.*verify\s*="
    r"\s*False|algorithms\s*=\s*\[\s*[\"']none[\"']|ignoreExpiration\s*:\s*true|"
    r"jwt\.decode\([^)]*complete\s*=\s*True[^)]*verify|\bverify\s*:\s*false\b",
    re.IGNORECASE,
)


def auth_weakened(ctx: CheckInput) -> Iterator[Hit]:
    """An authentication or authorisation check removed by a change (its line removed and no
    such check added), short-circuited (``if (false && …)``), or a token's signature no longer
    verified (critical)."""
    for f in ctx.files:
        path = f.path or ""
        if not path.endswith(_CODE) or is_test_path(path):
            continue
        added = f.added[:5_000]
        for line in added:
            found = _weakening(line.text) or opens_line(line.text)
            if found is not None:
                yield _hit(path, line.number, *found)
                break
        yield from _opened(f, path, added)
        removed = [
            line
            for line in f.removed[:5_000]
            if _AUTH_WORDS.search(line.text) and _CHECK_LINE.search(line.text)
        ]
        kept = any(_AUTH_WORDS.search(line.text) and not opens_access(line.text) for line in added)
        if removed and not kept:
            first = removed[0]
            yield _hit(
                path,
                f.added[0].number if f.added else None,
                Severity.HIGH,
                "security check removed",
                f"the change removes `{snippet(first.text)}` and adds no check instead.",
            )


def _opened(f: FileDiff, path: str, added: tuple[DiffLine, ...]) -> Iterator[Hit]:
    """A request header let decide authentication or auditing, and CORS open to any origin
    with credentials, in the added lines (read with the file's other known lines)."""
    text = "\n".join(line.text for line in added)
    whole = "\n".join(ln.text for h in f.hunks for ln in h.lines if ln.kind != "-")
    for found in (bypass_header(text, whole), any_origin_with_credentials(text)):
        if found is not None:
            offset, (severity, title, why) = found
            number = added[text.count("\n", 0, offset)].number
            yield _hit(path, number, severity, title, why)
    dropped = audit_dropped("\n".join(line.text for line in f.removed[:5_000]), text)
    if dropped is not None:
        yield _hit(path, added[0].number if added else None, *dropped)


def _weakening(text: str) -> tuple[Severity, str, str] | None:
    """What an added line does to a check: a token's signature unchecked (critical), a view
    exempted from CSRF, a check's condition made constant."""
    if _TOKEN_UNCHECKED.search(text):
        return (
            Severity.CRITICAL,
            "token signature not verified",
            (f"`{snippet(text)}` accepts tokens anyone can forge."),
        )
    if _EXEMPTED.search(text):
        return (
            Severity.HIGH,
            "CSRF protection turned off",
            (f"`{snippet(text)}` exempts a view from CSRF checks."),
        )
    if _SHORTED.search(text) and _AUTH_WORDS.search(text):
        return (
            Severity.HIGH,
            "authentication check disabled",
            (f"`{snippet(text)}` makes the check's condition constant."),
        )
    return None


def _hit(path: str, line: int | None, severity: Severity, title: str, why: str) -> Hit:
    return Hit(
        severity=severity,
        title=title,
        description=f"{path}: {why}",
        suggestion="Keep the check; if it must change, have a person review the new one.",
        file=path,
        line=line,
    )


_AUTORUN = re.compile(r"(?:^|/)(?:setup|conftest|sitecustomize|usercustomize|noxfile|fabfile)\.py$")
"""Python files run by installing, testing or starting Python: no one calls them on purpose."""


def credential_upload(ctx: CheckInput) -> Iterator[Hit]:
    """Python code of a change that opens a credential file and talks to the network: the
    credential leaves (critical in a file Python runs by itself, ``setup.py`` or
    ``conftest.py``; high elsewhere)."""
    from .tools.shell_code import scan_code, sends_files
    from .tools.shell_paths import is_secret

    for f in ctx.files:
        path = f.path or ""
        if not path.endswith((".py", ".pyw")) or (is_test_path(path) and "conftest" not in path):
            continue
        code = "\n".join(line.text for line in f.added[:5_000])
        if not sends_files(code):
            continue  # nothing read is sent: the full scan is not needed
        scan = scan_code(code)
        read = [c[4:].strip("'") for c in scan.commands if c.startswith("cat ")]
        secrets = [p for p in read if is_secret(p)]
        if not (scan.upload and secrets):
            continue
        line = next((n.number for n in f.added if secrets[0] in n.text), None)
        autorun = bool(_AUTORUN.search(path))
        yield Hit(
            severity=Severity.CRITICAL if autorun else Severity.HIGH,
            title="sends a credential file",
            description=f"{path}: the code reads {secrets[0]} and sends data over the network"
            + (", and Python runs this file by itself" if autorun else "")
            + ".",
            suggestion="Never read credential files in code that talks to the network.",
            file=path,
            line=line,
        )
