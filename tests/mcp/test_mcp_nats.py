"""``humangr mcp --nats``: the MCP server submits to an engine running elsewhere on a real
nats-server (here, in the test process) and waits for its decision."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import pytest
from mcp_helpers import EVAL_DIFF, TIMEOUT, data, mcp_session, resource_json

from humangr.actors.roles import run_engine
from humangr.contracts import Subjects
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]


async def test_validate_through_a_remote_engine_on_nats(nats_url: str, tmp_path: Path) -> None:
    prefix = f"m{uuid.uuid4().hex[:10]}"
    bus = await NatsBus.connect(nats_url)
    try:
        async with run_engine(
            bus=bus,
            config=ReviewConfig(),
            subjects=Subjects(prefix),
            policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
        ) as engine:
            with (tmp_path / "server.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
                async with mcp_session(
                    "--nats",
                    nats_url,
                    "--public-key",
                    engine.public_key,
                    "--prefix",
                    prefix,
                    "--llm",
                    "none",
                    "--timeout",
                    "20",
                    errlog=errlog,
                ) as session:
                    decision = data(
                        await session.call_tool(
                            "validate",
                            {
                                "agent_id": "cursor",
                                "action_type": "code_diff",
                                "action_description": "Add a calculator endpoint.",
                                "code_diff": EVAL_DIFF,
                            },
                        )
                    )
                    assert decision["outcome"] == "rejected"
                    assert any(
                        f["line"] == 6 for f in decision["layer_results"]["HL4"]["merged_findings"]
                    )
                    stored = await engine.report(decision["report_id"])
                    assert stored.action_hash == decision["action_hash"]

                    report = data(
                        await session.call_tool("get_report", {"report_id": decision["report_id"]})
                    )
                    assert report == decision

                    stats = resource_json(
                        await session.read_resource("human_layer://stats/summary")
                    )
                    assert stats["mode"] == f"nats {nats_url}"
                    assert stats["decisions_by_outcome"]["rejected"] == 1
                    thresholds = resource_json(
                        await session.read_resource("human_layer://config/thresholds")
                    )
                    assert thresholds["mode"] == f"nats {nats_url}"
                    assert thresholds["policy_version"] == decision["policy_version"]
    finally:
        await bus.close()


SECRET = "Pa55-w0rd-never-shown"


async def test_the_engine_url_is_shown_without_credentials(tmp_path: Path) -> None:
    conf = tmp_path / "nats-server.conf"
    conf.write_text(f'authorization {{ users = [ {{ user: carol, password: "{SECRET}" }} ] }}\n')
    with NatsServer(jetstream=False, config_file=conf) as server:
        url = server.url.replace("nats://", f"nats://carol:{SECRET}@")
        with (tmp_path / "server.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
            args = ("--nats", url, "--insecure-unsigned", "--llm", "none")
            async with mcp_session(*args, errlog=errlog) as session:
                thresholds = resource_json(
                    await session.read_resource("human_layer://config/thresholds")
                )
            errlog.seek(0)
            logged = errlog.read()
    assert "nats://***@127.0.0.1" in str(thresholds)
    assert SECRET not in str(thresholds) + logged
