"""Credentials inside URLs never survive redaction, in texts and in log records."""

from __future__ import annotations

import logging
import time

import pytest

from humangr.engine import redact
from humangr.engine.redact import (
    RedactingFilter,
    redact_record,
    redact_secrets,
    redact_url,
    redact_urls,
)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("http://user:pass@host:8080/v1", "pass"),
        ("connect to nats://tok3n@127.0.0.1:4222 failed", "tok3n"),
        ("https://a%40b:p%2Fw@api.example.com", "p%2Fw"),
        ("error: 'tls://admin:s3cr3t@n1:4222', 'nats://x:y@n2'", "s3cr3t"),
        ('{"base_url": "http://k:v@h"}', '"http://k:v@h"'),
        ("http://user:p@ss-w0rd@host/x", "ss-w0rd"),
        ("NATS://U:Mixed-Case-Secret@h", "Mixed-Case-Secret"),
    ],
)
def test_user_info_is_redacted(text: str, secret: str) -> None:
    shown = redact_urls(text)
    assert secret not in shown
    assert "***@" in shown


def test_text_without_credentials_is_unchanged() -> None:
    for text in ("http://host:80/p?q=a@b", "mail me at a@b.c", "nats://127.0.0.1:4222", ""):
        assert redact_urls(text) == text
    assert redact_url("http://host/x") == "http://host/x"


GH = "ghp_" + "a1B2c3D4" * 5
SECRETS = [
    ("key AKIAIOSFODNN7EXAMPLE in text", "AKIAIOSFODNN7EXAMPLE"),
    ("token " + GH, GH),
    ("slack xoxb-1234567890-abcdefghijkl", "xoxb-1234567890-abcdefghijkl"),
    ("anthropic sk-ant-api03-" + "x7Y" * 10, "sk-ant-api03-"),
    ("stripe sk_live_" + "a1b2" * 6, "sk_live_"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_X", "eyJzdWIi"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIE"),
    ('{"db_password": "correct horse"}', "correct horse"),
    ("{'client_secret': 'abc123def456'}", "abc123def456"),
    ('{"api_key":"k-123456789"}', "k-123456789"),
    ("export GITHUB_TOKEN=abcdef0123456789", "abcdef0123456789"),
    ("https://h/x?access_token=zzz111yyy222&a=1", "zzz111yyy222"),
    ("password: hunter2hunter2", "hunter2hunter2"),
    ("Authorization: Bearer abcdefghijklmnop123", "abcdefghijklmnop123"),
    ("url nats://user:pa55@127.0.0.1:4222", "pa55"),
    ("mailchimp 0123456789abcdef0123456789abcdef-us12", "0123456789abcdef0123456789abcdef"),
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_secrets_are_redacted(text: str, secret: str) -> None:
    shown = redact_secrets(text)
    assert secret not in shown
    assert "***" in shown


def test_text_without_secrets_is_unchanged() -> None:
    for text in (
        "invalid LayerReport at $.usage.input_tokens: Expected `int`, got `str`",
        '{"action_id":"act-0123456789abcdef0123","action_hash":"' + "ab12" * 16 + '"}',
        "handler failed once: RuntimeError: boom on act-1",
        "",
    ):
        assert redact_secrets(text) == text


def test_patterns_work_without_the_secret_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "_detector_cache", [None])
    for text, secret in SECRETS[:-1]:
        assert secret not in redact_secrets(text)
    assert "0123456789abcdef0123456789abcdef" in redact_secrets(SECRETS[-1][0])


@pytest.mark.parametrize(
    "text",
    [
        "password" * 2_048,
        "a." * 4_000 + "://" + "b" * 8_000,
        "token." * 2_730,
        ("password" * 32 + " ") * 63,
        ('"' + "token" * 24) * 135,
        "a://" * 4_096,
        "eyJ-" * 4_096,
    ],
)
def test_hostile_text_is_redacted_in_linear_time(text: str) -> None:
    redact_secrets("warm up the detector")
    started = time.perf_counter()
    redact_secrets(text)
    assert time.perf_counter() - started < 1.0
    assert redact_url("nats://user:secret@10.0.0.1:4222") == "nats://***@10.0.0.1:4222"


def _record(msg: str, *args: object, exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord("t", logging.ERROR, __file__, 1, msg, args, exc_info)


def test_a_log_record_loses_credentials_in_its_arguments_and_exception() -> None:
    try:
        raise ConnectionError("cannot reach http://u:exc-secret@h:1")
    except ConnectionError as caught:
        record = _record("connect to %s failed", "nats://u:arg-secret@h:4222", exc=caught)
    assert RedactingFilter().filter(record)
    text = logging.Formatter().format(record)
    assert "arg-secret" not in text
    assert "exc-secret" not in text
    assert "connect to nats://***@h:4222 failed" in text
    assert "ConnectionError" in text


def test_a_record_whose_arguments_do_not_fit_its_message_is_still_redacted() -> None:
    record = redact_record(_record("%s %s", "http://u:only-one@h"))
    assert "only-one" not in record.getMessage()


def test_a_record_without_credentials_keeps_its_message() -> None:
    record = redact_record(_record("%d layers", 7))
    assert record.getMessage() == "7 layers"
