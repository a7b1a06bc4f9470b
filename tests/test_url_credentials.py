"""Credentials inside a URL (``http://user:pass@host``, ``nats://user:pass@host``) reach no
report, error, log record or command output: AnthropicLLM, NatsBus, the CLI and MCP."""

from __future__ import annotations

import logging
import signal
import subprocess
from collections.abc import Iterator

import anyio
import pytest
from cli_helpers import CLEAN_DIFF, ROOT, assert_error, command, environment, humangr

from humangr.actors.roles import run_engine
from humangr.cli.main import main
from humangr.contracts import ActionContext, Outcome, encode
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import BusError
from humangr.engine.llm import AnthropicLLM
from humangr.standins.nats_server import NatsServer, free_port

pytestmark = pytest.mark.anyio

SECRET = "Pa55-w0rd-never-shown"
ACTION = ActionContext(
    agent_id="dev-1",
    action_type="code_diff",
    action_description="Add a constant.",
    code_diff="--- a/app/x.py\n+++ b/app/x.py\n@@ -0,0 +1 @@\n+LIMIT = 10\n",
)


def closed_anthropic_url() -> str:
    return f"http://user:{SECRET}@127.0.0.1:{free_port()}"


def anthropic(url: str) -> AnthropicLLM:
    return AnthropicLLM(api_key="sk-test-key-0123456789", base_url=url, model="claude-test")


async def test_an_anthropic_url_with_credentials_is_in_no_report_error_or_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    main(["layers"])  # installs the log redaction, as every command line run does
    caplog.clear()
    llm = anthropic(closed_anthropic_url())
    assert SECRET not in repr(llm)
    with anyio.fail_after(60):
        async with run_engine(llm=llm, config=ReviewConfig(layer_deadline_s=30)) as engine:
            report = await engine.submit(ACTION)
    text = encode(report).decode()
    assert report.outcome is not Outcome.APPROVED
    assert "cannot reach the Anthropic API at http://***@127.0.0.1" in text
    assert SECRET not in text
    assert "Sending HTTP Request: POST http://***@127.0.0.1" in caplog.text
    assert SECRET not in caplog.text


def test_the_cli_shows_no_url_credentials_in_reports_or_verbose_logs() -> None:
    env = environment(
        ANTHROPIC_API_KEY="sk-test-key-0123456789",
        ANTHROPIC_BASE_URL=closed_anthropic_url(),
        HUMANGR_MODEL="claude-test",
    )
    args = ("-v", "review", str(CLEAN_DIFF), "--llm", "anthropic", "--format", "json")
    result = humangr(*args, "--deadline", "30", env=env)
    assert result.returncode == 1, result.stderr[-2000:]
    assert "http://***@127.0.0.1" in result.stdout
    assert "POST http://***@127.0.0.1" in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_cli_errors_show_no_url_credentials() -> None:
    url = f"nats://admin:{SECRET}@127.0.0.1:{free_port()}"
    for args in (
        ("submit", str(CLEAN_DIFF), "--nats", url),
        ("report", "x", "--nats", url, "--insecure-unsigned"),
        ("mcp", "--nats", url, "--insecure-unsigned"),
        ("serve", "--nats", url, "--role", "supervisor"),
    ):
        line = assert_error(humangr(*args), "nats://***@127.0.0.1")
        assert SECRET not in line


AUTH_CONF = f"""
authorization {{
  users = [ {{ user: carol, password: "{SECRET}" }} ]
}}
"""


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    conf = tmp_path_factory.mktemp("auth") / "nats-server.conf"
    conf.write_text(AUTH_CONF)
    with NatsServer(jetstream=False, config_file=conf) as server:
        yield server


def with_user(server: NatsServer, password: str = SECRET) -> str:
    return server.url.replace("nats://", f"nats://carol:{password}@")


@pytest.mark.nats
async def test_nats_connection_errors_and_logs_are_redacted(
    auth_server: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = with_user(auth_server, f"wrong-{SECRET}")
    with anyio.fail_after(15), pytest.raises(BusError) as caught:
        await NatsBus.connect(wrong)
    token = f"nats://{SECRET}@127.0.0.1:{free_port()}"
    with anyio.fail_after(15), pytest.raises(BusError) as closed:
        await NatsBus.connect(token)
    for error in (caught.value, closed.value):
        assert "nats://***@127.0.0.1" in str(error)
        assert SECRET not in str(error)
    assert SECRET not in caplog.text


@pytest.mark.nats
async def test_nats_reconnect_logs_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="humangr.bus")
    with NatsServer(jetstream=False) as server:
        url = server.url.replace("nats://", f"nats://{SECRET}@")
        async with await NatsBus.connect(url, reconnect_time_wait=0.05) as bus:
            server.restart()
            with anyio.fail_after(15):
                while not any("reconnected" in r.getMessage() for r in caplog.records):  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            await bus.flush()
    assert "disconnected from NATS at nats://***@127.0.0.1" in caplog.text
    assert SECRET not in caplog.text


@pytest.mark.nats
async def test_serve_prints_its_url_without_credentials(auth_server: NatsServer) -> None:
    args = ("-v", "serve", "--nats", with_user(auth_server), "--role", "supervisor")
    async with await anyio.open_process(
        command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        out = b""
        with anyio.fail_after(30):
            while b"humangr serving" not in out or not out.endswith(b"\n"):
                out += await process.stdout.receive()
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(30):
            assert await process.wait() == 0
        err = b"".join([chunk async for chunk in process.stderr])
    assert b"humangr serving supervisor on nats://***@127.0.0.1" in out
    assert b"humangr state: " in out
    assert SECRET.encode() not in out + err
