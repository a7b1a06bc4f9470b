"""A Supervisor and two layer-worker processes (`humangr serve --role ...`) on a real
nats-server with deploy/nats-server.conf: actions are reviewed correctly and the layer work
spreads over both workers."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from deploy_helpers import ROOT, Spec, connect_as, fetch, parse_exposition, serving, total

from humangr.actors.roles import submit_and_wait
from humangr.contracts import ActionContext, HumanLayerReport, LayerID, Outcome, Subjects, VetoLevel
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

EXAMPLES = ROOT / "examples" / "actions"
CLEAN_ACTIONS = 4
USAGE = {"input_tokens": 200, "output_tokens": 30, "cache_read_tokens": 150}


def diff_action(name: str, n: int = 0) -> ActionContext:
    """A distinct action per ``n``: the same action again would get its standing decision
    instead of a review (and the counts below are of reviews)."""
    return ActionContext(
        agent_id="agent",  # the id of NATS user `agent` (deploy/nats-server.conf)
        action_type="code_diff",
        action_description=f"apply {name} ({n})",
        code_diff=(EXAMPLES / name).read_text(),
    )


def script(tmp_path: Path) -> Path:
    path = tmp_path / "llm.jsonl"
    line = {"match": {}, "json": {"findings": [], "summary": "fine"}, "usage": USAGE}
    path.write_text(json.dumps(line) + "\n")
    return path


async def test_a_supervisor_and_two_layer_workers_share_the_review(
    secured_nats: NatsServer, tmp_path: Path
) -> None:
    common = ("--nats", secured_nats.url, "--jetstream", "--metrics-port", "0")
    worker = ("--role", "layers", "--llm", f"scripted:{script(tmp_path)}", *common)
    specs = [
        Spec(("--role", "supervisor", *common), role="supervisor"),
        Spec(worker, role="layer"),
        Spec(worker, role="layer"),
    ]
    async with serving(*specs, log_dir=tmp_path) as (supervisor, first, second):
        agent = await connect_as(secured_nats.url, "agent")
        try:
            reports: dict[str, HumanLayerReport] = {}

            async def review(key: str, action: ActionContext) -> None:
                reports[key] = await submit_and_wait(agent, Subjects(), action, timeout=30)

            with anyio.fail_after(40):
                async with anyio.create_task_group() as tg:
                    for n in range(CLEAN_ACTIONS):
                        tg.start_soon(
                            review, f"clean-{n}", diff_action("01-clean-refactor.diff", n)
                        )
                    tg.start_soon(review, "secret", diff_action("02-hardcoded-key-and-shell.diff"))
        finally:
            await agent.close()
        pages = {}
        for name, served in [("supervisor", supervisor), ("first", first), ("second", second)]:
            assert served.metrics_url is not None, served.output()
            pages[name] = parse_exposition(await fetch(served.metrics_url))
        # the Supervisor observes a decision's latency once its state records it published,
        # a moment after the decision is out
        with anyio.move_on_after(10):
            latency = "humangr_decision_latency_seconds_count"
            while total(pages["supervisor"], latency) < CLEAN_ACTIONS + 1:
                await anyio.sleep(0.1)
                assert supervisor.metrics_url is not None
                pages["supervisor"] = parse_exposition(await fetch(supervisor.metrics_url))

    for n in range(CLEAN_ACTIONS):
        report = reports[f"clean-{n}"]
        assert report.outcome is Outcome.APPROVED, report.blocking_reasons
        assert set(report.layer_results) == set(LayerID)
        assert report.usage.calls == 3 * 3 + 4 * 2  # adaptive below strong power
    secret = reports["secret"]
    assert secret.outcome is Outcome.REJECTED
    assert secret.layer_results[LayerID.HL4].veto_level is VetoLevel.STRONG
    assert secret.cost.calls == 0, "settled by the local checks in the Supervisor"

    sup = pages["supervisor"]
    assert total(sup, "humangr_actions_submitted_total") == CLEAN_ACTIONS + 1
    assert total(sup, "humangr_decisions_total", outcome="approved") == CLEAN_ACTIONS
    assert total(sup, "humangr_decisions_total", outcome="rejected") == 1
    assert total(sup, "humangr_decision_latency_seconds_count") == CLEAN_ACTIONS + 1
    assert total(sup, "humangr_inflight_actions") == 0
    assert total(sup, "humangr_layer_runs_total") == 0, "the supervisor runs no layer"

    workers = ("first", "second")
    layer_tasks = [
        total(pages[w], "humangr_messages_handled_total", actor="~layer-") for w in workers
    ]
    consensus = [total(pages[w], "humangr_vetoes_total") for w in workers]
    runs = [total(pages[w], "humangr_layer_runs_total") for w in workers]
    print(f"layer messages per worker {layer_tasks}, runs {runs}")
    assert all(n > 0 for n in layer_tasks), f"work did not spread: layer messages {layer_tasks}"
    assert all(n > 0 for n in runs), f"work did not spread: layer runs {runs}"
    assert sum(consensus) == 7 * CLEAN_ACTIONS, "no layer task for what the rules reject"
    assert sum(runs) == (3 * 3 + 4 * 2) * CLEAN_ACTIONS
    calls = sum(total(pages[w], "humangr_llm_calls_total", outcome="ok") for w in workers)
    assert calls >= sum(runs), "every recorded run made an LLM call"
    tokens = sum(total(pages[w], "humangr_llm_tokens_total", kind="cache_read") for w in workers)
    assert tokens == calls * USAGE["cache_read_tokens"]
