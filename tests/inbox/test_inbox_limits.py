"""Issue 20 item 11, the inbox's small holes, each shown by a hostile client first: weak tokens
refused at start, sign-in guessing rate-limited and locked out per client address, live-update
slots capped per reviewer, and slow clients cut off by header and body deadlines."""

from __future__ import annotations

import secrets
import time
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from inbox_helpers import TOKENS, csrf_of, engine_on, served_inbox, signed_in

from humangr.engine.errors import ConfigError
from humangr.inbox import InboxSettings
from humangr.inbox.limits import SignInLimiter, client_key
from humangr.inbox.tokens import MIN_TOKEN_BITS, estimated_bits, parse_tokens

pytestmark = pytest.mark.anyio


def fast(**limits: Any) -> InboxSettings:
    """The inbox's settings with ``limits``, polling often and answering wrong tokens at once."""
    return InboxSettings(poll_s=0.5, failed_sign_in_delay=0.0, **limits)


@pytest.mark.parametrize(
    "token",
    [
        "a" * 40,  # twenty (or forty) `a`s
        "abcdefghijklmnopqrstuvwxyz0123456789",
        "passwordpasswordpasswordpassword",
        "qwertyuiopasdfghjklzxcvbnm123456",
        "Tr0ub4dor&3" * 3,
        "alice-0123456789-abcdefghij-0123456789",
        secrets.token_urlsafe(12) * 3,  # a random part, repeated
        secrets.token_hex(8) * 4,
    ],
)
def test_a_weak_token_is_refused_at_start_saying_how_to_make_one(token: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_tokens(f"{token} alice\n", "tokens")
    message = str(caught.value)
    assert "tokens: entry 1:" in message
    assert "secrets.token_urlsafe(32)" in message, message
    assert token not in message, "an error never shows a token"


def test_random_tokens_are_accepted() -> None:
    for _ in range(200):
        token = secrets.token_urlsafe(32)
        assert estimated_bits(token) >= MIN_TOKEN_BITS, token
        assert parse_tokens(f"{token} alice", "tokens").who(token) == "alice"


async def sign_in(client: httpx.AsyncClient, token: str) -> httpx.Response:
    page = await client.get("/signin")
    assert page.status_code == 200, page.text
    return await client.post("/signin", data={"csrf": csrf_of(page.text), "token": token})


def wrong() -> str:
    return secrets.token_urlsafe(32)


async def test_guessing_tokens_is_rate_limited_per_client_address() -> None:
    settings = fast(sign_in_burst=3, sign_in_per_s=0.2, lockout_after=100)
    other = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    async with engine_on() as engine, served_inbox(engine, settings=settings) as served:
        async with httpx.AsyncClient(base_url=served.url, timeout=10) as guesser:
            codes = [(await sign_in(guesser, wrong())).status_code for _ in range(3)]
            assert codes == [401, 401, 401]
            limited = await sign_in(guesser, TOKENS["alice"])  # even the right one: wait
            assert limited.status_code == 429
            assert 1 <= int(limited.headers["retry-after"]) <= 5
            assert "too many sign-in attempts" in limited.text
            assert "alice" not in limited.text
        # another address is not held back by the guesser
        async with httpx.AsyncClient(base_url=served.url, transport=other, timeout=10) as alice:
            answer = await sign_in(alice, TOKENS["alice"])
            assert answer.status_code == 303, answer.text
        refused = served.metrics.inbox_refused.labels(reason="rate_limited")._value.get()
        assert refused == 1


async def test_wrong_tokens_in_a_row_lock_the_address_out() -> None:
    settings = fast(sign_in_burst=50, sign_in_per_s=50.0, lockout_after=3, lockout_s=60.0)
    async with (
        engine_on() as engine,
        served_inbox(engine, settings=settings) as served,
        httpx.AsyncClient(base_url=served.url, timeout=10) as client,
    ):
        # a right token between wrong ones resets the count
        assert (await sign_in(client, wrong())).status_code == 401
        assert (await sign_in(client, wrong())).status_code == 401
        assert (await sign_in(client, TOKENS["bob"])).status_code == 303
        client.cookies.clear()  # signed out again: the sign-in page is the way in
        assert (await sign_in(client, wrong())).status_code == 401
        assert (await sign_in(client, wrong())).status_code == 401
        assert (await sign_in(client, wrong())).status_code == 401  # the third in a row
        locked = await sign_in(client, TOKENS["alice"])
        assert locked.status_code == 429
        assert 55 <= int(locked.headers["retry-after"]) <= 60


def test_the_limiter_forgets_the_oldest_addresses_and_groups_ipv6_by_64() -> None:
    now = [0.0]
    limiter = SignInLimiter(
        burst=1, per_s=1.0, lockout_after=1, max_clients=2, clock=lambda: now[0]
    )
    limiter.failed("10.0.0.1")
    assert limiter.locked("10.0.0.1")
    assert limiter.admit("10.0.0.1") == 900
    limiter.admit("10.0.0.2")
    limiter.admit("10.0.0.3")  # past max_clients: the oldest is forgotten
    assert not limiter.locked("10.0.0.1")
    assert len(limiter._clients) == 2
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff:1") == "2001:db8::/64"
    assert client_key("::ffff:10.0.0.1") == "10.0.0.1"
    assert client_key(None) == "unknown"
    now[0] = 1_000.0
    assert limiter.admit("2001:db8::1") is None
    assert limiter.admit("2001:db8::2") == 1, "one /64 shares one bucket"


async def test_one_reviewer_cannot_take_every_live_update_slot() -> None:
    settings = fast(max_clients=10, max_streams_per_reviewer=2)
    async with (
        engine_on() as engine,
        served_inbox(engine, settings=settings) as served,
        signed_in(served, "alice") as alice,
        signed_in(served, "bob") as bob,
        alice.stream("GET", "/events") as first,
        alice.stream("GET", "/events") as second,
    ):
        assert (first.status_code, second.status_code) == (200, 200)
        third = await alice.get("/events")
        assert third.status_code == 429
        assert "2 live pages open" in third.text
        async with bob.stream("GET", "/events") as bobs:
            assert bobs.status_code == 200, "another reviewer still gets a slot"
        refused = served.metrics.inbox_refused.labels(reason="too_many_streams")._value.get()
        assert refused == 1
    # a closed page gives its slot back
    async with (
        engine_on() as engine,
        served_inbox(engine, settings=settings) as served,
        signed_in(served, "alice") as alice,
    ):
        for _ in range(4):
            async with alice.stream("GET", "/events") as stream:
                assert stream.status_code == 200


async def closed_within(stream: anyio.abc.SocketStream, limit: float) -> float:
    """Seconds until the server closes ``stream`` (reading what it sends), failing past
    ``limit``."""
    started = time.monotonic()
    with anyio.fail_after(limit):
        while True:
            try:
                await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError, ConnectionResetError):
                return time.monotonic() - started


async def test_slow_headers_and_bodies_are_cut_off() -> None:
    settings = fast(header_timeout=1.0, body_timeout=1.0)
    async with engine_on() as engine, served_inbox(engine, settings=settings) as served:
        port = int(served.url.rsplit(":", 1)[1])
        # a connection that never sends anything
        async with await anyio.connect_tcp("127.0.0.1", port) as idle:
            assert await closed_within(idle, 5) < 3
        # headers trickling in a byte at a time (slowloris)
        async with await anyio.connect_tcp("127.0.0.1", port) as slow:
            await slow.send(b"GET /healthz HTTP/1.1\r\nHost: inbox\r\n")

            async def trickle() -> None:
                for byte in b"X-Slow: " + b"a" * 100:
                    await anyio.sleep(0.2)
                    try:
                        await slow.send(bytes([byte]))
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                        return  # cut off

            async with anyio.create_task_group() as tg:
                tg.start_soon(trickle)
                assert await closed_within(slow, 5) < 3
                tg.cancel_scope.cancel()
        # a body that stops half way (answered early or not, the connection goes)
        async with await anyio.connect_tcp("127.0.0.1", port) as stalled:
            await stalled.send(
                b"POST /signin HTTP/1.1\r\nHost: inbox\r\nContent-Length: 100\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n\r\ntoken=abc"
            )
            assert await closed_within(stalled, 5) < 3
        # the inbox still answers, and a kept-alive client still works between requests
        async with httpx.AsyncClient(base_url=served.url, timeout=10) as client:
            assert (await client.get("/healthz")).status_code == 200
            assert (await client.get("/signin")).status_code == 200


async def test_a_live_stream_outlasts_the_read_deadlines() -> None:
    settings = fast(header_timeout=0.5, body_timeout=0.5)
    async with (
        engine_on() as engine,
        served_inbox(engine, settings=settings) as served,
        signed_in(served, "alice") as alice,
        alice.stream("GET", "/events") as stream,
    ):
        assert stream.status_code == 200
        lines = stream.aiter_lines()
        assert (await anext(lines)).startswith("retry:")
        ended = False
        with anyio.move_on_after(2.0):
            async for _ in lines:
                pass
            ended = True
        assert not ended, "the deadlines only time what the client sends"
