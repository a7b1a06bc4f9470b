"""An example agent that asks HUMANGR before it changes a file.

``FileEditAgent.propose`` turns an edit into a unified diff, submits it for review on the bus
and writes the file only when the decision says ``approved`` — for exactly the diff it
submitted. On ``needs_review`` it asks a human (``ask_human``) and waits for their decision.
It knows nothing about tests: it talks to HUMANGR on the real subjects, as in production.
"""

from __future__ import annotations

import difflib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    Decision,
    Outcome,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus import Bus, Subscription
from humangr.engine.review import action_hash

__all__ = ["EditResult", "FileEditAgent"]

AskHuman = Callable[[Decision], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class EditResult:
    """What became of one proposed edit."""

    path: str
    applied: bool
    decision: Decision


class FileEditAgent:
    """Proposes file edits under ``root`` and applies the approved ones."""

    def __init__(
        self,
        bus: Bus,
        subjects: Subjects,
        root: Path,
        *,
        agent_id: str = "file-editor",
        ask_human: AskHuman | None = None,
        decision_timeout: float = 300.0,
    ) -> None:
        self.bus = bus
        self.subjects = subjects
        self.root = root.resolve()
        self.agent_id = agent_id
        self.ask_human = ask_human
        self.decision_timeout = decision_timeout

    async def propose(self, path: str, new_text: str, why: str) -> EditResult:
        """Submit the edit of ``path`` for review; write it only if it is approved."""
        target = self._target(path)
        old_text = target.read_text(encoding="utf-8") if target.exists() else ""
        diff = "".join(
            difflib.unified_diff(
                old_text.splitlines(keepends=True),
                new_text.splitlines(keepends=True),
                fromfile=f"a/{path}" if old_text else "/dev/null",
                tofile=f"b/{path}",
            )
        )
        action = ActionContext(
            agent_id=self.agent_id,
            action_type="code_diff",
            action_description=why,
            code_diff=diff,
            affected_files=[path],
        )
        action_id = f"edit-{uuid.uuid4().hex[:16]}"
        submitted = ActionSubmitted(
            action_id=action_id, action=action, action_hash=action_hash(action)
        )
        async with self.bus.subscribe(self.subjects.decision(self.agent_id)) as decisions:
            await self.bus.publish(self.subjects.agent_submit(self.agent_id), encode(submitted))
            with anyio.fail_after(self.decision_timeout):
                decision = await self._final_decision(decisions, action_id)
        # A decision binds to the exact action it reviewed: check the hash before acting.
        same_action = decision.action_hash == submitted.action_hash
        applied = decision.outcome is Outcome.APPROVED and same_action
        if applied:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(new_text, encoding="utf-8")
        return EditResult(path=path, applied=applied, decision=decision)

    async def _final_decision(self, decisions: Subscription, action_id: str) -> Decision:
        """The decision on ``action_id``; past a ``needs_review``, the human's."""
        async for msg in decisions:
            decision = decode(msg.data, Decision)
            if decision.action_id != action_id:
                continue
            if decision.outcome is not Outcome.NEEDS_REVIEW or decision.resolved_by:
                return decision
            if self.ask_human is not None:
                await self.ask_human(decision)
        raise RuntimeError("the decision subscription ended before a decision arrived")

    def _target(self, path: str) -> Path:
        target = (self.root / path).resolve()
        if not target.is_relative_to(self.root):
            raise ValueError(f"{path!r} is outside {self.root}")
        return target
