"""The label values, buckets and series names of the engine's Prometheus metrics: the tables
``Metrics`` starts its series from, and ``exported_names`` to list what a registry exposes."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

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
