"""The audit trail: one ``AgentRunRecord`` per agent call, one JSON line per record.

Records go to ``docs/monitor/audit/<YYYY-MM-DD>.jsonl`` in the project (the UTC day of the
record's timestamp), appended under the project's file lock through ``ProjectStore``.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from humangr.contracts import AgentRunRecord
from humangr.contracts.codec import decode, encode
from humangr.engine.errors import ContractError

from .storage import ProjectStore

__all__ = ["AUDIT_DIR", "AuditLog", "audit_path"]

AUDIT_DIR = "docs/monitor/audit"
_DAY_FILE = re.compile(r"\d{4}-\d{2}-\d{2}\.jsonl")


def audit_path(day: date) -> str:
    """The project-relative path of one day's audit file."""
    return f"{AUDIT_DIR}/{day.isoformat()}.jsonl"


def _day(day: date | str) -> date:
    if isinstance(day, datetime):
        return day.astimezone(UTC).date()
    if isinstance(day, date):
        return day
    return date.fromisoformat(day)


class AuditLog:
    """Append and read the audit records of one project (synchronous, like ``ProjectStore``)."""

    def __init__(self, store: ProjectStore) -> None:
        self.store = store

    def append(self, record: AgentRunRecord) -> str:
        """Append ``record`` as one line; returns the path of the day file it went to."""
        if record.project_id != self.store.project_id:
            raise ContractError(
                "AgentRunRecord",
                "$.project_id",
                f"record of project {record.project_id!r} refused by the audit log of "
                f"{self.store.project_id!r}",
            )
        path = audit_path(_day(record.timestamp))
        self.store.append(path, encode(record).decode("utf-8"))
        return path

    def days(self) -> list[str]:
        """The days (``YYYY-MM-DD``) that have an audit file, oldest first."""
        names = (p.rsplit("/", 1)[-1] for p in self.store.list(AUDIT_DIR))
        return sorted(n.removesuffix(".jsonl") for n in names if _DAY_FILE.fullmatch(n))

    def read(self, day: date | str | None = None) -> list[AgentRunRecord]:
        """The records of ``day`` (every day when ``None``) in the order they were appended.

        A line that does not decode raises ``ContractError`` naming the file and line: a
        damaged audit trail is reported, never skipped.
        """
        days = self.days() if day is None else [_day(day).isoformat()]
        records: list[AgentRunRecord] = []
        for name in days:
            path = f"{AUDIT_DIR}/{name}.jsonl"
            if not self.store.exists(path):
                continue
            for number, line in enumerate(self.store.read(path).splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    records.append(decode(line, AgentRunRecord))
                except ContractError as exc:
                    raise ContractError("AgentRunRecord", f"{path}:{number}", exc.problem) from None
        return records
