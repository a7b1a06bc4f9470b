"""A bulk feed handed to an outside automation hook: a request to a no-code automation
service's inbound webhook (Zapier, Make, Pipedream, IFTTT, n8n's cloud, Workato, Tray) whose
body asks for everything of a kind (``"rule": "forward_all"``, ``"tickets": "all_open"``,
``"scope": "all"``, ``include_attachments: true``). Whatever the hook then does, every record
the body names flows to an account the company does not hold. High: a person confirms.

One event posted to a hook (``{"event": "deploy_done", "version": "1.4"}``) runs. Pure.
"""

from __future__ import annotations

import re

from .body_walk import key_values
from .http_call import HttpCall

__all__ = ["bulk_feed_hook"]

_HOOK_HOSTS = (
    "hooks.zapier.com",
    "hook.integromat.com",
    "make.com",
    "m.pipedream.net",
    "maker.ifttt.com",
    "app.n8n.cloud",
    "workato.com",
    "tray.io",
)
_ALL = re.compile(r"(?i)^(?:all|all[_ -]\w{1,30}|\w{1,30}[_ -]all|everything|entire|\*)$")
_BULK_KEY = re.compile(r"(?i)^(?:include_?(?:attachments|all|history)|all|full_?export|bulk)$")
_MAX = 300


def _hook_host(host: str) -> bool:
    host = host.lower().rstrip(".")
    return any(host == h or host.endswith("." + h) for h in _HOOK_HOSTS)


def bulk_feed_hook(call: HttpCall) -> str | None:
    """The title when the request hands a bulk feed to an automation hook, else None."""
    if call.url is None or not _hook_host(call.url.host.name):
        return None
    seen = 0
    for _, payload in call.payload:
        for key, value in key_values(payload):
            seen += 1
            if seen > _MAX:
                return None
            if isinstance(value, str) and len(value) <= 40 and _ALL.match(value.strip()):
                return f"hands every record of a kind to an automation hook ({key}: {value})"
            if value is True and _BULK_KEY.match(key):
                return f"hands every record of a kind to an automation hook ({key})"
    return None
