"""Enumerations shared by every message. Ordered enums compare by rank, not by string."""

from __future__ import annotations

import enum
from typing import Any

__all__ = [
    "AgentName",
    "FindingSource",
    "LayerID",
    "LayerStatus",
    "OrderedStrEnum",
    "Outcome",
    "ResponseStatus",
    "Severity",
    "TaskStatus",
    "ToolKind",
    "VetoLevel",
]


class OrderedStrEnum(enum.StrEnum):
    """A string enum whose members order by declaration, never by their string value."""

    _rank: int

    def __init__(self, *_: object) -> None:
        self._rank = len(type(self)._member_names_)

    @property
    def rank(self) -> int:
        return self._rank

    def _other_rank(self, other: Any) -> int:
        if type(other) is not type(self):
            raise TypeError(
                f"cannot order {type(self).__name__} against {type(other).__name__}; "
                "compare members of the same enum"
            )
        return int(other._rank)

    def __lt__(self, other: Any) -> bool:
        return self._rank < self._other_rank(other)

    def __le__(self, other: Any) -> bool:
        return self._rank <= self._other_rank(other)

    def __gt__(self, other: Any) -> bool:
        return self._rank > self._other_rank(other)

    def __ge__(self, other: Any) -> bool:
        return self._rank >= self._other_rank(other)

    def __hash__(self) -> int:
        return hash(self.value)


class LayerID(enum.StrEnum):
    HL1 = "HL1"
    HL2 = "HL2"
    HL3 = "HL3"
    HL4 = "HL4"
    HL5 = "HL5"
    HL6 = "HL6"
    HL7 = "HL7"


class VetoLevel(OrderedStrEnum):
    NONE = "none"
    WEAK = "weak"
    MEDIUM = "medium"
    STRONG = "strong"


class Severity(OrderedStrEnum):
    INFO = "info"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class LayerStatus(enum.StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"


class Outcome(enum.StrEnum):
    APPROVED = "approved"
    REJECTED = "rejected"
    NEEDS_REVIEW = "needs_review"


class FindingSource(enum.StrEnum):
    LLM = "llm"
    RULES = "rules"


class AgentName(enum.StrEnum):
    CTO = "cto"
    ENGINEER = "engineer"
    PM = "pm"
    DEV = "dev"
    QA = "qa"
    MONITOR = "monitor"


class ResponseStatus(enum.StrEnum):
    OK = "OK"
    FAIL = "FAIL"
    BLOCKED = "BLOCKED"
    NEEDS_INFO = "NEEDS_INFO"
    REVISION = "REVISION"
    QA_PASS = "QA_PASS"
    QA_FAIL = "QA_FAIL"


class TaskStatus(enum.StrEnum):
    NEW = "new"
    ASSIGNED = "assigned"
    IN_PROGRESS = "in_progress"
    WAITING_REVIEW = "waiting_review"
    QA_PASS = "qa_pass"
    QA_FAIL = "qa_fail"
    DONE = "done"
    BLOCKED = "blocked"
    CANCELLED = "cancelled"


class ToolKind(enum.StrEnum):
    """What a tool call does, which decides the local checks that read it."""

    SHELL = "shell"
    FILE_WRITE = "file_write"
    FILE_EDIT = "file_edit"
    FILE_READ = "file_read"
    FILE_DELETE = "file_delete"
    HTTP = "http"
    SQL = "sql"
    EMAIL = "email"
    CODE = "code"
    MCP = "mcp"
    OTHER = "other"
