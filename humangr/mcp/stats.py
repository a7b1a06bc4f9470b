"""Counts of what this MCP server obtained since it started (``human_layer://stats/summary``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from humangr.contracts import HumanLayerReport, Outcome

from .schemas import StatsSummary, Verdict

__all__ = ["DecisionStats"]


@dataclass(slots=True)
class DecisionStats:
    """Decisions by outcome, ``validate`` calls that got no decision, quick verdicts."""

    mode: str
    since: datetime = field(default_factory=lambda: datetime.now(UTC))
    outcomes: dict[Outcome, int] = field(default_factory=lambda: dict.fromkeys(Outcome, 0))
    errors: int = 0
    verdicts: dict[str, int] = field(default_factory=lambda: {"pass": 0, "warn": 0, "fail": 0})

    def decision(self, report: HumanLayerReport) -> None:
        self.outcomes[report.outcome] += 1

    def error(self) -> None:
        self.errors += 1

    def verdict(self, verdict: Verdict) -> None:
        self.verdicts[verdict] += 1

    def summary(self) -> StatsSummary:
        return StatsSummary(
            since=self.since.isoformat(),
            mode=self.mode,
            decisions_total=sum(self.outcomes.values()),
            decisions_by_outcome=dict(self.outcomes),
            validate_errors=self.errors,
            quick_checks_by_verdict=dict(self.verdicts),
        )
