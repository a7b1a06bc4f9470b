"""``serve --shadow-policy``: a second policy evaluated beside the live one on every action, over
both buses — it never changes the decision, each disagreement is counted by both effects and
logged once (ids, effects, rules; never the arguments)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from policy_helpers import bash, policy

from humangr.actors.roles import Engine, run_engine
from humangr.cli.main import build_parser
from humangr.cli.serve import serve_config
from humangr.contracts import Outcome, Subjects
from humangr.contracts.errors import HumangrError
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import ScriptedLLM
from humangr.engine.policy import Policy

pytestmark = pytest.mark.anyio

CLEAN = {"json": {"findings": [], "summary": "looks fine"}}
SHADOW = """\
version = 1
default = "review"

[[rule]]
id = "no-tests-now"
effect = "deny"
tools = ["bash"]
[rule.match]
command = ["pytest*"]
"""
METRIC = "humangr_shadow_disagreements_total"


@asynccontextmanager
async def shadowed(bus: Bus, live: Policy | None, shadow: Policy) -> AsyncIterator[Engine]:
    config = ReviewConfig(rules=live, shadow=shadow)
    async with run_engine(
        bus=bus,
        llm=ScriptedLLM.from_lines([{"match": {}, **CLEAN}]),
        config=config,
        subjects=Subjects(prefix=f"s{uuid.uuid4().hex[:10]}"),
        policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
    ) as engine:
        yield engine


async def test_the_shadow_counts_and_logs_disagreements_and_never_decides(
    bus: Bus, caplog: pytest.LogCaptureFixture
) -> None:
    shadow = policy(SHADOW, source="shadow.toml")
    caplog.set_level(logging.INFO, logger="humangr.supervisor")
    async with shadowed(bus, policy(), shadow) as engine:
        registry = engine.metrics.registry
        assert registry.get_sample_value(METRIC, {"live": "ask", "shadow": "allow"}) == 0.0
        report = await engine.submit(bash("pytest -q --secret-flag"), timeout=30)
        same = await engine.submit(bash("echo hello"), timeout=30)
        assert registry.get_sample_value(METRIC, {"live": "allow", "shadow": "deny"}) == 1.0
        total = sum(
            registry.get_sample_value(METRIC, {"live": a, "shadow": b}) or 0.0
            for a in ("allow", "review", "ask", "deny")
            for b in ("allow", "review", "ask", "deny")
        )
    assert report.outcome is Outcome.APPROVED, "the live policy decides"
    assert report.decided_by == "rule:tests"
    assert same.outcome is Outcome.APPROVED
    assert total == 1.0, "one disagreement only"
    lines = [r.getMessage() for r in caplog.records if "shadow policy disagrees" in r.getMessage()]
    assert len(lines) == 1
    assert report.action_id in lines[0]
    assert "live allow (rule:tests), shadow deny (rule:no-tests-now)" in lines[0]
    assert "--secret-flag" not in caplog.text, "arguments are never logged"


async def test_without_a_live_policy_the_live_effect_is_review(bus: Bus) -> None:
    async with shadowed(bus, None, policy(SHADOW, source="shadow.toml")) as engine:
        report = await engine.submit(bash("pytest -q"), timeout=30)
        registry = engine.metrics.registry
        assert registry.get_sample_value(METRIC, {"live": "review", "shadow": "deny"}) == 1.0
    assert report.outcome is Outcome.APPROVED


def test_serve_reads_the_shadow_policy(tmp_path: Path) -> None:
    path = tmp_path / "shadow.toml"
    path.write_text(SHADOW)
    args = build_parser(["serve"]).parse_args(
        ["serve", "--nats", "nats://127.0.0.1:4222", "--shadow-policy", str(path)]
    )
    config = serve_config(args)
    assert config.shadow is not None
    assert config.shadow.rules[0].id == "no-tests-now"
    assert config.rules is None


def test_a_missing_shadow_policy_is_refused_at_start(tmp_path: Path) -> None:
    args = build_parser(["serve"]).parse_args(
        ["serve", "--nats", "nats://127.0.0.1:4222", "--shadow-policy", str(tmp_path / "no.toml")]
    )
    with pytest.raises(HumangrError, match=r"no\.toml"):
        serve_config(args)
