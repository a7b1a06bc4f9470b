"""A safeguard switched off by the verb at the end of a request's path (for ``http``), high:
``POST …/saved/searches/Audit%20Tamper%20Alert/disable``, ``POST …/backup-policies/nightly/pause``,
``PUT …/detectors/42/mute``, Google-style ``…/alertPolicies/7:disable`` — the request needs no
body, so the body checks (``safeguard_body``) never see it.

The path before the verb must name a safeguard (alerts, monitors, detections, audit, backups,
protections, firewalls, scans; ``safeguard_body.SAFEGUARD`` and ``protection_off.PROTECTION``)
and nothing of development, test or staging. Everyday neighbours run: the same verbs on
anything else (a CI workflow, a marketing campaign, a feature flag), ``/enable``, ``/resume``,
``/unmute``, and a silence with its end (an Alertmanager silence is a body with ``endsAt``).
Bounded: the path is read up to 600 characters. Pure.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .body_walk import key_words
from .http_call import HttpCall
from .protection_off import PROTECTION, approves_itself, not_live
from .safeguard_body import SAFEGUARD

__all__ = ["path_disables_safeguard"]

_VERB = re.compile(
    r"[/:](disable|deactivate|pause|mute|silence|suspend|stop|unschedule|turn_?off)/?$", re.I
)
_WRITES = frozenset({"POST", "PUT", "PATCH"})


def path_disables_safeguard(call: HttpCall) -> str | None:
    """The title of a safeguard the request's path switches off (see the module), or None."""
    url = call.url
    if url is None or call.method not in _WRITES:
        return None
    path = url.path[:600]
    verb = _VERB.search(path)
    if verb is None:
        return None
    subject = key_words(unquote(path[: verb.start()])[-200:])
    host = key_words(url.host.name[:120])
    if not (SAFEGUARD.search(subject) or PROTECTION.search(subject)):
        return None
    if not_live(f"{subject} {host}".replace("_", " ")) or approves_itself(subject):
        return None
    return f"switches a safeguard off by its path ({verb.group(1).lower()}: {subject[-80:]})"
