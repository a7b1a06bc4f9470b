"""``humangr.connect``: the agent's side of HUMANGR — submit an action, wait for its decision,
check it (action hash, signature), and act only on an approval (``guard``)."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

import anyio
import anyio.to_thread
from anyio.abc import TaskStatus
from anyio.lowlevel import EventLoopToken, current_token

from humangr.contracts import ActionContext, HumanLayerReport, Subjects, convert
from humangr.engine.bus import Bus
from humangr.engine.decisions import DecisionWaiters
from humangr.engine.errors import (
    ConfigError,
    ContractError,
    EngineError,
    ReviewTimeout,
    sole_exception,
)
from humangr.engine.submission import new_action_id, submission
from humangr.engine.trust import mark_unsigned

from .connection import open_nats
from .guard import Guarding
from .human_route import HumanRoute, StatePoller, route_of
from .options import ConnectOptions, Settings

if TYPE_CHECKING:
    from humangr.actors.roles import Engine

__all__ = ["Client", "as_action", "connect"]

log = logging.getLogger("humangr.client")
_REMOTE_TIMEOUT = 300.0
_HUMAN_TIMEOUT = 24 * 3600.0


def as_action(action: ActionContext | Mapping[str, Any]) -> ActionContext:
    """``action`` as an ``ActionContext``; a mapping is checked field by field (an unknown or
    misspelled field is a ``ContractError`` naming it)."""
    if isinstance(action, ActionContext):
        return action
    if not isinstance(action, Mapping):
        raise ContractError(
            "ActionContext", "$", f"expected an ActionContext or a dict, got {type(action)}"
        )
    return convert(dict(action), ActionContext)


class Client(Guarding):
    """A connection to a HUMANGR engine (``humangr.connect``): ``review`` and ``guard``.

    One subscription on the decisions serves every review in flight; closing the client ends
    the reviews still waiting with an ``EngineError`` (never an approval).
    """

    def __init__(
        self,
        bus: Bus,
        subjects: Subjects,
        settings: Settings,
        *,
        trusted: tuple[str, ...],
        engine: Engine | None = None,
        poller: StatePoller | None = None,
    ) -> None:
        self.bus = bus
        self.subjects = subjects
        self.settings = settings
        self.engine = engine
        """The embedded engine (``connect()`` without a URL), else ``None``."""
        self.waiters = (
            engine.waiters
            if engine is not None and engine.waiters.trusted == trusted
            else DecisionWaiters(trusted=trusted, in_process=engine is not None)
        )
        """Who waits for decisions: the embedded engine's own waiters (already on its bus and
        handed its decisions in process), else this client's."""
        self.route: HumanRoute = route_of(settings)
        """Where a human reaches this engine's reviews (none: the embedded engine in memory)."""
        self.poller = poller
        self._scopes: set[anyio.CancelScope] = set()
        self._closed = False
        self._token: EventLoopToken | None = None
        self.loop_thread: int | None = None
        """The id of the thread the client's event loop runs in."""

    @property
    def agent_id(self) -> str:
        return self.settings.agent_id

    @property
    def human_reachable(self) -> bool:
        """Whether a human can resolve this engine's reviews while the agent waits: a served
        engine (the reviewer commands and the inbox on NATS) or the embedded one with
        ``state=``. It sets what ``guard`` does on ``needs_review`` by default."""
        return self.route.reachable

    @property
    def closed(self) -> bool:
        """Whether the client was closed (reviews are refused)."""
        return self._closed

    @property
    def trusted_keys(self) -> tuple[str, ...]:
        """The public keys a decision must be signed by (empty only with
        ``insecure_unsigned``: signatures not checked)."""
        return self.waiters.trusted

    @property
    def verified(self) -> bool:
        """Whether every decision this client returns was checked against a trusted key;
        ``False`` only with ``insecure_unsigned=True``, and then every report says
        "unsigned: not verified"."""
        return bool(self.waiters.trusted)

    @property
    def token(self) -> EventLoopToken:
        """The event loop the client runs in (for sync guarded functions in other threads)."""
        if self._token is None:
            raise EngineError("the client is not running; use it inside `async with connect()`")
        return self._token

    def default_timeout(self, final: bool) -> float:
        """How long a review waits when not told: the client's ``timeout``, else the embedded
        engine's deadlines, else 5 minutes (a day more when waiting for a human)."""
        if self.settings.timeout is not None:
            return self.settings.timeout
        if self.engine is not None:
            config = self.engine.config
            return config.layer_deadline_s * 2 + 5 + (config.review_deadline_s if final else 0)
        return _REMOTE_TIMEOUT + (_HUMAN_TIMEOUT if final else 0)

    async def review(
        self,
        action: ActionContext | Mapping[str, Any],
        *,
        final: bool = False,
        timeout: float | None = None,
    ) -> HumanLayerReport:
        """Submit ``action`` and return its decision, checked: it names this action's hash (else
        ``DecisionMismatch``) and, with trusted keys, one of them signed it unchanged (else
        ``SignatureError``). With ``final=True`` a ``needs_review`` is waited past for the
        human's resolution: one WARNING then names the action and the command that resolves it.
        No decision within ``timeout`` raises ``ReviewTimeout`` (naming only commands that
        reach this engine); a refused submission ``SubmissionRefused``. Without trusted keys
        (``insecure_unsigned``) the report's first policy note says "unsigned: not
        verified"."""
        checked = as_action(action)
        if self._closed:
            raise EngineError("the HUMANGR client is closed; open a new one with connect()")
        if self._own_user and checked.agent_id != self.agent_id:
            raise ConfigError(
                f"this client's NATS user reads only the decisions of agent {self.agent_id!r}, "
                f"not of {checked.agent_id!r}; submit as {self.agent_id!r} or connect as that "
                "agent's user"
            )
        limit = timeout if timeout is not None else self.default_timeout(final)
        submitted = submission(checked, new_action_id(), None)
        scope = anyio.CancelScope()
        self._scopes.add(scope)
        report: HumanLayerReport | None = None
        action_id = submitted.action_id
        poller = self.poller if final else None
        if poller is not None:
            poller.watch(action_id)
        try:
            with scope:
                report = await self.waiters.submit(
                    self.bus,
                    self.subjects,
                    submitted,
                    timeout=limit,
                    final=final,
                    on_pending=lambda first: log.warning(self.route.waiting(first.action_id)),
                )
        except ReviewTimeout as exc:
            hint = self.route.timeout_hint(action_id, final=final, embedded=self.settings.embedded)
            raise ReviewTimeout(action_id, exc.timeout, final=final, hint=hint) from None
        finally:
            self._scopes.discard(scope)
            if poller is not None:
                poller.unwatch(action_id)
        if report is None:  # cancelled by ``_close``
            raise EngineError(
                f"the HUMANGR client closed while {submitted.action_id} waited for its "
                "decision; do not act on it"
            )
        return report if self.verified else mark_unsigned(report)

    @property
    def shares_waiters(self) -> bool:
        """Whether the client waits through the embedded engine's own ``DecisionWaiters``."""
        return self.engine is not None and self.waiters is self.engine.waiters

    def _guard_target(self) -> tuple[Client, bool]:
        return self, False

    async def _run(self, *, task_status: TaskStatus[None]) -> None:
        self._token = current_token()
        self.loop_thread = threading.get_ident()
        if self.shares_waiters:  # the engine's waiters listen already: no second subscription
            task_status.started()
            await anyio.sleep_forever()
        subjects = self.subjects
        own = self._own_user
        pattern = subjects.decision(self.agent_id) if own else None
        # refusals of its own submissions only: never ``dlq``, which holds every agent's
        letters = subjects.agent_dlq(self.agent_id) if own else subjects.agent_dlqs
        await self.waiters.run(
            self.bus, subjects, task_status=task_status, pattern=pattern, letters=letters
        )

    @property
    def _own_user(self) -> bool:
        """Whether this agent has its own NATS user, so it reads only its own decisions
        (deploy/nats-server.conf): it listens to ``decisions.<agent_id>``, not to them all."""
        nats = self.settings.nats
        return self.settings.url is not None and bool(nats.get("user") or nats.get("creds_file"))

    def _close(self) -> None:
        self._closed = True
        for scope in list(self._scopes):
            scope.cancel()


def connect(
    url: str | Sequence[str] | None = None, **options: Unpack[ConnectOptions]
) -> AbstractAsyncContextManager[Client]:
    """Connect an agent to HUMANGR: ``async with humangr.connect() as hg: ...``.

    ``url`` is a NATS URL or a cluster's seed URLs (a list, or comma-separated): any that
    answers is used, and a lost connection moves to another.

    Without ``url`` the engine runs in this process (on an in-memory bus, local checks unless
    ``llm=`` is given) and its decisions are trusted by its own key. With a NATS URL (or
    ``bus=``) the client talks to ``humangr serve`` and trusts ``public_key=`` (or
    ``$HUMANGR_PUBLIC_KEY``); with no key it refuses to start (``ConfigError``) unless
    ``insecure_unsigned=True``, and then every report says "unsigned: not verified". Options
    are checked here: an unknown one raises ``TypeError``, one that cannot work
    ``ConfigError``. An exception leaves the ``async with`` block as itself (never wrapped in
    an ``ExceptionGroup``), so ``except humangr.ReviewTimeout`` catches it.
    """
    return _connected(Settings.parse(url, options))


@asynccontextmanager
async def _connected(settings: Settings) -> AsyncIterator[Client]:
    try:
        async with _running(settings) as client:
            yield client
    except BaseExceptionGroup as group:
        sole = sole_exception(group)
        if sole is None:
            raise
        raise sole from None


@asynccontextmanager
async def _running(settings: Settings) -> AsyncIterator[Client]:
    async with AsyncExitStack() as stack:
        subjects = Subjects(settings.prefix)
        engine: Engine | None = None
        poller: StatePoller | None = None
        trusted: tuple[str, ...]
        if settings.embedded and settings.state is not None:
            engine, poller = await _with_state(stack, settings, subjects, settings.state)
            bus, trusted = engine.bus, (engine.public_key,)
        elif settings.embedded:
            from humangr.actors.roles import run_engine

            engine = await stack.enter_async_context(
                run_engine(llm=settings.llm, config=settings.config, subjects=subjects)
            )
            bus, trusted = engine.bus, (engine.public_key,)
        elif settings.bus is not None:
            bus, trusted = settings.bus, settings.trusted
        else:
            bus = await open_nats(
                settings.url or (),
                credentials=settings.nats,
                subjects=subjects,
                name="humangr-client",
            )
            stack.push_async_callback(bus.close)
            trusted = settings.trusted
        if not trusted:
            if not settings.insecure_unsigned:  # ``Settings.parse`` refuses this; never trust
                raise ConfigError("humangr.connect: no public key to verify decisions with")
            log.warning(
                "humangr.connect: insecure_unsigned: decisions are checked against the action "
                'hash only, their signatures are not checked; every report says "unsigned: '
                'not verified"'
            )
        client = Client(bus, subjects, settings, trusted=trusted, engine=engine, poller=poller)
        if engine is not None and not client.shares_waiters:
            # the engine's decisions, as signed, before they are published (no decode, no
            # second signature check); a forged one on the bus still fails its check
            stack.callback(engine.local.listen(client.waiters.deliver))
        async with anyio.create_task_group() as tg:
            await tg.start(client._run)
            if client.poller is not None:
                await tg.start(client.poller.run)
            try:
                yield client
            finally:
                client._close()
                tg.cancel_scope.cancel()


async def _with_state(
    stack: AsyncExitStack, settings: Settings, subjects: Subjects, path: Path
) -> tuple[Engine, StatePoller]:
    """The embedded engine on the SQLite file of ``state=``, signing with this machine's key
    (the key ``humangr resolve --state`` signs with), and the poller that brings it the
    resolutions other processes write there."""
    from humangr.actors.roles import run_engine
    from humangr.engine.config import ReviewConfig
    from humangr.engine.signing import load_signing_key
    from humangr.engine.state import SqliteStateStore
    from humangr.engine.state.reviews import ReviewState

    key, _ = await anyio.to_thread.run_sync(load_signing_key)
    store = SqliteStateStore(path)
    stack.push_async_callback(store.close)
    config = settings.config or ReviewConfig()
    engine = await stack.enter_async_context(
        run_engine(llm=settings.llm, config=config, subjects=subjects, state=store, signing_key=key)
    )
    state = ReviewState(
        store,
        owner=f"client-{uuid.uuid4().hex[:12]}",  # reads only: it never claims anything
        retention_s=config.report_retention_s,
        review_deadline_s=config.review_deadline_s,
        lease_s=config.lease_s,
    )
    await state.open()
    return engine, StatePoller(state, engine.bus, subjects, path)
