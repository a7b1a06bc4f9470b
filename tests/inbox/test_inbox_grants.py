"""Standing approvals in the inbox over HTTP: the review page of a tool call offers a grant with
Approve; the server reads it with ``resolve --grant``'s own parser (at most 30 days, approve
only, scope exact or tool) whatever the form says; the grants page lists the grants in force
and revokes one only with this session's CSRF token, after which the next call needs a human
again."""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import pytest
from inbox_helpers import REASON, csrf_of, engine_on, needs_review, pricing_action, served_inbox
from inbox_helpers import signed_in as signed

from humangr.contracts import ActionContext, Grant, Outcome, ToolCall
from humangr.engine.llm import ScriptedLLM
from humangr.granting import list_grants
from humangr.reviewing import Channel, detail_of

pytestmark = pytest.mark.anyio
FORM = {"content-type": "application/x-www-form-urlencoded"}


def flagging_llm() -> ScriptedLLM:
    """HL2 finds a high-severity problem in every call: each needs a human (medium veto)."""
    flagged = {"severity": "high", "title": "Rebuilds everything", "argument": "command"}
    return ScriptedLLM.from_lines(
        [
            {"match": {}, "json": {"findings": [], "summary": "ok"}},
            {"match": {"layer": "HL2"}, "json": {"findings": [flagged], "summary": "build"}},
        ]
    )


def make(target: str) -> ActionContext:
    return ActionContext(
        agent_id="build-agent",
        action_type="tool_call",
        action_description=f"make {target}",
        tool_call=ToolCall(name="bash", arguments={"command": f"make {target}"}, workspace="/srv"),
    )


async def grants_of(channel: Channel, *, wait_for: int = 0) -> list[Grant]:
    with anyio.fail_after(10):
        while len(found := await list_grants(channel)) < wait_for:  # noqa: ASYNC110 (no event)
            await anyio.sleep(0.05)
    return found


async def approve_form(client: Any, action_id: str, action_hash: str) -> dict[str, str]:
    page = await client.get(f"/reviews/{action_id}")
    assert page.status_code == 200
    return {
        "csrf": csrf_of(page.text),
        "action_hash": action_hash,
        "verdict": "approve",
        "reason": REASON,
    }


async def test_only_a_tool_call_review_offers_a_grant() -> None:
    async with engine_on(llm=flagging_llm()) as engine, served_inbox(engine) as served:
        call = await needs_review(engine, make("all"))
        diff = await needs_review(engine, pricing_action())
        async with signed(served) as client:
            with_tool = (await client.get(f"/reviews/{call.action_id}")).text
            without = (await client.get(f"/reviews/{diff.action_id}")).text
    assert 'id="grant-control"' in with_tool
    for value in ("15m", "1h", "8h", "1d", "7d", "30d"):
        assert f'<option value="{value}">' in with_tool
    assert 'name="scope" value="exact" checked' in with_tool
    assert 'name="scope" value="tool"' in with_tool
    assert 'id="grant-control"' not in without


async def test_approve_with_a_tool_grant_then_revoke_it_in_the_inbox() -> None:
    async with engine_on(llm=flagging_llm()) as engine, served_inbox(engine) as served:
        asked = await needs_review(engine, make("all"))
        path = f"/reviews/{asked.action_id}/resolve"
        async with signed(served, "alice") as alice, signed(served, "bob") as bob:
            form = await approve_form(alice, asked.action_id, asked.action_hash)
            answer = await alice.post(path, data={**form, "grant": "1h", "scope": "tool"})
            assert answer.status_code == 303, answer.text
            (made,) = await grants_of(served.channel, wait_for=1)
            granted = await engine.submit(make("test"), timeout=30)

            listing = await alice.get("/grants")
            assert listing.status_code == 200
            assert f'data-grant="{made.id}"' in listing.text
            assert f'action="/grants/{made.id}/revoke"' in listing.text
            revoke = f"/grants/{made.id}/revoke"
            bobs = csrf_of((await bob.get("/grants")).text)
            no_token = await alice.post(revoke, content=b"", headers=FORM)
            assert no_token.status_code == 403
            assert (await alice.post(revoke, data={"csrf": bobs})).status_code == 403
            async with signed(served, None) as anonymous:
                assert (await anonymous.post(revoke, data={"csrf": bobs})).status_code == 403
            assert [g.id for g in await list_grants(served.channel)] == [made.id]
            ok = await alice.post(revoke, data={"csrf": csrf_of(listing.text)})
            assert (ok.status_code, ok.headers["location"]) == (303, "/grants")
            assert await list_grants(served.channel) == []
            after = await engine.submit(make("test"), timeout=30)
            emptied = await alice.get("/grants")
            again = await alice.post(revoke, data={"csrf": csrf_of(emptied.text)})
    assert (made.agent_id, made.tool, made.scope, made.reviewer) == (
        "build-agent",
        "bash",
        "tool",
        "alice",
    )
    assert 3500 < (made.expires_at - made.created_at).total_seconds() <= 3600
    assert (granted.outcome, granted.decided_by) == (Outcome.APPROVED, f"grant:{made.id}")
    assert after.outcome is Outcome.NEEDS_REVIEW, "revoked: the next call needs a human"
    assert 'id="no-grants"' in emptied.text
    assert again.status_code == 409
    assert f"no grant &#39;{made.id}&#39;" in again.text


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"grant": "31d"}, "at most 30d"),
        ({"grant": "1e9h"}, "at most 30d"),
        ({"grant": "-1h"}, "is not a duration"),
        ({"grant": "0s"}, "is not a duration"),
        ({"grant": "soon"}, "is not a duration"),
        ({"grant": "1h", "verdict": "reject"}, "Approve only"),
        ({"grant": "1h", "scope": "everything"}, "scope is exact or tool"),
    ],
)
async def test_a_bad_grant_is_refused_and_the_review_stays_pending(
    fields: dict[str, str], fragment: str
) -> None:
    async with engine_on(llm=flagging_llm()) as engine, served_inbox(engine) as served:
        asked = await needs_review(engine, make("all"))
        async with signed(served) as client:
            form = await approve_form(client, asked.action_id, asked.action_hash)
            answer = await client.post(
                f"/reviews/{asked.action_id}/resolve", data={**form, **fields}
            )
        detail = await detail_of(served.channel, asked.action_id)
        grants = await list_grants(served.channel)
    assert answer.status_code == 400
    assert fragment in answer.text
    assert REASON in answer.text, "what the reviewer typed is kept"
    assert detail.pending
    assert grants == []


async def test_a_grant_posted_for_an_action_without_a_tool_call_is_refused() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        asked = await needs_review(engine, pricing_action())
        async with signed(served) as client:
            form = await approve_form(client, asked.action_id, asked.action_hash)
            answer = await client.post(
                f"/reviews/{asked.action_id}/resolve", data={**form, "grant": "1h"}
            )
        detail = await detail_of(served.channel, asked.action_id)
        grants = await list_grants(served.channel)
    assert answer.status_code == 409
    assert "a grant allows tool calls only" in answer.text
    assert detail.pending, "the Supervisor refused the whole resolution"
    assert grants == []


async def test_a_grant_field_given_twice_is_refused() -> None:
    async with engine_on(llm=flagging_llm()) as engine, served_inbox(engine) as served:
        asked = await needs_review(engine, make("all"))
        async with signed(served) as client:
            form = await approve_form(client, asked.action_id, asked.action_hash)
            body = "&".join(f"{k}={v}" for k, v in form.items()) + "&grant=1h&grant=30d"
            answer = await client.post(
                f"/reviews/{asked.action_id}/resolve",
                content=body.replace(" ", "+").encode(),
                headers=FORM,
            )
        grants = await list_grants(served.channel)
    assert answer.status_code == 400
    assert "given twice" in answer.text
    assert grants == []


async def test_the_grants_page_needs_a_reviewer_and_a_grant_id() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        async with signed(served, None) as anonymous:
            page = await anonymous.get("/grants")
        async with signed(served) as client:
            listing = await client.get("/grants")
            csrf = csrf_of(listing.text)
            bad = await client.post("/grants/g.1/revoke", data={"csrf": csrf})
            unknown = await client.post(
                f"/grants/g{uuid.uuid4().hex[:8]}/revoke", data={"csrf": csrf}
            )
    assert (page.status_code, page.headers["location"]) == (303, "/signin?next=/grants")
    assert listing.status_code == 200
    assert 'id="no-grants"' in listing.text
    assert bad.status_code == 400
    assert unknown.status_code == 409
    assert "no grant" in unknown.text
