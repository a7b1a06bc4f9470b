"""A database image's documented default password, as CI services and local compose files set
it, is a weak default and not a leaked secret; any other password there still is one."""

from __future__ import annotations

import pytest

from humangr.engine.checks.secrets import scan_secrets


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (".github/workflows/test.yml", "          POSTGRES_PASSWORD: postgres"),
        (".github/workflows/test.yml", "  DATABASE_URL: postgres://postgres:postgres@localhost/db"),
        ("compose.yaml", "      MYSQL_ROOT_PASSWORD: mysql"),
        ("compose.yaml", "      RABBITMQ_URL: amqp://guest:rabbitmq@broker:5672/"),
    ],
)
def test_an_image_default_password_is_not_a_secret(path: str, line: str) -> None:
    assert scan_secrets(path, line, test_file=False) is None


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (".github/workflows/test.yml", "          POSTGRES_PASSWORD: Wq7-vR2pL9xT"),
        (".github/workflows/test.yml", "  DATABASE_URL: postgres://app:Wq7vR2pL9xTz@db.prod/db"),
        ("compose.yaml", "      MYSQL_ROOT_PASSWORD: summer2024prod"),
    ],
)
def test_any_other_password_there_still_is(path: str, line: str) -> None:
    hit = scan_secrets(path, line, test_file=False)
    assert hit is not None
    assert hit.severity in ("high", "critical")
