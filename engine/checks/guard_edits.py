"""Edits that quietly defeat a guard while looking like a one-word change (for ``source_code``):

- a threshold, limit or alert level moved by an order of magnitude or more — an alert rule's
  ``> 1180`` made ``> 11800``, a failure-rate ``critical = 0.05`` made ``1.0``, a login
  throttle's ``limit: 5`` made ``5_000``, a zero tolerance made a large one, an
  auto-approval cap, a refund limit or a spike ratio raised a hundredfold — or past the
  scale its own comment states (``# score 0-100`` set to ``101``): the guard can no longer
  trip;
  an alert query's comparison moved so it fires sooner (``expr: … > 5`` made ``> 0``) is
  not one (``guard_tighten``);
- a condition replaced by a constant — ``if user.is_admin():`` made ``if True:``,
  ``IF Sensor_OK AND NOT EStop THEN`` made ``IF TRUE THEN``: the guarded code always runs.

A removed line is paired with the added line that replaces it (the same text once numbers,
or the condition, are set aside), so a line moved or rewritten is not read as a change of
value; tests are not read. Bounded: at most ``_MAX_PAIRS`` pairs, lines cut to 400
characters. Each finding is HIGH: a person decides whether the new value is meant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, is_test_path, snippet
from .diff import FileDiff
from .diff_runs import change_runs
from .guard_tighten import tightens_alert

__all__ = ["guard_edits"]

_MAX_PAIRS = 400
_MAX_LINE = 400
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d_,]*(?:\.\d+)?(?![\w.])")
_GUARD = re.compile(
    r"(?i)threshold|thresh\b|alert|alarm|critical|warning|\bwarn\b|rate_?limit|limit_req|"
    r"lockout|lock_after|attempts|throttle|tolerance|\btrip|setpoint|cutoff|cut_off|\bexpr\b|"
    r"risk|fraud|score"
)
"""Words that make a number a guard's level: thresholds, limits, alert expressions."""
_CONTROL_KEY = re.compile(
    r"(?i)^\s*[-\"']?\s*(?:[\w$]{1,40}\.){0,4}([A-Za-z_][\w-]{0,80})[\"']?\s*[:=]"
)
_CONTROL = re.compile(
    r"(?i)(?:^|_)(?:approv|sign_?off|four_?eyes|payouts?(?:_|$)|refunds?(?:_|$)|withdraw|"
    r"disburse|unexplained|discrepan|variance|mismatch|deviation|ratio(?:_|$)|spike|anomal|"
    r"outlier|sanction|match_?(?:score|level))"
)
"""Words that make a setting's number the level of a control on money or data (an
auto-approval cap, a tolerated reconciliation gap, a spike ratio): the key alone decides."""
_MEASURE = re.compile(
    r"(?i)(?:^|_)(?:days?|hours?|hrs?|minutes?|mins?|seconds?|secs?|ms|millis|timeout|ttl|"
    r"mb|gb|kb|bytes|size|workers|threads|pool|batch|page|retries|connections|rate)$"
)
"""A key measured in time, size or count: tuning, not a control's level."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _guard_line(code: str) -> bool:
    """Whether ``code`` (a line without its comment) sets a guard's level."""
    if _GUARD.search(code):
        return True
    key = _CONTROL_KEY.match(code)
    if key is None:
        return False
    name = _CAMEL.sub("_", key.group(1))
    return _CONTROL.search(name) is not None and _MEASURE.search(name) is None


_SCALE = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)\s*(?:-|–|to|\.\.)\s*(\d+(?:\.\d+)?)(?![\w.])")
_CONDITION = re.compile(
    r"^(\s*(?:}\s*)?(?:else\s*)?(?:if|elif|elsif|unless|IF|ELSIF|When|when)\b)\s*\(?\s*(.+?)"
    r"\s*\)?\s*(\{|:|then|THEN|do)?\s*$"
)
_CONSTANT = frozenset({"true", "1", "yes", "on"})


def _value(text: str) -> float | None:
    try:
        return float(text.replace("_", "").replace(",", ""))
    except ValueError:
        return None


def _pairs(file: FileDiff) -> Iterator[tuple[str, str, int]]:
    """(removed, added, added line number) for each removed line replaced in place: the
    i-th removed line of a run of changes with the i-th added line of the same run."""
    count = 0
    for removed, added in change_runs(file, _MAX_LINE):
        for old, (new, number) in zip(removed, added, strict=False):
            count += 1
            if count > _MAX_PAIRS:
                return
            yield old, new, number


def _jump(old: str, new: str) -> str | None:
    """What moving a guard's number from ``old`` to ``new`` does, if it defeats it."""
    if _NUMBER.sub("#", old) != _NUMBER.sub("#", new):
        return None
    code_old = old.split("#", 1)[0]
    if not _guard_line(code_old):
        return None
    olds, news = _NUMBER.findall(old), _NUMBER.findall(new)
    changed = [(a, b) for a, b in zip(olds, news, strict=False) if a != b]
    if len(changed) != 1:
        return None
    a, b = (_value(x) for x in changed[0])
    if a is None or b is None or a == b:
        return None
    at = next(i for i, (x, y) in enumerate(zip(olds, news, strict=False)) if x != y)
    spans = (list(_NUMBER.finditer(old))[at].start(), list(_NUMBER.finditer(new))[at].start())
    if tightens_alert(old, new, *spans, a, b):
        return None  # the alert fires sooner, never later
    small, large = sorted((abs(a), abs(b)))
    if small == 0 or large / small >= 10:
        return f"moves a guard's level from {changed[0][0]} to {changed[0][1]}"
    scale = _SCALE.search(old[len(code_old) :]) if "#" in old else None
    if scale is not None:
        low, high = float(scale.group(1)), float(scale.group(2))
        if low < high and not low <= b <= high and low <= a <= high:
            return f"sets a guard's level to {changed[0][1]}, outside its stated scale"
    return None


def _constant(old: str, new: str) -> str | None:
    """What replacing a condition by a constant does, if ``new`` is ``old`` so changed."""
    was, now = _CONDITION.match(old), _CONDITION.match(new)
    if was is None or now is None or was.group(1).strip() != now.group(1).strip():
        return None
    before, after = was.group(2).strip(), now.group(2).strip().strip("()").strip()
    if after.lower() not in _CONSTANT or before.lower().strip("()") in _CONSTANT:
        return None
    shown = snippet(before, 80)
    return f"replaces the condition `{shown}` by a constant: the guarded code always runs"


def guard_edits(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first replaced line of ``file`` that defeats a guard (see the module)."""
    if is_test_path(path) or file.deleted:
        return
    for old, new, number in _pairs(file):
        what = _jump(old, new) or _constant(old, new)
        if what is None:
            continue
        yield Hit(
            severity=Severity.HIGH,
            title="a guard defeated by a one-line edit",
            description=f"{path}: `{snippet(old.strip(), 100)}` becomes "
            f"`{snippet(new.strip(), 100)}`: it {what}.",
            suggestion="Keep the guard's level and condition; let a person decide a change.",
            file=path,
            line=number,
        )
        return
