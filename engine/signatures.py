"""What a signature covers, and checking one: decisions (their binding and the whole report) and
layer reports.

A decision carries two signatures by the Supervisor's key:

- ``signature`` over its *binding* (the report and action ids, the agent, the action hash, the
  outcome, the policy version, when it was decided and who resolved it), for executors that
  act on the outcome and check only that;
- ``report_signature`` over the whole report's canonical encoding: every field but
  ``report_signature`` itself, so findings, layer results, the veto level, blocking reasons,
  policy notes and the human's reason are covered too. ``signed_parts`` keeps a short digest
  of each part as signed, so a verifier can name the part that was changed.

A layer worker signs its ``LayerReport`` with its own key over the report's canonical encoding
(every field but ``signature``); the Supervisor accepts reports signed by keys it trusts only.

This module gathers the names; each part lives in its own module: the canonical encoding in
``humangr.engine.canonical``, the bytes each signature covers and signing a decision in
``humangr.engine.signed_reports``, public nkeys in ``humangr.engine.public_keys`` and checking
signatures in ``humangr.engine.signature_checks``.
"""

from __future__ import annotations

from humangr.engine.canonical import canonical_bytes, shared
from humangr.engine.public_keys import key_kind, verify_key
from humangr.engine.signature_checks import (
    BINDING_ONLY_NOTICE,
    verify_decision,
    verify_layer_report,
)
from humangr.engine.signed_reports import (
    changed_parts,
    layer_report_bytes,
    report_bytes,
    report_parts,
    sign_report,
    signed_binding,
    task_digest,
)

__all__ = [
    "BINDING_ONLY_NOTICE",
    "canonical_bytes",
    "changed_parts",
    "key_kind",
    "layer_report_bytes",
    "report_bytes",
    "report_parts",
    "shared",
    "sign_report",
    "signed_binding",
    "task_digest",
    "verify_decision",
    "verify_key",
    "verify_layer_report",
]
