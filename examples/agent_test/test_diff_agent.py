"""How ``FileEditAgent`` behaves when HUMANGR approves, rejects or asks a human.

``humangr_engine`` (from the ``humangr`` pytest plugin) is a real engine on an in-memory bus;
``pytest --humangr-nats nats://localhost:4222`` runs the same tests on a NATS server.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from diff_agent import EditResult, FileEditAgent

from humangr.contracts import Decision, Outcome
from humangr.testing import HumangrTestEngine

pytestmark = pytest.mark.anyio

GREETING = 'def greet(name: str) -> str:\n    return f"Hello, {name}!"\n'
LEAKY = 'AWS_SECRET_ACCESS_KEY = "q8Jt3/Lmx0Vd7Rk2Wn9PbZs4Yc6Hf1Ge5Ua0TiQo"\n'


@pytest.fixture
def agent(humangr_engine: HumangrTestEngine, tmp_path: Path) -> FileEditAgent:
    return FileEditAgent(humangr_engine.bus, humangr_engine.subjects, tmp_path)


async def test_an_approved_edit_is_written(agent: FileEditAgent, tmp_path: Path) -> None:
    result = await agent.propose("app/greet.py", GREETING, "Add a greeting helper")

    assert result.decision.outcome is Outcome.APPROVED
    assert result.applied
    assert (tmp_path / "app" / "greet.py").read_text() == GREETING


async def test_a_security_veto_leaves_the_file_alone(
    humangr_engine: HumangrTestEngine, agent: FileEditAgent, tmp_path: Path
) -> None:
    humangr_engine.reject("HL4", "Hard-coded key", file="app/greet.py", line=1)

    result = await agent.propose("app/greet.py", GREETING, "Add a greeting helper")

    assert result.decision.outcome is Outcome.REJECTED
    assert not result.applied
    assert not (tmp_path / "app" / "greet.py").exists()
    assert "Hard-coded key (app/greet.py:1)" in result.decision.blocking_reasons[0]


async def test_local_checks_catch_a_real_secret_even_if_every_model_approves(
    agent: FileEditAgent, tmp_path: Path
) -> None:
    result = await agent.propose("app/settings.py", LEAKY, "Configure the deploy key")

    assert result.decision.outcome is Outcome.REJECTED
    assert not (tmp_path / "app" / "settings.py").exists()


async def test_the_agent_asks_a_human_and_applies_their_approval(
    humangr_engine: HumangrTestEngine, tmp_path: Path
) -> None:
    humangr_engine.needs_review("HL2", "No test for an empty name")
    asked: list[Decision] = []

    async def ask_human(decision: Decision) -> None:
        asked.append(decision)
        await humangr_engine.resolve(decision, "approve", "alice", "Empty names are fine here")

    agent = FileEditAgent(
        humangr_engine.bus, humangr_engine.subjects, tmp_path, ask_human=ask_human
    )
    result = await agent.propose("app/greet.py", GREETING, "Add a greeting helper")

    assert [d.outcome for d in asked] == [Outcome.NEEDS_REVIEW]
    assert result.decision.outcome is Outcome.APPROVED
    assert result.decision.resolved_by == "alice"
    assert result.applied


async def test_a_human_rejection_seen_on_the_decision_stream(
    humangr_engine: HumangrTestEngine, agent: FileEditAgent, tmp_path: Path
) -> None:
    humangr_engine.needs_review("HL5", "Reads the whole file into memory")
    results: list[EditResult] = []

    async def propose() -> None:
        results.append(await agent.propose("app/greet.py", GREETING, "Add a greeting helper"))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(propose)
            async for decision in humangr_engine.decisions(agent.agent_id):
                if decision.outcome is Outcome.NEEDS_REVIEW:
                    await humangr_engine.resolve(
                        decision, "reject", "bob", "Stream the file instead"
                    )
                    break

    assert results[0].decision.outcome is Outcome.REJECTED
    assert results[0].decision.resolved_by == "bob"
    assert not (tmp_path / "app" / "greet.py").exists()


@pytest.mark.humangr(review_deadline_s=0.3)
async def test_nobody_answers_so_the_edit_is_rejected_at_the_deadline(
    humangr_engine: HumangrTestEngine, agent: FileEditAgent, tmp_path: Path
) -> None:
    humangr_engine.needs_review("HL3", "What if the name is None?")

    result = await agent.propose("app/greet.py", GREETING, "Add a greeting helper")

    assert result.decision.outcome is Outcome.REJECTED
    assert result.decision.resolved_by == "timeout"
    assert not result.applied
