"""``WorkLedger``: the pipeline Supervisor's work orders in a ``StateStore``, so that a restarted
Supervisor (or another one on the same store) takes each order up where it was.

Buckets:

- ``pipeline_orders`` — one ``OrderRecord`` per work order (key: the order id): the order, its
  phase (``calling`` an agent, ``reviewing`` the Dev's output, ``writing`` the artifacts,
  ``done``), the request in flight, the Dev output under review and, once done, the hand-off it
  ended with — sent again when the Monitor re-issues the order, so a re-issued order never runs
  twice. A project's done records are dropped when its next order arrives.
- ``pipeline_reviews`` — action id → order id, for the decisions on the Dev outputs under review.

Every change is a compare-and-set on the revision read: of two handlers racing on one order
(a decision and a recovery, two Supervisors) exactly one moves it on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import msgspec

from humangr.contracts import AgentResult, Handoff, WorkOrder
from humangr.engine.errors import StateConflict, StateError
from humangr.engine.state import Bucket, Entry, StateStore

__all__ = [
    "ORDERS_BUCKET",
    "REVIEWS_BUCKET",
    "Held",
    "OrderRecord",
    "Phase",
    "ReviewRecord",
    "WorkLedger",
]

ORDERS_BUCKET = "pipeline_orders"
REVIEWS_BUCKET = "pipeline_reviews"
Phase = Literal["calling", "reviewing", "writing", "done"]


class ReviewRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The Dev output submitted to the seven layers as ``action_id`` (the action is rebuilt
    from the result when it must be submitted again, and must hash the same)."""

    action_id: str
    action_hash: str
    result: AgentResult
    started: float
    """Wall-clock time of the last submission (the decision timeout counts from it)."""
    notice: Handoff | None = None
    """The ``needs_review`` hand-off, once the review waits for a human."""


class OrderRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Where one work order stands."""

    order: WorkOrder
    phase: Phase = "calling"
    sends: int = 0
    """Requests sent to the agent so far (a write error asks again)."""
    request_id: str = ""
    sent_at: float = 0.0
    sender: str = ""
    """The Supervisor instance that sent the request in flight."""
    extra: dict[str, str] = {}
    """Inputs added to the request in flight (a write error)."""
    result: AgentResult | None = None
    """``writing``: the result whose artifacts are written."""
    review: ReviewRecord | None = None
    handoff: Handoff | None = None
    """``done``: the hand-off the order ended with."""

    @property
    def waiting_human(self) -> bool:
        return self.review is not None and self.review.notice is not None


@dataclass(frozen=True, slots=True)
class Held:
    """A record and the revision it was read at."""

    record: OrderRecord
    revision: int

    @property
    def order_id(self) -> str:
        return self.record.order.order_id


_DECODER = msgspec.json.Decoder(OrderRecord)
_encode = msgspec.json.Encoder().encode


class WorkLedger:
    """The pipeline Supervisor's records in ``store`` (see the module docstring)."""

    def __init__(self, store: StateStore) -> None:
        self.store = store
        self._orders: Bucket | None = None
        self._reviews: Bucket | None = None

    async def open(self) -> None:
        self._orders = await self.store.bucket(ORDERS_BUCKET)
        self._reviews = await self.store.bucket(REVIEWS_BUCKET)

    @property
    def orders(self) -> Bucket:
        if self._orders is None:
            raise StateError("the work ledger is not open; call open() first")
        return self._orders

    @property
    def reviews(self) -> Bucket:
        if self._reviews is None:
            raise StateError("the work ledger is not open; call open() first")
        return self._reviews

    def _held(self, entry: Entry) -> Held:
        try:
            return Held(_DECODER.decode(entry.value), entry.revision)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise StateError(
                f"work order {entry.key} in {self.store.description} is damaged "
                f"({str(exc)[:200]}); delete the key {entry.key} from the bucket "
                f"{ORDERS_BUCKET} and let the Monitor issue the order again"
            ) from None

    async def get(self, order_id: str) -> Held | None:
        entry = await self.orders.get(order_id)
        return None if entry is None else self._held(entry)

    async def create(self, record: OrderRecord) -> Held | None:
        """Record a new order; ``None`` if it is recorded already."""
        try:
            revision = await self.orders.create(record.order.order_id, _encode(record))
        except StateConflict:
            return None
        return Held(record, revision)

    async def update(self, held: Held, record: OrderRecord) -> Held | None:
        """``record`` in place of ``held``; ``None`` if another handler changed it first."""
        try:
            revision = await self.orders.update(held.order_id, _encode(record), held.revision)
        except StateConflict:
            return None
        return Held(record, revision)

    async def delete(self, held: Held) -> bool:
        """Drop the order (and its review link); ``False`` if it changed meanwhile."""
        try:
            await self.orders.delete(held.order_id, revision=held.revision)
        except StateConflict:
            return False
        if held.record.review is not None:
            await self.unlink(held.record.review.action_id)
        return True

    async def all(self) -> list[Held]:
        """Every recorded order; a damaged one raises ``StateError``."""
        return [self._held(entry) for entry in await self.orders.entries()]

    async def scan(self) -> tuple[list[Held], list[StateError]]:
        """Every readable order, and an error for each damaged one."""
        found: list[Held] = []
        damaged: list[StateError] = []
        for entry in await self.orders.entries():
            try:
                found.append(self._held(entry))
            except StateError as exc:
                damaged.append(exc)
        return found, damaged

    async def prune(self, project_id: str, keep: str) -> int:
        """Drop the done records of ``project_id`` other than ``keep`` (the Monitor moved on
        from them); how many were dropped."""
        dropped = 0
        for held in (await self.scan())[0]:
            record = held.record
            mine = record.order.project_id == project_id and held.order_id != keep
            if mine and record.phase == "done" and await self.delete(held):
                dropped += 1
        return dropped

    async def forget_project(self, project_id: str) -> int:
        """Drop every record of ``project_id`` (it was cancelled); how many were dropped."""
        dropped = 0
        for held in await self.all():
            if held.record.order.project_id == project_id and await self.delete(held):
                dropped += 1
        return dropped

    async def link(self, action_id: str, order_id: str) -> None:
        await self.reviews.put(action_id, order_id.encode())

    async def unlink(self, action_id: str) -> None:
        await self.reviews.delete(action_id)

    async def order_of(self, action_id: str) -> str | None:
        """The order whose Dev output is under review as ``action_id``."""
        entry = await self.reviews.get(action_id)
        if entry is None:
            return None
        try:
            return entry.value.decode()
        except UnicodeDecodeError:
            return None
