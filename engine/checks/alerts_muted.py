"""Settings edits that quietly stop the record or the alarm (for ``source_code``):

- an audit log muted: a logger named for audit set to level ``OFF``, or a log pipeline's
  filter that excludes or drops audit events (``Exclude log_type admin_audit``) — the trail
  of who did what stops while everything else looks normal;
- alerts routed to nowhere: an Alertmanager configuration whose top route sends every alert
  to a receiver with no way to notify anyone, while a real receiver stays defined.

Everyday neighbours run: an audit logger at ``INFO`` or ``WARN``, a filter dropping health
checks, a ``null`` receiver used by one sub-route. Bounded: lines cut to 400 characters, at
most ``_MAX_LINES`` read. Pure.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, is_test_path, snippet
from .diff import FileDiff

__all__ = ["alerts_muted", "audit_muted"]

_MAX_LINES = 5_000
_LEVEL_OFF = re.compile(
    r"(?i)\blevel\s*[=:]\s*[\"']?(?:off|none)\b|\blevel\.[\w.-]*audit[\w.-]*\s*[=:]\s*off\b"
)
_LOG_CONFIG = re.compile(
    r"log|fluent|vector|beat|otel|collector|syslog|splunk|datadog|promtail|loki|audit"
)
"""A path that names a logging configuration or pipeline: ``exclude`` lines elsewhere
(a linter's or a coverage tool's list of folders) do not filter events."""
_DROPS = re.compile(r"(?i)^\s*[-\"']?\s*(?:exclude|regex_exclude|drop|drop_event|drop_events|"
                    r"exclusion|exclusions|not_match|discard)\b")  # fmt: skip


def audit_muted(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first added line of ``file`` that switches an audit log off or filters it out."""
    if file.deleted or is_test_path(path) or not _LOG_CONFIG.search(path.lower()):
        return
    for line in file.added[:_MAX_LINES]:
        text = line.text[:400]
        if "audit" not in text.lower():
            continue
        if _LEVEL_OFF.search(text):
            what = "sets an audit log's level to off"
        elif _DROPS.search(text):
            what = "filters audit events out of the log pipeline"
        else:
            continue
        yield Hit(
            Severity.HIGH,
            "an audit log muted",
            f"{path}: `{snippet(text.strip(), 100)}` {what}: the record of who did what stops "
            "while everything else looks normal.",
            "Keep the audit trail whole; have its owner approve any change to what it keeps.",
            file=path,
            line=line.number,
        )
        return


_TOP = re.compile(r"^([A-Za-z_]\w*)\s*:")
_RECEIVER = re.compile(r"^\s+receiver\s*:\s*[\"']?([^\"'\s#]{1,120})")
_ITEM = re.compile(r"^(\s*)-\s+name\s*:\s*[\"']?([^\"'\s#]{1,120})")
_CONFIGS = re.compile(r"^\s+-?\s*\w+_configs\s*:")


def _routing(lines: list[str]) -> tuple[str | None, dict[str, bool]]:
    """The top route's receiver and, by name, whether each receiver notifies anyone (has a
    ``…_configs`` entry), read line by line from the YAML's top-level blocks."""
    block, top = "", None
    receivers: dict[str, bool] = {}
    current: str | None = None
    for text in lines[:_MAX_LINES]:
        head = _TOP.match(text)
        if head is not None:
            block, current = head.group(1), None
            continue
        if block == "route" and top is None:
            m = _RECEIVER.match(text)
            if m is not None and len(text) - len(text.lstrip()) <= 2:
                top = m.group(1)
        elif block == "receivers":
            item = _ITEM.match(text)
            if item is not None and len(item.group(1)) <= 2:
                current = item.group(2)
                receivers[current] = False
            elif current is not None and _CONFIGS.match(text):
                receivers[current] = True
    return top, receivers


def alerts_muted(file: FileDiff, path: str) -> Iterator[Hit]:
    """An Alertmanager configuration whose top route goes to a receiver that notifies no one
    while another receiver would."""
    name = posixpath.basename(path).lower()
    if file.deleted or "alertmanager" not in name or not name.endswith((".yml", ".yaml")):
        return
    top, receivers = _routing([line.text[:400] for line in file.added])
    if top is None or receivers.get(top) is not False or not any(receivers.values()):
        return
    yield Hit(
        Severity.HIGH,
        "alerts routed to nowhere",
        f"{path}: the top route sends every alert to `{snippet(str(top), 60)}`, a receiver "
        "that notifies no one, while a real receiver stays defined: no one is paged.",
        "Route alerts to the receiver that pages; mute one alert with a scoped silence.",
        file=path,
        line=file.added[0].number if file.added else None,
    )
