"""An OAuth token request to an identity provider: a client's secret sent where it belongs.

An application gets its access token by posting its ``client_id`` and ``client_secret`` (or a
refresh token, or an authorization code) with a ``grant_type`` to its identity provider's
token endpoint. The secret in that body goes to the one service that issued it, as a password
goes to its own sign-in page. Only well-known identity providers' hosts count (a token
endpoint on any other host may be an address made to collect secrets), over HTTPS, on a path
that ends in ``token``.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

__all__ = ["posted_token_request", "token_request"]

_GRANT = re.compile(
    r"(?i)grant_type[\"']?\s*[=:]\s*[\"']?(?:client_credentials|refresh_token|authorization_code"
    r"|urn(?::|%3A)ietf(?::|%3A)params(?::|%3A)oauth(?::|%3A)grant-type(?::|%3A)jwt-bearer)"
)
_TOKEN_PATH = re.compile(
    r"(?i)/(?:oauth2?/)?(?:v\d+(?:\.\d+)?/)?token/?$|/oauth2?/(?:\w+/){0,2}token/?$"
)
_PROVIDERS = (
    "login.microsoftonline.com",
    "login.microsoftonline.us",
    "login.windows.net",
    "oauth2.googleapis.com",
    "accounts.google.com",
    "okta.com",
    "oktapreview.com",
    "okta-emea.com",
    "auth0.com",
    "onelogin.com",
    "amazoncognito.com",
    "login.salesforce.com",
    "test.salesforce.com",
    "my.salesforce.com",
    "github.com",
    "gitlab.com",
    "api.hubapi.com",
    "identity.xero.com",
    "zoom.us",
    "api.dropboxapi.com",
    "api.box.com",
    "pingidentity.com",
    "pingone.com",
)
_MAX_BODY = 16_384


def _provider(host: str) -> bool:
    host = host.lower().rstrip(".")
    return any(host == p or host.endswith("." + p) for p in _PROVIDERS)


def _endpoint(url: str) -> bool:
    """``url`` is a well-known identity provider's token endpoint over HTTPS."""
    try:
        parts = urlsplit(url.strip()[:2048])
    except ValueError:
        return False
    if parts.scheme != "https" or not _provider(parts.hostname or ""):
        return False
    return _TOKEN_PATH.search(parts.path) is not None


def token_request(url: str, body: str) -> bool:
    """Whether ``body`` posted to ``url`` is an OAuth token request to a well-known identity
    provider's token endpoint over HTTPS (see the module)."""
    return _endpoint(url) and _GRANT.search(body[:_MAX_BODY]) is not None


def posted_token_request(url: str, payload: tuple[tuple[str, Any], ...]) -> bool:
    """Whether one of a request's bodies (``(argument, value)``: text, or an object read as
    JSON) posted to ``url`` is an OAuth token request to a well-known identity provider
    (:func:`token_request`): a client secret referenced in it goes to its issuer."""
    if not _endpoint(url):
        return False
    for _arg, value in payload[:8]:
        if isinstance(value, str):
            text = value
        else:
            try:
                text = json.dumps(value, default=str)[:_MAX_BODY]
            except (TypeError, ValueError, RecursionError):
                continue
        if _GRANT.search(text[:_MAX_BODY]) is not None:
            return True
    return False
