"""Every trick of issue 20 through every entry, and "not reviewed" only without an LLM.

The tricks: content holding a diff marker (a hunk header, ``diff --git``, a ``---``/``+++``
pair, ``\\ No newline``) sent where a diff is expected, and a ``GIT binary patch``. The entries:
the local checks (a guard, the pipeline and the client submit to the same Supervisor), the
Supervisor and layers over both buses, ``humangr review FILE``, MCP ``validate`` and
``test_action``, and a tool call's file content and patch. None approves any of them.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import anyio
import pytest
from mcp import Client

from humangr.actors.roles import review_actors
from humangr.cli.inputs import InputError, load_actions
from humangr.contracts import (
    ActionContext,
    HumanLayerReport,
    LayerID,
    Outcome,
    Subjects,
    ToolCall,
)
from humangr.engine.actor import ActorSystem
from humangr.engine.bus import Bus
from humangr.engine.checks import run_checks
from humangr.engine.checks.coverage import NOT_REVIEWED
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import LLMClient, ScriptedLLM
from humangr.engine.review import local_outcome
from humangr.engine.submission import submit_and_wait
from humangr.mcp import HumanLayerMCP
from humangr.mcp.quick import quick_review
from humangr.mcp.serve import open_backend

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "checks"))
from test_input_reader import HOSTILE, LITERAL, MARKERS

pytestmark = pytest.mark.anyio

TRICKS = {name: HOSTILE.format(marker=marker) for name, marker in MARKERS.items()}
DIFFS = {**TRICKS, "binary literal": LITERAL}


def content_action(text: str) -> ActionContext:
    return ActionContext(
        agent_id="agent-1",
        action_type="code_diff",
        action_description="Write app.py.",
        code_diff=text,
        affected_files=["app.py"],
    )


DESCRIPTION_ONLY = ActionContext(
    agent_id="agent-1", action_type="deploy", action_description="Roll out release 4 to prod."
)


@pytest.mark.parametrize("text", list(DIFFS.values()), ids=list(DIFFS))
@pytest.mark.parametrize("local_only", [False, True])
def test_local_checks_reject_every_trick(text: str, local_only: bool) -> None:
    outcome, _ = local_outcome(run_checks(content_action(text), local_only=local_only))
    assert outcome is Outcome.REJECTED


async def _decide(
    bus: Bus, llm: LLMClient | None, actions: list[ActionContext]
) -> list[HumanLayerReport]:
    subjects = Subjects(prefix=f"t{uuid.uuid4().hex[:10]}")
    system = ActorSystem(bus, subjects=subjects)
    for actor in review_actors(ReviewConfig(layer_deadline_s=10), llm):
        system.add(actor)
    out: list[HumanLayerReport] = []
    with anyio.fail_after(60):
        async with system.running():
            for action in actions:
                out.append(await submit_and_wait(bus, subjects, action, timeout=30))
    return out


async def test_the_engine_without_an_llm_approves_no_trick_and_no_unread_action(bus: Bus) -> None:
    actions = [content_action(t) for t in DIFFS.values()] + [DESCRIPTION_ONLY]
    *tricks, described = await _decide(bus, None, actions)
    assert [r.outcome for r in tricks] == [Outcome.REJECTED] * len(DIFFS)
    assert described.outcome is Outcome.NEEDS_REVIEW
    assert any(NOT_REVIEWED in reason for reason in described.blocking_reasons)


async def test_the_engine_with_an_llm_is_unchanged_for_a_description(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "json": {"findings": []}}])
    (report,) = await _decide(bus, llm, [DESCRIPTION_ONLY])
    assert report.outcome is Outcome.APPROVED
    titles = [f.title for r in report.layer_results.values() for f in r.merged_findings]
    assert NOT_REVIEWED not in titles


@pytest.mark.parametrize("name", list(TRICKS))
def test_humangr_review_reads_a_named_file_as_its_content(tmp_path: Path, name: str) -> None:
    path = tmp_path / "app.py"
    path.write_text(MARKERS[name] + "\n" + TRICKS[name], encoding="utf-8")
    [(_, action)] = load_actions([str(path)])
    assert action.affected_files
    assert action.affected_files[0].endswith("app.py")
    outcome, _ = local_outcome(run_checks(action, local_only=True))
    assert outcome is Outcome.REJECTED


def test_the_humangr_review_command_rejects_a_file_hiding_code_before_a_marker(
    tmp_path: Path,
) -> None:
    from cli_helpers import humangr

    path = tmp_path / "app.py"
    path.write_text(TRICKS["hunk header"], encoding="utf-8")
    result = humangr("review", str(path), "--llm", "none", "--format", "json")
    assert result.returncode == 2, result.stderr
    assert json.loads(result.stdout)["outcome"] == "rejected"


def test_humangr_review_refuses_a_diff_file_that_is_no_diff(tmp_path: Path) -> None:
    path = tmp_path / "change.diff"
    path.write_text(TRICKS["hunk header"], encoding="utf-8")
    with pytest.raises(InputError, match="not a diff"):
        load_actions([str(path)])
    odd = tmp_path / "a\nb.py"
    odd.write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="line break"):
        load_actions([str(odd)])


async def test_mcp_validate_and_test_action_approve_no_trick() -> None:
    async with open_backend(ReviewConfig(layer_deadline_s=10), None) as backend:
        app = HumanLayerMCP(backend, None, "none")
        async with Client(app.server()) as client:
            for text in DIFFS.values():
                args = {
                    "agent_id": "agent-1",
                    "action_type": "code_diff",
                    "action_description": "Write app.py.",
                    "code_diff": text,
                    "affected_files": ["app.py"],
                }
                with anyio.fail_after(30):
                    result = await client.call_tool("validate", args)
                assert result.structured_content is not None
                assert result.structured_content["outcome"] == "rejected"
    for text in DIFFS.values():
        quick = await quick_review(content_action(text), [LayerID.HL4], None, llm_note="none")
        assert quick.verdict == "fail"
    described = await quick_review(DESCRIPTION_ONLY, [LayerID.HL4], None, llm_note="none")
    assert described.verdict == "fail"
    assert any(f.title == NOT_REVIEWED for f in described.findings)


@pytest.mark.parametrize("name", list(TRICKS))
def test_a_tool_calls_content_and_patch_are_read_whole(name: str) -> None:
    text = TRICKS[name]
    write = ToolCall(name="write_file", arguments={"path": "app.py", "content": text})
    patch = ToolCall(name="apply_patch", arguments={"path": "app.py", "patch": text})
    for call in (write, patch):
        action = ActionContext(
            agent_id="agent-1", action_type="tool_call", action_description="w", tool_call=call
        )
        outcome, _ = local_outcome(run_checks(action, local_only=True))
        assert outcome is Outcome.REJECTED, call.name


@pytest.mark.parametrize("text", list(TRICKS.values()), ids=list(TRICKS))
def test_the_pipelines_diff_of_a_dev_file_keeps_every_trick_in_view(text: str) -> None:
    """The pipeline reviews a Dev's file as a diff it builds itself: a marker in the content is
    a line of the new file, and what follows it is still reviewed."""
    from humangr.engine.pipeline.context import review_diff

    for current in ({}, {"app.py": "x = 1\n"}):
        diff = review_diff([("app.py", text)], current)
        outcome, _ = local_outcome(run_checks(content_action(diff)))
        assert outcome is Outcome.REJECTED, current
