"""Physical control through an operations API (SCADA, OT, grid and plant systems), read from a
tool's name words and its argument pairs (for ``business``), each high:

- plant equipment operated or set: a breaker, recloser, valve or pump opened or closed, a
  setpoint, tap changer or inverter limit changed, distributed generation curtailed;
- an interlock or protection overridden (``override_interlock=true``, a relay's trip output
  switched off);
- control-room alarms suppressed, shelved or silenced;
- customers' supply cut remotely (a meter or service disconnect).

Reads (historian values, a breaker's status) get no finding: a read verb, or an HTTP GET, is no
command.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts

__all__ = ["plant_control"]

_EQUIPMENT = frozenset(
    {"breaker", "breakers", "recloser", "reclosers", "setpoint", "setpoints", "interlock",
     "interlocks", "ltc", "tapchanger", "substation", "substations", "scada", "plc", "plcs",
     "rtu", "rtus", "dnp3", "modbus", "curtailment", "curtail", "inverter", "inverters",
     "valve", "valves", "turbine", "turbines", "feeder", "feeders", "switchgear", "der",
     "opcua", "dcs", "genset", "capacitor", "regulator", "sluice", "chlorinator"}
)  # fmt: skip
"""What a plant or grid is controlled by: a command to any of them acts in the physical
world."""
_PROTECTION = frozenset({"relay", "relays", "protection", "trip", "sis", "interlock"})
_PROTECTION_KEYS = re.compile(
    r"(?i)(?:^|_)(?:override|bypass|defeat|inhibit|disable)_?(?:\w+_)?(?:interlocks?|protection|"
    r"trips?|safety|sis)$|^(?:trip\w*|\w*protection\w*|\w+_enabled)$"
)
_ALARMS = frozenset({"alarm", "alarms", "alert", "alerts", "annunciator"})
_MUTES = frozenset({"suppress", "suppression", "shelve", "shelving", "inhibit", "silence", "mute"})
_CUTS = frozenset({"disconnect", "disconnects", "cutoff", "shutoff", "deenergize"})
_SUPPLY = frozenset({"meter", "meters", "ami", "service", "premise", "premises", "supply"})
_SUPPLY_KEYS = re.compile(r"(?i)^(?:meter\w*|ami\w*|service_?points?|premises?\w*)$")
_READS = frozenset({"GET", "HEAD", "OPTIONS"})
_READ_NOUNS = frozenset(
    {"historian", "queries", "values", "readings", "reading", "trend", "trends", "report",
     "reports", "summary", "summaries", "history", "status", "events"}
)  # fmt: skip
"""What a call reads from a plant system (a historian's values, a report), whatever its
method."""
_OT_KEYS = re.compile(r"(?i)^(?:setpoint\w*|\w*_setpoint|target_voltage\w*|export_limit\w*)$")


def plant_control(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A command to plant or grid equipment, protection or alarms overridden, supply cut."""
    if not acts(words) or words & _READ_NOUNS:
        return
    if any(
        k in ("method", "verb", "http_method") and isinstance(v, str) and v.upper() in _READS
        for k, v in pairs
    ):
        return  # a GET of a status, a value or a list commands nothing
    override = next(
        (k for k, v in pairs if _PROTECTION_KEYS.search(k) and _defeats(k, v)),
        None,
    )
    if override is not None and (words & (_EQUIPMENT | _PROTECTION) or "interlock" in override):
        yield (
            "overrides a protection of plant equipment",
            f"`{override[:60]}` defeats an interlock or protection that keeps equipment and "
            "people safe.",
            "Leave protections to the control room under a switching order.",
        )
        return
    if words & _ALARMS and words & _MUTES:
        yield (
            "suppresses control-room alarms",
            "operators stop seeing the conditions the alarms report, critical ones included.",
            "Let the control room shelve named alarms, for a short time.",
        )
        return
    supply = words & _SUPPLY or any(_SUPPLY_KEYS.match(k) for k, _ in pairs)
    if words & _CUTS and supply:
        yield (
            "cuts customers' supply remotely",
            "a remote disconnect switches off the service at the premises it selects.",
            "Let a person confirm disconnects, one premises at a time.",
        )
        return
    if words & _EQUIPMENT or any(_OT_KEYS.match(k) for k, _ in pairs):
        yield (
            "operates plant or grid equipment",
            "the command acts in the physical world: equipment opens, closes or changes its "
            "setpoint.",
            "Let the control room issue commands to equipment.",
        )


def _defeats(key: str, value: object) -> bool:
    """An override set on, or a protection or trip set off."""
    if re.search(r"(?i)override|bypass|defeat|inhibit|disable", key):
        return value is True or (isinstance(value, str) and value.lower() in ("true", "yes"))
    return value is False or (isinstance(value, str) and value.lower() in ("false", "off"))
