"""Alarms and audit trails muted from the command line:

- a silence that matches every alert (``amtool silence add 'alertname=~".+"'``) or lasts
  more than a week: paging stops for everything, or for long after the work it covered;
- alert rules removed by a patch (``kubectl patch prometheusrule … '[{"op":"remove",
  "path":"/spec/groups/0/rules"}]'``): the alerts vanish without a file changing;
- a log sink for audit logs narrowed by a ``NOT`` or an exclusion (``gcloud logging sinks
  update … --log-filter='… cloudaudit … AND NOT …'``): chosen events stop being kept.

Everyday neighbours run: a silence of one named alert for a few hours, ``kubectl patch`` of a
deployment, a sink that keeps audit logs whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, rule

__all__ = ["alert_rules_removed", "audit_sink_narrowed", "silence_everything"]

_MAX = 8_000
_MATCH_ALL = re.compile(r"=~\s*[\"']?(?:\.\*|\.\+)[\"']?(?:\s|$)|!=\s*[\"']{2}(?:\s|$)")
_DURATION = re.compile(r"^--duration(?:=|$)")
_SPAN = re.compile(r"(\d{1,7})([hdwy])")
_HOURS = {"h": 1, "d": 24, "w": 168, "y": 8760}
_WEEK = 168
_ALERT_KINDS = re.compile(r"(?i)^(?:prometheusrules?|alertmanagerconfigs?|alertmanagers?|"
                          r"vmrules?|promrules?)(?:\.[\w.]+)?(?:/|$)")  # fmt: skip
_REMOVE = re.compile(r"\"op\"\s*:\s*\"remove\"|\"rules\"\s*:\s*\[\s*\]|\"groups\"\s*:\s*\[\s*\]")


def _hours(value: str) -> int:
    return sum(int(n) * _HOURS[u] for n, u in _SPAN.findall(value[:40]))


@rule
def silence_everything(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """An Alertmanager silence that matches every alert, or lasts more than a week."""
    if cmd.name != "amtool" or "silence" not in cmd.argv[1:4]:
        return
    words = cmd.argv[1:64]
    if "add" not in words:
        return
    text = " ".join(words)[:_MAX]
    if _MATCH_ALL.search(text + " "):
        why = "its matcher matches every alert: no one is paged for anything while it lasts."
    else:
        spans = [
            words[i + 1] if w == "--duration" and i + 1 < len(words) else w.split("=", 1)[-1]
            for i, w in enumerate(words)
            if _DURATION.match(w) or w.startswith("-d=")
        ]
        if not any(_hours(s) > _WEEK for s in spans):
            return
        why = "it lasts more than a week: the alert stays muted long after the work it covered."
    yield high(
        "silences alerts wholesale",
        cmd.text,
        why,
        "Silence the one alert concerned, for the hours of the work.",
    )


@rule
def alert_rules_removed(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Alert rules removed or emptied by a ``kubectl patch``."""
    if cmd.name not in ("kubectl", "oc") or "patch" not in cmd.argv[1:8]:
        return
    if not any(_ALERT_KINDS.match(w) for w in cmd.argv[1:12]):
        return
    if _REMOVE.search(" ".join(cmd.argv[1:64])[:_MAX]):
        yield high(
            "removes alert rules",
            cmd.text,
            "the patch removes or empties the rules that page people; the alerts vanish "
            "with no file in review.",
            "Change alert rules in their file, through review.",
        )


@rule
def audit_sink_narrowed(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """An audit log sink narrowed by a ``NOT`` or an exclusion."""
    if cmd.name != "gcloud" or "logging" not in cmd.argv[1:4] or "sinks" not in cmd.argv[1:5]:
        return
    if not any(w in ("update", "create") for w in cmd.argv[2:6]):
        return
    text = " ".join(cmd.argv[1:64])[:_MAX]
    if "audit" not in text.lower():
        return
    if re.search(r"\bNOT\b|--(?:add-)?exclusion", text):
        yield high(
            "narrows what the audit log keeps",
            cmd.text,
            "the sink's filter now leaves chosen audit events out: those actions stop being "
            "recorded while the sink looks intact.",
            "Keep audit sinks whole; have their owner approve a change to what they keep.",
        )
