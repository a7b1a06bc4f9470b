"""One reading of variables that ship to every browser, shared by ``exposure`` (any text) and
the business tools' readers (a platform's environment variables)."""

from __future__ import annotations

import pytest

from humangr.engine.checks.browser_vars import BROWSER_SECRET, browser_secret, browser_variable


@pytest.mark.parametrize(
    "name",
    [
        "NEXT_PUBLIC_STRIPE_SECRET_KEY",
        "VITE_DB_PASSWORD",
        "react_app_admin_token",
        "NUXT_PUBLIC_SUPABASE_SERVICE_ROLE_KEY",
        "VUE_APP_CLIENT_SECRET",
        "EXPO_PUBLIC_JWT_SIGNING_KEY",
    ],
)
def test_a_secret_under_a_public_prefix(name: str) -> None:
    assert browser_variable(name)
    assert browser_secret(name)


@pytest.mark.parametrize(
    "name",
    [
        "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY",
        "VITE_SUPABASE_ANON_KEY",
        "NEXT_PUBLIC_RECAPTCHA_SITE_KEY",
        "NEXT_PUBLIC_API_URL",
    ],
)
def test_values_meant_for_browsers_are_no_secret(name: str) -> None:
    assert browser_variable(name)
    assert not browser_secret(name)


def test_a_server_only_secret_is_no_browser_variable() -> None:
    assert not browser_variable("STRIPE_SECRET_KEY")
    assert not browser_secret("STRIPE_SECRET_KEY")


def test_the_same_reading_in_a_text() -> None:
    text = "vercel env add NEXT_PUBLIC_STRIPE_SECRET_KEY production"
    found = BROWSER_SECRET.search(text)
    assert found is not None
    assert found.group(0) == "NEXT_PUBLIC_STRIPE_SECRET_KEY"
    assert BROWSER_SECRET.search("vercel env add NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY") is None
