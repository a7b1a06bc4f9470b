"""Deciding from the inbox over HTTP: only with the session's CSRF token, bound to the action
hash the page showed, with a reason that says something, as the signed-in reviewer; every
hostile form is refused and leaves the review pending."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
import pytest
from inbox_helpers import (
    REASON,
    Served,
    csrf_of,
    engine_on,
    needs_review,
    served_inbox,
    signed_in,
)

from humangr.contracts import HumanLayerReport, Outcome
from humangr.reviewing import detail_of

pytestmark = pytest.mark.anyio
FORM = {"content-type": "application/x-www-form-urlencoded"}


def count(served: Served, family: str, **labels: str) -> float:
    metric: Any = getattr(served.metrics, family)
    value: float = metric.labels(**labels)._value.get()
    return value


async def open_form(client: httpx.AsyncClient, report: HumanLayerReport) -> dict[str, str]:
    page = await client.get(f"/reviews/{report.action_id}")
    assert page.status_code == 200
    return {
        "csrf": csrf_of(page.text),
        "action_hash": report.action_hash,
        "verdict": "reject",
        "reason": REASON,
    }


async def assert_pending(served: Served, report: HumanLayerReport) -> None:
    detail = await detail_of(served.channel, report.action_id)
    assert detail.pending
    assert detail.final is None


async def test_a_resolution_without_this_sessions_csrf_token_is_refused() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        path = f"/reviews/{report.action_id}/resolve"
        async with signed_in(served, "alice") as alice, signed_in(served, "bob") as bob:
            form = await open_form(alice, report)
            bobs = await open_form(bob, report)
            without = {k: v for k, v in form.items() if k != "csrf"}
            assert (await alice.post(path, data=without)).status_code == 403
            assert (await alice.post(path, data={**form, "csrf": ""})).status_code == 403
            assert (await alice.post(path, data={**form, "csrf": bobs["csrf"]})).status_code == 403
            assert (await alice.post(path, data={**form, "csrf": "é" * 43})).status_code == 403
            await assert_pending(served, report)
            assert count(served, "inbox_refused", reason="csrf") == 4
            assert (await alice.post(path, data=form)).status_code == 303


async def test_a_resolution_is_bound_to_the_action_hash_the_page_showed() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        path = f"/reviews/{report.action_id}/resolve"
        async with signed_in(served, "alice") as client:
            form = await open_form(client, report)
            other = "0" * 64 if report.action_hash != "0" * 64 else "1" * 64
            answer = await client.post(path, data={**form, "action_hash": other})
            assert answer.status_code == 409
            assert "not 000000000000… as the page you decided on showed" in answer.text
            assert REASON in answer.text  # what the reviewer typed is kept
            for bad in ("", "abc", report.action_hash.upper(), report.action_hash + "0"):
                answer = await client.post(path, data={**form, "action_hash": bad})
                assert answer.status_code == 400, bad
            await assert_pending(served, report)
            assert count(served, "inbox_decisions", verdict="refused") == 1


@pytest.mark.parametrize(
    ("reason", "says"),
    [
        ("too short", "at least 20 characters besides spaces (it has 8)"),
        ("a " * 19, "(it has 19)"),
        (" " * 300, "(it has 0)"),
        ("x" * 2_001, "the limit is 2,000"),
        ("a perfectly long reason \x1b[31m in red", "control or bidirectional characters"),
        ("a perfectly long reason \u202e reversed", "control or bidirectional characters"),
        ("a perfectly long reason \x00 with a nul", "control or bidirectional characters"),
    ],
)
async def test_a_reason_must_say_why(reason: str, says: str) -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        async with signed_in(served, "alice") as client:
            form = await open_form(client, report)
            answer = await client.post(
                f"/reviews/{report.action_id}/resolve", data={**form, "reason": reason}
            )
            assert answer.status_code == 400
            assert says in answer.text
            assert "--reason" not in answer.text
            assert 'class="decide"' in answer.text  # the form is there to try again
        await assert_pending(served, report)


async def test_hostile_forms_are_refused_and_decide_nothing() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        path = f"/reviews/{report.action_id}/resolve"
        async with signed_in(served, "alice") as client:
            form = await open_form(client, report)
            encoded = httpx.QueryParams(form)
            cases: list[tuple[dict[str, Any], int]] = [
                ({"data": {**form, "reviewer": "mallory"}}, 400),
                ({"data": {**form, "verdict": "maybe"}}, 400),
                ({"data": {k: v for k, v in form.items() if k != "reason"}}, 400),
                ({"content": f"{encoded}&verdict=approve".encode(), "headers": FORM}, 400),
                ({"content": f"{encoded}&reason=%ff%fe".encode(), "headers": FORM}, 400),
                ({"content": f"{encoded}".encode() + b"\xff", "headers": FORM}, 400),
                ({"content": f"{encoded}&a=1&b=2&c=3".encode(), "headers": FORM}, 400),
                ({"content": b"&&&===", "headers": FORM}, 400),
                ({"json": form}, 415),
                ({"files": {"reason": b"x"}, "data": form}, 415),
                ({"data": {**form, "reason": "x" * 20_000}}, 413),
            ]
            for kwargs, status in cases:
                answer = await client.post(path, **kwargs)
                assert answer.status_code == status, (kwargs, answer.text)
            await assert_pending(served, report)
            assert count(served, "inbox_refused", reason="bad_form") == len(cases)
            assert count(served, "inbox_decisions", verdict="approved") == 0


async def test_a_late_resolution_is_refused_naming_the_first_decision() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        path = f"/reviews/{report.action_id}/resolve"
        async with signed_in(served, "alice") as alice, signed_in(served, "bob") as bob:
            alices, bobs = await open_form(alice, report), await open_form(bob, report)
            assert (await alice.post(path, data=alices)).status_code == 303
            late = await bob.post(path, data={**bobs, "verdict": "approve"})
            assert late.status_code == 409
            assert "already resolved: rejected by alice" in late.text
            assert 'id="final"' in late.text
            again = await alice.post(path, data=alices)
            assert again.status_code == 409
        detail = await detail_of(served.channel, report.action_id)
        assert detail.final is not None
        assert detail.final.outcome is Outcome.REJECTED
        assert detail.final.resolved_by == "alice"
        assert count(served, "inbox_decisions", verdict="rejected") == 1
        assert count(served, "inbox_decisions", verdict="refused") == 2


async def test_every_byte_of_action_text_is_escaped() -> None:
    from humangr.contracts import ActionContext

    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">&amp;'
    action = ActionContext(
        agent_id="agent-x",
        action_type="code_diff",
        action_description=f"{hostile}\nmore {hostile}",
        code_diff=(
            f"--- a/{hostile}.py\n+++ b/{hostile}.py\n@@ -1,1 +1,2 @@ {hostile}\n"
            f" keep\n+{hostile}\n"
        ),
    )
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine, action)
        async with signed_in(served, "alice") as client:
            for path in ("/reviews", "/reviews/rows", f"/reviews/{report.action_id}"):
                html = (await client.get(path)).text
                assert "<script>alert" not in html, path
                assert "<img src=x" not in html, path
                assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, path
                assert "&amp;amp;" in html, path
            page = (await client.get(f"/reviews/{report.action_id}")).text
            assert page.count("&lt;img src=x onerror=&#34;alert(2)&#34;&gt;") >= 4
