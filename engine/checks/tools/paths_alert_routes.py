"""An alerting configuration only given more people to tell (for ``paths``).

An alert router's file (``alertmanager.yml``, an application's ``alerting.yaml``) lives in
``/etc/<app>/``, ``/opt/<app>/`` or a shared checkout, all protected paths. The harmful edits
take something away, or send alerts out of the company: a route sent to a ``null`` or
``blackhole`` receiver, a receiver or recipient removed, an escalation ``enabled: false``, a
silence, an inhibition or a mute window, a catch-all matcher, a longer repeat interval, a
webhook or a personal mailbox. The everyday edit only adds: a receiver for another team, a
route for its label (``team: doorlock``), one more on-call address. An
edit whose replaced text is kept whole, whose added lines are plain YAML keys, list items and
addresses, and which names none of the muting words, quiets the path's verdict. A new route
on ``severity`` that does not ``continue`` to the routes after it takes those alerts from
whoever had them, so it is not quieted. Whole files written are not (what they drop is not
seen). Pure, at most ``_MAX`` characters.
"""

from __future__ import annotations

import re

from .business_words import PERSONAL_MAIL
from .edit_formats import edit_pairs
from .files import PATH_ARGUMENTS
from .view import ToolView

__all__ = ["adds_recipients_only", "quiet_alert_routes"]

_MAX = 6_000
_MAX_LINES = 60
_ALERTING = re.compile(r"(?:^|/)(?:alertmanager[\w.-]*|alerting|alerts?)\.ya?ml$|/alertmanager/")
_MUTING = re.compile(
    r"null|blackhole|black_hole|devnull|discard|\bdrop|silenc|inhibit|mute|false|disable"
    r"|\boff\b|\bno\b|ignore|=~|\.\*|\.\+|interval|group_wait|time_interval|<|\$|`|"
    r"://|url|webhook|https?\b|\bhost\b|smarthost|"
    r"receiver:\s*(?:''|\"\")\s*$",
    re.IGNORECASE,
)
"""Words of an edit that mutes, delays or hides alerts, sends them to a host (a link, a
webhook: a standing feed elsewhere), and text that is not plain YAML."""
_LINE = re.compile(
    r"(?:-\s+)?(?:[\w.-]{1,60}:\s*(?:[\w@.:/+=,'\"\[\] -]{0,200})?|[\w@.+'\"=-]{1,200})"
)
"""A plain YAML key (and value), or a list item of a name or an address."""
_SEVERITY = re.compile(r"severity", re.IGNORECASE)
_CONTINUE = re.compile(r"continue:\s*true", re.IGNORECASE)


def adds_recipients_only(old: str, new: str) -> bool:
    """Whether ``new`` keeps every line of ``old`` and only adds plain lines that name no
    muting word (see the module)."""
    if len(old) > _MAX or len(new) > _MAX:
        return False
    before = [ln.strip() for ln in old.splitlines()[:_MAX_LINES]]
    after = [ln.strip() for ln in new.splitlines()[:_MAX_LINES]]
    kept = set(after)
    if any(ln and ln not in kept for ln in before):
        return False
    counted = set(before)
    added = [ln for ln in after if ln and ln not in counted]
    if not added:
        return False
    text = "\n".join(added)
    if _MUTING.search(text):
        return False
    if _SEVERITY.search(text) and not _CONTINUE.search(text):
        return False
    if any(PERSONAL_MAIL.search(word) for word in re.findall(r"[\w.+-]+@[\w.-]+", text)):
        return False  # a personal mailbox told of every alert: outside the company's control
    return all(ln.startswith("#") or _LINE.fullmatch(ln) for ln in added)


def quiet_alert_routes(view: ToolView) -> bool:
    """Whether the edit ``view`` of an alerting configuration only adds receivers, routes or
    recipients (see the module)."""
    named = view.text(*PATH_ARGUMENTS)
    if named is None or not _ALERTING.search(named[1].replace("\\", "/").lower()):
        return False
    pairs = edit_pairs(view)
    if pairs is None or not pairs[1] or len(pairs[1]) > 10:
        return False
    return all(adds_recipients_only(old, new) for old, new in pairs[1])
