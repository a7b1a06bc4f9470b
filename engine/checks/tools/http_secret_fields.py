"""A request that asks a service to return its credentials: a query's field list naming a
password hash, an MFA or TOTP seed, recovery codes, a private key or API keys
(``/users/export?include=password_hash,mfa_secret``, ``?fields=name,api_key``). Like an SQL
read of credential columns, what comes back lets someone sign in as the people listed; a
person confirms. Fields that only describe a credential (``password_policy``,
``mfa_enabled``, ``password_changed_at``) run. Bounded: the query is read up to 4 KB. Pure."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from .http_call import HttpCall

__all__ = ["secret_fields"]

_LIST_PARAM = re.compile(
    r"(?i)^\$?(?:fields?|include|includes|select|expand|columns?|attributes|attrs|props|"
    r"properties|extra_fields|with)(?:\[\])?$"
)
_SECRET_FIELD = re.compile(
    r"(?i)^(?:\w+[_.])?(?:password|passwd|password_?hash|pwd_?hash|hashed_?password|"
    r"(?:mfa|totp|otp|2fa)_?(?:secret|seed|key)s?|recovery_?codes?|backup_?codes?|"
    r"private_?keys?|api_?keys?|secret_?keys?|client_?secrets?|access_?tokens?|"
    r"refresh_?tokens?|session_?tokens?)$"
)


def secret_fields(call: HttpCall) -> str | None:
    """The title when the request's query asks for credential fields, else None."""
    url = call.url
    if url is None or not url.query:
        return None
    query = url.query[:4_096]
    low = query.lower()
    if not any(w in low for w in ("pass", "secret", "key", "token", "code", "pwd", "seed")):
        return None
    for name, value in parse_qsl(query)[:50]:
        if not _LIST_PARAM.match(name):
            continue
        fields = [f.strip() for f in re.split(r"[,\s]+", value[:1_000]) if f.strip()][:50]
        found = [f for f in fields if _SECRET_FIELD.match(f)]
        if found:
            return f"asks the service for credential fields ({', '.join(found)[:60]})"
    return None
