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
    "VetoLevel",
]


class OrderedStrEnum(str, enum.Enum):
    """A string enum whose members order by declaration, never by their string value."""

    _rank: int

    def __init__(self, *_: object) -> None:
        self._rank = len(type(self)._member_names_)

    @property
    def rank(self) -> int:
        return self._rank

    def __lt__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._rank < other._rank

    def __le__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._rank <= other._rank

    def __gt__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._rank > other._rank

    def __ge__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._rank >= other._rank

    def __hash__(self) -> int:
        return hash(self.value)

    def __str__(self) -> str:
        return str(self.value)


class LayerID(str, enum.Enum):
    HL1 = "HL1"
    HL2 = "HL2"
    HL3 = "HL3"
    HL4 = "HL4"
    HL5 = "HL5"
    HL6 = "HL6"
    HL7 = "HL7"

    def __str__(self) -> str:
        return str(self.value)


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


class LayerStatus(str, enum.Enum):
    PENDING = "pending"
    RUNNING = "running"
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)


class Outcome(str, enum.Enum):
    APPROVED = "approved"
    REJECTED = "rejected"
    NEEDS_REVIEW = "needs_review"

    def __str__(self) -> str:
        return str(self.value)


class FindingSource(str, enum.Enum):
    LLM = "llm"
    RULES = "rules"


class AgentName(str, enum.Enum):
    CTO = "cto"
    ENGINEER = "engineer"
    PM = "pm"
    DEV = "dev"
    QA = "qa"
    MONITOR = "monitor"

    def __str__(self) -> str:
        return str(self.value)


class ResponseStatus(str, enum.Enum):
    OK = "OK"
    FAIL = "FAIL"
    BLOCKED = "BLOCKED"
    NEEDS_INFO = "NEEDS_INFO"
    REVISION = "REVISION"
    QA_PASS = "QA_PASS"
    QA_FAIL = "QA_FAIL"

    def __str__(self) -> str:
        return str(self.value)


class TaskStatus(str, enum.Enum):
    NEW = "new"
    ASSIGNED = "assigned"
    IN_PROGRESS = "in_progress"
    WAITING_REVIEW = "waiting_review"
    QA_PASS = "qa_pass"
    QA_FAIL = "qa_fail"
    DONE = "done"
    BLOCKED = "blocked"
    CANCELLED = "cancelled"

    def __str__(self) -> str:
        return str(self.value)
