"""A damaged state-store entry, reported as a dead letter on ``dlq`` and counted.

The letter's subject is ``state/<bucket>``; its ``error`` says which key, why it is damaged and
what became of it; ``raw`` holds a redacted preview of the value; ``correlation_id`` names the
action when the key is an action id (``<id>`` or ``<id>.final``).
"""

from __future__ import annotations

import logging

from humangr.contracts import DeadLetter
from humangr.engine.errors import BusError
from humangr.engine.letters import dead_letter, redacted_bytes
from humangr.engine.state.records import QUARANTINE_BUCKET, Damaged

from .base import ActorContext
from .letters import _TOKEN

__all__ = ["PREVIEW_BYTES", "damaged_letter", "report_damaged"]

log = logging.getLogger("humangr.actor")

PREVIEW_BYTES = 256
"""The bytes of a damaged value a letter shows (redacted): enough to tell what it was."""
_FATES = {
    "kept": "it stays in place (an action decided once is never decided again); remove it "
    "once it is understood",
    "removed": "it was removed",
    "rebuilt": "it was rebuilt from the action's decision",
}


def damaged_letter(damaged: Damaged, actor: str) -> DeadLetter:
    """The dead letter of a damaged entry (see the module docstring)."""
    action_id = damaged.key.removesuffix(".final")
    fate = _FATES.get(damaged.fate, damaged.fate)
    error = (
        f"damaged state entry {damaged.bucket}/{damaged.key} (revision {damaged.revision}): "
        f"{damaged.reason}; a copy is in the {QUARANTINE_BUCKET} bucket as "
        f"{damaged.quarantined_as} and {fate}"
    )
    return dead_letter(
        f"state/{damaged.bucket}",
        error,
        redacted_bytes(damaged.raw, PREVIEW_BYTES),
        actor=actor,
        deliveries=0,
        correlation_id=action_id if _TOKEN.fullmatch(action_id) else "",
        raw_size=damaged.size,
    )


async def report_damaged(ctx: ActorContext, damaged: Damaged) -> None:
    """Count a damaged entry and publish its dead letter (a letter that cannot be published
    is logged: the entry is quarantined either way)."""
    metrics = ctx.metrics
    metrics.state_quarantined.labels(bucket=damaged.bucket).inc()
    letter = damaged_letter(damaged, ctx.actor_name)
    metrics.dead_letters.labels(letter.subject).inc()
    metrics.dead_letter_reasons.labels(reason="damaged_state").inc()
    try:
        await ctx.publish(ctx.subjects.dlq, letter)
    except BusError as exc:
        log.error("dead letter of damaged %s/%s lost: %s", damaged.bucket, damaged.key, exc)
