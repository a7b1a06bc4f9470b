"""Test your own agents against a real HUMANGR: ``async with humangr() as kit: ...``.

``humangr()`` runs the whole engine (Supervisor and the layer actors) on a ``MemoryBus`` — or on
a real NATS server when given ``nats_url`` — with a scripted LLM whose answers the test sets per
layer. Nothing is patched: the agent under test talks to the engine on the real subjects.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Literal, TypeVar

import anyio

from humangr.actors.roles import Engine, new_action_id, run_engine
from humangr.contracts import (
    DEFAULT_PREFIX,
    ActionContext,
    ActionSubmitted,
    DeadLetter,
    HumanLayerReport,
    LayerID,
    ReviewRequested,
    ReviewResolution,
    Subjects,
    decode,
    encode,
)
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.config import ReviewConfig
from humangr.engine.decisions import DecisionWaiters
from humangr.engine.errors import (
    ConfigError,
    ReviewTimeout,
    SubmissionRefused,
    sole_exception,
)
from humangr.engine.llm import LLMClient
from humangr.engine.metrics import Metrics
from humangr.engine.review import action_hash

from .recorder import KitError, KitTimeout, Malformed, Recorder, describe
from .replies import ScriptBook
from .scripting import LayerScripting

__all__ = ["DEFAULT_AGENT_ID", "HumangrTestEngine", "KitError", "KitTimeout", "humangr"]

DEFAULT_AGENT_ID = "test-agent"
Verdict = Literal["approve", "reject"]
T = TypeVar("T")


class HumangrTestEngine(LayerScripting):
    """A running engine for tests: submit actions, read decisions, resolve reviews, script layers.

    ``bus`` and ``subjects`` are the real ones: an agent under test publishes and subscribes on
    them exactly as it would in production (take the subjects from here: on NATS they carry a
    unique prefix). The scripting methods (``script``, ``reject``, ...) come from
    ``LayerScripting``.
    """

    def __init__(
        self,
        engine: Engine,
        book: ScriptBook | None,
        record: Recorder,
        waiters: DecisionWaiters,
    ) -> None:
        super().__init__(book, engine.config.layers)
        self.engine = engine
        self._record = record
        self._waiters = waiters

    @property
    def bus(self) -> Bus:
        return self.engine.bus

    @property
    def subjects(self) -> Subjects:
        return self.engine.subjects

    @property
    def config(self) -> ReviewConfig:
        return self.engine.config

    @property
    def metrics(self) -> Metrics:
        return self.engine.metrics

    @property
    def dead_letters(self) -> list[DeadLetter]:
        """Messages the engine refused (``dlq``), oldest first."""
        return self._record.dead_letters

    @property
    def malformed(self) -> list[Malformed]:
        """Messages on a recorded subject that did not decode."""
        return self._record.malformed

    def decision(self, action_id: str) -> HumanLayerReport | None:
        """The latest decision on ``action_id`` seen so far (a resolution replaces a review)."""
        seen = self._record.by_action.get(action_id)
        return seen[-1] if seen else None

    async def submit(
        self,
        action: ActionContext | None = None,
        /,
        *,
        action_id: str | None = None,
        layers: Sequence[LayerID | str] | None = None,
        final: bool = False,
        timeout: float | None = None,
        **fields: Any,
    ) -> HumanLayerReport:
        """Submit an action and return its decision.

        Give an ``ActionContext`` or its fields as keywords (``agent_id`` defaults to
        ``test-agent``, ``action_type`` to ``code_diff`` with a diff, else ``tool_call``). With
        ``final=True`` a ``needs_review`` is waited past, for the human or the review deadline.
        A submission the engine refuses raises ``KitError`` with the engine's reason; one that
        names ``layers`` is refused unless the engine runs with ``allow_layer_selection=True``
        (below the design floor: with ``unsafe_policy=True``).
        """
        action = _action(action, fields)
        action_id = action_id or new_action_id()
        submitted = ActionSubmitted(
            action_id=action_id,
            action=action,
            action_hash=action_hash(action),
            layers=[LayerID(str(lid).upper()) for lid in layers] if layers is not None else None,
        )
        decode(encode(submitted), ActionSubmitted)  # what the engine would refuse, refused here
        if timeout is None:
            timeout = self.config.layer_deadline_s * 2 + 5
            timeout += self.config.review_deadline_s if final else 0
        try:
            return await self._waiters.submit(
                self.bus, self.subjects, submitted, timeout=timeout, final=final
            )
        except SubmissionRefused as exc:
            raise KitError(str(exc)) from None
        except ReviewTimeout:
            what = "final decision" if final else "decision"
            raise KitTimeout(
                f"no {what} on {action_id} within {timeout:g}s "
                f"(subject prefix {self.subjects.prefix})"
            ) from None

    def decisions(
        self, agent_id: str | None = None, *, replay: bool = True
    ) -> AsyncIterator[HumanLayerReport]:
        """Every decision (all agents, or ``agent_id``'s) as it is published; a human's
        resolution is a second decision on the same action. With ``replay`` (the default) it
        starts with the decisions made since the engine started, so none is missed; otherwise
        with those after this call. It ends when the engine stops."""
        start = 0 if replay else len(self._record.decisions)
        return self._record.follow(start, agent_id)

    async def pending_review(self, action_id: str, *, timeout: float = 10.0) -> ReviewRequested:
        """The ``ReviewRequested`` of an action waiting for a human (waits for it briefly)."""
        record = self._record

        def found() -> ReviewRequested | None:
            final = record.first(action_id, final=True)
            if final is not None:
                how = f"resolved by {final.resolved_by}" if final.resolved_by else "decided"
                raise KitError(
                    f"action {action_id} does not wait for a human: it was {how} "
                    f"({final.outcome}); only needs_review decisions can be resolved"
                )
            request = record.requests.get(action_id)
            if request is None and action_id not in record.by_action:
                raise KitError(
                    f"no decision on action {action_id!r} has been published, so there is "
                    f"nothing to resolve; actions waiting for a human: "
                    f"{describe(a for a in record.requests if record.first(a, final=True) is None)}"
                )
            return request

        return await self._wait(found, timeout, f"review request for {action_id}")

    async def resolve(
        self,
        action: str | HumanLayerReport,
        verdict: Verdict,
        reviewer: str = "test-reviewer",
        reason: str | None = None,
        *,
        timeout: float = 10.0,
    ) -> HumanLayerReport:
        """Answer a ``needs_review`` as a human would and return the final decision.

        The ``ReviewResolution`` binds to the action_hash of the pending review. An unknown or
        already decided action raises ``KitError``, as does a resolution the engine refuses.
        """
        action_id = action if isinstance(action, str) else action.action_id
        if verdict not in ("approve", "reject"):
            raise ValueError(f"verdict must be 'approve' or 'reject', not {verdict!r}")
        request = await self.pending_review(action_id, timeout=timeout)
        resolution = ReviewResolution(
            action_id=action_id,
            action_hash=request.action_hash,
            verdict=verdict,
            reviewer=reviewer,
            reason=reason if reason is not None else f"the test suite says {verdict} here",
        )
        data = encode(resolution)
        decode(data, ReviewResolution)
        since = len(self._record.dead_letters)
        subject = self.subjects.review_resolve(action_id)
        await self.bus.publish(subject, data)

        def found() -> HumanLayerReport | None:
            letter = self._record.refusal(subject, action_id, since)
            if letter is not None:
                raise KitError(f"the engine refused the resolution of {action_id}: {letter.error}")
            final = self._record.first(action_id, final=True, action_hash=request.action_hash)
            if final is not None and final.resolved_by != reviewer:
                raise KitError(
                    f"action {action_id} was resolved by {final.resolved_by} ({final.outcome}) "
                    f"before this resolution arrived"
                )
            return final

        what = f"final decision on {action_id} after the resolution"
        return await self._wait(found, timeout, what)

    async def report(self, id_: str, *, timeout: float = 5.0) -> HumanLayerReport:
        """A stored report, asked of the Supervisor by report id or action id."""
        return await self.engine.report(id_, timeout=timeout)

    async def _wait(self, found: Callable[[], T | None], timeout: float, what: str) -> T:
        with anyio.move_on_after(timeout):
            return await self._record.wait_for(found)
        raise KitTimeout(f"no {what} within {timeout:g}s (subject prefix {self.subjects.prefix})")


def _action(action: ActionContext | None, fields: dict[str, Any]) -> ActionContext:
    if action is not None:
        if fields:
            raise TypeError(f"give an ActionContext or its fields, not both ({sorted(fields)})")
        return action
    fields.setdefault("agent_id", DEFAULT_AGENT_ID)
    fields.setdefault("action_type", "code_diff" if fields.get("code_diff") else "tool_call")
    fields.setdefault("action_description", "an action under test")
    return ActionContext(**fields)


@asynccontextmanager
async def humangr(
    *,
    nats_url: str | Sequence[str] | None = None,
    llm: LLMClient | Literal["scripted"] | None = "scripted",
    prefix: str | None = None,
    nats_options: Mapping[str, Any] | None = None,
    drain_timeout: float = 0.25,
    **config: Any,
) -> AsyncIterator[HumangrTestEngine]:
    """Run a HUMANGR engine for a test and yield its ``HumangrTestEngine``.

    ``nats_url``: run on that NATS server, or cluster (its seed URLs, a sequence or
    comma-separated), with core NATS and a unique subject prefix per engine, instead of an
    in-memory bus. ``llm``: ``"scripted"`` (every layer answers clean until scripted),
    ``None`` (local checks only) or your own ``LLMClient``. Other keywords go to
    ``ReviewConfig`` (``layers``, ``early_exit``, ...); deadlines default to 10 seconds.
    An exception raised in the ``async with`` body comes out as itself, not in a group.
    """
    try:
        async with _running(nats_url, llm, prefix, nats_options, drain_timeout, config) as kit:
            yield kit
    except BaseExceptionGroup as group:
        sole = sole_exception(group)
        if sole is None:
            raise
        raise sole from None


@asynccontextmanager
async def _running(
    nats_url: str | Sequence[str] | None,
    llm: LLMClient | Literal["scripted"] | None,
    prefix: str | None,
    nats_options: Mapping[str, Any] | None,
    drain_timeout: float,
    config: dict[str, Any],
) -> AsyncIterator[HumangrTestEngine]:
    config.setdefault("layer_deadline_s", 10.0)
    config.setdefault("review_deadline_s", 10.0)
    if "layers" in config:
        config["layers"] = ReviewConfig.parse_layers(",".join(map(str, config["layers"])))
        # The test chose its layers, as an operator's partial review does; every report says so.
        config.setdefault("partial", True)
    settings = ReviewConfig(**config)
    book = ScriptBook() if llm == "scripted" else None
    client = book if book is not None else llm
    if isinstance(client, str):
        raise ConfigError(f"llm must be 'scripted', None or an LLMClient, not {client!r}")
    if prefix is None:
        prefix = DEFAULT_PREFIX if nats_url is None else f"hltest-{uuid.uuid4().hex[:12]}"
    subjects = Subjects(prefix=prefix)
    policy = SupervisionPolicy(initial_backoff=0.01, drain_timeout=drain_timeout)
    async with AsyncExitStack() as stack:
        bus: Bus
        if nats_url is None:
            bus = MemoryBus()
        else:
            from humangr.engine.bus.nats import NatsBus

            options = {"name": "humangr-test", **(nats_options or {})}
            bus = await NatsBus.connect(nats_url, subjects=subjects, **options)
        stack.push_async_callback(bus.close)
        engine = await stack.enter_async_context(
            run_engine(bus=bus, llm=client, config=settings, subjects=subjects, policy=policy)
        )
        record = Recorder()
        waiters = DecisionWaiters(trusted=(engine.public_key,))
        async with anyio.create_task_group() as tg:
            await tg.start(record.run, bus, subjects)
            await tg.start(functools.partial(waiters.run, bus, subjects))
            try:
                yield HumangrTestEngine(engine, book, record, waiters)
            finally:
                record.close()
                tg.cancel_scope.cancel()
