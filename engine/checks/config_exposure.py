"""Settings that open a door or drop a second pair of eyes (for ``config_switches``):

- access opened to everyone: ``public_network_access_enabled = true``,
  ``publicly_accessible: true``, ``allow_anonymous: yes``, SSH's ``permit_root_login: yes`` or
  ``password_authentication: true``, remote control operations allowed on a controller;
- a safety interlock or a two-person rule switched off: ``select_before_operate: false``,
  ``dual_control: off``, ``four_eyes: false``, ``safety_interlock: disabled``;
- a record's trail told to keep less: under an ``audit``/``audit_trail``/``history`` section, a
  ``capture_*``/``record_*``/``log_*``/``keep_*`` switch set off (``capture_old_values: false``).

Keys are in snake case; each test is one anchored regex over a key of at most 160 characters.
Turning any of these the other way (access closed, the interlock on) is no finding. Pure.
"""

from __future__ import annotations

import re

__all__ = ["exposure_switched"]

_ON = frozenset({"true", "yes", "on", "1", "enabled", "enable", "allow", "allowed"})
_OFF = frozenset({"false", "no", "off", "0", "disabled", "disable", "none", "never"})
_OPENED = re.compile(
    r"(?:^|_)(?:public_network_access|publicly_accessible|public_access|public_read|"
    r"allow_public\w{0,20}|public_blob\w{0,20}|nested_items_to_be_public|anonymous_access|"
    r"allow_anonymous\w{0,20}|anonymous_read|allow_unauthenticated|unauthenticated_access|"
    r"permit_root_login|sshd?_(?:\w{1,20}_)?(?:root_login|password_authentication)|"
    r"remote_control|control_operations?)(?:_|$)"
)
"""A switch that, on, lets anyone (or any password guesser, or a remote operator) in."""
_CLOSED_WORDS = re.compile(r"(?:^|_)(?:block|deny|disable|disallow|prevent|restrict)(?:_|$)")
"""``block_public_access`` on closes the door the other switches open."""
_INTERLOCK = re.compile(
    r"(?:^|_)(?:interlocks?|select_before_operate|dual_(?:control|approval|authori[sz]ation)|"
    r"four_eyes|two_person(?:_rule)?|maker_checker|second_approver|"
    r"safety_(?:checks?|interlocks?|limits?))(?:_|$)"
)
"""A safety interlock or a rule that a second person confirms."""
_TRAIL_SECTION = re.compile(r"(?:^|_)(?:audit|audit_trail|audit_log|history|journal)(?:_|$)")
_TRAIL_SWITCH = re.compile(r"^(?:capture|record|log|keep|retain|store|track)_\w")


def exposure_switched(key: str, value: str, section: str = "") -> str | None:
    """What setting ``key`` (snake case) to ``value`` does when it opens access to everyone,
    drops an interlock or a second approver, or makes the audit trail of ``section`` keep
    less; else ``None``."""
    key, value = key[:160], value.strip("\"'").lower()
    if value in _ON and _OPENED.search(key) and not _CLOSED_WORDS.search(key):
        return "opens access to everyone"
    if value not in _OFF:
        return None
    if _INTERLOCK.search(key):
        return "switches a safety interlock or a second approver off"
    if section and _TRAIL_SECTION.search(section[:160]) and _TRAIL_SWITCH.match(key):
        return "makes the audit trail record less"
    return None
