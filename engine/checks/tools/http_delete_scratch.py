"""Everyday DELETEs of ``tool-http`` that remove the agent's own throwaway data on a host that
is not live: test indices matched by a wildcard on a development cluster, one object of a
scratch bucket, a staging server's test-fixture reset, and the agent's own session.

A wildcard DELETE of indices (``logs-*``) or a DELETE to a host outside ``allowed_hosts``
needs a person because the data may not come back. But a name that says the data is scratch
or test data (``loadtest-2024.03.*``, ``agent-scratch/tmp/x.zip``, ``/api/test-fixtures``),
on a host named for development or staging, or in a bucket named for scratch work, is what a
test run or a job leaves behind. Names that say audit, security, backup or production keep
the rule, and so do wildcards with no name before them.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .http_call import HttpCall

__all__ = ["own_session_logout", "scratch_fixture_reset", "scratch_index_wildcard",
           "scratch_object_delete"]  # fmt: skip

_NOT_LIVE_HOST = frozenset(
    {"dev", "development", "staging", "stage", "stg", "sandbox", "test", "testing", "qa",
     "uat", "sbx", "nonprod", "preprod", "lab"}
)  # fmt: skip
_SCRATCH = frozenset(
    {"scratch", "tmp", "temp", "test", "tests", "testing", "loadtest", "perftest", "e2e",
     "fixture", "fixtures", "synthetic", "dummy", "mock", "sandbox", "playground", "qa"}
)  # fmt: skip
_KEEP = frozenset(
    {"audit", "audits", "security", "siem", "backup", "backups", "snapshot", "snapshots",
     "prod", "production", "prd", "live", "archive", "legal", "compliance", "billing",
     "ledger", "customer", "customers", "patient", "patients"}
)  # fmt: skip
_OBJECT_HOST = re.compile(
    r"(?:^|\.)(?:storage\.googleapis\.com|blob\.core\.windows\.net|s3(?:[.-][a-z0-9-]+)?"
    r"\.amazonaws\.com|digitaloceanspaces\.com|r2\.cloudflarestorage\.com)$"
)


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text[:300].lower()) if w}


def _host_not_live(host: str) -> bool:
    return bool({p for p in re.split(r"[.-]", host.lower()[:200]) if p} & _NOT_LIVE_HOST)


def _scratch_named(words: set[str]) -> bool:
    return bool(words & _SCRATCH) and not words & _KEEP


def scratch_index_wildcard(call: HttpCall) -> bool:
    """A wildcard DELETE of indices named as test or scratch data with a fixed prefix before
    the wildcard (``loadtest-2024.03.*``) on a development or staging cluster."""
    url = call.url
    if url is None or call.method != "DELETE" or not _host_not_live(url.host.name):
        return False
    parts = [p for p in unquote(url.path).split("/") if p]
    if len(parts) != 1 or "," in parts[0] or not re.match(r"[a-z0-9][a-z0-9._-]{2,}\*", parts[0]):
        return False
    return "all" not in unquote(url.query).lower() and _scratch_named(_words(parts[0]))


def scratch_object_delete(call: HttpCall) -> bool:
    """A DELETE of one object of cloud storage (no wildcard, no prefix listing) whose bucket or
    key is named as scratch or temporary work (``…/agent-scratch/tmp/export.zip``)."""
    url = call.url
    if url is None or call.method != "DELETE":
        return False
    host = url.host.name.lower().rstrip(".")
    if len(host) > 200 or not _OBJECT_HOST.search(host):
        return False
    path = unquote(url.path)
    if "*" in path or path.endswith("/") or path.count("/") < 2:
        return False
    if re.search(r"(?i)\b(?:prefix|recursive|delimiter)=", url.query):
        return False
    return _scratch_named(_words(path))


def scratch_fixture_reset(call: HttpCall) -> bool:
    """A DELETE of a test-fixture collection (``/api/test-fixtures/``) on a staging, sandbox
    or test host: the reset a test run makes before it starts."""
    url = call.url
    if url is None or call.method != "DELETE" or not _host_not_live(url.host.name):
        return False
    parts = [p for p in unquote(url.path).split("/") if p]
    if not parts or "*" in parts[-1]:
        return False
    last = _words(parts[-1])
    return bool(last & {"fixture", "fixtures", "seed", "seeds"}) and not last & _KEEP


def own_session_logout(call: HttpCall) -> bool:
    """A DELETE of the caller's own current session (``/sessions/current``, ``/session``,
    ``/oauth/token/self``): a logout."""
    url = call.url
    if url is None or call.method != "DELETE":
        return False
    parts = [p.lower() for p in unquote(url.path).split("/") if p][-3:]
    if len(parts) >= 2 and parts[-2] in ("session", "sessions", "login", "logins"):
        return parts[-1] in ("current", "me", "self", "mine")
    return bool(parts) and parts[-1] in ("logout", "signout", "sign_out", "log_out")
