"""Paths of files that hold secrets or describe the system, for the checks that see a path
leave (an e-mail attachment, a multipart upload, ``file://``, SQL's ``LOAD_FILE``)."""

from __future__ import annotations

import re

__all__ = ["backup_file", "data_export", "records_file", "secret_file", "system_file"]

_SECRET = re.compile(
    r"(?i)(?:^|[/\\])(?:"
    r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|[\w.-]*\.(?:pem|key|p12|pfx|jks|keystore|kdbx|ppk|asc|gpg)"
    r"|\.env(?:\.[\w-]+)?|\.netrc|_netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|\.htpasswd"
    r"|credentials(?:\.json|\.csv|\.xml|\.ya?ml)?|service[-_]?account[\w-]*\.json"
    r"|secrets?(?:\.[\w-]+)?\.(?:ya?ml|json|toml|env|txt)|kubeconfig"
    r"|wallet\.dat|shadow|gshadow|master\.key|vault[-_]?token|\.vault-token|token\.json"
    r"|terraform\.tfstate(?:\.backup)?|\.bash_history|\.zsh_history"
    r")$"
)
_SECRET_DIR = re.compile(
    r"(?i)(?:^|[/\\])(?:\.ssh|\.aws|\.gnupg|\.kube|\.docker|\.azure|\.config/gcloud|\.terraform\.d"
    r"|\.password-store|\.mozilla|Library/Keychains)(?:[/\\]|$)"
)
_SYSTEM = re.compile(
    r"(?i)^(?:/etc/|/proc/|/sys/|/root/|/var/lib/|/var/log/|/boot/|/dev/|c:[/\\]windows[/\\]"
    r"|c:[/\\]inetpub|/var/www/|/usr/local/etc/)"
)


def secret_file(path: str) -> bool:
    """``path`` names a file that holds credentials (keys, ``.env``, cloud credentials)."""
    text = path.strip().strip("'\"")[:1024]
    if not text:
        return False
    return bool(_SECRET.search(text) or _SECRET_DIR.search(text))


def system_file(path: str) -> bool:
    """``path`` lies in a system folder (``/etc``, ``/proc``, ``C:\\Windows``)."""
    text = path.strip().strip("'\"")[:1024]
    return bool(_SYSTEM.match(text)) or secret_file(text)


_DUMP = re.compile(
    r"(?i)(?:\.(?:sql|dump|bak|sqlite3?|mdb|accdb)(?:\.(?:gz|bz2|xz|zst|zip|7z))?$"
    r"|(?:^|[/\\])(?:backups?|dumps?|db[-_]?exports?)[/\\])"
)
_PEOPLE = re.compile(
    r"(?i)(?:^|[/\\_-])(?:customers?|clients?|users?|members?|contacts?|subscribers?|"
    r"employees?|patients?|leads?|accounts?|payroll|salar(?:y|ies)|students?|rosters?|grades?|"
    r"transcripts?|applicants?|donors?|alumni|enrollments?|guardians?|parents?|tenants?|"
    r"residents?|voters?|borrowers?|beneficiar(?:y|ies)|personnel|staff|drivers?)[\w-]*"
    r"\.(?:csv|tsv|xlsx?|"
    r"json|jsonl|parquet|xml)(?:\.(?:gz|zip))?$"
)


_MADE_UP = re.compile(r"(?i)(?:^|[/\\_.-])(?:synthetic|faker|fake|mock|dummy|fixtures?)(?:$|[_.-])")


def data_export(path: str) -> bool:
    """``path`` names a database dump or backup, or an export of people's records
    (``customers_full.csv``, ``backups/prod.sql.gz``)."""
    text = path.strip().strip("'\"")[:1024]
    if _MADE_UP.search(text.rsplit("/", 1)[-1]):
        return False  # generated rows (synthetic, faker, mock): no one's records
    return bool(_DUMP.search(text) or _PEOPLE.search(text))


_RECORD_WORDS = re.compile(
    r"(?<![a-z])(?:ssns?|salar(?:y|ies)|payrolls?|w-?2s?|customers?|contacts?|users?|patients?"
    r"|medical|cards?|passports?|kyc|crm|dumps?|exports?|backups?)(?![a-z])"
)
"""Words of a file name that say it holds people's records (SSNs, salaries, customers,
patients, cards, KYC) or a copy of a database (a dump, an export, a backup)."""
_COPY_FOLDER = re.compile(r"(?i)(?:^|[/\\])(?:dumps?|exports?|backups?)[/\\][^/\\]+$")
_DUMP_SUFFIX = re.compile(r"(?i)\.(?:sql|dump|bak)(?:\.(?:gz|bz2|xz|zst|zip|7z|tgz))?$")
_NOT_DATA = re.compile(
    r"(?i)\.(?:pyi?|m?js|cjs|jsx?|tsx?|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|php|sh|swift|scala"
    r"|md|rst|html?|css|scss|svg|png|jpe?g|gif|webp|ico|lock|toml|ya?ml|ini|cfg|conf)$"
)
"""Source code, documentation, pictures and settings: named after users or a backup, they hold
no one's records."""


def records_file(path: str) -> bool:
    """``path``'s name says it holds people's records or a copy of a database: a word of its
    name (``hr_salaries_ssn_2024.xlsx``, ``crm_contacts.csv``, ``CustomerExport.parquet``), a
    dump's suffix (``.sql``, ``.sql.gz``, ``.bak``, ``.dump``), or a file of an ``exports``,
    ``dumps`` or ``backups`` folder. Code, documents of the project, pictures and settings
    named so (``users.py``, ``backup.sh``) are none."""
    text = path.strip().strip("'\"").rstrip("/\\")[:1024]
    name = re.split(r"[/\\]", text)[-1]
    if not name or _NOT_DATA.search(name):
        return False
    if _DUMP_SUFFIX.search(name) or _COPY_FOLDER.search(text):
        return True
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()
    return bool(_RECORD_WORDS.search(words))


_BACKUP = re.compile(
    r"(?i)\.(?:sql|dump|sqlite3?|db)\.(?:gz|bz2|xz|zst|zip|7z)$|\.(?:dump|bak)$"
    r"|(?:^|[/\\])(?:backups?|dumps?|snapshots?)(?:[/\\]|$)"
    r"|\.(?:sqlite3?|db)$|(?:^|[/\\])(?:migrations?|db[/\\]migrate)[/\\]?$"
    r"|(?:^|[/\\])terraform\.tfstate(?:\.backup)?$"
)


def backup_file(path: str) -> bool:
    """``path`` names data that cannot be rebuilt: a backup (a compressed dump, a
    ``.bak``/``.dump``, a ``backups`` folder or anything in one), a database file
    (``app.db``, ``.sqlite``) or the migrations folder; a plain ``.sql`` is a query or a
    schema, not one."""
    return bool(_BACKUP.search(path.strip().strip("'\"")[:1024]))
