"""JetStream settings and names for ``NatsBus``: ``JetStreamConfig``, the WORK and EVENTS
streams' names and subjects, and the names of durable consumers. Pure: nothing here talks to
a server (or imports nats-py)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal

from humangr.contracts.subjects import Subjects
from humangr.engine.errors import ConfigError

__all__ = [
    "JetStreamConfig",
    "covers",
    "durable_name",
    "event_subjects",
    "stream_names",
    "work_subjects",
]


@dataclass(frozen=True, slots=True)
class JetStreamConfig:
    """Durability settings of ``NatsBus`` in JetStream mode (times in seconds)."""

    ack_wait: float = 60.0
    """How long a consumer may hold a message unacked before it is redelivered."""
    max_deliver: int = 5
    """Deliveries of one message before JetStream stops redelivering it."""
    duplicate_window: float = 120.0
    """Window in which a second message with the same ``Nats-Msg-Id`` is dropped."""
    replicas: int = 1
    """Replicas of each stream on a cluster. An existing stream with another count is refused
    (``ReplicaMismatch``), never changed, unless ``update_streams``."""
    storage: Literal["file", "memory"] = "file"
    events_max_age: float = 7 * 24 * 3600.0
    """How long decision events are kept."""
    fetch_batch: int = 32
    """Most messages one pull subscription holds fetched but not yet taken."""
    poll_interval: float = 1.0
    """Expiry of one pull request; bounds how long a closed subscription's pull lingers."""
    publish_timeout: float = 5.0
    update_streams: bool = False
    """Change the replica count of existing streams to ``replicas`` (``serve --update-streams``,
    an operator's decision) instead of refusing to start."""

    def __post_init__(self) -> None:
        for name in (
            "ack_wait",
            "duplicate_window",
            "events_max_age",
            "poll_interval",
            "publish_timeout",
        ):
            if getattr(self, name) <= 0:
                raise ConfigError(f"JetStreamConfig.{name} must be positive")
        if self.max_deliver < 1 or self.fetch_batch < 1 or self.replicas < 1:
            raise ConfigError("JetStreamConfig max_deliver, fetch_batch and replicas must be >= 1")
        if self.storage not in ("file", "memory"):
            raise ConfigError(
                f"JetStreamConfig.storage must be 'file' or 'memory', not {self.storage!r}"
            )


def stream_names(subjects: Subjects) -> tuple[str, str]:
    """The WORK and EVENTS stream names for a prefix, e.g. ``HL_WORK`` and ``HL_EVENTS``."""
    base = re.sub(r"[^A-Za-z0-9_-]", "_", subjects.prefix).upper()
    return f"{base}_WORK", f"{base}_EVENTS"


def work_subjects(subjects: Subjects) -> tuple[str, ...]:
    """Subjects whose messages are work: stored until one consumer acks them."""
    return (
        subjects.action_submit,
        subjects.agent_submits,
        subjects.layer_tasks,
        subjects.agent_requests,
        subjects.work_order,
        subjects.pipeline_start,
    )


def event_subjects(subjects: Subjects) -> tuple[str, ...]:
    """Subjects kept as deduplicated events."""
    return (subjects.decisions,)


def covers(pattern: tuple[str, ...], subject: tuple[str, ...]) -> bool:
    """Whether all that ``subject`` (wildcards allowed) matches is matched by ``pattern``."""
    for index, token in enumerate(subject):
        if index >= len(pattern):
            return False
        wanted = pattern[index]
        if wanted == ">":
            return True
        if token == ">" or (wanted != "*" and token != wanted):
            return False
    return len(pattern) == len(subject)


def durable_name(queue: str, subject: str) -> str:
    """A consumer name from a queue group and filter subject: readable, unique, legal."""
    readable = re.sub(r"[^A-Za-z0-9_-]", "_", f"{queue}__{subject}")[:80]
    digest = hashlib.blake2b(f"{queue}\0{subject}".encode(), digest_size=5).hexdigest()
    return f"{readable}_{digest}"
