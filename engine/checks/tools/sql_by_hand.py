"""What an ``UPDATE`` or ``INSERT`` decides by hand that a process should decide: an approval,
a verification or a payment status set for people, consent recorded for people who never gave
it, administrator rights written into a row. Read as text on each statement (bounded), for
``exposure``; every reading is high (a person confirms). Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["decided_by_hand"]

_MAX_SQL = 100_000
_STATEMENT = re.compile(r"(?is)\b(update|insert\s+into|replace\s+into)\b([^;]{0,4000})")
_MAX_STATEMENTS = 200
_APPROVAL = re.compile(
    r"(?i)\b(?:\w*status|\w*state|approval\w*|kyc_\w+|verification\w*|review_state)\s*=\s*"
    r"'(?:approved|verified|cleared|paid|whitelisted|allowlisted)'"
)
_CONSENT = re.compile(
    r"(?i)\b(?:\w*consent\w*|\w*opt_?in\w*|\w*opted_?in|marketing_\w*|gdpr_\w*)\s*=\s*"
    r"(?:1|true|'(?:1|true|yes|y|granted|given)')"
)
_ADMIN = re.compile(
    r"(?i)administrator|superuser|super_?admin|\bis_?(?:admin|staff|superuser)\s*=\s*(?:1|true)"
    r"|\brole\w*\s*=\s*'(?:admin|owner|root)'"
)
_PEOPLE_TABLE = re.compile(r"(?i)\b\w*(?:user|member|account|profile|meta|role|capabilit)\w*\b")


def decided_by_hand(sql: str) -> Iterator[tuple[str, str]]:
    """``(title, why)`` for each decision the SQL makes by hand (one of each kind)."""
    seen: set[str] = set()
    for i, m in enumerate(_STATEMENT.finditer(sql[:_MAX_SQL])):
        if i >= _MAX_STATEMENTS:
            return
        body = m.group(2)
        found: tuple[str, str] | None = None
        if _APPROVAL.search(body):
            found = (
                "records an approval or a verification by hand",
                "the row now says a check passed or a payment was approved that no process "
                "or person did.",
            )
        elif _CONSENT.search(body):
            found = (
                "records people's consent by hand",
                "consent is set for people who never gave it: messages sent on it break the "
                "law that asks for it.",
            )
        elif _ADMIN.search(body) and _PEOPLE_TABLE.search(body[:200]):
            found = (
                "writes administrator rights into a row",
                "the account gets full control of the application, past its own role management.",
            )
        if found is not None and found[0] not in seen:
            seen.add(found[0])
            yield found
