"""``humangr.connect_sync``: the client for agents that are not async. The async client runs
in an event loop of its own thread (an anyio blocking portal); ``review`` and ``guard`` block the
caller until the decision."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Unpack

from anyio.from_thread import BlockingPortal, start_blocking_portal

from humangr.contracts import ActionContext, HumanLayerReport

from .client import Client, connect
from .guard import Guarding
from .options import ConnectOptions, Settings

__all__ = ["SyncClient", "connect_sync"]


class SyncClient(Guarding):
    """``humangr.connect_sync``'s client: ``review`` and ``guard`` for plain sync code."""

    def __init__(self, client: Client, portal: BlockingPortal) -> None:
        self.client = client
        """The async client underneath (its methods run on ``portal``)."""
        self.portal = portal

    @property
    def agent_id(self) -> str:
        return self.client.agent_id

    @property
    def trusted_keys(self) -> tuple[str, ...]:
        return self.client.trusted_keys

    @property
    def human_reachable(self) -> bool:
        """``Client.human_reachable``: whether a human can resolve the reviews while the agent
        waits (a served engine, or the embedded one with ``state=``)."""
        return self.client.human_reachable

    @property
    def verified(self) -> bool:
        """``Client.verified``: ``False`` only with ``insecure_unsigned=True``."""
        return self.client.verified

    def review(
        self,
        action: ActionContext | Mapping[str, Any],
        *,
        final: bool = False,
        timeout: float | None = None,
    ) -> HumanLayerReport:
        """``Client.review``, blocking until the decision."""
        return self.portal.call(lambda: self.client.review(action, final=final, timeout=timeout))

    def _guard_target(self) -> tuple[Client, bool]:
        return self.client, True


def connect_sync(
    url: str | Sequence[str] | None = None, **options: Unpack[ConnectOptions]
) -> AbstractContextManager[SyncClient]:
    """``humangr.connect`` for sync code: ``with humangr.connect_sync() as hg: ...``; the same
    options, checked here. The engine (embedded) or the NATS connection lives in a thread of its
    own until the block ends."""
    Settings.parse(url, options)
    return _connected(url, options)


@contextmanager
def _connected(url: str | Sequence[str] | None, options: ConnectOptions) -> Iterator[SyncClient]:
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connect(url, **options)) as client,
    ):
        yield SyncClient(client, portal)
