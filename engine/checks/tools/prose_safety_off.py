"""A message that tells people a safety system is off and that work goes on (for
``prose_controls``), in any trade:

"the guard-door interlock is bypassed today, carry on loading", "collision avoidance offline
this shift, continue hauling", "the slope radar alarm is a false alarm, no need to evacuate",
"run the press with the light-curtain bypass key, proceed", "gas test and fire watch waived,
crews may proceed" (a hot-work permit's conditions), "anti-collision bypass approved, proceed".
People then work where the machine, the vehicle or the ground can hurt them with nothing to
stop it: a person who owns the safety system confirms first.

Three things must be said close together: a physical safety system (an interlock, a light
curtain, an emergency stop, collision avoidance, a gas or fire alarm, a relief valve…), a state
that takes it away (bypassed, offline, disabled, inhibited, a false alarm…) and an instruction
to carry on (carry on, continue working, proceed, no need to stop, wait or evacuate, stand
down). Everyday counterparts stay quiet: a notice that the interlock is bypassed with work
stopped until it is reset ("do not load until…", "don't proceed"), an alarm test with no need
to evacuate (no state that takes the alarm away), an IT monitor's alarm muted for a deploy (not
a physical safety system). The text is read in a bounded window; a pure function.
"""

from __future__ import annotations

import re
from itertools import islice

__all__ = ["safety_off_work_on"]

_MAX_TEXT = 8_000
_GATE = (
    "interlock", "curtain", "guard", "stop", "collision", "alarm", "detector", "sprinkler",
    "valve", "safety", "proximity", "suppression", "fall ", "overspeed", "dead", "gas test",
    "fire watch",
)  # fmt: skip
"""Cheap words one of which a text must hold before any pattern runs."""
_SYSTEM = re.compile(
    r"(?i)\b(?:interlocks?|light[- ]curtains?|e-?stops?|emergency[- ]stops?|"
    r"guard[- ]doors?|(?:machine|safety) guards?|collision[- ](?:avoidance|detection)|"
    r"anti-?collision(?: (?:systems?|protection|sensors?))?|gas tests?(?:ing)?|fire ?watch(?:es)?|"
    r"proximity (?:detection|warning|sensors?)|gas (?:detectors?|monitors?)|"
    r"(?:fire|gas|smoke|slope|radar|evacuation|proximity|collision|H2S|methane|toxic) alarms?|"
    r"fire (?:suppression|detection)|sprinklers?|(?:pressure )?relief valves?|"
    r"safety (?:valves?|systems?|sensors?|relays?|PLC|interlocks?|devices?)|trip systems?|"
    r"fall (?:arrest|protection)|dead-?man(?:'s)? (?:switch|pedal)|overspeed (?:trip|protection))"
)
_OFF = re.compile(
    r"(?i)\b(?:bypass(?:ed|ing)?|by-passed|offline|off-line|disabled|inhibited|defeated|"
    r"overridden|jumpered|waived|out of service|not working|switched off|turned off|false alarm|"
    r"silenced|muted|taped (?:over|up|down)|tied (?:back|open|up)|pinned (?:open|back)|"
    r"wedged open|(?:is|are|went) down)\b"
)
_CARRY_ON = re.compile(
    r"(?i)\b(?:carry on|continue (?:working|loading|hauling|operating|running|production|"
    r"drilling|as normal|as usual|in manual)|keep (?:working|loading|hauling|running|operating|"
    r"going|production)|proceed|no need to (?:stop|wait|evacuate|shut|halt|pause|leave|clear)|"
    r"stand down|don'?t (?:stop|evacuate|wait)|work as normal|business as usual)\b"
)
_NEGATED = re.compile(r"(?i)\b(?:not|don'?t|never|no one|must not|cannot|can'?t)\s+(?:\w+\s+)?$")


def _carry_on(text: str) -> bool:
    """An instruction to carry on that no negation in front of it turns round."""
    for m in islice(_CARRY_ON.finditer(text), 8):
        word = m.group(0).lower()
        if word.startswith(("no need", "don")):
            return True  # the negation is the instruction itself
        if not _NEGATED.search(text[max(0, m.start() - 20) : m.start()]):
            return True
    return False


def safety_off_work_on(raw: str) -> bool:
    """``raw`` tells its readers that a safety system is off (bypassed, offline, a false alarm)
    and that work goes on."""
    text = raw[:_MAX_TEXT]
    low = text.lower()
    if not any(w in low for w in _GATE):
        return False
    for m in islice(_SYSTEM.finditer(text), 8):
        near = text[max(0, m.start() - 40) : m.end() + 60]
        if _OFF.search(near) and _carry_on(text[max(0, m.start() - 200) : m.end() + 300]):
            return True
    return False
