"""A real headless Chromium for the inbox's browser tests: Debian's ``chromium`` driven by
Playwright. ``make test`` installs the browser (``.ci/install-browser``); where none could be
installed the tests are skipped with the reason, never silently."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ARGS", "README_SHOTS", "chromium", "chromium_path", "screenshot_dir", "sign_in"]

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
README_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "images"
"""Where the README's screenshots live: rewritten by ``make screenshots``
(``HUMANGR_SCREENSHOTS=1``); a plain test run takes them into a temporary folder, so it leaves
the tree as it was (the review page shows the time)."""


def screenshot_dir(tmp_path: Path) -> Path:
    """``README_SHOTS`` when asked to update them, else ``tmp_path``."""
    return README_SHOTS if os.environ.get("HUMANGR_SCREENSHOTS") == "1" else tmp_path


def chromium_path() -> str | None:
    """``$HUMANGR_CHROMIUM``, else Debian's ``/usr/bin/chromium``, else one on the PATH."""
    for candidate in (os.environ.get("HUMANGR_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


@asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """A headless Chromium (skips the test, saying why, if there is none)."""
    path = chromium_path()
    if path is None:
        pytest.skip(
            "BROWSER TESTS SKIPPED: no Chromium (/usr/bin/chromium); `make test` installs "
            "Debian's chromium with apt-get (.ci/install-browser) and could not here"
        )
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.skip("BROWSER TESTS SKIPPED: playwright is not installed (pip install -e '.[dev]')")
    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=path, args=ARGS)
        try:
            yield browser
        finally:
            await browser.close()


async def sign_in(page: Any, url: str, token: str) -> None:
    """Sign ``page`` in at ``url`` with ``token`` through the sign-in form."""
    await page.goto(f"{url}/reviews")
    assert page.url.startswith(f"{url}/signin"), page.url
    await page.fill("#token", token)
    async with page.expect_navigation():
        await page.click("form[action='/signin'] button[type=submit]")
