"""The whole engine against poison: every bad message on every subject any actor consumes is one
dead letter, no actor restarts, and the engine still decides a real action afterwards.

Runs over MemoryBus, a real NatsBus (core) and a NatsBus in JetStream mode.
"""

from __future__ import annotations

import types
import typing
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from humangr.actors.roles import review_actors, run_engine
from humangr.contracts import ActionContext, DeadLetter, Outcome, Subjects, decode
from humangr.engine.actor import Actor, ActorContext, SupervisionPolicy
from humangr.engine.bus import Bus, MemoryBus, Subscription
from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import ScriptedLLM
from humangr.engine.metrics import Metrics
from humangr.engine.review import action_hash

pytestmark = pytest.mark.anyio

POLICY = SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0)
JS = JetStreamConfig(ack_wait=10.0, max_deliver=3, poll_interval=0.5, storage="memory")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "actions"


def pipeline_actors(root: Path) -> list[Actor]:
    """The actors of ``humangr serve --role monitor`` and ``--role agents``."""
    from humangr.actors.pipeline.agent import serve_actors as agents
    from humangr.actors.pipeline.supervisor import serve_actors as monitor

    return [*monitor(root=root), *agents(llm=ScriptedLLM([]), root=root)]


def _text_field(type_: type[Any]) -> str:
    """A field of ``type_`` that holds a string."""
    for field in msgspec.structs.fields(type_):
        kinds = [field.type]
        if typing.get_origin(field.type) in (typing.Union, types.UnionType):  # optional str
            kinds = list(typing.get_args(field.type))
        for kind in kinds:
            if typing.get_origin(kind) is typing.Annotated:
                kind = typing.get_args(kind)[0]
            if kind is str:
                return field.encode_name
    raise AssertionError(f"{type_.__name__} has no string field")


def consumed(subjects: Subjects, root: Path) -> dict[str, type[Any]]:
    """Every subject a review or pipeline actor consumes (wildcards filled in), with the
    contract it is decoded as."""
    found: dict[str, type[Any]] = {}
    actors = [*review_actors(ReviewConfig(), None), *pipeline_actors(root)]
    for actor in actors:
        ctx = ActorContext(MemoryBus(), subjects, Metrics(), actor.name)
        for route in actor.routes(ctx):
            if not route.report_undecodable:
                continue  # a dead-letter reader: a letter about a letter would loop
            tokens = [
                "poison" if token in ("*", ">") else token for token in route.subject.split(".")
            ]
            found.setdefault(".".join(tokens), route.type)
    return found


def poison(type_: type[Any]) -> list[bytes]:
    """Bad UTF-8 in a known field, invalid JSON, a non-object and 1,000 levels of nesting."""
    field = _text_field(type_).encode()
    return [
        b'{"' + field + b'":"\xff\xfe"}',
        b'{"' + field + b'": "x",',
        b'[{"' + field + b'": "x"}]',
        b'{"a":' * 1_000 + b"1" + b"}" * 1_000,
    ]


@pytest.fixture(params=["memory", "nats", "jetstream"])
async def any_bus(request: pytest.FixtureRequest, subjects: Subjects) -> AsyncIterator[Bus]:
    if request.param == "memory":
        async with MemoryBus() as memory:
            yield memory
        return
    url = request.getfixturevalue("nats_url")
    jetstream = JS if request.param == "jetstream" else None
    bus = await NatsBus.connect(url, jetstream=jetstream, subjects=subjects)
    try:
        yield bus
    finally:
        await bus.close()
        if jetstream is not None:
            cleanup = await NatsBus.connect(url)
            try:
                for name in stream_names(subjects):
                    await cleanup.client.jetstream().delete_stream(name)
            finally:
                await cleanup.close()


@pytest.fixture
def subjects() -> Subjects:
    return Subjects(prefix=f"p{uuid.uuid4().hex[:10]}")


async def collect(sub: Subscription, count: int, *, quiet: float = 1.0) -> list[DeadLetter]:
    """``count`` dead letters, then whatever else arrives within ``quiet`` seconds."""
    found: list[DeadLetter] = []
    with anyio.fail_after(30):
        while len(found) < count:
            found.append(decode((await sub.__anext__()).data, DeadLetter))
    with anyio.move_on_after(quiet):
        while True:
            found.append(decode((await sub.__anext__()).data, DeadLetter))
    return found


def test_the_enumeration_covers_review_and_pipeline_subjects(tmp_path: Path) -> None:
    subjects = Subjects()
    found = consumed(subjects, tmp_path)
    for subject in (
        "hl.actions.submit",
        "hl.layers.report",
        "hl.reviews.poison.resolve",
        "hl.reports.get",
        "hl.actions.poison.cancel",
        "hl.layers.HL4.task",
        "hl.decisions.poison",
        "hl.pipeline.start",
        "hl.work.order",
        "hl.agents.dev.request",
    ):
        assert subject in found
    assert len(found) >= 20


async def test_poison_on_every_consumed_subject_is_one_dead_letter_each(
    any_bus: Bus, subjects: Subjects, tmp_path: Path
) -> None:
    targets = consumed(subjects, tmp_path)
    sent = Counter(
        (subject, len(payload)) for subject, type_ in targets.items() for payload in poison(type_)
    )
    async with (
        run_engine(
            bus=any_bus,
            llm=None,
            subjects=subjects,
            policy=POLICY,
            extra_actors=pipeline_actors(tmp_path),
        ) as engine,
        any_bus.subscribe(subjects.dlq) as dlq,
    ):
        for subject, type_ in targets.items():
            for payload in poison(type_):
                await any_bus.publish(subject, payload)
        letters = await collect(dlq, sum(sent.values()))
        action = ActionContext(
            agent_id="agent-1",
            action_type="code_diff",
            action_description="apply a deploy script",
            code_diff=(EXAMPLES / "02-hardcoded-key-and-shell.diff").read_text(),
        )
        report = await engine.submit(action, timeout=60)
        restarts = {
            actor.name: engine.system.stats(actor.name).restarts for actor in engine.system.actors
        }
    assert Counter((letter.subject, letter.raw_size) for letter in letters) == sent
    assert all(letter.error.startswith("invalid ") for letter in letters)
    assert all(letter.raw for letter in letters), "undecodable messages keep their first bytes"
    assert set(restarts.values()) == {0}, restarts
    assert report.outcome is Outcome.REJECTED
    assert report.action_hash == action_hash(action)
