"""Reviewer tokens (the file, the environment, every malformed entry) and the signed session
cookie with its CSRF token."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from humangr.engine.errors import ConfigError
from humangr.inbox.sessions import Session, Sessions, _b64
from humangr.inbox.tokens import ENV_TOKENS, load_reviewers, parse_tokens

A = "h0vAyP_oA0wxIiM8DDkD-KUS6fcdqRO4mRbuDFb1DNo"
B = "B-._~+/=U-wfa5C8iuEp2v-dGVM-B1wDd386tHdb"
GOOD = f"""\
# reviewers of the inbox
{A} alice

\t{B}\tBob  Martin (on call)
   # an indented comment
"""


def write(tmp_path: Path, text: str | bytes, mode: int = 0o600) -> Path:
    path = tmp_path / "tokens"
    if isinstance(text, str):
        path.write_text(text)
    else:
        path.write_bytes(text)
    os.chmod(path, mode)
    return path


def test_a_tokens_file_names_each_reviewer() -> None:
    reviewers = parse_tokens(GOOD, "tokens")
    assert reviewers.names == ["alice", "Bob  Martin (on call)"]
    assert reviewers.who(A) == "alice"
    assert reviewers.who(B) == "Bob  Martin (on call)"
    for wrong in ("", A[:-1], A + "a", A.upper(), f" {A}", "alice", "\udcff" * 32):
        assert reviewers.who(wrong) is None, wrong


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "no reviewer tokens"),
        ("# only a comment\n\n", "no reviewer tokens"),
        (f"{A}\n", "entry 1: a token without a reviewer name"),
        ("short alice\n", "entry 1: a token is 32-256"),
        (f"{'x' * 257} alice\n", "a token is 32-256"),
        (A[:-1] + "é alice\n", "a token is 32-256"),
        (f"{A} alice\n{B} bob\n{A} carol\n", "entry 3: the same token as entry 1"),
        (f"{A} {'n' * 129}\n", "1-128 printable"),
        (f"{A} ali\x1bce\n", "1-128 printable"),
        (f"{A} ali\u202ece\n", "1-128 printable"),
    ],
)
def test_a_bad_tokens_file_is_one_clear_error_that_shows_no_token(text: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_tokens(text, "tokens")
    assert says in str(caught.value)
    assert A not in str(caught.value)


def test_the_tokens_file_must_be_private(tmp_path: Path) -> None:
    for mode in (0o600, 0o400, 0o640):
        assert load_reviewers(str(write(tmp_path, GOOD, mode)), {}).who(A) == "alice"
    for mode in (0o644, 0o604, 0o602, 0o620, 0o666):
        with pytest.raises(ConfigError, match=r"open to other users .*chmod 600"):
            load_reviewers(str(write(tmp_path, GOOD, mode)), {})


def test_an_unreadable_tokens_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the tokens file"):
        load_reviewers(str(tmp_path / "missing"), {})
    with pytest.raises(ConfigError, match="not a regular file"):
        load_reviewers(str(tmp_path), {})
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_reviewers(str(write(tmp_path, f"{A} al\xffice\n".encode("latin-1"))), {})
    with pytest.raises(ConfigError, match="the limit is 65,536"):
        load_reviewers(str(write(tmp_path, f"{A} alice\n" + "#" * 70_000)), {})


def test_tokens_come_from_the_environment_when_no_file_is_given(tmp_path: Path) -> None:
    reviewers = load_reviewers(None, {ENV_TOKENS: f"{A} alice; {B} bob"})
    assert reviewers.names == ["alice", "bob"]
    assert reviewers.source == ENV_TOKENS
    assert load_reviewers(str(write(tmp_path, f"{B} carol\n")), {ENV_TOKENS: GOOD}).names == [
        "carol"
    ]
    for empty in ({}, {ENV_TOKENS: ""}, {ENV_TOKENS: "  \n"}):
        with pytest.raises(ConfigError, match="the inbox needs reviewers"):
            load_reviewers(None, empty)
    with pytest.raises(ConfigError, match=f"{ENV_TOKENS} is longer"):
        load_reviewers(None, {ENV_TOKENS: f"{A} alice;" * 7_000})


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_cookie_round_trips_and_expires() -> None:
    clock = Clock()
    sessions = Sessions(lifetime_s=60, clock=clock)
    session = sessions.new("alice")
    assert session.fresh
    read = sessions.read(sessions.cookie(session))
    assert read == Session(session.sid, "alice", session.expires)
    clock.now += 59
    assert sessions.read(sessions.cookie(session)) is not None
    clock.now += 1
    assert sessions.read(sessions.cookie(session)) is None


def test_a_cookie_signed_by_another_inbox_or_altered_is_refused() -> None:
    sessions = Sessions(lifetime_s=60)
    cookie = sessions.cookie(sessions.new("alice"))
    assert Sessions(lifetime_s=60).read(cookie) is None
    body, signature = cookie.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=="))
    promoted = _b64(json.dumps({**payload, "who": "root"}).encode())
    for bad in (
        f"{promoted}.{signature}",
        f"{body}.{signature[::-1]}",
        f"{body}.",
        f".{signature}",
        body,
        f"{body}.{signature}.x",
        f"{body}!.{signature}",
        "é.é",
        None,
        "",
        cookie + "A" * 2_000,
    ):
        assert sessions.read(bad) is None, bad


@pytest.mark.parametrize(
    "payload",
    [
        {"sid": "a" * 32, "who": "alice"},
        {"sid": "a" * 32, "who": "alice", "exp": 2**40, "admin": True},
        {"sid": "short", "who": "alice", "exp": 2**40},
        {"sid": "a" * 32, "who": 7, "exp": 2**40},
        {"sid": "a" * 32, "who": "alice", "exp": "2099"},
        {"sid": "a" * 32, "who": "alice", "exp": True},
        ["a" * 32, "alice", 2**40],
    ],
)
def test_a_well_signed_cookie_of_the_wrong_shape_is_refused(payload: object) -> None:
    sessions = Sessions(lifetime_s=60)
    body = json.dumps(payload).encode()
    forged = f"{_b64(body)}.{_b64(sessions._sign(body))}"
    assert sessions.read(forged) is None


def test_signing_out_revokes_the_cookie_and_csrf_is_bound_to_the_session() -> None:
    sessions = Sessions(lifetime_s=60)
    alice, bob = sessions.new("alice"), sessions.new("bob")
    assert sessions.check_csrf(alice, sessions.csrf(alice))
    for wrong in (sessions.csrf(bob), "", None, sessions.csrf(alice)[:-1], "é"):
        assert not sessions.check_csrf(alice, wrong)
    cookie = sessions.cookie(alice)
    sessions.revoke(alice)
    assert sessions.read(cookie) is None
    assert sessions.read(sessions.cookie(bob)) is not None
