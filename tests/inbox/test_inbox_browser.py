"""The inbox in a real headless Chromium, against the engine on a real nats-server: two
reviewers sign in, a review appears live, one rejects it with a reason and both see the final
decision; a wrong token is refused; hostile action text never runs. The README's screenshots
are taken here, so they show what the code renders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from browser import chromium, screenshot_dir, sign_in
from inbox_helpers import (
    REASON,
    TOKENS,
    engine_on,
    needs_review,
    pricing_action,
    served_inbox,
)

from humangr.contracts import ActionContext, ToolCall
from humangr.engine.bus.nats import NatsBus
from humangr.engine.llm import ScriptedLLM

pytestmark = [pytest.mark.anyio, pytest.mark.nats]
WAIT_MS = 15_000
VIEWPORT = {"width": 1280, "height": 900}


async def _connected(page: Any) -> None:
    """The page's live updates are connected (so nothing published from now on is missed)."""
    await page.wait_for_selector("body[data-connected=true]", timeout=WAIT_MS)


async def test_two_reviewers_see_a_review_arrive_and_one_rejects_it(
    nats_url: str, tmp_path: Path
) -> None:
    shots = screenshot_dir(tmp_path)
    bus = await NatsBus.connect(nats_url)
    try:
        async with (
            engine_on(bus) as engine,
            served_inbox(engine) as served,
            chromium() as browser,
        ):
            alice = await (await browser.new_context(viewport=VIEWPORT)).new_page()
            await sign_in(alice, served.url, TOKENS["alice"])
            assert alice.url == f"{served.url}/reviews"
            assert await alice.inner_text("#reviewer") == "alice"
            await _connected(alice)
            await alice.evaluate("window.__samePage = true")

            # fixed ids: the README's screenshots change only when the pages do (and the clock)
            other = await needs_review(
                engine, pricing_action("docs-agent"), action_id="act-2b6d0e9f5a17"
            )
            report = await needs_review(
                engine, pricing_action("billing-agent"), action_id="act-7f3a9c2e41d8"
            )
            row = alice.locator(f"tr.review[data-action='{report.action_id}']")
            await row.wait_for(timeout=WAIT_MS)
            assert await alice.evaluate("window.__samePage") is True  # live, not reloaded
            assert "billing-agent" in await row.inner_text()
            assert "HL2 functionality: medium veto" in await row.inner_text()
            newest_first = alice.locator("tr.review")
            assert await newest_first.nth(0).get_attribute("data-action") == report.action_id
            assert await newest_first.nth(1).get_attribute("data-action") == other.action_id
            shots.mkdir(parents=True, exist_ok=True)
            await alice.set_viewport_size({"width": 1280, "height": 420})
            await alice.screenshot(path=str(shots / "inbox-list.png"))
            await alice.set_viewport_size(VIEWPORT)

            async with alice.expect_navigation():
                await row.locator("a").click()
            assert alice.url == f"{served.url}/reviews/{report.action_id}"
            at_line = alice.locator(
                "section.file[data-path='app/pricing.py'] tr.line[data-new='13'] + tr.finding-row"
            )
            finding = await at_line.inner_text()
            assert "Negative totals round the wrong way" in finding
            assert "HL2" in finding
            assert "high" in finding.lower()
            assert "LLM · 2 votes" in finding  # HL2: two agreeing runs (adaptive)
            await alice.screenshot(path=str(shots / "inbox-review.png"), full_page=True)

            bob = await (await browser.new_context()).new_page()
            await sign_in(bob, served.url, TOKENS["bob"])
            await bob.goto(f"{served.url}/reviews/{report.action_id}")
            await _connected(bob)
            assert await bob.locator("form.decide").count() == 1

            await alice.fill("#reason", REASON)
            async with alice.expect_navigation():
                await alice.click("button.reject")
            final = (await alice.inner_text("#final")).lower()
            assert "rejected by alice" in final
            assert REASON in await alice.inner_text("#status")
            assert await alice.locator("form.decide").count() == 0

            await bob.wait_for_selector("#final", timeout=WAIT_MS)
            assert "alice" in await bob.inner_text("#final")
            assert await bob.locator("form.decide").count() == 0
            history = await bob.inner_text("#history")
            assert "needs_review by the gate" in history.lower()
            assert "rejected by alice" in history.lower()
            assert REASON in history

            await alice.goto(f"{served.url}/reviews")
            await alice.wait_for_selector("#count")
            assert await alice.locator(f"tr.review[data-action='{report.action_id}']").count() == 0
            recent = alice.locator(f"table.recent tr[data-action='{report.action_id}']")
            assert "alice" in await recent.inner_text()
    finally:
        await bus.close()


async def test_a_wrong_token_is_refused() -> None:
    async with engine_on() as engine, served_inbox(engine) as served, chromium() as browser:
        page = await browser.new_page()
        await page.goto(f"{served.url}/reviews")
        await page.fill("#token", TOKENS["alice"][:-1] + "X")
        async with page.expect_navigation():
            await page.click("form[action='/signin'] button[type=submit]")
        assert page.url == f"{served.url}/signin"
        assert "not valid" in await page.inner_text("#error")
        await page.goto(f"{served.url}/reviews")
        assert page.url.startswith(f"{served.url}/signin")
        assert served.metrics.inbox_refused.labels(reason="bad_token")._value.get() == 1


HOSTILE = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
HOSTILE_FILE = "app/<img src=x onerror=alert(1)>.py"
HOSTILE_DIFF = f"""\
diff --git a/{HOSTILE_FILE} b/{HOSTILE_FILE}
--- a/{HOSTILE_FILE}
+++ b/{HOSTILE_FILE}
@@ -1,2 +1,3 @@ <b onmouseover=alert(3)>
 x = 1
+y = "</td></tr></table><script>window.__xss = 3</script>"
 z = '<iframe src="javascript:alert(4)"></iframe>'
"""
HOSTILE_TITLE = '<svg onload="window.__xss = 5"></svg> in a title'


def hostile_llm() -> ScriptedLLM:
    finding = {
        "severity": "high",
        "title": HOSTILE_TITLE,
        "description": "<script>alert(6)</script>",
        "file": HOSTILE_FILE,
        "line": 2,
        "suggestion": "<a href=javascript:alert(7)>fix</a>",
    }
    return ScriptedLLM.from_lines(
        [
            {"match": {}, "json": {"findings": [], "summary": "ok"}},
            {"match": {"layer": "HL2"}, "json": {"findings": [finding], "summary": "<b>x</b>"}},
        ]
    )


async def test_html_and_script_in_an_action_never_run() -> None:
    action = ActionContext(
        agent_id="agent-x",
        action_type="code_diff",
        action_description=f"{HOSTILE}\nsecond line {HOSTILE}",
        code_diff=HOSTILE_DIFF,
    )
    async with (
        engine_on(llm=hostile_llm()) as engine,
        served_inbox(engine) as served,
        chromium() as browser,
    ):
        report = await needs_review(engine, action)
        page = await browser.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: dialogs.append(dialog.message))
        await sign_in(page, served.url, TOKENS["alice"])
        row = page.locator(f"tr.review[data-action='{report.action_id}']")
        assert HOSTILE in await row.inner_text()
        assert HOSTILE_TITLE in await row.inner_text()  # the blocking reason names it

        await page.goto(f"{served.url}/reviews/{report.action_id}")
        assert await page.inner_text("#description") == action.action_description
        body = await page.inner_text("main")
        for text in (HOSTILE_FILE, HOSTILE_TITLE, "<script>alert(6)</script>", "<b onmouseover"):
            assert text in body, text
        assert '<script>window.__xss = 3</script>"' in body
        at_line = page.locator("tr.line[data-new='2'] + tr.finding-row")
        assert HOSTILE_TITLE in await at_line.inner_text()
        await anyio.sleep(0.5)  # an onerror or onload would have fired by now
        assert await page.evaluate("window.__xss") is None
        assert await page.locator("main script, main img, main svg, main iframe").count() == 0
        assert dialogs == []


def tool_call_llm() -> ScriptedLLM:
    flagged = {
        "severity": "high",
        "title": "Deletes the shared build cache",
        "argument": "command",
        "description": "rm -rf on a folder other jobs read",
        "suggestion": "delete ./build/tmp only",
    }
    return ScriptedLLM.from_lines(
        [
            {"match": {}, "json": {"findings": [], "summary": "ok"}},
            {"match": {"layer": "HL2"}, "json": {"findings": [flagged], "summary": "cache"}},
        ]
    )


async def test_a_tool_call_review_shows_each_argument_and_stays_inert(tmp_path: Path) -> None:
    script = "\n".join(f"step_{n} = run({n})" for n in range(60))
    action = ActionContext(
        agent_id="build-agent",
        action_type="tool_call",
        action_description="clean the build cache and rebuild",
        tool_call=ToolCall(
            name="bash",
            workspace="/srv/app",
            arguments={
                "command": "rm -rf ./build && make all",
                "timeout": 600,
                "env": {"CI": "1", "NOTE": HOSTILE, "PATHS": ["/srv/app", "/tmp"]},
                "script": script,
            },
        ),
    )
    shots = screenshot_dir(tmp_path)
    async with (
        engine_on(llm=tool_call_llm()) as engine,
        served_inbox(engine) as served,
        chromium() as browser,
    ):
        report = await needs_review(engine, action, action_id="act-5c1e07b3d9a2")
        page = await (await browser.new_context(viewport=VIEWPORT)).new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: dialogs.append(dialog.message))
        await sign_in(page, served.url, TOKENS["alice"])
        await page.goto(f"{served.url}/reviews/{report.action_id}")
        assert await page.inner_text("#tool-name") == "bash"
        assert await page.inner_text("#tool-kind") == "shell"
        command = page.locator("section.argument[data-argument='command']")
        assert "rm -rf ./build && make all" in await command.inner_text()
        assert "Deletes the shared build cache" in await command.inner_text()
        env = await page.inner_text("section.argument[data-argument='env']")
        assert '"NOTE": ' in env
        assert HOSTILE.replace('"', '\\"') in env
        folded = page.locator("section.argument[data-argument='script'] details.value")
        assert not await folded.locator("table").is_visible()
        await folded.locator("summary").click()
        assert await folded.locator("tr[data-line='60']").is_visible()
        assert "step_59 = run(59)" in await folded.inner_text()
        await anyio.sleep(0.3)  # an onerror would have fired by now
        assert await page.evaluate("window.__xss") is None
        assert await page.locator("main script, main img").count() == 0
        assert dialogs == []
        shots.mkdir(parents=True, exist_ok=True)
        await folded.locator("summary").click()
        await page.screenshot(path=str(shots / "inbox-tool-call.png"), full_page=True)
