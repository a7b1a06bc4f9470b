"""Credentials inside URLs never survive redaction, in texts and in log records."""

from __future__ import annotations

import logging

import pytest

from humangr.engine.redact import RedactingFilter, redact_record, redact_url, redact_urls


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
