"""Protections switched off where settings are written as code or packed on one line:

- ``config.force_ssl = false`` in ``config/environments/production.rb``,
  ``config.lock_strategy = :none`` in a Devise initializer, ``SECURE_SSL_REDIRECT = False`` in
  Django's settings, ``rejectUnauthorized: false`` in a ``*.config.js`` — a configuration file
  of code (under ``config/``, ``settings``, ``initializers/``, ``environments/``, or named
  ``*.config.*``, ``appsettings``), read with the vocabulary of ``config_switches``;
- a token's checks switched off wherever the code sits (``ValidateIssuer = false``,
  ``verify_signature: False``, ``RequireSignedTokens = false``), tests aside;
- a protection's default switched off where it is read from the environment
  (``FRAUD_CHECKS_ENABLED = env.bool("FRAUD_CHECKS_ENABLED", default=False)``);
- a list of parameters hidden from the logs emptied (``filter_parameters = []``);
- ``{"ElectronicSignature": {"Required": false}}`` on one line of a settings file: each key
  is read with the keys that enclose it (``config_lines.inline_settings``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from .base import Hit, is_test_path
from .config_lines import setting_hit, snake
from .config_switches import LIVE_PATH, setting_weakened
from .diff import FileDiff

__all__ = ["CODE_CONFIG", "code_settings_switched"]

_MAX_LINES = 5_000
CODE_CONFIG = re.compile(
    r"(?i)(?:^|/)(?:config|conf|settings|initializers|environments)/[^/]+\.(?:rb|py|js|ts|mjs|cjs|"
    r"php|exs|cs)$|(?:^|/)(?:settings|[\w-]+_settings|config)\.py$|"
    r"(?:^|/)[\w.-]+\.config\.(?:js|ts|mjs|cjs)$|(?:^|/)(?:Startup|Program)\.cs$"
)
"""A file of code whose work is configuration."""
_CODE_SETTING = re.compile(
    r"^\s*(?:[\w$]{1,60}\.){0,6}([A-Za-z_]\w{1,80})[\"']?\s*(?:=|:|=>)\s*"
    r"(:?[A-Za-z_]\w{0,20}|[\"'][A-Za-z_]\w{0,20}[\"']|\d)\s*[,;)]?\s*(?:(?:#|//).*)?$"
)
_TOKEN_CHECK = re.compile(
    r"^(?:validate_(?:issuer|audience|lifetime|issuer_signing_key|token_replay|signature)|"
    r"require_(?:signed_tokens|expiration_time|audience|exp)|"
    r"verify_(?:signature|exp|aud|iss|nbf|iat|audience|issuer|expiration)|check_(?:exp|aud|iss))$"
)
"""A check of a bearer token (JWT) that lets a forged, expired or foreign token in when off."""
_REDACTION = re.compile(
    r"^\s*(?:[\w$]{1,60}\.){0,6}(?:filter_parameters|filter_params|sensitive_(?:fields|keys|params)|"
    r"redact(?:ed)?_(?:fields|keys|params)|scrub_fields|mask_fields)\s*(?:\+?=|:)\s*\[\s*\]",
    re.IGNORECASE,
)
_ENV_DEFAULT = re.compile(
    r"^\s*(?:[\w$]{1,60}\.){0,6}([A-Za-z_]\w{1,80})\s*(?:=|:)\s*(?:[\w$]{1,30}\.){0,3}\w{1,30}"
    r"\(\s*[\"'][A-Za-z_]\w{1,80}[\"']\s*,\s*(?:default\s*=\s*)?[\"']?(\w{1,10})[\"']?\s*\)"
)
"""A setting read from the environment with its default (``X = env.bool("X", default=False)``,
``os.getenv("X", "off")``): the default is what runs wherever the variable is unset."""
_OFF = frozenset({"false", "none", "nil", "null", "off", "disabled", "0", "no"})


def _value(raw: str) -> str:
    v = raw.strip("\"'").lstrip(":").lower()
    return "none" if v in ("nil", "null") else v


def code_settings_switched(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first added line of code in ``file`` that switches a protection off (see the
    module); nothing in tests or development configuration."""
    if is_test_path(path) or posixpath.splitext(path)[1].lower() in (".md", ".rst", ".txt"):
        return
    config = CODE_CONFIG.search(path) is not None
    live = bool(LIVE_PATH.search(path))
    for line in file.added[:_MAX_LINES]:
        text = line.text[:400]
        if config and _REDACTION.match(text):
            yield setting_hit(
                path,
                line.number,
                text,
                "shows secrets in the logs",
                "empties the list of parameters kept out of the logs: passwords and tokens "
                "are written as they are.",
            )
            return
        m = _CODE_SETTING.match(text) or (_ENV_DEFAULT.match(text) if "(" in text else None)
        if m is None:
            continue
        key, value = snake(m.group(1)), _value(m.group(2))
        if _TOKEN_CHECK.match(key) and value in _OFF:
            yield setting_hit(
                path,
                line.number,
                text,
                "switches a token check off",
                "accepts tokens without this check: forged, expired or another "
                "application's tokens get in.",
            )
            return
        what = setting_weakened(key, value, live) if config else None
        if what is not None:
            yield setting_hit(path, line.number, text, what, f"{what}.")
            return
