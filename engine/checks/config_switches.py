"""Settings files that switch a protection off or a backdoor on, read as text on their added
lines (YAML, JSON, INI, TOML, properties; for ``source_code``):

- a protection set off — ``require_session_token: false``, ``verify_ssl = false``,
  ``"csrfProtection": false``, ``EnableAntiCheat=0`` — in a file for production or a release
  (its path says ``prod``, ``production``, ``live`` or ``release``);
- a backdoor set on — ``allow_guest_admin: true``, ``skip_auth = true``, ``AllowCheatCommands=1``,
  ``EnableDevConsole=1`` in a release — the first anywhere but tests, the console and cheats
  in production or release files.

Keys are compared in snake case (``EnableDevConsole`` is ``enable_dev_console``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, is_test_path
from .config_exposure import exposure_switched
from .config_lines import inline_settings, setting_hit
from .diff import FileDiff
from .tools.business_words import OFF_VALUES

__all__ = [
    "LIVE_PATH",
    "PROTECTION_NOUNS",
    "SETTINGS_EXTENSIONS",
    "setting_weakened",
    "settings_switched",
    "snake_key",
]

SETTINGS_EXTENSIONS = frozenset(
    {".yaml", ".yml", ".json", ".ini", ".toml", ".properties", ".cfg", ".conf", ".env",
     ".tf", ".tfvars", ".hcl", ".production", ".prod"}
)  # fmt: skip
_MAX_LINES = 5_000
_SETTING = re.compile(
    r"^\s*[-\"']?\s*([A-Za-z][\w.-]{1,80})[\"']?\s*[:=]\s*[\"']?(true|false|yes|no|on|off|0|1|"
    r"enabled|disabled|none)[\"']?\s*,?\s*(?:[#;].*)?$",
    re.IGNORECASE,
)
LIVE_PATH = re.compile(r"(?i)(?:^|[/_.-])(?:prod|production|prd|live|release|shipping)(?:$|[/_.-])")
PROTECTION_NOUNS = re.compile(
    r"(?:^|_)(?:auth|authentication|authorization|session_token|token|signature|ssl|tls|https|"
    r"api_key|apikey|login|password|"
    r"mfa|2fa|two_factor|csrf|xsrf|cert|certificate|anti_?cheat|cheat_detection|captcha|"
    r"rate_limit|audit|encryption|firewall|sandbox|verification|validation|hsts|cors_strict|"
    r"fraud|fraud_checks?|risk_checks?|antivirus|malware_scan|waf|spam_filter|moderation|"
    r"kyc|aml|sanctions?|sanctions_screening|screening|travel_rule|signature_check|"
    r"turnstile|recaptcha|hcaptcha|bot_protection|cloudtrail|enable_logging|access_logs?|"
    r"audit_logging|flow_logs?|deletion_protection|issuer|audience|lifetime|expiration|signed|"
    r"signing|forgery|lock|lockout|lockable|throttl\w*|backups?)"
    r"(?:_|$)"
)
"""Nouns of a setting's key that name a protection (``fraud``, ``audit``, ``mfa``)."""
_TRANSPORT = re.compile(r"(?:^|_)(?:ssl|tls|https|cert|certificate|hsts)(?:_|$)")
"""Protections a development setup often turns off on purpose (only flagged where it is live)."""
_DEV_PATH = re.compile(
    r"(?i)(?:^|[/_.-])(?:dev|develop|development|local|test|tests|example|sample|demo)(?:$|[/_.-])"
)
_PROTECTION_VERBS = re.compile(
    r"^(?:require|enforce|verify|validate|check|enable|use|force|secure)_|"
    r"_(?:require|enforce|verify|validate)_|"
    r"_(?:enabled|required|check|checks|enforcement|protection|strategy)$"
)
_DEMANDS = re.compile(r"^(?:require|enforce|verify)_[a-z]")
"""A switch that demands a check by its own name (``REQUIRE_STEAM_TICKET``): off in a live
file, the check is gone whatever it is called."""
_ENV_NAME = re.compile(r"^\s*-\s*name\s*:\s*[\"']?([A-Za-z][\w.-]{1,80})[\"']?\s*$")
"""The ``- name: KEY`` line of a container's ``env`` entry, whose ``value:`` follows."""
_BACKDOOR = re.compile(
    r"(?:^|_)(?:guest_admin|anonymous_admin|skip_auth|bypass_auth|disable_auth|no_auth|"
    r"insecure_skip_verify|allow_anonymous_admin|auth_disabled|god_mode)(?:_|$)"
)
_POLICY_FILE = re.compile(r"(?i)polic|securit|complian|guardrail|controls")
"""A settings file named for the rules it enforces (``site_policies.ini``): read as live."""
_LIVE_SECTIONS = frozenset({"prod", "production", "live", "prd"})
"""A section that configures production (``prod:`` of a dbt profile, ``[production]``)."""
_INSECURE_ON = re.compile(
    r"(?:^|_)insecure(?:_mode|_connection|_tls|_ssl)?$|(?:^|_)skip_(?:tls|ssl|cert)\w{0,20}verif"
    r"|(?:^|_)(?:tls|ssl)_skip_verify$|^disable_(?:ssl|tls|cert)\w{0,20}(?:verif|check)"
)
"""A switch that turns an insecure mode on (``insecure_mode: true``, ``tls_skip_verify``)."""
_DEBUG_ONLY = re.compile(
    r"(?:^|_)(?:dev_console|debug_console|cheats?|cheat_commands|debug_menu|console_commands|"
    r"debug_mode|remote_debug\w*)(?:_|$)"
)
_OPEN_TO_ALL = re.compile(
    r"(?im)^\s*[\"']?[\w.-]*(?:allow|white|trusted|master|permitted)[\w.-]*[\"']?\s*[:=]\s*"
    r"(?:\[\s*)?[\"']?(?:0\.0\.0\.0/0|::/0|\*)[\"']?|"
    r"^\s*[\"']?[\w.-]*(?:allow|white|trusted|master|permitted)[\w.-]*[\"']?\s*:\s*\n"
    r"\s*-\s*[\"']?(?:0\.0\.0\.0/0|::/0)[\"']?\s*$"
)
"""An allow list that lets every address in (``master_whitelist: [0.0.0.0/0]``)."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[./-]")


def snake_key(key: str) -> str:
    """A setting's key in snake case, as the readings compare keys: ``EnableDevConsole`` is
    ``enable_dev_console``, ``auth.enabled`` is ``auth_enabled``."""
    return _CAMEL.sub("_", key).lower()


def setting_weakened(key: str, value: str, live: bool) -> str | None:
    """What setting ``key`` (any case) to ``value`` does, when it weakens something (a
    protection off where ``live``, a backdoor on); else ``None``."""
    return _judged(snake_key(key), value, live)


def _judged(key: str, value: str, live: bool) -> str | None:
    """What setting ``key`` to ``value`` does, when it weakens something; else ``None``."""
    off = value.lower() in OFF_VALUES
    if not off and _BACKDOOR.search(key):
        return "opens a backdoor"
    if live and value.lower() in ("true", "yes", "on", "1") and _INSECURE_ON.search(key):
        return "switches a protection off"
    if not off and live and _DEBUG_ONLY.search(key):
        return "turns debugging or cheats on in a release"
    protective = PROTECTION_NOUNS.search(key) and _PROTECTION_VERBS.search(key)
    if off and live and not protective and _DEMANDS.search(key):
        return "switches a protection off"
    if not off or not protective or key.startswith(("disable", "skip", "allow_insecure")):
        return None
    if live or not _TRANSPORT.search(key):
        return "switches a protection off"
    return None


_GENERIC_SWITCHES = frozenset({"enabled", "enable", "active", "on", "required", "enforced"})
_SECTION = re.compile(
    r"^(\s*)[\"']?([A-Za-z][\w.-]{0,80})[\"']?\s*(?::|\{)\s*(?:#.*)?$|"
    r"^\s*\[([\w.-]{1,80})\]\s*$"
)


def _parents(file: FileDiff) -> dict[int, tuple[str, str]]:
    """The section each added line sits in (the nearest less-indented ``name:`` above it, or
    the ``[name]`` header) and the one above that, by the line's number; read over the hunks'
    kept and added lines. An ``env`` entry's ``value:`` sits in its ``- name: KEY``."""
    out: dict[int, tuple[str, str]] = {}
    for hunk in file.hunks:
        stack: list[tuple[int, str]] = []
        for line in hunk.lines[:_MAX_LINES]:
            if line.kind == "-":
                continue
            text = line.text[:400]
            indent = len(text) - len(text.lstrip())
            while stack and stack[-1][0] >= indent and text.strip():
                stack.pop()
            if line.kind == "+" and line.new is not None and stack:
                out[line.new] = (stack[-1][1], stack[-2][1] if len(stack) > 1 else "")
            named = _ENV_NAME.match(text)
            if named is not None:
                stack.append((indent + 1, named.group(1)))  # its ``value:`` is indented more
            m = _SECTION.match(text)
            if m is not None:
                if m.group(3):
                    stack = [(-1, m.group(3))]
                else:
                    stack.append((indent, m.group(2)))
    return out


def settings_switched(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first added setting of ``file`` that switches a protection off or a backdoor on."""
    if is_test_path(path):
        return
    live = bool(LIVE_PATH.search(path) or _POLICY_FILE.search(posixpath.basename(path)))
    if not live and _DEV_PATH.search(path):
        return  # a development or example configuration
    text = "\n".join(line.text[:400] for line in file.added[:_MAX_LINES])
    opened = _OPEN_TO_ALL.search(text)
    if opened is not None:
        number = file.added[text.count("\n", 0, opened.start())].number
        yield Hit(
            severity=Severity.HIGH,
            title="a setting lets every address in",
            description=f"{path}: an allow list names 0.0.0.0/0 or *: anyone on the network "
            "reaches what it guards.",
            suggestion="List the addresses that need access.",
            file=path,
            line=number,
        )
        return
    parents = _parents(file)
    for line in file.added[:_MAX_LINES]:
        m = _SETTING.match(line.text[:400])
        if m is None:
            what = _inline(line.text, live) if "{" in line.text else None
            if what is not None:
                yield setting_hit(path, line.number, line.text, what, f"{what}.")
                return
            continue
        key = snake_key(m.group(1))
        parent, above = parents.get(line.number, ("", ""))
        if key == "value" and parent:
            key = snake_key(parent)  # ``- name: REQUIRE_X`` / ``value: "false"``
        elif key in _GENERIC_SWITCHES and parent:
            key = f"{snake_key(parent)}_{key}"  # ``travel_rule:`` / ``enabled: false``
            if above and not (PROTECTION_NOUNS.search(key) and _PROTECTION_VERBS.search(key)):
                key = f"{snake_key(above)}_{key}"  # ``fraud:`` / ``scoring:`` / ``enabled: false``
        section = parent.lower()
        what = _judged(key, m.group(2), live or section in _LIVE_SECTIONS) or exposure_switched(
            key, m.group(2), snake_key(parent)
        )
        if what is not None:
            yield setting_hit(path, line.number, line.text, what, f"{what}.")
            return


def _inline(text: str, live: bool) -> str | None:
    """What the first weakening ``"key": value`` of a line of JSON does (``inline_settings``)."""
    for parent, key, value in inline_settings(text):
        for name in (key, f"{parent}_{key}" if parent else key):
            what = _judged(name, value, live)
            if what is not None:
                return what
    return None
