"""``humangr bench --llm-latency MS``: what a decision costs in LLM calls, tokens and time.

The full engine (Supervisor and seven layer actors in this process) reviews three kinds of diff
through the real ``anthropic`` SDK (``AnthropicLLM`` with ``base_url``) against the stand-in
Messages API (``humangr.standins.messages_api``), which answers every call with a clean verdict
after the configured latency and counts tokens and prompt-cache use the way the API does (a cache
entry is readable once the response that wrote it has begun). The same actions then go through
an engine without LLM, for the latency the LLM adds.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

from anyio import from_thread

from humangr.actors.roles import run_engine
from humangr.contracts import ActionContext, HumanLayerReport, Usage
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError
from humangr.engine.review.cost import DEFAULT_PRICES, price_for

__all__ = ["SCENARIOS", "LLMBenchSettings", "bench_llm", "scenario_action"]

SCENARIOS = ("rules-reject", "clean-small", "clean-large")
_KEY = "sk-ant-bench-0000"
_CLEAN = {"findings": [], "summary": "No problem from this layer's angle."}


@dataclass(frozen=True, slots=True)
class LLMBenchSettings:
    """One LLM bench run: a call takes ``latency_ms`` (its stream begins after
    ``first_byte_ms``); ``actions`` decisions per scenario, one at a time."""

    latency_ms: float
    first_byte_ms: float
    actions: int = 5
    model: str = "claude-sonnet-4-6"
    cache_warming: bool = True
    stream: bool = True
    warmup_delay_ms: float = 2000.0


def _small(index: int) -> str:
    return (
        "--- a/app/x.py\n+++ b/app/x.py\n@@ -1,2 +1,2 @@\n-def f(a): return a+1\n"
        f"+def increment(value: int) -> int:\n+    return value + {index + 2}\n"
    )


def _secret(index: int) -> str:
    return (
        "--- /dev/null\n+++ b/app/deploy.py\n@@ -0,0 +1,4 @@\n"
        f'+AWS_ACCESS_KEY_ID = "AKIAZ7VQ3KDLM5TRX{index % 10}PB"\n'
        '+AWS_SECRET_ACCESS_KEY = "q8Jt3/Lmx0Vd7Rk2Wn9PbZs4Yc6Hf1Ge5Ua0TiQo"\n'
        "+\n+REGION = 'eu-west-1'\n"
    )


def _large(index: int, size: int = 23_000) -> str:
    """A new module of small, clean functions, at least ``size`` bytes of diff."""
    lines: list[str] = ['"""Unit conversions for the reporting pipeline."""', ""]
    n = 0
    while sum(len(line) + 2 for line in lines) < size:
        n += 1
        lines += [
            "",
            f"def scale_{n}(values: list[float], factor: float = {n + index}.0) -> list[float]:",
            f'    """Return ``values`` multiplied by ``factor`` (conversion {n})."""',
            "    if factor <= 0:",
            '        raise ValueError(f"factor must be positive, got {factor}")',
            "    return [value * factor for value in values]",
        ]
    body = "".join(f"+{line}\n" for line in lines)
    return f"--- /dev/null\n+++ b/app/units.py\n@@ -0,0 +1,{len(lines)} @@\n{body}"


def scenario_action(scenario: str, index: int) -> ActionContext:
    """Action ``index`` of ``scenario``; every action is distinct, so no cache carries over."""
    diff = {"rules-reject": _secret, "clean-small": _small, "clean-large": _large}[scenario](index)
    return ActionContext(
        agent_id="bench",
        action_type="code_diff",
        action_description=f"bench {scenario} {index}: add a helper module",
        code_diff=diff,
    )


def _cost(report: HumanLayerReport) -> float:
    """The report's own estimate; a bench with an unpriced model is refused up front."""
    return report.cost.estimated_usd


async def _decide(
    llm: Any, actions: list[ActionContext], fake: Any = None
) -> tuple[list[HumanLayerReport], list[float], int]:
    """Decide ``actions`` one at a time (after one unmeasured decision); the reports, the
    seconds each took, and the requests the stand-in server received for them."""
    reports: list[HumanLayerReport] = []
    seconds: list[float] = []
    async with run_engine(llm=llm, config=ReviewConfig(layer_deadline_s=300)) as engine:
        await engine.submit(scenario_action("clean-small", 10_000), timeout=300)
        received = fake.received if fake is not None else 0
        for action in actions:
            started = time.perf_counter()
            reports.append(await engine.submit(action, timeout=300))
            seconds.append(time.perf_counter() - started)
        received = (fake.received if fake is not None else 0) - received
    return reports, seconds, received


async def bench_llm(settings: LLMBenchSettings) -> dict[str, Any]:
    """Calls, tokens, cache share, cost and latency per decision, for each scenario."""
    from humangr.engine.llm import AnthropicLLM
    from humangr.standins.messages_api import FakeAnthropic, Latency, ToolUse

    if price_for(settings.model, DEFAULT_PRICES) is None:
        raise ConfigError(
            f"no price for model {settings.model!r}: bench a model of the default price table "
            f"({', '.join(sorted(DEFAULT_PRICES))})"
        )
    call_s = settings.latency_ms / 1000
    latency = Latency(settings.first_byte_ms / 1000, call_s)
    plans = {s: [scenario_action(s, i) for i in range(settings.actions)] for s in SCENARIOS}
    results: dict[str, Any] = {}
    fake_server = FakeAnthropic(
        api_key=_KEY, default=ToolUse(_CLEAN), latency=latency, model=settings.model
    )
    # The stand-in server gets its own thread and event loop, as the real API is elsewhere:
    # its work must not queue behind the engine's on one loop.
    with (
        from_thread.start_blocking_portal() as portal,
        portal.wrap_async_context_manager(fake_server) as fake,
    ):
        llm = AnthropicLLM(
            api_key=_KEY,
            base_url=fake.url,
            model=settings.model,
            cache_warming=settings.cache_warming,
            stream=settings.stream,
            warmup_delay_s=settings.warmup_delay_ms / 1000,
        )
        async with llm:
            for scenario, actions in plans.items():
                reports, seconds, received = await _decide(llm, actions, fake)
                results[scenario] = _figures(reports, seconds, settings.model, call_s)
                results[scenario]["requests_per_decision"] = round(received / len(actions), 2)
    for scenario, actions in plans.items():
        _, seconds, _ = await _decide(None, actions)
        base = statistics.median(seconds)
        results[scenario]["no_llm_ms"] = round(base * 1000, 1)
        over = (results[scenario]["latency_ms"] / 1000 - base) / call_s
        results[scenario]["over_no_llm_calls"] = round(over, 2)
    return results


def _figures(
    reports: list[HumanLayerReport], seconds: list[float], model: str, call_s: float
) -> dict[str, Any]:
    n = len(reports)
    usage = sum((r.usage for r in reports), Usage())
    fed = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    median = statistics.median(seconds)
    return {
        "outcomes": sorted({r.outcome.value for r in reports}),
        "calls_per_decision": round(usage.calls / n, 2),
        "input_tokens_per_decision": round(fed / n),
        "output_tokens_per_decision": round(usage.output_tokens / n),
        "cache_read_share": round(usage.cache_read_tokens / fed, 3) if fed else 0.0,
        "cache_write_share": round(usage.cache_write_tokens / fed, 3) if fed else 0.0,
        "usd_per_decision": round(sum(_cost(r) for r in reports) / n, 5),
        "latency_ms": round(median * 1000, 1),
        "latency_calls": round(median / call_s, 2),
    }
