"""``allowed_hosts`` and ``allowed_email_domains``: checked, read from the config file, part of
the policy version, and what the Supervisor's local checks trust."""

from __future__ import annotations

from pathlib import Path

import pytest

import humangr
from humangr.actors.roles import current_policy_version
from humangr.contracts import Outcome
from humangr.engine.config import ReviewConfig
from humangr.engine.config_file import load_review_config
from humangr.engine.errors import ConfigError

pytestmark = pytest.mark.anyio

EMAILS = ", ".join(f"customer{i}@gmail.com" for i in range(12))


@pytest.mark.parametrize("host", ["", "a b", "http://x.io", "x.io/path", "*", "**.x.io", "x..io"])
def test_a_bad_host_is_a_clear_error(host: str) -> None:
    with pytest.raises(ConfigError, match="allowed_hosts"):
        ReviewConfig(allowed_hosts=(host,))


def test_hosts_come_from_the_config_file_and_change_the_policy_version(tmp_path: Path) -> None:
    path = tmp_path / "review.toml"
    path.write_text(
        'allowed_hosts = ["api.example.com", "*.corp.example"]\n'
        'allowed_email_domains = ["example.com"]\n'
    )
    config = load_review_config(path)
    assert config.allowed_hosts == ("api.example.com", "*.corp.example")
    options = config.check_options()
    assert options.allowed_hosts == frozenset({"api.example.com", "*.corp.example"})
    assert options.allowed_email_domains == frozenset({"example.com"})
    assert current_policy_version(config) != current_policy_version(ReviewConfig())
    same = ReviewConfig(
        allowed_hosts=("*.CORP.example", "API.example.com"), allowed_email_domains=("example.com",)
    )
    assert current_policy_version(same) == current_policy_version(config)


async def test_the_engine_trusts_its_allowed_hosts() -> None:
    call = {"url": "https://crm.example.com/import", "method": "POST", "body": EMAILS}
    async with humangr.connect() as hg:

        @hg.guard(tool="http_request", on_needs_review="raise")
        async def outside(url: str, method: str, body: str) -> None:
            return None

        with pytest.raises(humangr.Rejected) as caught:
            await outside(**call)
        assert caught.value.report.outcome is Outcome.REJECTED
    config = ReviewConfig(allowed_hosts=("crm.example.com",))
    async with humangr.connect(config=config) as hg:

        @hg.guard(tool="http_request", on_needs_review="raise")
        async def inside(url: str, method: str, body: str) -> None:
            return None

        await inside(**call)
