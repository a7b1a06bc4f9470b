"""Operations that blind or open a system, read wherever their text is written (a shell
command, a file, an HTTP body): monitoring scaled to nothing, security plugins switched off,
new sign-ups made administrators, a login bypassed for everyone, a secret given a name that
ships it to every browser, secrets read inside a container. Pure; each yields ``(offset,
title, why)`` like ``exposure_text``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .browser_vars import BROWSER_ANCHORS, BROWSER_SECRET

__all__ = ["OPS_ANCHORS", "ops_risks"]

OPS_ANCHORS = (
    "scale",
    "exec",
    "plugin",
    "default_role",
    "bypass",
    *BROWSER_ANCHORS,
)
"""Casefolded words every match of these patterns contains (``exposure_text`` runs them only
on a text naming one)."""

_MONITORS = (
    r"alertmanager|prometheus|grafana|loki|falco|datadog[\w-]*|fluent[\w-]*|vector|"
    r"otel[\w-]*|opentelemetry[\w-]*|splunk[\w-]*|wazuh[\w-]*|auditd?|siem[\w-]*|"
    r"guardduty|node-exporter|kube-state-metrics|pagerduty[\w-]*"
)
_KUBE = re.compile(r"(?i)\b(?:kubectl|oc)\b")
_SCALE = re.compile(r"(?i)\bscale\b")
_ZERO = re.compile(r"--replicas[= ]0\b")
_MONITOR_WORKLOAD = re.compile(
    r"(?i)(?:deploy(?:ment)?s?|sts|statefulsets?|daemonsets?|ds)[/\s]+(?:" + _MONITORS + r")\b"
)
_CONTAINER = re.compile(r"(?i)\b(?:kubectl|oc|docker|podman)\b")
_EXEC = re.compile(r"\bexec\b")
_READER = re.compile(r"\b(?:cat|less|more|head|tail|base64|xxd|strings|cp)\s")
_SECRET_FILE = re.compile(
    r"(?i)/secrets?/|keystore|passphrase|\.pem\b|\.key\b|credentials|id_rsa|\.env\b"
)
_SEGMENT = re.compile(r"[^\n;|&]{1,2000}")
_MAX_SEGMENTS = 2_000


def _segments(text: str) -> Iterator[tuple[int, str]]:
    """Each simple command of ``text`` (split at line ends and shell operators), bounded."""
    for i, m in enumerate(_SEGMENT.finditer(text)):
        if i >= _MAX_SEGMENTS:
            return
        yield m.start(), m.group(0)


def _scaled_down(text: str) -> int | None:
    for offset, seg in _segments(text):
        kube = _KUBE.search(seg) and _SCALE.search(seg) and _ZERO.search(seg)
        if kube and _MONITOR_WORKLOAD.search(seg):
            return offset
    return None


def _container_secret(text: str) -> int | None:
    for offset, seg in _segments(text):
        run = _CONTAINER.search(seg) and _EXEC.search(seg) and _READER.search(seg)
        if run and _SECRET_FILE.search(seg):
            return offset
    return None


_PLUGINS_OFF = re.compile(
    r"(?i)\bwp\s+plugin\s+(?:deactivate|delete|uninstall)\b[^\n;|&]{0,300}\b(?:wordfence|two-factor|"
    r"2fa|limit-login[\w-]*|sucuri[\w-]*|[\w-]*security[\w-]*|[\w-]*firewall[\w-]*|"
    r"[\w-]*captcha[\w-]*|turnstile[\w-]*|wp-cerber|solid-security|akismet)\b"
)
_ADMIN_SIGNUP = re.compile(
    r"(?i)\bdefault_role\b[\"'\s:=,]+(?:update\s+)?[\"']?administrator\b"
    r"|\bwp\s+option\s+update\s+default_role\s+administrator\b"
)
_BYPASS_ALL = re.compile(
    r"(?is)[\"']decision[\"']\s*:\s*[\"']bypass[\"'].{0,400}?[\"']everyone[\"']"
    r"|[\"']everyone[\"'].{0,400}?[\"']decision[\"']\s*:\s*[\"']bypass[\"']"
)

_RULES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (_PLUGINS_OFF, "switches security plugins off", "the site's firewall, second factor or "
     "login limits stop protecting it."),
    (_ADMIN_SIGNUP, "makes every new account an administrator", "anyone who signs up gets "
     "full control of the site."),
    (_BYPASS_ALL, "lets everyone past a login", "an access policy that bypasses "
     "authentication for everyone opens what it protected to the internet."),
    (BROWSER_SECRET, "ships a secret to every browser", "variables with this prefix are "
     "built into the client's JavaScript: anyone who loads the page can read the value."),
)  # fmt: skip


def ops_risks(text: str) -> Iterator[tuple[int, str, str]]:
    """Each operation of ``_RULES`` found in ``text`` (first place of each)."""
    text = text[:200_000]
    scaled = _scaled_down(text)
    if scaled is not None:
        yield (
            scaled,
            "scales monitoring to nothing",
            (
                "with no replicas of the monitoring or alerting service, nothing watches "
                "production and no one is paged."
            ),
        )
    read = _container_secret(text)
    if read is not None:
        yield (
            read,
            "reads secrets inside a container",
            ("the keys or passwords the container holds are printed into the agent's transcript."),
        )
    for pattern, title, why in _RULES:
        m = pattern.search(text)
        if m is not None:
            yield m.start(), title, why
