"""A Dev output the review engine refuses is acted on at once, never waited for until the
decision timeout: an output that changes nothing goes on to QA as "no change" (nothing
reviewed, nothing written), any other refusal ends the order ``BLOCKED`` with the engine's
reason; a dead letter never approves anything."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from pipeline_run import POLICY, scripted, subjects
from test_pipeline_durable import (
    DEV_TSK1,
    PROJECT,
    dev_order,
    golden,
    layer_lines,
    next_of,
    nothing_more,
    supervisor,
    written,
)

from humangr.actors.pipeline.storage import ProjectStore
from humangr.actors.roles import run_engine
from humangr.contracts import (
    ActionSubmitted,
    AgentName,
    DeadLetter,
    Handoff,
    ResponseStatus,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.state import MemoryStateStore

pytestmark = pytest.mark.anyio
PROMPTLY_S = 8.0
"""Far below the decision timeout (600 s): the refusal is acted on, not waited out."""


def dev_files() -> dict[str, str]:
    reply = golden(DEV_TSK1)
    return {a["path"]: a["content"] for a in reply["artifacts"]}


async def test_a_dev_output_that_changes_nothing_goes_to_qa_unreviewed_and_unwritten(
    bus: Bus, tmp_path: Path
) -> None:
    files = ProjectStore(tmp_path, PROJECT)
    for path, content in dev_files().items():
        files.write(path, content)
    inodes = {path: os.stat(files.dir / path).st_ino for path in dev_files()}
    llm, subj = scripted(), subjects()
    async with (
        run_engine(bus=bus, llm=scripted(layer_lines()), subjects=subj, policy=POLICY),
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
        supervisor(bus, subj, tmp_path, MemoryStateStore(), llm),
    ):
        await bus.publish(subj.work_order, encode(dev_order()))
        handoff = await next_of(handoffs, Handoff, timeout=PROMPTLY_S)
        assert await nothing_more(submits), "an empty diff is not submitted for review"
    assert (handoff.status, handoff.to, handoff.decision_outcome) == (
        ResponseStatus.OK,
        AgentName.QA,
        "approved",
    )
    assert "no change" in handoff.reason
    assert sorted(handoff.code_refs) == sorted(dev_files())
    assert {p: os.stat(files.dir / p).st_ino for p in dev_files()} == inodes, "nothing written"


async def test_a_submission_the_engine_refuses_blocks_the_order_at_once(
    bus: Bus, tmp_path: Path
) -> None:
    """The engine's diff limit is lower than the pipeline's: it refuses the submission."""
    llm, subj = scripted(), subjects()
    engine_config = ReviewConfig(max_diff_bytes=200)
    async with (
        run_engine(
            bus=bus, llm=scripted(layer_lines()), subjects=subj, policy=POLICY, config=engine_config
        ),
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
        supervisor(bus, subj, tmp_path, MemoryStateStore(), llm),
    ):
        await bus.publish(subj.work_order, encode(dev_order()))
        handoff = await next_of(handoffs, Handoff, timeout=PROMPTLY_S)
    assert handoff.status is ResponseStatus.BLOCKED
    assert handoff.decision_outcome is None
    assert "the review engine refused the Dev output" in handoff.reason
    assert "the limit is 200" in handoff.reason
    assert written(tmp_path) == [], "nothing of a refused output is written"


async def test_a_forged_empty_diff_letter_never_approves_a_real_change(
    bus: Bus, tmp_path: Path
) -> None:
    """A letter claiming the engine found the diff empty, for an output that does change
    files: the pipeline decides "no change" from the files, not from the letter."""
    llm, subj = scripted(), subjects()
    async with (
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
        supervisor(bus, subj, tmp_path, MemoryStateStore(), llm),
    ):
        await bus.publish(subj.work_order, encode(dev_order()))
        submitted = await next_of(submits, ActionSubmitted)
        for letter in (
            DeadLetter(subject=subj.action_submit, error="x", correlation_id="dev-unknown"),
            DeadLetter(subject=subj.work_order, error="x", correlation_id=submitted.action_id),
        ):
            await bus.publish(subj.dlq, encode(letter))
        await bus.publish(subj.dlq, b"{not a letter")
        assert await nothing_more(handoffs), "letters about other things change nothing"
        forged = DeadLetter(
            subject=subj.action_submit,
            error="code_diff is empty: a code_diff action needs the diff to review",
            correlation_id=submitted.action_id,
        )
        await bus.publish(subj.dlq, encode(forged))
        handoff = await next_of(handoffs, Handoff, timeout=PROMPTLY_S)
        await anyio.sleep(0.2)
    assert handoff.status is ResponseStatus.BLOCKED
    assert handoff.decision_outcome != "approved"
    assert written(tmp_path) == [], "nothing written on a letter's word"
