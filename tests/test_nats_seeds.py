"""``parse_seed_urls``: a cluster's seed URLs, checked; a bad entry is one error naming it, and
no credential ever shows in an error or in a URL shown."""

from __future__ import annotations

import pytest
from cli_helpers import CLEAN_DIFF, assert_error
from cli_helpers import humangr as run_humangr

import humangr
from humangr.cli.common import connect_nats
from humangr.engine.bus.nats import NatsBus
from humangr.engine.bus.seeds import MAX_SEEDS, parse_seed_urls
from humangr.engine.errors import BusError, ConfigError
from humangr.engine.redact import redact_seed_urls

SECRET = "s3cr3t-pw"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("nats://a:4222", ("nats://a:4222",)),
        ("nats://a:4222,nats://b:4222", ("nats://a:4222", "nats://b:4222")),
        (" nats://a:4222 , tls://b:4223 ", ("nats://a:4222", "tls://b:4223")),
        (["nats://a:1", "nats://b:2"], ("nats://a:1", "nats://b:2")),
        (("nats://a:1,nats://b:2", "nats://c:3"), ("nats://a:1", "nats://b:2", "nats://c:3")),
        ("a:4222,b", ("nats://a:4222", "nats://b")),
        ("nats://a:1,nats://a:1", ("nats://a:1",)),
        ("ws://a:8080,wss://b:443", ("ws://a:8080", "wss://b:443")),
        (f"nats://bob:{SECRET}@a:4222", (f"nats://bob:{SECRET}@a:4222",)),
    ],
)
def test_good_lists(value: str | list[str], expected: tuple[str, ...]) -> None:
    assert parse_seed_urls(value) == expected


@pytest.mark.parametrize(
    ("value", "entry", "problem"),
    [
        ("nats://a:4222,,nats://b:4222", "'' (entry 2 of 3)", "is empty"),
        ("nats://a:4222,", "'' (entry 2 of 2)", "is empty"),
        ("nats://a:4222,nats://b :4222", "'nats://b :4222' (entry 2 of 2)", "a space"),
        ("nats://a:4222,http://b:80", "'http://b:80' (entry 2 of 2)", "scheme 'http'"),
        ("nats://:4222", "'nats://:4222'", "has no host"),
        ("nats://a:99999", "'nats://a:99999'", "bad port"),
        ("nats://a:0", "'nats://a:0'", "bad port"),
        ("nats://a:port", "'nats://a:port'", "bad port"),
        ("nats://a:1,nats://b\x00:2", "(entry 2 of 2)", "control character"),
        ("htp:/x", "'htp:/x'", "has a path"),
        ("nats://a:4222/x?y=1", "'nats://a:4222/x?y=1'", "has a path"),
    ],
)
def test_a_bad_entry_is_one_error_naming_it(value: str, entry: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_seed_urls(value)
    message = str(caught.value)
    assert entry in message
    assert problem in message
    assert "nats://host:4222" in message  # says what to give instead
    assert "\n" not in message


@pytest.mark.parametrize("value", ["", " ", [], ","])
def test_no_url_at_all(value: str | list[str]) -> None:
    with pytest.raises(ConfigError, match="NATS URL"):
        parse_seed_urls(value)


def test_too_many_seeds_and_mixed_kinds_are_refused() -> None:
    with pytest.raises(ConfigError, match=f"more than {MAX_SEEDS}"):
        parse_seed_urls(",".join(f"nats://h{i}:4222" for i in range(MAX_SEEDS + 1)))
    with pytest.raises(ConfigError, match="mix websocket"):
        parse_seed_urls("nats://a:4222,ws://b:8080")
    with pytest.raises(ConfigError, match="must be a string"):
        parse_seed_urls(["nats://a:4222", 4222])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="characters long"):
        parse_seed_urls("nats://a:1," * 10_000)


def test_a_scheme_can_be_required() -> None:
    with pytest.raises(ConfigError, match="has no scheme"):
        parse_seed_urls("nats://a:4222,b:4222", require_scheme=True)


@pytest.mark.parametrize(
    "value",
    [
        f"nats://bob:{SECRET}@a:99999",  # a bad port
        f"nats://bob:{SECRET}@a:4222,nats://bob:{SECRET}@b :4222",  # a space
        f"nats://bob:{SECRET} @a:4222",  # a space inside the user info
        f"bob:{SECRET}@a:0",  # no scheme, bad port
        f"nats://bob:{SECRET}@a:4222,http://bob:{SECRET}@b",  # a scheme
        f"nats://bob:{SECRET}@a:4222,nats://:{SECRET}@:4222",  # no host
        f"nats://bob:{SECRET}" + "x" * 2000 + "@a:4222",  # too long: cut after redacting
        # a password with a comma splits the URL: neither piece may show a part of it
        f"nats://bob:{SECRET[:4]},{SECRET[4:]}@a:4222",
        f"bob:{SECRET[:4]},{SECRET[4:]}@a:4222",
        f"nats://bob:{SECRET}@a:1,nats://bob:{SECRET}@a:1,ws://a:1",  # mixed kinds
    ],
)
def test_credentials_never_show_in_the_error(value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_seed_urls(value)
    assert SECRET not in str(caught.value)
    assert SECRET[:4] not in str(caught.value)
    assert SECRET[4:] not in str(caught.value)


def test_a_password_cut_at_a_comma_is_named_not_shown() -> None:
    with pytest.raises(ConfigError, match="a comma in a password splits the URL") as caught:
        parse_seed_urls(f"nats://a:4222,nats://bob:{SECRET[:4]},{SECRET[4:]}@b:4222")
    assert "entry 3 of 3" in str(caught.value)
    assert "HUMANGR_NATS_PASSWORD" in str(caught.value)


def test_shown_urls_have_no_credentials() -> None:
    shown = redact_seed_urls(f"nats://bob:{SECRET}@a:4222, bob:{SECRET}@b:4222,nats://c:4222")
    assert shown == "nats://***@a:4222, ***@b:4222, nats://c:4222"
    assert redact_seed_urls([f"tls://{SECRET}@a:1", "tls://b:2"]) == "tls://***@a:1, tls://b:2"
    assert SECRET not in redact_seed_urls(f"nats://bob:{SECRET} x@a:4222")


@pytest.mark.anyio
async def test_every_entry_point_refuses_a_bad_list_before_connecting() -> None:
    bad = f"nats://bob:{SECRET}@127.0.0.1:4222,nats://127.0.0.1:70000"
    with pytest.raises(ConfigError, match=r"'nats://127\.0\.0\.1:70000' \(entry 2 of 2\)"):
        await connect_nats(bad)
    with pytest.raises(BusError, match=r"entry 2 of 2\) has a bad port") as caught:
        await NatsBus.connect(bad)
    assert SECRET not in str(caught.value)
    with pytest.raises(ConfigError, match=r"humangr\.connect: .*entry 2 of 2"):
        humangr.connect(bad, insecure_unsigned=True)
    with pytest.raises(ConfigError, match="has no scheme"):
        humangr.connect(["nats://127.0.0.1:4222", "127.0.0.1:4223"], insecure_unsigned=True)


def test_a_command_names_the_bad_entry_in_one_line() -> None:
    bad = f"nats://bob:{SECRET}@127.0.0.1:4222,nats://127.0.0.1:70000"
    result = run_humangr("submit", str(CLEAN_DIFF), "--nats", bad, "--insecure-unsigned")
    line = assert_error(result, "humangr submit", "(entry 2 of 2) has a bad port")
    assert SECRET not in result.stdout + result.stderr
    assert "nats://host:4222" in line
