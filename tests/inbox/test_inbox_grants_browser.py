"""The inbox's grant control in a real headless Chromium, against the engine on a real
nats-server: a reviewer approves a tool call with a 1 h ``tool`` grant, the agent's next call
of that tool is approved by the grant without a human, the reviewer revokes it on the
standing-approvals page, and the next call needs a human again."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import chromium, sign_in
from inbox_helpers import REASON, TOKENS, engine_on, needs_review, served_inbox
from test_inbox_grants import flagging_llm, make

from humangr.contracts import Outcome
from humangr.engine.bus.nats import NatsBus

pytestmark = [pytest.mark.anyio, pytest.mark.nats]
WAIT_MS = 15_000


async def test_a_reviewer_grants_for_an_hour_then_revokes_in_the_inbox(
    nats_url: str, tmp_path: Path
) -> None:
    shots = tmp_path  # not the README's: none of its screenshots shows this page
    bus = await NatsBus.connect(nats_url)
    try:
        async with (
            engine_on(bus, llm=flagging_llm()) as engine,
            served_inbox(engine) as served,
            chromium() as browser,
        ):
            asked = await needs_review(engine, make("all"), action_id="act-9e4b21c7d0f3")
            page = await (
                await browser.new_context(viewport={"width": 1280, "height": 900})
            ).new_page()
            await sign_in(page, served.url, TOKENS["alice"])
            await page.goto(f"{served.url}/reviews/{asked.action_id}")
            control = page.locator("#grant-control")
            assert await control.is_visible()
            assert "bash" in await control.inner_text()
            await page.fill("#reason", REASON)
            await page.select_option("#grant", "1h")
            await page.check("input[name=scope][value=tool]")
            await control.screenshot(path=str(shots / "inbox-grant.png"))
            async with page.expect_navigation():
                await page.click("button.approve")
            assert "approved by alice" in (await page.inner_text("#final")).lower()

            granted = await engine.submit(make("test"), timeout=30)
            assert granted.outcome is Outcome.APPROVED, "approved by the grant, no human"
            assert granted.decided_by.startswith("grant:")
            grant_id = granted.decided_by.removeprefix("grant:")

            await page.click("#grants-link")
            await page.wait_for_url(f"{served.url}/grants", timeout=WAIT_MS)
            row = page.locator(f"tr.grant[data-grant='{grant_id}']")
            assert await row.count() == 1
            text = await row.inner_text()
            assert "build-agent" in text
            assert "tool" in await row.locator("td.scope").inner_text()
            await page.screenshot(path=str(shots / "inbox-grants.png"))
            async with page.expect_navigation():
                await row.locator("button[type=submit]").click()
            assert page.url == f"{served.url}/grants"
            await page.wait_for_selector("#no-grants", timeout=WAIT_MS)

            after = await engine.submit(make("test"), timeout=30)
            assert after.outcome is Outcome.NEEDS_REVIEW, "revoked: a human decides again"
    finally:
        await bus.close()
