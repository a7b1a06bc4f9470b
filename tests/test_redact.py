"""Credentials inside URLs never survive redaction."""

from __future__ import annotations

import pytest

from humangr.engine.redact import redact_url, redact_urls


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("http://user:pass@host:8080/v1", "pass"),
        ("connect to nats://tok3n@127.0.0.1:4222 failed", "tok3n"),
        ("https://a%40b:p%2Fw@api.example.com", "p%2Fw"),
        ("error: 'tls://admin:s3cr3t@n1:4222', 'nats://x:y@n2'", "s3cr3t"),
        ('{"base_url": "http://k:v@h"}', '"http://k:v@h"'),
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
