"""The inbox over HTTP (httpx against the app served by uvicorn): who may do what, CSRF, the
security headers on every response, and the hostile forms and paths."""

from __future__ import annotations

import re

import httpx2 as httpx
import pytest
from inbox_helpers import (
    REASON,
    TOKENS,
    Served,
    csrf_of,
    engine_on,
    needs_review,
    served_inbox,
    signed_in,
)

from humangr.contracts import Outcome
from humangr.inbox.security import SECURITY_HEADERS
from humangr.inbox.sessions import COOKIE
from humangr.reviewing import detail_of

pytestmark = pytest.mark.anyio


def refused(served: Served, reason: str) -> float:
    value: float = served.metrics.inbox_refused.labels(reason=reason)._value.get()
    return value


def decisions(served: Served, verdict: str) -> float:
    value: float = served.metrics.inbox_decisions.labels(verdict=verdict)._value.get()
    return value


async def still_pending(served: Served, action_id: str) -> bool:
    detail = await detail_of(served.channel, action_id)
    return detail.pending and detail.final is None


async def test_every_page_but_sign_in_needs_a_reviewer() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        async with signed_in(served, None) as anonymous:
            listing = await anonymous.get("/reviews")
            assert listing.status_code == 303
            assert listing.headers["location"] == "/signin?next=/reviews"
            one = await anonymous.get(f"/reviews/{report.action_id}")
            assert one.headers["location"] == f"/signin?next=/reviews/{report.action_id}"
            assert (await anonymous.get("/reviews/rows")).status_code == 401
            assert (await anonymous.get("/events")).status_code == 401
            page = await anonymous.get("/signin")
            answer = await anonymous.post(
                f"/reviews/{report.action_id}/resolve",
                data={
                    "csrf": csrf_of(page.text),
                    "action_hash": report.action_hash,
                    "verdict": "approve",
                    "reason": REASON,
                },
            )
            assert answer.status_code == 403
            assert "no anonymous resolution" in answer.text
            assert report.action_id not in (listing.text + page.text)
        assert await still_pending(served, report.action_id)
        assert refused(served, "signed_out") == 3


async def test_sign_in_takes_the_token_of_a_reviewer_and_goes_where_it_was_asked() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        async with signed_in(served, None) as client:
            page = await client.get("/signin?next=/reviews/act-123")
            assert 'name="next" value="/reviews/act-123"' in page.text
            wrong = await client.post(
                "/signin", data={"csrf": csrf_of(page.text), "token": TOKENS["alice"] + "x"}
            )
            assert wrong.status_code == 401
            assert "This token is not valid" in wrong.text
            assert refused(served, "bad_token") == 1
            assert (await client.get("/reviews")).status_code == 303
            elsewhere = await client.post(
                "/signin",
                data={"csrf": csrf_of(page.text), "token": TOKENS["bob"], "next": "//evil.test/"},
            )
            assert elsewhere.headers["location"] == "/reviews"  # no open redirect
            assert (await client.get("/reviews")).status_code == 200
        async with signed_in(served, None) as client:
            page = await client.get("/signin")
            there = await client.post(
                "/signin",
                data={"csrf": csrf_of(page.text), "token": TOKENS["bob"], "next": "/reviews/a-1"},
            )
            assert there.headers["location"] == "/reviews/a-1"
            assert (
                'signed in as <strong id="reviewer">bob</strong>'
                in (await client.get("/reviews")).text
            )


async def test_sign_in_is_refused_without_the_session_and_its_csrf_token() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        async with signed_in(served, None) as client:
            no_cookie = await client.post("/signin", data={"csrf": "x", "token": TOKENS["alice"]})
            assert no_cookie.status_code == 403
            assert "open the sign-in page again" in no_cookie.text
            page = await client.get("/signin")
            without = await client.post("/signin", data={"token": TOKENS["alice"]})
            assert without.status_code == 403
            forged = await client.post(
                "/signin", data={"csrf": csrf_of(page.text)[:-2] + "AA", "token": TOKENS["alice"]}
            )
            assert forged.status_code == 403
            assert (await client.get("/reviews")).status_code == 303
        assert refused(served, "csrf") == 3


async def test_the_session_cookie_is_http_only_same_site_strict_and_expires() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        async with signed_in(served, None) as client:
            page = await client.get("/signin")
            anonymous = page.headers["set-cookie"]
            answer = await client.post(
                "/signin", data={"csrf": csrf_of(page.text), "token": TOKENS["alice"]}
            )
            cookie = answer.headers["set-cookie"]
        for header in (anonymous, cookie):
            parts = [p.strip().lower() for p in header.split(";")]
            assert parts[0].startswith(f"{COOKIE}=")
            assert "httponly" in parts
            assert "samesite=strict" in parts
            assert "path=/" in parts
            assert "max-age=28800" in parts
            assert "secure" not in parts  # plain HTTP on loopback; on TLS it is Secure
        assert anonymous.split(";")[0] != cookie.split(";")[0]  # a new session at sign-in


async def test_a_forged_or_signed_out_cookie_is_a_stranger() -> None:
    async with (
        engine_on() as engine,
        served_inbox(engine) as served,
        signed_in(served, "alice") as client,
    ):
        value = client.cookies[COOKIE]
        page = await client.get("/reviews")
        assert page.status_code == 200
        body, signature = value.split(".")
        async with httpx.AsyncClient(base_url=served.url) as thief:

            async def status(cookie: str, path: str = "/reviews") -> int:
                answer = await thief.get(path, headers={"cookie": f"{COOKIE}={cookie}"})
                return answer.status_code

            assert await status(value) == 200
            for forged in (
                f"{body}.{signature[:-3]}AAA",
                f"{body[:-2]}xx.{signature}",
                f"{body}.{signature}.{signature}",
                "x",
                "x" * 5_000,
            ):
                assert await status(forged) == 303, forged
            out = await client.post("/signout", data={"csrf": csrf_of(page.text)})
            assert out.status_code == 303
            assert out.headers["location"] == "/signin"
            assert await status(value) == 303  # the old cookie, kept by a thief
            assert await status(value, "/events") == 401


async def test_signing_out_needs_the_csrf_token() -> None:
    async with (
        engine_on() as engine,
        served_inbox(engine) as served,
        signed_in(served, "alice") as client,
    ):
        form = {"content-type": "application/x-www-form-urlencoded"}
        assert (await client.post("/signout", content=b"", headers=form)).status_code == 403
        assert (await client.post("/signout", data={"csrf": "nope"})).status_code == 403
        assert (await client.get("/reviews")).status_code == 200


async def test_security_headers_are_on_every_response() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        async with signed_in(served, "alice") as client:
            responses = [
                await client.get("/signin"),
                await client.get("/reviews"),
                await client.get("/reviews/rows"),
                await client.get(f"/reviews/{report.action_id}"),
                await client.get("/reviews/act-nothing-here"),
                await client.get("/static/inbox.css"),
                await client.get("/static/inbox.js"),
                await client.get("/static/missing.js"),
                await client.get("/nowhere"),
                await client.get("/"),
                await client.post("/signout", data={}),
                await client.get("/healthz"),
            ]
            async with client.stream("GET", "/events") as events:
                responses.append(events)
        async with signed_in(served, None) as anonymous:
            responses.append(await anonymous.get("/events"))
        for response in responses:
            for name, value in SECURITY_HEADERS.items():
                assert response.headers.get(name) == value, (response.url, name)
        csp = SECURITY_HEADERS["content-security-policy"]
        assert "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp
        assert SECURITY_HEADERS["x-frame-options"] == "DENY"
        assert responses[1].headers["cache-control"] == "no-store"
        assert responses[5].headers["content-type"].startswith("text/css")
        assert "javascript" in responses[6].headers["content-type"]
        assert responses[12].headers["content-type"].startswith("text/event-stream")


async def test_pages_load_nothing_from_outside_the_inbox() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        async with signed_in(served, "alice") as client:
            for path in ("/signin", "/reviews", f"/reviews/{report.action_id}"):
                html = (await client.get(path)).text
                for attribute in re.findall(r'(?<![\w-])(?:src|href|action)="([^"]*)"', html):
                    assert attribute.startswith("/"), (path, attribute)
                    assert not attribute.startswith("//"), (path, attribute)
                assert "<script>" not in html
                assert " on" not in re.sub(r">[^<]*<", "><", html).replace(" one", "")
            css = (await client.get("/static/inbox.css")).text
            assert "url(" not in css
            assert "@import" not in css


async def test_the_list_filters_by_agent_and_layer_newest_first() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        first = await needs_review(engine, _pricing("agent-a"))
        second = await needs_review(engine, _pricing("agent-b"))
        async with signed_in(served, "alice") as client:
            everything = (await client.get("/reviews")).text
            assert everything.index(second.action_id) < everything.index(first.action_id)
            only_a = (await client.get("/reviews?agent=agent-a")).text
            assert first.action_id in only_a
            assert second.action_id not in only_a
            assert "1 pending (of 2)" in only_a
            hl2 = (await client.get("/reviews/rows?layer=HL2")).text
            assert first.action_id in hl2
            assert second.action_id in hl2
            hl4 = (await client.get("/reviews/rows?layer=HL4")).text
            assert first.action_id not in hl4
            assert "Nothing waits for a human with these filters" in hl4
            for bad in ("layer=HL9", "agent=%3Cscript%3E", "layer=hl2"):
                answer = await client.get(f"/reviews?{bad}")
                assert answer.status_code == 400, bad
                assert "<script>" not in answer.text
        assert refused(served, "bad_form") == 3


def _pricing(agent: str):  # type: ignore[no-untyped-def]
    from inbox_helpers import pricing_action

    return pricing_action(agent)


async def test_a_review_id_that_cannot_be_or_is_not_known_is_not_found() -> None:
    async with (
        engine_on() as engine,
        served_inbox(engine) as served,
        signed_in(served, "alice") as client,
    ):
        unknown = await client.get("/reviews/act-unknown")
        assert unknown.status_code == 404
        assert "no review of action or report" in unknown.text
        hostile = await client.get("/reviews/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
        assert hostile.status_code == 404
        assert "<img src=x" not in hostile.text
        assert "&lt;img src=x onerror=alert(1)&gt;" in hostile.text
        too_long = await client.get("/reviews/" + "a" * 5_000)
        assert too_long.status_code == 404
        assert len(too_long.text) < 10_000
        opened = await client.get("/reviews/open?id=act-123")
        assert opened.headers["location"] == "/reviews/act-123"
        assert (await client.get("/reviews/open?id=a%2Fb")).status_code == 400
        assert (await client.get("/reviews/open?id=")).status_code == 400


async def test_approve_from_the_inbox_records_the_reviewers_name_from_the_token() -> None:
    async with engine_on() as engine, served_inbox(engine) as served:
        report = await needs_review(engine)
        async with signed_in(served, "bob") as client:
            page = await client.get(f"/reviews/{report.action_id}")
            assert f'name="action_hash" value="{report.action_hash}"' in page.text
            answer = await client.post(
                f"/reviews/{report.action_id}/resolve",
                data={
                    "csrf": csrf_of(page.text),
                    "action_hash": report.action_hash,
                    "verdict": "approve",
                    "reason": f"  {REASON}  ",
                },
            )
            assert answer.status_code == 303
            assert answer.headers["location"] == f"/reviews/{report.action_id}"
            decided = (await client.get(answer.headers["location"])).text
            assert 'id="final"' in decided
            assert "form" not in decided.split('id="history"')[1]
        detail = await detail_of(served.channel, report.action_id)
        assert detail.final is not None
        assert detail.final.outcome is Outcome.APPROVED
        assert detail.final.resolved_by == "bob"
        assert detail.final.resolution_reason == REASON
        assert decisions(served, "approved") == 1


async def test_page_views_and_decisions_are_counted_from_zero() -> None:
    from humangr.engine.metrics import INBOX_DECISIONS, INBOX_PAGES, Metrics, exported_names

    names = exported_names(Metrics().registry)
    for name in (
        "humangr_inbox_page_views_total",
        "humangr_inbox_decisions_total",
        "humangr_inbox_refused_requests_total",
        "humangr_inbox_live_clients",
        "humangr_inbox_live_dropped_total",
    ):
        assert name in names
    async with engine_on() as engine, served_inbox(engine) as served:
        for page in INBOX_PAGES:
            assert served.metrics.inbox_page_views.labels(page=page)._value.get() == 0
        for verdict in INBOX_DECISIONS:
            assert decisions(served, verdict) == 0
        report = await needs_review(engine)
        async with signed_in(served, "alice") as client:
            await client.get("/reviews")
            await client.get("/reviews/rows")
            await client.get(f"/reviews/{report.action_id}")
            await client.get(f"/reviews/{report.action_id}")
        views = served.metrics.inbox_page_views
        assert views.labels(page="signin")._value.get() == 1
        assert views.labels(page="list")._value.get() == 1
        assert views.labels(page="review")._value.get() == 2


async def test_a_reviewer_name_with_html_is_escaped_and_recorded_as_is() -> None:
    eve = "<i>eve</i> & co"
    async with (
        engine_on() as engine,
        served_inbox(engine) as served,
        signed_in(served, eve) as client,
    ):
        report = await needs_review(engine)
        page = await client.get(f"/reviews/{report.action_id}")
        assert "&lt;i&gt;eve&lt;/i&gt; &amp; co" in page.text
        assert "<i>eve</i>" not in page.text
        form = {
            "csrf": csrf_of(page.text),
            "action_hash": report.action_hash,
            "verdict": "reject",
            "reason": REASON,
        }
        answer = await client.post(f"/reviews/{report.action_id}/resolve", data=form)
        assert answer.status_code == 303
        decided = (await client.get(f"/reviews/{report.action_id}")).text
        assert "<i>eve</i>" not in decided
        detail = await detail_of(served.channel, report.action_id)
        assert detail.final is not None
        assert detail.final.resolved_by == eve


async def test_without_a_supervisor_the_pages_say_so() -> None:
    from types import SimpleNamespace

    from humangr.contracts import Subjects
    from humangr.engine.bus import MemoryBus

    async with MemoryBus() as bus:
        nobody = SimpleNamespace(bus=bus, subjects=Subjects("nobody"))
        async with served_inbox(nobody) as served, signed_in(served, "alice") as client:  # type: ignore[arg-type]
            listing = await client.get("/reviews")
            assert listing.status_code == 200
            assert "the Supervisor did not answer: no responders on" in listing.text
            one = await client.get("/reviews/act-123")
            assert one.status_code == 503
            assert "The Supervisor did not answer" in one.text
