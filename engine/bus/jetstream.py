"""JetStream for ``NatsBus``: durable work streams, pull consumers and their acknowledgements.

The WORK stream (work-queue retention) stores action submissions, layer tasks, agent requests,
work orders and pipeline starts until a consumer acks them; the EVENTS stream keeps decisions
for a while and drops a second decision with the same ``Nats-Msg-Id`` inside the duplicate
window.

Each part has its own module, and every name is importable from here as well: the settings
and names (``jetstream_config``, pure functions), creating the streams and consumers
(``jetstream_setup``), and pulling and acknowledging (``jetstream_pull``).
"""

from __future__ import annotations

from .jetstream_config import (
    JetStreamConfig,
    covers,
    durable_name,
    event_subjects,
    stream_names,
    work_subjects,
)
from .jetstream_pull import JetStreamAcker, PullConsumer, PullSink, from_jetstream
from .jetstream_setup import ELECTION_WAIT as ELECTION_WAIT
from .jetstream_setup import check_replicas, ensure_consumer, ensure_streams, through_election

__all__ = [
    "JetStreamAcker",
    "JetStreamConfig",
    "PullConsumer",
    "PullSink",
    "check_replicas",
    "covers",
    "durable_name",
    "ensure_consumer",
    "ensure_streams",
    "event_subjects",
    "from_jetstream",
    "stream_names",
    "through_election",
    "work_subjects",
]
