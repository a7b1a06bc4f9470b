"""Metrics: the names the issue lists, what a real review records, and the /metrics server."""

from __future__ import annotations

import socket
from pathlib import Path

import anyio
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from humangr.actors.roles import run_engine
from humangr.contracts import ActionContext, LayerID, Outcome, Usage
from humangr.engine.errors import ConfigError, LLMError
from humangr.engine.llm import AnthropicLLM, LLMRequest, Message, ScriptedLLM
from humangr.engine.llm.metered import MeteredLLM, metered
from humangr.engine.metrics import (
    INBOX_DECISIONS,
    INBOX_PAGES,
    INBOX_REFUSALS,
    Metrics,
    exported_names,
)
from humangr.metrics_server import metrics_server

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "actions"

ISSUE_NAMES = {
    "humangr_actions_submitted_total": (),
    "humangr_decisions_total": ("outcome",),
    "humangr_decision_latency_seconds": (),
    "humangr_layer_runs_total": ("layer", "status"),
    "humangr_vetoes_total": ("layer", "level"),
    "humangr_layer_agreement_ratio": ("layer",),
    "humangr_llm_calls_total": ("outcome",),
    "humangr_llm_latency_seconds": (),
    "humangr_llm_tokens_total": ("kind",),
    "humangr_envelope_rejections_total": ("agent", "gate"),
    "humangr_repairs_total": ("agent",),
    "humangr_breaker_state": ("agent", "mode"),
    "humangr_handoffs_total": ("from", "to"),
    "humangr_tasks": ("status",),
    "humangr_dead_letters_total": ("subject",),
    "humangr_inflight_actions": (),
    "humangr_actor_restarts_total": ("actor",),
    "humangr_mailbox_depth": ("actor",),
}
HISTOGRAMS = {
    "humangr_decision_latency_seconds",
    "humangr_layer_agreement_ratio",
    "humangr_llm_latency_seconds",
}
USAGE = {"input_tokens": 100, "output_tokens": 20, "cache_read_tokens": 60, "cache_write_tokens": 5}


def samples(registry: CollectorRegistry) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of the text exposition, parsed back by Prometheus's own text parser."""
    text = generate_latest(registry).decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(
    found: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def clean_action() -> ActionContext:
    return ActionContext(
        agent_id="agent-m",
        action_type="code_diff",
        action_description="apply the refactor",
        code_diff=(EXAMPLES / "01-clean-refactor.diff").read_text(),
    )


def test_every_issue_name_is_exported_with_its_labels() -> None:
    metrics = Metrics()
    names = exported_names(metrics.registry)
    for name in ISSUE_NAMES:
        if name in HISTOGRAMS:
            assert {f"{name}_bucket", f"{name}_sum", f"{name}_count"} <= names, name
        else:
            assert name in names, name
    metrics.envelope_rejections.labels(agent="dev", gate="evidence").inc()
    metrics.repairs.labels(agent="dev").inc()
    metrics.set_breaker("dev", "implement_task", "open")
    metrics.handoffs.labels(**{"from": "dev", "to": "qa"}).inc()
    metrics.tasks.labels(status="in_progress").set(2)
    metrics.dead_letters.labels(subject="hl.dlq").inc()
    metrics.actor_restarts.labels(actor="supervisor").inc()
    metrics.mailbox_depth.labels(actor="supervisor").set(3)
    metrics.layer_agreement.labels(layer="HL1").observe(1.0)
    found = samples(metrics.registry)
    for name, labels in ISSUE_NAMES.items():
        series = [key for key in found if key[0] in (name, f"{name}_count")]
        for _, label_set in series:
            assert {k for k, _ in label_set} - {"le"} == set(labels), (name, label_set)
    assert value(found, "humangr_breaker_state", agent="dev", mode="implement_task") == 2
    assert value(found, "humangr_handoffs_total", **{"from": "dev", "to": "qa"}) == 1
    with pytest.raises(ValueError, match="unknown breaker state"):
        metrics.set_breaker("dev", "implement_task", "ajar")


async def test_a_scripted_review_fills_the_exposition() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {"match": {"layer": "HL2", "run": "1"}, "text": "no JSON here", "usage": USAGE},
            {"match": {"layer": "HL2", "run": "1"}, "json": {"findings": []}, "usage": USAGE},
            {"match": {}, "json": {"findings": [], "summary": "fine"}, "usage": USAGE},
        ]
    )
    metrics = Metrics(CollectorRegistry())
    async with run_engine(llm=llm, metrics=metrics) as engine:
        report = await engine.submit(clean_action(), timeout=20)
    assert report.outcome is Outcome.APPROVED
    found = samples(metrics.registry)
    layers = [lid.value for lid in LayerID]
    assert value(found, "humangr_actions_submitted_total") == 1
    assert value(found, "humangr_decisions_total", outcome="approved") == 1
    assert value(found, "humangr_decision_latency_seconds_count") == 1
    assert value(found, "humangr_inflight_actions") == 0
    for layer in layers:
        runs = 3 if layer in ("HL4", "HL6", "HL7") else 2  # adaptive below strong power
        assert value(found, "humangr_layer_runs_total", layer=layer, status="pass") == runs, layer
        assert value(found, "humangr_vetoes_total", layer=layer, level="none") == 1, layer
        assert value(found, "humangr_layer_agreement_ratio_count", layer=layer) == 1, layer
        assert value(found, "humangr_layer_agreement_ratio_sum", layer=layer) == 1.0, layer
    calls = 3 * 3 + 4 * 2 + 1
    assert llm.calls == calls
    assert value(found, "humangr_llm_calls_total", outcome="ok") == calls - 1
    assert value(found, "humangr_llm_calls_total", outcome="invalid") == 1
    assert value(found, "humangr_llm_latency_seconds_count") == calls
    assert value(found, "humangr_repairs_total", agent="HL2") == 1
    for kind, key in [
        ("input", "input_tokens"),
        ("output", "output_tokens"),
        ("cache_read", "cache_read_tokens"),
        ("cache_write", "cache_write_tokens"),
    ]:
        assert value(found, "humangr_llm_tokens_total", kind=kind) == calls * USAGE[key], kind
    assert value(found, "humangr_messages_handled_total", actor="supervisor") >= 8
    assert value(found, "humangr_dead_letters_total", subject="hl.actions.submit") == 0


async def test_metered_llm_labels_each_outcome() -> None:
    metrics = Metrics()
    llm = MeteredLLM(
        ScriptedLLM.from_lines(
            [
                {"match": {"layer": "HL1"}, "json": {"findings": []}},
                {"match": {"layer": "HL2"}, "error": "connection reset"},
                {"match": {"layer": "HL3"}, "json": {"findings": []}, "delay_ms": 10_000},
            ]
        ),
        metrics,
    )

    def request(layer: str) -> LLMRequest:
        return LLMRequest(system=(), messages=(Message("user", "hi"),), tags={"layer": layer})

    await llm.complete(request("HL1"))
    with pytest.raises(LLMError):
        await llm.complete(request("HL2"))
    with anyio.move_on_after(0.05):
        await llm.complete(request("HL3"))
    found = samples(metrics.registry)
    for outcome in ("ok", "error", "cancelled"):
        assert value(found, "humangr_llm_calls_total", outcome=outcome) == 1, outcome
    assert value(found, "humangr_llm_latency_seconds_count") == 3


def test_metered_does_not_count_a_self_recording_client_twice() -> None:
    metrics = Metrics()
    anthropic = AnthropicLLM(api_key="sk-test-not-used", metrics=metrics)
    assert metered(anthropic, metrics) is anthropic
    wrapped = metered(ScriptedLLM.from_lines([]), metrics)
    assert isinstance(wrapped, MeteredLLM)
    assert metered(wrapped, metrics) is wrapped
    metrics.observe_llm_call("ok", 0.1, Usage(input_tokens=3))
    assert value(samples(metrics.registry), "humangr_llm_tokens_total", kind="input") == 3


async def http(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(request)
        chunks = []
        with anyio.fail_after(5):
            while True:
                try:
                    chunks.append(await stream.receive())
                except anyio.EndOfStream:
                    break
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


async def test_metrics_server_serves_the_injected_registry_and_closes_its_port() -> None:
    metrics = Metrics(CollectorRegistry())
    metrics.decisions.labels(outcome="rejected").inc(2)
    async with metrics_server(metrics.registry) as port:
        status, headers, body = await http(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status.endswith(" 200 OK")
        assert headers["content-type"].startswith("text/plain")
        assert int(headers["content-length"]) == len(body)
        found = {
            (s.name, frozenset(s.labels.items())): s.value
            for f in text_string_to_metric_families(body.decode())
            for s in f.samples
        }
        assert found[("humangr_decisions_total", frozenset({("outcome", "rejected")}))] == 2
        status, headers, body = await http(
            port,
            b"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0\r\n\r\n",
        )
        assert headers["content-type"].startswith("application/openmetrics-text")
        assert body.rstrip().endswith(b"# EOF")
        status, _, body = await http(port, b"HEAD /metrics HTTP/1.1\r\n\r\n")
        assert status.endswith("200 OK")
        assert body == b""
        assert (await http(port, b"GET /healthz HTTP/1.1\r\n\r\n"))[2] == b"ok\n"
        assert (await http(port, b"GET /other HTTP/1.1\r\n\r\n"))[0].endswith("404 Not Found")
        post = await http(port, b"POST /metrics HTTP/1.1\r\n\r\n")
        assert post[0].endswith("405 Method Not Allowed")
        assert (await http(port, b"PUT /metrics HTTP/1.1\r\n\r\n"))[0].endswith(
            "405 Method Not Allowed"
        )
        # a malformed request gets no metrics: an HTTP/0.9-style error page, not a 200
        status, headers, body = await http(port, b"nonsense\r\n\r\n")
        raw = "\n".join([status, *headers, *headers.values()]).encode() + body
        assert b"400" in raw
        assert b"200 OK" not in raw
        assert b"humangr_" not in raw
        assert (await http(port, b"GET /metrics/../x HTTP/1.1\r\n\r\n"))[0].endswith(
            "404 Not Found"
        )
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


async def test_metrics_server_reports_a_port_in_use() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=f"cannot serve /metrics on 127.0.0.1:{port}"):
            async with metrics_server(CollectorRegistry(), port=port):
                pass


def test_series_known_in_advance_start_at_zero() -> None:
    found = samples(Metrics().registry)
    for outcome in ("approved", "rejected", "needs_review"):
        assert found[("humangr_decisions_total", frozenset({("outcome", outcome)}))] == 0
    for layer in ("HL1", "HL4", "HL7"):
        key = frozenset({("layer", layer), ("level", "strong")})
        assert found[("humangr_vetoes_total", key)] == 0
        key = frozenset({("layer", layer), ("status", "error")})
        assert found[("humangr_layer_runs_total", key)] == 0
    for reason in ("undecodable", "refused", "failed", "max_deliver", "lost"):
        assert found[("humangr_dead_letter_reasons_total", frozenset({("reason", reason)}))] == 0
    for verdict in ("approved", "rejected", "timeout"):
        key = frozenset({("verdict", verdict)})
        assert found[("humangr_review_resolutions_total", key)] == 0
        assert found[("humangr_review_resolution_seconds_count", key)] == 0
    assert found[("humangr_pending_reviews", frozenset())] == 0
    # the inbox's series too, before any decision was made
    for page in INBOX_PAGES:
        key = frozenset({("page", page)})
        assert found[("humangr_inbox_page_views_total", key)] == 0
    for verdict in INBOX_DECISIONS:
        assert found[("humangr_inbox_decisions_total", frozenset({("verdict", verdict)}))] == 0
    for reason in INBOX_REFUSALS:
        key = frozenset({("reason", reason)})
        assert found[("humangr_inbox_refused_requests_total", key)] == 0


async def test_human_review_metrics_follow_pending_reviews_and_resolutions() -> None:
    from humangr.testing import humangr

    async with humangr(llm="scripted", review_deadline_s=1.5) as kit:
        kit.needs_review("HL2", "No test for an empty input")
        first = await kit.submit(code_diff="+x = 1\n")
        second = await kit.submit(code_diff="+y = 2\n")
        assert {first.outcome, second.outcome} == {Outcome.NEEDS_REVIEW}
        assert samples(kit.metrics.registry)[("humangr_pending_reviews", frozenset())] == 2
        await kit.resolve(first, "approve", "alice", "the empty input cannot happen here")
        with anyio.fail_after(10):
            async for decision in kit.decisions():
                if decision.action_id == second.action_id and decision.resolved_by:
                    break
        found = samples(kit.metrics.registry)
    approved = frozenset({("verdict", "approved")})
    timeout = frozenset({("verdict", "timeout")})
    assert found[("humangr_review_resolutions_total", approved)] == 1
    assert found[("humangr_review_resolutions_total", timeout)] == 1
    assert found[("humangr_review_resolution_seconds_count", approved)] == 1
    assert found[("humangr_review_resolution_seconds_sum", timeout)] >= 1.5
    assert found[("humangr_pending_reviews", frozenset())] == 0
