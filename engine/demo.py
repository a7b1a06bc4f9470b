"""A minimal in-process demo: the actor system on MemoryBus passing one message through."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from contracts import ActionContext, ActionSubmitted, CancelAction, decode, encode
from engine.actor import Actor, ActorContext, ActorSystem, Route
from engine.bus import MemoryBus, Msg

__all__ = ["run_demo"]


class _Acknowledger(Actor):
    """Answers every submitted action with a cancel notice naming it (demo only)."""

    name = "demo"

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        async def on_action(message: ActionSubmitted, _: Msg) -> None:
            notice = CancelAction(action_id=message.action_id, reason="demo: received")
            await ctx.publish(ctx.subjects.action_cancel(message.action_id), notice)

        return [Route(ctx.subjects.action_submit, ActionSubmitted, on_action)]


async def run_demo() -> int:
    async with MemoryBus() as bus:
        system = ActorSystem(bus)
        system.add(_Acknowledger())
        async with system.running(), bus.subscribe(system.subjects.action_cancels) as replies:
            action = ActionContext(
                agent_id="demo-agent", action_type="file_write", action_description="demo"
            )
            await bus.publish(
                system.subjects.action_submit,
                encode(ActionSubmitted(action_id="demo-1", action=action)),
            )
            async for msg in replies:
                notice = decode(msg.data, CancelAction)
                print(f"actor answered on {msg.subject}: {notice.reason}")
                break
    return 0
