"""The shipped prompt assets and the gates agree: every golden example passes, and the bundle
carries the shipped texts in full."""

from __future__ import annotations

import pytest

from humangr.agents import PROMPT_AGENTS, agent_variants, load_agent_assets
from humangr.contracts import MessageEnvelope, ResponseEnvelope, decode
from humangr.engine.enforcer import build_request, check_reply
from humangr.engine.enforcer.enforcer import default_assets

SHIPPED = [(agent, variant) for agent in PROMPT_AGENTS for variant in agent_variants(agent)]


def test_every_llm_agent_ships_prompts() -> None:
    assert {agent for agent, _ in SHIPPED} == set(PROMPT_AGENTS)


@pytest.mark.parametrize(("agent", "variant"), SHIPPED)
def test_the_golden_example_passes_the_gates(agent: str, variant: str) -> None:
    golden = load_agent_assets(agent, variant).golden_example()
    request = decode(golden.request, MessageEnvelope)
    reply = decode(golden.response, ResponseEnvelope)
    assert request.agent.value == agent
    assert check_reply(request, reply) == []


@pytest.mark.parametrize(("agent", "variant"), SHIPPED)
def test_the_bundle_carries_the_shipped_prompts_in_full(agent: str, variant: str) -> None:
    golden = load_agent_assets(agent, variant).golden_example()
    request = decode(golden.request, MessageEnvelope)
    assets = default_assets(agent, request.variant)
    bundle = build_request(request, assets)
    assert [block.text for block in bundle.system] == [
        assets.protocol,
        assets.system_prompt,
        assets.skills,
    ]
    assert all(block.text.strip() for block in bundle.system)
