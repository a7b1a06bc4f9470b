"""Prometheus metrics of the engine, registered on an injected ``CollectorRegistry``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

if TYPE_CHECKING:
    from collections.abc import Iterable

    from humangr.contracts import ReviewCost, Usage

__all__ = [
    "BREAKER_STATES",
    "DEAD_LETTER_REASONS",
    "INBOX_DECISIONS",
    "INBOX_PAGES",
    "INBOX_REFUSALS",
    "LATENCY_BUCKETS",
    "RATIO_BUCKETS",
    "RECEIPT_RESULTS",
    "RESOLUTIONS",
    "RESOLUTION_BUCKETS",
    "SAVED_REASONS",
    "STATE_BUCKETS",
    "SUBMISSION_RESULTS",
    "TOKEN_KINDS",
    "Metrics",
    "exported_names",
]

LATENCY_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
RATIO_BUCKETS = (0.0, 0.34, 0.5, 0.67, 0.75, 1.0)
TOKEN_KINDS = ("input", "output", "cache_read", "cache_write")
"""The ``kind`` label values of ``humangr_llm_tokens_total``."""
BREAKER_STATES = {"closed": 0, "half_open": 1, "open": 2}
"""The value ``humangr_breaker_state`` takes for each circuit breaker state."""
RESOLUTION_BUCKETS = (10, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 8 * 3600, 24 * 3600, 72 * 3600)
RESOLUTIONS = ("approved", "rejected", "timeout")
"""The ``verdict`` label values of ``humangr_review_resolutions_total``."""
SAVED_REASONS = ("rules", "adaptive", "early_exit")
"""The ``reason`` label values of ``humangr_llm_calls_saved_total``."""
DEAD_LETTER_REASONS = ("undecodable", "refused", "failed", "max_deliver", "lost", "damaged_state")
"""The ``reason`` label values of ``humangr_dead_letter_reasons_total``."""
STATE_BUCKETS = ("decisions", "reports", "outbox", "pending", "inflight", "grants", "standing")
"""The ``bucket`` label values of ``humangr_state_quarantined_total``."""
SUBMISSION_RESULTS = ("received", "decided", "dead_lettered", "duplicate")
"""The ``result`` label values of ``humangr_submissions_total``: a Supervisor took a submission
from its mailbox, published its decision, dead-lettered it (a refusal, a failure, a loss), or
found it under review or decided already (a submission sent again)."""
RECEIPT_RESULTS = ("sent", "failed")
"""The ``result`` label values of ``humangr_submit_receipts_total``."""
INBOX_PAGES = ("list", "review", "signin", "grants")
"""The ``page`` label values of ``humangr_inbox_page_views_total``."""
INBOX_DECISIONS = ("approved", "rejected", "refused", "unconfirmed")
"""The ``verdict`` label values of ``humangr_inbox_decisions_total``: the final decision of a
resolution sent from the inbox, the Supervisor or the inbox refused it, or none came in time."""
INBOX_REFUSALS = ("signed_out", "csrf", "bad_form", "bad_token", "rate_limited", "too_many_streams")
"""The ``reason`` label values of ``humangr_inbox_refused_requests_total``."""
_OUTCOMES = ("approved", "rejected", "needs_review")
_LAYERS = ("HL1", "HL2", "HL3", "HL4", "HL5", "HL6", "HL7")
_EFFECTS = ("allow", "review", "ask", "deny")
"""The effects of a policy rule (``engine.policy.Effect``)."""
_RUN_STATUSES = ("pass", "warn", "fail", "error")
_VETO_LEVELS = ("none", "weak", "medium", "strong")
_LLM_OUTCOMES = ("ok", "invalid", "error", "cancelled")

_SUFFIXES = {
    "counter": ("_total",),
    "histogram": ("_bucket", "_sum", "_count"),
    "summary": ("", "_sum", "_count"),
    "gauge": ("",),
}


def exported_names(registry: CollectorRegistry) -> frozenset[str]:
    """Every series name the registry exposes (``humangr_decisions_total``,
    ``humangr_decision_latency_seconds_bucket``, ...), with or without samples yet;
    the ``_created`` timestamps prometheus_client adds are left out."""
    names: set[str] = set()
    for family in registry.collect():
        for suffix in _SUFFIXES.get(family.type, ("",)):
            names.add(family.name + suffix)
    return frozenset(names)


class Metrics:
    """Every metric the engine exports. One instance per registry; tests pass their own."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.actions_submitted = Counter(
            "humangr_actions_submitted", "Actions received for review.", registry=r
        )
        self.decisions = Counter(
            "humangr_decisions", "Decisions published, by outcome.", ["outcome"], registry=r
        )
        self.decision_latency = Histogram(
            "humangr_decision_latency_seconds",
            "Time from submission to decision.",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.layer_runs = Counter(
            "humangr_layer_runs",
            "Layer runs, by layer and status.",
            ["layer", "status"],
            registry=r,
        )
        self.vetoes = Counter(
            "humangr_vetoes",
            "Layer consensus vetoes, by layer and level.",
            ["layer", "level"],
            registry=r,
        )
        self.layer_view_mismatches = Counter(
            "humangr_layer_view_mismatches",
            "Layer reports whose own consensus (status or veto level) differs from the one the "
            "Supervisor recomputed from the same runs: a buggy, outdated or hostile worker.",
            ["layer"],
            registry=r,
        )
        self.layer_agreement = Histogram(
            "humangr_layer_agreement_ratio",
            "Share of a layer's valid runs that equal its consensus.",
            ["layer"],
            buckets=RATIO_BUCKETS,
            registry=r,
        )
        self.llm_calls = Counter(
            "humangr_llm_calls", "LLM calls, by outcome.", ["outcome"], registry=r
        )
        self.llm_latency = Histogram(
            "humangr_llm_latency_seconds", "LLM call latency.", buckets=LATENCY_BUCKETS, registry=r
        )
        self.llm_tokens = Counter(
            "humangr_llm_tokens",
            "LLM tokens, by kind (input, output, cache_read, cache_write).",
            ["kind"],
            registry=r,
        )
        self.envelope_rejections = Counter(
            "humangr_envelope_rejections",
            "Agent replies refused, by agent and gate.",
            ["agent", "gate"],
            registry=r,
        )
        self.repairs = Counter(
            "humangr_repairs", "Repair prompts sent, by agent.", ["agent"], registry=r
        )
        self.retries = Counter(
            "humangr_retries", "Transport retries of LLM calls, by reason.", ["reason"], registry=r
        )
        self.breaker_state = Gauge(
            "humangr_breaker_state",
            "Circuit breaker state (0 closed, 1 half-open, 2 open).",
            ["agent", "mode"],
            registry=r,
        )
        self.handoffs = Counter(
            "humangr_handoffs", "Hand-offs between agents.", ["from", "to"], registry=r
        )
        self.tasks = Gauge("humangr_tasks", "Pipeline tasks, by status.", ["status"], registry=r)
        self.dead_letters = Counter(
            "humangr_dead_letters",
            "Messages sent to the dead-letter subject, by subject.",
            ["subject"],
            registry=r,
        )
        self.inflight_actions = Gauge(
            "humangr_inflight_actions", "Actions under review right now.", registry=r
        )
        self.actor_restarts = Counter(
            "humangr_actor_restarts",
            "Actor restarts after a crash, by actor.",
            ["actor"],
            registry=r,
        )
        self.mailbox_depth = Gauge(
            "humangr_mailbox_depth",
            "Messages waiting in an actor's mailbox.",
            ["actor"],
            registry=r,
        )
        self.messages_handled = Counter(
            "humangr_messages_handled",
            "Messages an actor finished handling.",
            ["actor"],
            registry=r,
        )
        self.messages_lost = Counter(
            "humangr_messages_lost",
            "Messages a subscriber lost without receiving them (slow consumer), by route subject.",
            ["subject"],
            registry=r,
        )
        self.max_deliver_dead_letters = Counter(
            "humangr_max_deliver_dead_letters",
            "Durable messages dead-lettered after their last delivery (max_deliver), by route "
            "subject.",
            ["subject"],
            registry=r,
        )
        self.dead_letter_reasons = Counter(
            "humangr_dead_letter_reasons",
            "Dead letters by reason: undecodable, refused (by a handler), failed (a handler "
            "raised), max_deliver (never acknowledged), lost (slow consumer), damaged_state (a "
            "damaged entry in the state store).",
            ["reason"],
            registry=r,
        )
        self.state_quarantined = Counter(
            "humangr_state_quarantined",
            "Damaged state-store entries set aside in the quarantine bucket, by bucket.",
            ["bucket"],
            registry=r,
        )
        self.pending_reviews = Gauge(
            "humangr_pending_reviews", "Reviews waiting for a human right now.", registry=r
        )
        self.review_resolutions = Counter(
            "humangr_review_resolutions",
            "Reviews a human resolved (approved, rejected) or the deadline closed (timeout).",
            ["verdict"],
            registry=r,
        )
        self.review_resolution_time = Histogram(
            "humangr_review_resolution_seconds",
            "Time from a needs_review decision to its final decision.",
            ["verdict"],
            buckets=RESOLUTION_BUCKETS,
            registry=r,
        )
        self.llm_cost = Counter(
            "humangr_llm_cost_usd",
            "Estimated price of the reviews' LLM calls (from the configured price table).",
            registry=r,
        )
        self.llm_calls_saved = Counter(
            "humangr_llm_calls_saved",
            "LLM calls a full review would make that were not made, by reason (rules, "
            "adaptive, early_exit).",
            ["reason"],
            registry=r,
        )
        self.inbox_page_views = Counter(
            "humangr_inbox_page_views",
            "Pages the review inbox served, by page (list, review, signin, grants).",
            ["page"],
            registry=r,
        )
        self.inbox_decisions = Counter(
            "humangr_inbox_decisions",
            "Resolutions sent from the review inbox, by what came of them (approved, rejected, "
            "refused, unconfirmed).",
            ["verdict"],
            registry=r,
        )
        self.inbox_refused = Counter(
            "humangr_inbox_refused_requests",
            "Requests the review inbox refused, by reason (signed_out, csrf, bad_form, bad_token, "
            "rate_limited, too_many_streams).",
            ["reason"],
            registry=r,
        )
        self.inbox_live_clients = Gauge(
            "humangr_inbox_live_clients", "Pages receiving the inbox's live updates.", registry=r
        )
        self.inbox_live_dropped = Counter(
            "humangr_inbox_live_dropped",
            "Pages dropped from the live updates because they fell behind.",
            registry=r,
        )
        self.policy_decisions = Counter(
            "humangr_policy_decisions",
            "Actions the policy file decided, by rule id (``default``: no rule matched) and effect "
            "(allow, review, ask, deny).",
            ["rule", "effect"],
            registry=r,
        )
        self.suppressions_applied = Counter(
            "humangr_suppressions_applied",
            "Local-check findings marked suppressed, by the policy's suppression id.",
            ["suppression"],
            registry=r,
        )
        self.shadow_disagreements = Counter(
            "humangr_shadow_disagreements",
            "Actions on which the shadow policy (serve --shadow-policy) decided another effect "
            "than the live one, by both effects (no policy file: review).",
            ["live", "shadow"],
            registry=r,
        )
        self.grant_uses = Counter(
            "humangr_grant_uses",
            "Actions a standing approval (grant) decided, by the grant's scope (exact, tool).",
            ["scope"],
            registry=r,
        )
        self.grants_active = Gauge(
            "humangr_grants_active",
            "Standing approvals (grants) in force, as the Supervisor last read them.",
            registry=r,
        )
        self.submissions = Counter(
            "humangr_submissions",
            "Submissions a Supervisor received, decided, dead-lettered, or found again "
            "(duplicate); received - the others = under review.",
            ["result"],
            registry=r,
        )
        self.submit_receipts = Counter(
            "humangr_submit_receipts",
            "Receipts answering core-NATS submissions, by result (sent, failed).",
            ["result"],
            registry=r,
        )
        self.large_waiting = Gauge(
            "humangr_large_messages_waiting",
            "Large messages an actor holds, waiting for the lane of large ones.",
            ["actor"],
            registry=r,
        )
        self._start_at_zero()
        # labelled children of the hot paths, looked up once
        self._llm_calls: dict[str, Counter] = {}
        self._llm_tokens = {kind: self.llm_tokens.labels(kind=kind) for kind in TOKEN_KINDS}
        self._decided = {outcome: self.decisions.labels(outcome=outcome) for outcome in _OUTCOMES}
        self._submitted = {r: self.submissions.labels(result=r) for r in SUBMISSION_RESULTS}

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
