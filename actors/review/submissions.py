"""``Submissions``: the part of ``SupervisorActor`` that admits a submitted action and answers
it, as a mixin of it (after ``ReviewFlow``, which runs the reviews).

A submission that cannot be reviewed is refused (``admission``); one already under review here,
or already decided, is a duplicate and publishes nothing new. The same action submitted again
under another id gets the decision that stands for its hash (``standing``) — after the review of
it under way here, if any — and anything else is reviewed.
"""

from __future__ import annotations

import logging

import anyio

from humangr.contracts import ActionSubmitted, LayerID, Outcome
from humangr.engine.bus import Msg
from humangr.engine.state.records import DamagedEntry

from .admission import (
    bare_submit_refusal,
    check_submitter,
    checked_hash,
    refuser,
    requested_layers,
)
from .review_flow import ReviewFlow
from .review_policy import granted
from .review_run import DEADLINE_GRACE_S
from .standing import standing_copy

__all__ = ["Submissions"]

log = logging.getLogger("humangr.supervisor")


class Submissions(ReviewFlow):
    """Admits and answers the submitted actions of one Supervisor (a mixin: ``SupervisorActor``
    sets what it uses)."""

    _answering: set[str]
    _hashes: dict[tuple[str, str], anyio.Event]

    async def _on_action(self, message: ActionSubmitted, msg: Msg) -> None:
        check_submitter(self._ctx.subjects, message, msg.subject)
        admitted = await self._admit(message)
        if admitted is None:
            self._ctx.metrics.count_submission("duplicate")
            return
        expected, digest = admitted
        self._answering.add(message.action_id)  # a duplicate delivered meanwhile is ignored
        try:
            await self._answer(message, expected, digest)
        finally:
            self._answering.discard(message.action_id)

    async def _on_bare_submit(self, message: ActionSubmitted, msg: Msg) -> None:
        """A submission on the bare subject of older clients names no submitter: refused
        (on ``dlq`` only, since no agent can be told for sure)."""
        raise bare_submit_refusal(self._ctx.subjects, message, msg.subject)

    async def _admit(self, message: ActionSubmitted) -> tuple[tuple[LayerID, ...], str] | None:
        """The layers to run and the action's hash, or ``None`` for a duplicate; refuses what
        cannot be reviewed."""
        action_id = message.action_id
        refuse = refuser(action_id)
        digest = checked_hash(message, self.config, refuse)
        if action_id in self._reviews or action_id in self._answering:
            log.info("submission of %s is already under review; duplicate ignored", action_id)
            return None
        try:
            decided = await self.state.decision(action_id)
        except DamagedEntry as exc:
            raise refuse(
                f"{exc}; the action is not reviewed again under this id: submit it under a new "
                "id (an operator removes the damaged entry)"
            ) from None
        if decided is not None:
            if decided.report.action_hash != digest:
                raise refuse(
                    "this action id was already decided for another action; submit a new "
                    "action under a new id"
                )
            log.info("%s was decided already; nothing new to publish", action_id)
            if not decided.published:
                await self.state.ensure_outbox(action_id)
                self._wake.set()
            return None
        return requested_layers(message, self.config.layers, refuse), digest

    async def _answer(
        self, submitted: ActionSubmitted, expected: tuple[LayerID, ...], digest: str
    ) -> None:
        """The standing decision of the action's hash if one stands (after the review of the
        same action under way here, if any), else a review."""
        key = (digest, self.policy(expected))
        await self._await_same(key)
        if await self._stand(submitted, key):
            return
        if key in self._hashes:  # waited long enough: reviewed too (the outbox keeps one outcome)
            await self._review(submitted, expected, digest)
            return
        done = self._hashes[key] = anyio.Event()
        try:
            await self._review(submitted, expected, digest)
        finally:
            self._hashes.pop(key, None)
            done.set()

    async def _await_same(self, key: tuple[str, str]) -> None:
        """Wait (at most a review's time) while this Supervisor reviews the same action under
        another id: the new id then gets that decision, and submitting one action many times
        at once draws one review, not many."""
        busy = self._hashes.get(key)
        if busy is None:
            return
        with anyio.move_on_after(self.config.layer_deadline_s * 2 + DEADLINE_GRACE_S * 4):
            await busy.wait()

    async def _stand(self, submitted: ActionSubmitted, key: tuple[str, str]) -> bool:
        """Decide at once when a decision stands for the action's hash under this policy
        (``key``; the same action, submitted before under another id): no review, no LLM call —
        the new id gets the standing outcome (see ``standing``). ``False``: none stands."""
        action_id = submitted.action_id
        digest, policy = key
        standing = await self.outbox.standings.find(
            digest,
            policy,
            submitted.action.agent_id,
            log_too=False,  # the outbox asks the events stream before signing
        )
        if standing is None:
            return False
        if standing.outcome is not Outcome.APPROVED and await granted(
            self.config, self.grants, submitted
        ):
            return False  # a human granted it since: the review applies the grant
        if standing.action_id != action_id:
            standing = standing_copy(standing, action_id)
        if self.resume_inflight:
            await self.state.track(submitted)
        recorded = await self.outbox.decide(action_id, standing, submitted.action)
        result = "decided" if recorded is not None else "duplicate"
        self._ctx.metrics.count_submission(result)
        if recorded is not None:
            await self._decided(action_id, recorded.outcome, [])
        return True
