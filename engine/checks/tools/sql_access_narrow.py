"""Least-privilege access work that ``tool-sql`` lets run: a named right taken away (``REVOKE
SELECT ON SCHEMA x FROM old_contractors``), a bare role made to hold rights (``CREATE ROLE
dash_ro``, no login, password nor admin attribute), and reads on every table of one schema
that holds no personal data (``GRANT SELECT ON ALL TABLES IN SCHEMA marts_agg TO ROLE
reporter``).

Taking rights away is how access is tightened; ``REVOKE ALL`` (which can cut a service off) and
the other shapes stay with their rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .sql_issue import Issue, fragment
from .sql_lex import TokKind
from .sql_parse import Parsed

__all__ = ["account_lock", "bare_role", "login_disabled", "one_schema_reads", "revoke"]

_ROLE_POWERS = frozenset(
    {"LOGIN", "SUPERUSER", "PASSWORD", "CREATEROLE", "CREATEDB", "BYPASSRLS", "REPLICATION",
     "ADMIN", "INHERIT", "IN", "USER", "IDENTIFIED", "WITH"}
)  # fmt: skip
"""Words that make a role more than a name rights are granted to (``WITH`` opens them)."""
_PERSONAL = frozenset(
    {"pii", "phi", "patient", "patients", "clinical", "medical", "ehr", "emr", "health", "hr",
     "payroll", "kyc", "customer", "customers", "user", "users", "people", "person", "personal",
     "identity", "auth", "secret", "secrets", "credential", "credentials", "member", "members",
     "employee", "employees", "public", "dbo", "main", "default", "raw"}
)  # fmt: skip
"""Schema words that hold people's data or everything (``public``, ``dbo``)."""
_SCRUBBED = frozenset(
    {"deidentified", "deid", "anonymized", "anonymised", "anon", "masked", "agg", "aggregate",
     "aggregates", "aggregated", "summary", "summaries", "rollup", "rollups"}
)  # fmt: skip
"""Schema words that say its rows no longer name anyone (``deidentified``, ``finance_agg``)."""


def _words(name: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", name.lower()[:128]) if w}


def one_schema_reads(target: list[str]) -> bool:
    """``ALL TABLES|VIEWS IN SCHEMA <one schema>`` whose name says nothing personal (or says
    the data is de-identified or aggregated): reads of one reporting schema, not of every
    table of the database."""
    if len(target) < 5 or target[:1] != ["ALL"] or "SCHEMA" not in target[:4]:
        return False
    name = target[target.index("SCHEMA") + 1 :]
    if not name or "," in name or any(w in ("*", "ALL") for w in name):
        return False
    schema = _words(name[-1])
    if not schema:
        return False
    return bool(schema & _SCRUBBED) or not schema & _PERSONAL


def bare_role(words: list[str]) -> bool:
    """``CREATE ROLE [IF NOT EXISTS] name`` with no login, password or admin attribute: a
    name that holds only what is granted to it next."""
    if words[:1] != ["ROLE"]:
        return False
    rest = words[1:12]
    if rest[:3] == ["IF", "NOT", "EXISTS"]:
        rest = rest[3:]
    return len(rest) <= 1 and not set(rest) & _ROLE_POWERS


_BUILT_IN = re.compile(r"^(?:sys|system|root|sa|dba|admin\w*|\w*_?admin|postgres|rdsadmin|outln)$")
"""Built-in or administrator accounts: unlocking one is no routine help-desk step."""


def account_lock(what: str, words: list[str]) -> bool:
    """``ALTER USER name ACCOUNT LOCK|UNLOCK`` of an ordinary account: locking cuts access and
    runs; unlocking gives it back, which a person confirms (whether it was locked after failed
    sign-ins or by security, the call cannot say); a built-in or administrator account
    (``SYS``, ``root``) stays with the rule for users."""
    return (
        what == "USER"
        and len(words) == 3
        and words[1] == "ACCOUNT"
        and words[2] in ("LOCK", "UNLOCK")
        and _BUILT_IN.match(words[0].strip('"`').lower()) is None
    )


def login_disabled(what: str, words: list[str]) -> bool:
    """``ALTER ROLE name [WITH] NOLOGIN`` or ``ALTER LOGIN name DISABLE`` of an ordinary
    account: its sign-in is switched off and nothing else changes (the offboarding step, as
    ``ACCOUNT LOCK`` is); a built-in or administrator account stays with the rule."""
    if what not in ("ROLE", "USER", "LOGIN") or not words:
        return False
    rest = [w for w in words[1:4] if w != "WITH"]
    off = ["DISABLE"] if what == "LOGIN" else ["NOLOGIN"]
    return rest == off and _BUILT_IN.match(words[0].strip('"`[]').lower()) is None


def revoke(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """``REVOKE ALL`` (or ``ALL PRIVILEGES``) may cut a service off: critical; a named right
    or role taken from a named grantee tightens access and runs."""
    toks = [t for t in p.stmt.tokens[i + 1 : i + 64] if t.kind is not TokKind.COMMENT]
    words = [t.upper for t in toks if t.kind is TokKind.WORD]
    upto = words.index("ON") if "ON" in words else len(words)
    rights = set(words[:upto])
    if rights & {"ALL", "PRIVILEGES"} or "FROM" not in words:
        yield Issue(Severity.CRITICAL, "revokes privileges", fragment(p), "privilege")
