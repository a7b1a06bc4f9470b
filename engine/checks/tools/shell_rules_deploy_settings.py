"""A protection switched off by a setting given on a deploy command's line rather than in a
reviewed file: ``helm upgrade … --set validation.enabled=false``, ``kubectl set env
deployment/x AUTH_CHECK=off``, ``ansible-playbook site.yml -e auditd_enabled=false``,
``docker run -e REQUIRE_MFA=0``, ``gcloud run deploy --set-env-vars VERIFY_TLS=false``,
``heroku config:set``, ``az … --settings``. Each setting is judged as the same line of a
settings file would be (``config_switches``), plus a few nouns of access and audit control
(entitlement and licence checks, ``auditd``) those readings do not name.

High: a person confirms. Outside development, test, staging or preview (read from the
command's words) only. Everyday neighbours run: ``--set replicaCount=3``, ``--set
cache.enabled=false``, ``kubectl set env … LOG_LEVEL=debug``, ``-e app_version=1.4``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..config_switches import setting_weakened, snake_key
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, rule

__all__ = ["deploy_setting_off"]

_MAX_WORDS = 96
_PAIR = re.compile(r"^([A-Za-z_][\w.\-/]{0,120})=(.{0,200})$")
_NOT_LIVE = re.compile(
    r"(?i)(?:^|[^a-z0-9])(?:dev|development|test|testing|staging|stage|sandbox|local|preview|"
    r"ephemeral|scratch|ci|e2e|pr-\d+)(?:[^a-z0-9]|$)"
)
_EXTRA_CONTROL = re.compile(
    r"(?:^|_)(?:entitlements?|licen[cs]e|paywall|auditd|audit_?log\w*|access_?control|"
    r"acl|rbac|permission|permissions|authz|integrity)(?:_|$)"
)
_SWITCH = re.compile(r"(?:^|_)(?:check|checks|enabled?|enforced?|enforcement|required?|state)$")
_OFF = frozenset({"false", "off", "0", "no", "disabled", "disable", "none", "absent"})
_VALUED = frozenset({"--set", "--set-string", "-e", "--extra-vars", "--env", "--set-env-vars",
                     "--update-env-vars", "-var", "--var"})  # fmt: skip


def _pairs(cmd: Cmd) -> Iterator[tuple[str, str]]:
    """The ``key=value`` settings the command's line gives (see the module's docstring)."""
    argv = cmd.argv[:_MAX_WORDS]
    name = cmd.name.lower()
    env_words = (
        (name in ("kubectl", "oc") and "set" in argv[1:4] and "env" in argv[1:5])
        or (name == "heroku" and any(w.startswith("config:set") for w in argv[1:3]))
        or (name == "systemctl" and "set-environment" in argv[1:3])
    )
    in_settings = False
    for i, word in enumerate(argv[1:], start=1):
        head, eq, rest = word.partition("=")
        if word.startswith("-"):
            in_settings = word == "--settings"
            if head in _VALUED and eq:
                yield from _split(rest, head)
            elif word in _VALUED and i + 1 < len(argv):
                yield from _split(argv[i + 1], word)
            continue
        if env_words or in_settings:
            m = _PAIR.match(word)
            if m is not None:
                yield m.group(1), m.group(2)


def _split(value: str, option: str) -> Iterator[tuple[str, str]]:
    separators = r"[\s]+" if option in ("-e", "--extra-vars") else r"[,\s]+"
    for part in re.split(separators, value[:2_000])[:32]:
        m = _PAIR.match(part.strip("'\""))
        if m is not None:
            yield m.group(1), m.group(2).strip("'\"")


def _target_words(cmd: Cmd) -> str:
    """The command's words but the settings it gives (``--set tag=test`` names no target)."""
    argv = cmd.argv[1:_MAX_WORDS]
    kept: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        head, eq, _ = word.partition("=")
        if word in _VALUED:
            skip = True
            continue
        if head in _VALUED or (eq and not word.startswith("-")):
            continue
        kept.append(word)
    return " ".join(kept)[:4_000]


def _weakens(key: str, value: str) -> str | None:
    found = setting_weakened(key, value, True)
    if found is not None:
        return found
    snake = snake_key(key)
    if value.lower() in _OFF and _EXTRA_CONTROL.search(snake) and _SWITCH.search(snake):
        return "switches a protection off"
    return None


@rule
def deploy_setting_off(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A setting given on a deploy command's line that switches a protection off."""
    if "=" not in cmd.text:
        return
    if _NOT_LIVE.search(_target_words(cmd)):
        return  # the release, namespace or environment named is not a live one
    for key, value in _pairs(cmd):
        what = _weakens(key, value)
        if what is not None:
            yield high(
                f"{what} by a setting on the command line",
                cmd.text,
                f"`{key}={value}` turns off a check the running service makes, with no file in "
                "review.",
                "Change the setting in the service's configuration, through review.",
            )
            return
