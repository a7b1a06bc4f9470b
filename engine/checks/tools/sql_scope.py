"""Where a tool call's SQL runs and which rows it reaches: the database it names (production, a
throwaway test or scratch database, an audit database, a service's live database file), the
kind of table a statement changes (people's, money's, access's or clinical records; a scratch
schema's).

Data and small pure predicates, with no SQL parser loaded; the rules that use them, and the
reading of a WHERE, are in ``sql_mass``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .view import ToolView

__all__ = [
    "Target",
    "cache_table",
    "record_table",
    "sensitive_table",
    "sql_target",
    "test_database",
    "throwaway_schema",
    "transient_table",
]


@dataclass(frozen=True, slots=True)
class Target:
    """What the call's arguments say about the database its SQL runs in."""

    production: bool = False
    """Named production (``prod``, ``live``), or a service's database file (``/opt/…/x.db``)."""
    throwaway: bool = False
    """A test, CI, fixture, scratch or sandbox database: its tables are rebuilt at will."""
    audit: bool = False
    """The database itself keeps an audit or moderation trail (``audit.db``)."""


_WHERE_ARGS = (
    "database",
    "db",
    "db_name",
    "database_name",
    "schema",
    "dataset",
    "catalog",
    "keyspace",
    "db_path",
    "database_path",
    "db_file",
    "path",
    "file",
    "connection",
    "connection_string",
    "dsn",
    "database_url",
    "db_url",
    "url",
    "env",
    "environment",
    "project",
    "target",
    "profile",
)
_THROWAWAY_WORDS = frozenset(
    {"test", "tests", "testing", "ci", "fixture", "fixtures", "scratch", "sandbox", "tmp",
     "temp", "e2e", "unittest", "pytest", "playground", "throwaway", "dev", "devel",
     "development", "local", "loadtest", "perftest", "synthetic"}
)  # fmt: skip
"""Words of a database's or schema's name that say its tables are rebuilt at will."""
_PRODUCTION_WORDS = frozenset({"prod", "production", "prd", "live"})
_SERVICE_DATA = re.compile(r"^(?:/opt/|/srv/|/var/lib/|/var/opt/|/data/)")
"""Folders a deployed service keeps its database files in (not an agent's workspace)."""
_DB_FILE = re.compile(r"(?i)\.(?:db|sqlite3?|duckdb)$")


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w}


def sql_target(view: ToolView, production: bool) -> Target:
    """The target the call's database, schema, path and environment arguments name."""
    names: list[str] = []
    for name in _WHERE_ARGS:
        got = view.get(name)
        if got is not None and isinstance(got[1], str) and got[1].strip():
            names.append(got[1][:512])
    words = set().union(*(_words(n) for n in names)) if names else set()
    workspace = (view.call.workspace or "").rstrip("/")
    service_file = any(
        _SERVICE_DATA.match(n)
        and _DB_FILE.search(n)
        and not (workspace and n.startswith(workspace + "/"))
        for n in names
    )
    production = production or bool(words & _PRODUCTION_WORDS) or service_file
    throwaway = not production and bool(words & _THROWAWAY_WORDS)
    audit = bool(words & {"audit", "audits", "audit_log", "audittrail"})
    return Target(production=production, throwaway=throwaway, audit=audit)


def _parts(name: str) -> list[str]:
    """``a.b.c`` and ```a.b`.c`` as parts without quotes."""
    return [p for p in re.split(r"\.", re.sub(r"[`\"\[\]]", "", name)) if p]


def throwaway_schema(name: str) -> bool:
    """A table of a scratch, test, fixture or sandbox schema or dataset, or of a development
    database (``scratch.tmp_x``, ``test_fixtures.sample_rows``, ``proj.scratch_jdoe.weekly``,
    ``acme_dev.dbt_jo.stg_orders``)."""
    parts = _parts(name)
    return (len(parts) >= 2 and bool(_words(parts[-2]) & _THROWAWAY_WORDS)) or (
        len(parts) >= 3 and bool(_words(parts[-3]) & _THROWAWAY_WORDS)
    )


_TRANSIENT_WORDS = frozenset(
    {"stage", "staging", "stg", "landing", "import", "imports", "buffer", "ingest", "inbound"}
)  # fmt: skip
"""Words of a schema or table that holds rows only until a load moves them on."""


def transient_table(name: str) -> bool:
    """A table that holds rows on their way somewhere (``etl_stage.raw_835``,
    ``staging.opc_import_buffer``, any table of a project or database named for staging:
    ``acme-staging.etl.raw_sales``): emptied and refilled by every load."""
    parts = _parts(name)
    return any(_words(p) & _TRANSIENT_WORDS for p in parts[-3:]) and not sensitive_table(name)


def cache_table(name: str) -> bool:
    """A table of cached, regenerable rows (``cache_page``, ``render_cache``): emptied, it is
    rebuilt on the next request."""
    table = _parts(name)[-1:] or [""]
    words = [w for w in re.split(r"[^a-z0-9]+", table[0].lower()) if w]
    return bool(words) and (words[0] == "cache" or words[-1] == "cache")


_TEST_WORDS = frozenset(
    {"test", "tests", "testing", "ci", "e2e", "unittest", "pytest", "scratch", "tmp", "temp",
     "throwaway", "fixture", "fixtures"}
)  # fmt: skip
"""Words of a database's name that say it is made for a test run (not ``dev``: people keep
work in a development database)."""


def test_database(name: str) -> bool:
    """A database named for tests (``acme_test``, ``ci_4821``, ``e2e-tmp``)."""
    parts = _parts(name)
    return bool(parts) and bool(_words(parts[-1]) & _TEST_WORDS)


_RECORD_NOUNS = frozenset(
    {"account", "accounts", "user", "users", "player", "players", "customer", "customers",
     "member", "members", "employee", "employees", "student", "students", "patient",
     "patients", "purchase", "purchases", "payment", "payments", "invoice", "invoices",
     "transaction", "transactions", "refunds", "subscriptions", "ledger", "balances",
     "wallets", "bans", "sanctions", "suspensions", "keys", "licenses", "licences",
     "entitlements", "grades", "claims", "payouts", "orders", "results", "prescriptions",
     "diagnoses", "encounters", "charts", "records"}
)  # fmt: skip
"""Last words of a table's name that say its rows are people's, money's, access's or clinical
records (``players``, ``steam_keys``, ``purchases``; not ``user_sessions``)."""
_RECORD_DOMAINS = frozenset(
    {"patient", "patients", "clinical", "medical", "ehr", "emr", "phi", "pii", "health",
     "billing", "payroll", "finance", "accounts", "moderation"}
)  # fmt: skip
"""Words of a schema's or table's name that make all its tables records (``ehr.*``,
``clinical.*``, ``patient_flags``)."""


def record_table(name: str) -> bool:
    """A table of records that matter (``clinical.lab_results``, ``players``, ``steam_keys``,
    ``ehr.patient_flags``), read from its last word and its and its schema's words."""
    parts = _parts(name)
    if not parts:
        return False
    table = [w for w in re.split(r"[^a-z0-9]+", parts[-1].lower()) if w]
    schema = _words(parts[-2]) if len(parts) >= 2 else set()
    if table and table[-1] in _RECORD_NOUNS and (table[-1] != "results" or schema):
        return True
    return sensitive_table(name)


def sensitive_table(name: str) -> bool:
    """A table of a clinical, personal-data, billing or moderation schema, or named so
    (``clinical.lab_results``, ``ehr.patient_flags``): a class of its rows changed is never
    routine, whatever the database."""
    parts = _parts(name)[-2:]
    return any(_words(p) & _RECORD_DOMAINS for p in parts)
