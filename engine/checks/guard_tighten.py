"""An alert expression's threshold moved so the alert fires sooner (for ``guard_edits``).

A monitoring rule's query (``expr:`` in Prometheus rules, ``query``/``condition`` in Datadog,
Grafana and most alerting APIs) fires when its comparison holds: ``failures > 5`` made
``failures > 0``, or ``availability < 0.99`` made ``< 0.999``, alerts on more, never less.
Only a number written straight after the comparison, on a line keyed as an alert query,
counts; a threshold in code (``if score > 80: allow()``) may guard either way and is left to
the rule.
"""

from __future__ import annotations

import re

__all__ = ["tightens_alert"]

_QUERY_KEY = re.compile(r"""(?i)^\s*(?:-\s*)?["']?(?:expr|query|condition)["']?\s*[:=]""")
_BEFORE = re.compile(r"([<>]=?)\s*$")


def _operator(line: str, start: int) -> str | None:
    """The comparison written right before the number at ``start`` (up to 4 characters)."""
    m = _BEFORE.search(line[max(0, start - 4) : start])
    return m.group(1) if m is not None else None


def tightens_alert(old: str, new: str, at_old: int, at_new: int, a: float, b: float) -> bool:
    """Whether replacing ``a`` (at ``at_old`` in ``old``) by ``b`` (at ``at_new`` in ``new``)
    makes an alert query's comparison hold sooner (see the module)."""
    if _QUERY_KEY.match(old) is None or _QUERY_KEY.match(new) is None:
        return False
    op = _operator(old, at_old)
    if op is None or op != _operator(new, at_new):
        return False
    return b < a if op.startswith(">") else b > a
