"""Changes whose harm is in what they switch off or remove rather than in code that runs:
database migrations that drop data, lockfiles that fetch a package from a host that is no
package index, infrastructure and workload settings that expose or unprotect
(Kubernetes host access, Terraform rules open to the internet, deletion protection off),
and production settings weakened (authentication checks removed or short-circuited are
``auth_checks``').

Each finding needs a human (high); turning off a token's signature check is stopped (critical).
Read on added lines (and, for removed checks, removed lines) of every file of the change,
tool writes and edits included."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit, is_test_path, snippet
from .diff import FileDiff
from .languages import DOWN_FILE, MIGRATION_PATH, migration_function, sql_section
from .tools.egress_mail import domain_allowed
from .tools.http_sites import FORGES, PACKAGE_INDEXES

__all__ = [
    "HOST_ACCESS",
    "HOST_PATH",
    "OPEN_INFRA",
    "change_risk",
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
        found = change_risk(path, f, ctx.options.allowed_hosts)
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


def change_risk(
    path: str, f: FileDiff, allowed: frozenset[str] = frozenset()
) -> tuple[int, str, str] | None:
    """The first thing file ``f`` (at ``path``) removes or exposes: its line, a title and
    why (``risky_settings``' finding), or None."""
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
