"""What the engine does with its metrics: start the series whose labels are known at zero, and
record its events (decisions, submissions, costs, LLM calls, policies, breakers). The base of
``Metrics``, which defines the series these methods use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import Counter, Gauge, Histogram

from humangr.engine.metric_labels import (
    _EFFECTS,
    _LAYERS,
    _LLM_OUTCOMES,
    _OUTCOMES,
    _RUN_STATUSES,
    _VETO_LEVELS,
    BREAKER_STATES,
    DEAD_LETTER_REASONS,
    INBOX_DECISIONS,
    INBOX_PAGES,
    INBOX_REFUSALS,
    RECEIPT_RESULTS,
    RESOLUTIONS,
    SAVED_REASONS,
    STATE_BUCKETS,
    SUBMISSION_RESULTS,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from humangr.contracts import ReviewCost, Usage

__all__ = ["MetricsRecording"]


class MetricsRecording:
    """The methods of ``Metrics`` that start and record its series (declared here, created by
    ``Metrics.__init__``)."""

    decisions: Counter
    layer_runs: Counter
    vetoes: Counter
    layer_view_mismatches: Counter
    layer_agreement: Histogram
    llm_calls: Counter
    llm_latency: Histogram
    breaker_state: Gauge
    dead_letter_reasons: Counter
    state_quarantined: Counter
    review_resolutions: Counter
    review_resolution_time: Histogram
    llm_cost: Counter
    llm_calls_saved: Counter
    inbox_page_views: Counter
    inbox_decisions: Counter
    inbox_refused: Counter
    policy_decisions: Counter
    suppressions_applied: Counter
    shadow_disagreements: Counter
    grant_uses: Counter
    submissions: Counter
    submit_receipts: Counter
    _llm_calls: dict[str, Counter]
    _llm_tokens: dict[str, Counter]
    _decided: dict[str, Counter]
    _submitted: dict[str, Counter]

    def _start_at_zero(self) -> None:
        """Create every labelled series whose labels are known in advance, so dashboards and
        ``rate()`` see a zero before the first event."""
        for outcome in _OUTCOMES:
            self.decisions.labels(outcome=outcome)
        for layer in _LAYERS:
            self.layer_agreement.labels(layer=layer)
            self.layer_view_mismatches.labels(layer=layer)
            for status in _RUN_STATUSES:
                self.layer_runs.labels(layer=layer, status=status)
            for level in _VETO_LEVELS:
                self.vetoes.labels(layer=layer, level=level)
        for outcome in _LLM_OUTCOMES:
            self.llm_calls.labels(outcome=outcome)
        for reason in DEAD_LETTER_REASONS:
            self.dead_letter_reasons.labels(reason=reason)
        for bucket in STATE_BUCKETS:
            self.state_quarantined.labels(bucket=bucket)
        for verdict in RESOLUTIONS:
            self.review_resolutions.labels(verdict=verdict)
            self.review_resolution_time.labels(verdict=verdict)
        for reason in SAVED_REASONS:
            self.llm_calls_saved.labels(reason=reason)
        for page in INBOX_PAGES:
            self.inbox_page_views.labels(page=page)
        for live in _EFFECTS:
            for shadow in _EFFECTS:
                if live != shadow:
                    self.shadow_disagreements.labels(live=live, shadow=shadow)
        for scope in ("exact", "tool"):
            self.grant_uses.labels(scope=scope)
        for verdict in INBOX_DECISIONS:
            self.inbox_decisions.labels(verdict=verdict)
        for reason in INBOX_REFUSALS:
            self.inbox_refused.labels(reason=reason)
        for result in SUBMISSION_RESULTS:
            self.submissions.labels(result=result)
        for result in RECEIPT_RESULTS:
            self.submit_receipts.labels(result=result)

    def count_decision(self, outcome: str) -> None:
        """Count one decision published with ``outcome``."""
        child = self._decided.get(outcome)
        (child if child is not None else self.decisions.labels(outcome=outcome)).inc()

    def count_submission(self, result: str) -> None:
        """Count one submission by what became of it (``SUBMISSION_RESULTS``)."""
        child = self._submitted.get(result)
        (child if child is not None else self.submissions.labels(result=result)).inc()

    def observe_cost(self, cost: ReviewCost) -> None:
        """Count a review's estimated price and the calls it saved."""
        if cost.estimated_usd:
            self.llm_cost.inc(cost.estimated_usd)
        for reason, saved in (
            ("rules", cost.saved_by_rules),
            ("adaptive", cost.saved_by_adaptive),
            ("early_exit", cost.saved_by_early_exit),
        ):
            if saved:
                self.llm_calls_saved.labels(reason=reason).inc(saved)

    def observe_llm_call(self, outcome: str, seconds: float, usage: Usage | None) -> None:
        """Count one LLM call (``ok``, ``invalid``, ``error`` or ``cancelled``), its latency
        and the tokens it used."""
        calls = self._llm_calls.get(outcome)
        if calls is None:
            calls = self._llm_calls[outcome] = self.llm_calls.labels(outcome=outcome)
        calls.inc()
        self.llm_latency.observe(seconds)
        if usage is None:
            return
        tokens = self._llm_tokens
        if usage.input_tokens:
            tokens["input"].inc(usage.input_tokens)
        if usage.output_tokens:
            tokens["output"].inc(usage.output_tokens)
        if usage.cache_read_tokens:
            tokens["cache_read"].inc(usage.cache_read_tokens)
        if usage.cache_write_tokens:
            tokens["cache_write"].inc(usage.cache_write_tokens)

    def start_policy(self, rules: Iterable[tuple[str, str]], suppressions: Iterable[str]) -> None:
        """Start the series of a loaded policy at zero: each ``(rule id, effect)`` (the default
        as ``("default", effect)``) and each suppression id."""
        for rule, effect in rules:
            self.policy_decisions.labels(rule=rule, effect=effect)
        for suppression in suppressions:
            self.suppressions_applied.labels(suppression=suppression)

    def set_breaker(self, agent: str, mode: str, state: str) -> None:
        """Set ``humangr_breaker_state{agent,mode}`` from a state name of ``BREAKER_STATES``."""
        if state not in BREAKER_STATES:
            raise ValueError(f"unknown breaker state {state!r}; one of {sorted(BREAKER_STATES)}")
        self.breaker_state.labels(agent=agent, mode=mode).set(BREAKER_STATES[state])
