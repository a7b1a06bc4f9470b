"""Prometheus metrics of the engine, registered on an injected ``CollectorRegistry``."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from humangr.engine.metric_labels import (
    _OUTCOMES,
    BREAKER_STATES,
    DEAD_LETTER_REASONS,
    INBOX_DECISIONS,
    INBOX_PAGES,
    INBOX_REFUSALS,
    LATENCY_BUCKETS,
    RATIO_BUCKETS,
    RECEIPT_RESULTS,
    RESOLUTION_BUCKETS,
    RESOLUTIONS,
    SAVED_REASONS,
    STATE_BUCKETS,
    SUBMISSION_RESULTS,
    TOKEN_KINDS,
    exported_names,
)
from humangr.engine.metrics_recording import MetricsRecording

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


class Metrics(MetricsRecording):
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
