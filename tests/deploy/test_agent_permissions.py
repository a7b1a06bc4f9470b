"""Issue 20 item 8 on a real nats-server with deploy/nats-server.conf plus one agent added as
its comments document: an agent reads only its own decisions and replies, a work role cannot
change, delete or steal from the work stream, only the operator (and the owning Supervisor)
can, and a review still runs end to end for the added agent."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import nats.errors
import nats.js.errors
import pytest
from deploy_helpers import (
    DEPLOY,
    ROOT,
    Spec,
    agent_password_variable,
    connect_as,
    env_example,
    password,
    serving,
    with_agent,
)
from test_nats_permissions import nothing_arrives, subscribed, wait_for_violation

import humangr
from humangr.actors.roles import review_actors
from humangr.contracts import ActionContext, DeadLetter, ReportQuery, Subjects, decode, encode
from humangr.engine.actor import ActorSystem
from humangr.engine.bus import Bus
from humangr.engine.bus.jetstream import durable_name
from humangr.engine.bus.nats import NatsBus
from humangr.engine.bus.subject import inbox_prefix_for
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import (
    BusError,
    ConfigError,
    EngineError,
    StateError,
    SubmissionRefused,
)
from humangr.engine.signing import SigningKey
from humangr.engine.state import KeyValueStateStore
from humangr.engine.submission import fetch_report, submit_and_wait
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

BOB = "bob"
BOB_USER = f"agent-{BOB}"
BOB_PASSWORD = "dev-bob-change-me"
SUPERVISOR_CONSUMER = durable_name("supervisor", "hl.actions.submit.*")


@pytest.fixture(scope="module")
def two_agents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    """deploy/nats-server.conf with agent ``bob`` added from its documented block (in the
    accounts file it includes, deploy/nats-accounts.conf)."""
    folder = tmp_path_factory.mktemp("agents")
    conf = folder / "nats-server.conf"
    conf.write_text((DEPLOY / "nats-server.conf").read_text())
    accounts = (DEPLOY / "nats-accounts.conf").read_text()
    (folder / "nats-accounts.conf").write_text(with_agent(accounts, BOB))
    with pytest.MonkeyPatch.context() as env:
        for name, value in env_example().items():
            env.setenv(name, value)
        env.setenv(agent_password_variable(BOB), BOB_PASSWORD)
        server = NatsServer(jetstream=True, config_file=conf).start()
    try:
        yield server
    finally:
        server.stop()


async def connect_bob(url: str) -> NatsBus:
    return await NatsBus.connect(
        url,
        user=BOB_USER,
        password=BOB_PASSWORD,
        inbox_prefix=inbox_prefix_for(BOB_USER),
        connect_timeout=3.0,
    )


async def test_an_agent_cannot_read_another_agents_decisions(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    spy = await connect_as(two_agents.url, "agent")
    bob = await connect_bob(two_agents.url)
    supervisor = await connect_as(two_agents.url, "supervisor")
    try:
        async with (
            subscribed(spy, "hl.decisions.bob") as theirs,
            subscribed(spy, "hl.decisions.>") as everything,
            subscribed(spy, "hl.decisions.agent") as own,
            subscribed(bob, "hl.decisions.bob") as bobs,
        ):
            await supervisor.publish("hl.decisions.bob", b"bob's decision")
            await supervisor.publish("hl.decisions.agent", b"the spy's own decision")
            with anyio.fail_after(5):
                assert (await anext(aiter(bobs))).data == b"bob's decision"
                assert (await anext(aiter(own))).data == b"the spy's own decision"
            assert await nothing_arrives(theirs) == []
            assert await nothing_arrives(everything) == []
    finally:
        for bus in (spy, bob, supervisor):
            await bus.close()
    await wait_for_violation(caplog, 'subscription to "hl.decisions.bob"')
    await wait_for_violation(caplog, 'subscription to "hl.decisions.>"')


@pytest.mark.parametrize("pattern", ["_INBOX.>", "_INBOX_agent-bob.>", ">"])
async def test_an_agent_cannot_read_another_agents_replies(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture, pattern: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    spy = await connect_as(two_agents.url, "agent")
    bob = await connect_bob(two_agents.url)
    supervisor = await connect_as(two_agents.url, "supervisor")
    try:
        async with (
            subscribed(spy, pattern) as snoop,
            subscribed(supervisor, "hl.reports.get.*", queue="supervisor") as queries,
            anyio.create_task_group() as tg,
        ):

            async def answer() -> None:
                async for msg in queries:
                    assert msg.reply is not None
                    assert msg.reply.startswith("_INBOX_agent-bob.")
                    await supervisor.publish(msg.reply, b"bob's report: the diff " + msg.data)
                    return

            tg.start_soon(answer)
            reply = await bob.request("hl.reports.get.bob", b"act-bob", timeout=5)
            assert reply.data == b"bob's report: the diff act-bob"
            assert await nothing_arrives(snoop) == []
    finally:
        for bus in (spy, bob, supervisor):
            await bus.close()
    await wait_for_violation(caplog, f'subscription to "{pattern}"')


@pytest.mark.parametrize("role", ["reviewer", "supervisor", "layer", "worker", "monitor"])
async def test_no_role_reads_the_agents_replies(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture, role: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    bus = await connect_as(two_agents.url, role)
    try:
        async with subscribed(bus, "_INBOX_agent.>") as snoop:
            assert await nothing_arrives(snoop, 0.1) == []
    finally:
        await bus.close()
    await wait_for_violation(caplog, 'subscription to "_INBOX_agent.>"')


async def raw_request(bus: NatsBus, subject: str, body: Mapping[str, object]) -> dict[str, object]:
    """A JetStream API request; a refused one (permissions) gets no answer: ``{}``."""
    try:
        reply = await bus.client.request(subject, json.dumps(body).encode(), timeout=1.5)
    except nats.errors.TimeoutError:
        return {}
    answer: dict[str, object] = json.loads(reply.data)
    return answer


async def queued_submissions(operator: NatsBus) -> tuple[int, float]:
    info = await operator.client.jetstream().stream_info("HL_WORK")
    return int(info.state.messages), float(info.config.max_age or 0)


@pytest.mark.parametrize("role", ["layer", "worker", "monitor", "agent", "reviewer"])
async def test_a_work_role_cannot_change_delete_or_steal_the_queued_work(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture, role: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    owner = await connect_as(two_agents.url, "supervisor", jetstream=True)  # the streams
    operator = await connect_as(two_agents.url, "operator")
    attacker = await connect_as(two_agents.url, role)
    agent = await connect_as(two_agents.url, "agent")
    try:
        async with owner.subscribe("hl.actions.submit.*", queue="supervisor"):
            pass  # the Supervisor's durable consumer exists, as in production
        await agent.publish("hl.actions.submit.agent", b'{"queued": "submission"}')
        await agent.flush()
        with anyio.fail_after(5):
            while (await queued_submissions(operator))[0] < 1:  # noqa: ASYNC110 (no event)
                await anyio.sleep(0.05)
        before = await queued_submissions(operator)
        info = await operator.client.jetstream().stream_info("HL_WORK")
        emptying = info.config.as_dict()
        emptying["max_age"] = 1_000_000_000  # 1 s: every queued submission would expire
        assert await raw_request(attacker, "$JS.API.STREAM.UPDATE.HL_WORK", emptying) == {}
        assert await raw_request(attacker, "$JS.API.STREAM.PURGE.HL_WORK", {}) == {}
        assert await raw_request(attacker, "$JS.API.STREAM.DELETE.HL_WORK", {}) == {}
        # nor read (every agent's diffs) or delete (their queued submissions) one message
        last = {"seq": int(info.state.last_seq)}
        assert await raw_request(attacker, "$JS.API.STREAM.MSG.GET.HL_WORK", last) == {}
        assert await raw_request(attacker, "$JS.API.STREAM.MSG.DELETE.HL_WORK", last) == {}
        thief = {
            "stream_name": "HL_WORK",
            "config": {
                "name": "thief",
                "durable_name": "thief",
                "ack_policy": "explicit",
                "filter_subject": "hl.actions.submit",
            },
        }
        created = await raw_request(
            attacker, "$JS.API.CONSUMER.CREATE.HL_WORK.thief.hl.actions.submit", thief
        )
        assert created == {}
        stolen = await raw_request(
            attacker, f"$JS.API.CONSUMER.MSG.NEXT.HL_WORK.{SUPERVISOR_CONSUMER}", {"batch": 1}
        )
        assert stolen == {}
        await anyio.sleep(1.2)  # a max_age of 1 s, had it been applied, would have emptied it
        assert await queued_submissions(operator) == before, "the queued work must survive"
        consumers = await operator.client.jetstream().consumers_info("HL_WORK")
        assert "thief" not in [c.name for c in consumers]
    finally:
        for bus in (attacker, agent, operator):
            await bus.close()
        await owner.close()
    await wait_for_violation(caplog, 'publish to "$js.api.stream.update.hl_work"')
    await wait_for_violation(caplog, 'publish to "$js.api.stream.delete.hl_work"')
    await wait_for_violation(caplog, 'publish to "$js.api.consumer.create.hl_work.thief')
    await wait_for_violation(caplog, 'publish to "$js.api.stream.msg.get.hl_work"')
    await wait_for_violation(caplog, 'publish to "$js.api.stream.msg.delete.hl_work"')


async def test_the_operator_changes_and_deletes_streams_and_consumers(
    two_agents: NatsServer,
) -> None:
    owner = await connect_as(two_agents.url, "supervisor", jetstream=True)
    operator = await connect_as(two_agents.url, "operator")
    try:
        js = operator.client.jetstream()
        info = await js.stream_info("HL_EVENTS")
        kept = info.config.max_age
        info.config.max_age = 3600.0
        changed = await js.update_stream(info.config)
        assert changed.config.max_age == 3600.0
        info.config.max_age = kept
        await js.update_stream(info.config)
        await js.add_consumer("HL_WORK", durable_name="ops-check", filter_subject="hl.work.order")
        assert await js.delete_consumer("HL_WORK", "ops-check")
    finally:
        await operator.close()
        await owner.close()


async def test_a_review_runs_end_to_end_for_the_added_agent(
    two_agents: NatsServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Supervisor and layers as their users, the added agent through ``humangr.connect``."""
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    common = ("--nats", two_agents.url, "--jetstream", "--llm", "none")
    specs = [
        Spec(("--role", "supervisor", *common), role="supervisor"),
        Spec(("--role", "layers", *common), role="layer"),
    ]
    diff = (ROOT / "examples" / "actions" / "02-hardcoded-key-and-shell.diff").read_text()
    operator = await connect_as(two_agents.url, "operator")
    try:  # the earlier tests' streams kept their messages in memory; serve keeps them on file
        for stream in ("HL_WORK", "HL_EVENTS"):
            with contextlib.suppress(nats.js.errors.NotFoundError):
                await operator.client.jetstream().delete_stream(stream)
    finally:
        await operator.close()
    async with serving(*specs, log_dir=tmp_path) as (supervisor, _layers):
        key = next(
            line.split("signs decisions with ")[1].split()[0]
            for line in supervisor.lines
            if "signs decisions with " in line
        )
        spy = await connect_as(two_agents.url, "agent")
        try:
            async with (
                subscribed(spy, "hl.decisions.agent") as own,
                humangr.connect(
                    two_agents.url,
                    agent_id=BOB,
                    user=BOB_USER,
                    password=BOB_PASSWORD,
                    public_key=key,
                ) as hg,
            ):
                with anyio.fail_after(30):
                    report = await hg.review(
                        {
                            "agent_id": BOB,
                            "action_type": "code_diff",
                            "action_description": "apply a diff with a key in it",
                            "code_diff": diff,
                        }
                    )
                assert report.agent_id == BOB
                assert report.outcome.value == "rejected", report.blocking_reasons
                assert await nothing_arrives(own, 0.2) == [], "bob's decision is bob's only"
                with pytest.raises(ConfigError, match="reads only the decisions of agent 'bob'"):
                    await hg.review(
                        {
                            "agent_id": "agent",  # it could never read that decision
                            "action_type": "code_diff",
                            "action_description": "apply a diff with a key in it",
                            "code_diff": diff,
                        }
                    )
        finally:
            await spy.close()
    logged = "\n".join(r.getMessage().lower() for r in caplog.records)
    assert "permissions violation" not in logged, logged


def test_each_user_has_its_own_inbox_prefix() -> None:
    assert inbox_prefix_for("agent") == "_INBOX_agent"
    assert inbox_prefix_for("agent-bob") == "_INBOX_agent-bob"
    assert inbox_prefix_for("a.b *>") == "_INBOX_a_b___", "never a wildcard or a new token"


async def test_a_wildcard_inbox_prefix_is_refused_before_connecting() -> None:
    with pytest.raises(ConfigError, match=r"invalid inbox prefix '_INBOX\.>'"):
        await NatsBus.connect("nats://127.0.0.1:1", inbox_prefix="_INBOX.>")


@pytest.mark.parametrize("role", ["agent", "reviewer", "observer", "layer", "worker", "monitor"])
async def test_no_role_but_the_supervisor_reads_its_state(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture, role: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    owner = await connect_as(two_agents.url, "supervisor")
    bus = await connect_as(two_agents.url, role)
    try:
        owned = KeyValueStateStore(owner.client.jetstream(timeout=3.0), namespace="HL")
        await (await owned.bucket("pending")).put("act-secret", b'{"diff": "a secret"}')
        store = KeyValueStateStore(bus.client.jetstream(timeout=1.0), namespace="HL")
        with pytest.raises(StateError):
            await (await store.bucket("pending")).get("act-secret")
        async with subscribed(bus, "$KV.HL_pending.>") as snoop:
            await (await owned.bucket("pending")).put("act-secret", b'{"diff": "again"}')
            assert await nothing_arrives(snoop) == []
    finally:
        await bus.close()
        await owner.close()
    await wait_for_violation(caplog, 'subscription to "$kv.hl_pending.>"')


S = Subjects()
DIFF = "--- a/app/x.py\n+++ b/app/x.py\n@@ -1 +1 @@\n-def f(): pass\n+def g(): pass\n"


def an_action(agent_id: str, diff: str = DIFF) -> ActionContext:
    return ActionContext(
        agent_id=agent_id,
        action_type="code_diff",
        action_description="rename f to g",
        code_diff=diff,
    )


@asynccontextmanager
async def review_supervisor(url: str) -> AsyncIterator[str]:
    """The Supervisor (local checks only) in this process as user ``supervisor``; yields the
    public key of its decisions."""
    key = SigningKey.generate()
    bus = await connect_as(url, "supervisor")
    try:
        system = ActorSystem(bus)
        system.add(*review_actors(ReviewConfig(), None, roles=("supervisor",), signing_key=key))
        async with system.running():
            yield key.public_key
    finally:
        await bus.close()


async def no_report(bus: Bus, id_: str, agent_id: str) -> str:
    """The Supervisor's answer to ``agent_id`` asking for ``id_`` (the id replaced by ID)."""
    with pytest.raises(EngineError) as caught:
        await fetch_report(bus, S, id_, agent_id=agent_id)
    assert type(caught.value) is EngineError, f"an answer, not a bus failure: {caught.value}"
    return str(caught.value).replace(repr(id_), "ID")


async def test_an_agent_gets_its_own_reports_only_and_reviewers_every_one(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    async with review_supervisor(two_agents.url):
        spy = await connect_as(two_agents.url, "agent")
        bob = await connect_bob(two_agents.url)
        reviewer = await connect_as(two_agents.url, "reviewer")
        operator = await connect_as(two_agents.url, "operator")
        try:
            with anyio.fail_after(30):
                bobs = await submit_and_wait(bob, S, an_action(BOB), timeout=30)
                spys = await submit_and_wait(spy, S, an_action("agent"), timeout=30)
            unknown = await no_report(spy, "act-00000000000000000000", "agent")
            for id_ in (bobs.action_id, bobs.report_id):
                assert await no_report(spy, id_, "agent") == unknown, "ids cannot be probed"
                query = encode(ReportQuery(id=id_))
                for subject in ("hl.reports.get", "hl.reports.get.bob"):
                    with pytest.raises(BusError):  # refused by the server: never answered
                        await spy.request(subject, query, timeout=1)
                assert await fetch_report(bob, S, id_, agent_id=BOB) == bobs
                assert await fetch_report(reviewer, S, id_) == bobs
                assert await fetch_report(operator, S, id_) == bobs
            for id_ in (spys.action_id, spys.report_id):
                assert await fetch_report(spy, S, id_, agent_id="agent") == spys
                assert await no_report(bob, id_, BOB) == unknown
                assert await fetch_report(reviewer, S, id_) == spys
        finally:
            for bus in (spy, bob, reviewer, operator):
                await bus.close()
    await wait_for_violation(caplog, 'publish to "hl.reports.get"')
    await wait_for_violation(caplog, 'publish to "hl.reports.get.bob"')


@pytest.mark.parametrize("pattern", ["hl.dlq", "hl.dlq.agent.bob", "hl.dlq.agent.*", "hl.dlq.>"])
async def test_an_agent_never_sees_another_agents_refusals(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture, pattern: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    async with review_supervisor(two_agents.url):
        spy = await connect_as(two_agents.url, "agent")
        bob = await connect_bob(two_agents.url)
        reviewer = await connect_as(two_agents.url, "reviewer")
        try:
            async with (
                subscribed(spy, pattern) as snoop,
                subscribed(reviewer, "hl.dlq") as letters,
            ):
                with anyio.fail_after(5), pytest.raises(SubmissionRefused, match="empty"):
                    await submit_and_wait(bob, S, an_action(BOB, diff=""), timeout=30)
                with anyio.fail_after(5):
                    letter = decode((await anext(aiter(letters))).data, DeadLetter)
                assert "code_diff is empty" in letter.error, "reviewers still read every letter"
                assert await nothing_arrives(snoop) == []
        finally:
            for bus in (spy, bob, reviewer):
                await bus.close()
    await wait_for_violation(caplog, f'subscription to "{pattern}"')


async def test_an_agent_learns_of_its_own_refusal_at_once(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Through ``humangr.connect`` as its own user: no permissions violation, no waiting."""
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    async with (
        review_supervisor(two_agents.url) as key,
        humangr.connect(
            two_agents.url,
            agent_id="agent",
            user="agent",
            password=password("agent"),
            public_key=key,
        ) as hg,
    ):
        with anyio.fail_after(5), pytest.raises(SubmissionRefused, match="code_diff is empty"):
            await hg.review(an_action("agent", diff=""), timeout=60)
        with anyio.fail_after(30):
            report = await hg.review(an_action("agent"), timeout=30)
        assert report.agent_id == "agent"
    logged = "\n".join(r.getMessage().lower() for r in caplog.records)
    assert "permissions violation" not in logged, logged


async def test_the_report_and_submit_commands_of_an_agent_use_its_own_subjects(
    two_agents: NatsServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``humangr report --agent-id`` and ``submit --wait --agent-id`` as the agent's user."""
    from humangr.cli.main import main

    monkeypatch.setenv("HUMANGR_NATS_USER", BOB_USER)
    monkeypatch.setenv("HUMANGR_NATS_PASSWORD", BOB_PASSWORD)
    monkeypatch.delenv("HUMANGR_INBOX_PREFIX", raising=False)
    monkeypatch.delenv("HUMANGR_AGENT_ID", raising=False)
    async with review_supervisor(two_agents.url) as key:
        spy = await connect_as(two_agents.url, "agent")
        bob = await connect_bob(two_agents.url)
        try:
            with anyio.fail_after(30):
                bobs = await submit_and_wait(bob, S, an_action(BOB), timeout=30)
                spys = await submit_and_wait(spy, S, an_action("agent"), timeout=30)
        finally:
            await spy.close()
            await bob.close()
        common = ["--nats", two_agents.url, "--public-key", key, "--format", "json"]
        own = ["report", bobs.action_id, "--agent-id", BOB, *common]
        assert await anyio.to_thread.run_sync(main, own) == 0
        assert json.loads(capsys.readouterr().out)["report_id"] == bobs.report_id
        theirs = ["report", spys.action_id, "--agent-id", BOB, *common]
        assert await anyio.to_thread.run_sync(main, theirs) == 3
        assert "no report with report id or action id" in capsys.readouterr().err
        bad = ["report", spys.action_id, "--agent-id", "bob.>", *common]
        assert await anyio.to_thread.run_sync(main, bad) != 0
        assert "--agent-id is 1-64 letters" in capsys.readouterr().err
        empty = tmp_path / "empty.json"
        empty.write_text(encode(an_action("x", diff="")).decode())  # --agent-id makes it bob's
        submit = ["submit", str(empty), "--wait", "--agent-id", BOB, "--timeout", "60", *common]
        with anyio.fail_after(10):  # at once, not after --timeout
            code = await anyio.to_thread.run_sync(main, submit)
        assert code != 0
        assert "code_diff is empty" in capsys.readouterr().err
