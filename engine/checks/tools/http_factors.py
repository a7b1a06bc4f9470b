"""Two account-takeover shapes a request spells through any identity or mail API, each high:

- a sign-in factor or recovery method enrolled for an account by API (``POST
  …/users/{id}/authentication/phoneMethods``, ``…/factors``, ``…/authenticators``,
  ``…/recovery_phone``): whoever holds that phone or app now passes the account's second
  factor and its resets;
- a mailbox rule that hides incoming mail about money or security (conditions naming
  invoices, wires, payments, alerts or sign-ins; actions that delete it, mark it read or move
  it out of the inbox): the cover of a payment fraud in progress.

Reading factors and rules, and a rule that files newsletters, run. Pure.
"""

from __future__ import annotations

import re

from .body_walk import key_values, key_words
from .http_call import HttpCall

__all__ = ["takeover_shape"]

_FACTOR_PATH = re.compile(
    r"(?i)/(?:factors|authenticators|authentication/\w*methods|mfa(?:/\w+)?|two_?factor\w*|"
    r"otp_?devices|recovery[_-]?(?:phone|email)s?|security_?keys|webauthn_?credentials)"
    r"(?:/[\w.-]*)?/?$"
)
_RULE_PATH = re.compile(r"(?i)/(?:message_?rules|inbox_?rules|filters|mail_?rules|rules)(?:/|$)")
_HOT_WORDS = re.compile(
    r"(?i)\b(?:invoices?|wires?|wire transfer|payments?|remittance|bank|iban|security|alerts?|"
    r"password|sign[- ]?in|login|verif\w+|mfa|suspicious|unusual|fraud)\b"
)
_HIDING = re.compile(
    r"(?i)^(?:delete|permanent_?delete|mark_?as_?read|move_?to_?folder|move_?to|skip_?inbox|"
    r"archive|remove_?label_?ids|add_?label_?ids|trash|stop_?processing_?rules)$"
)
_MAX = 400


def _hides_mail(call: HttpCall) -> bool:
    hot = hiding = False
    seen = 0
    for _, payload in call.payload:
        for key, value in ((key_words(k), v) for k, v in key_values(payload)):
            seen += 1
            if seen > _MAX:
                return False
            texts = value[:32] if isinstance(value, list) else [value]
            if any(isinstance(v, str) and _HOT_WORDS.search(v[:300]) for v in texts):
                hot = True
            if _HIDING.match(key) and value not in (False, None, "", [], 0):
                hiding = True
    return hot and hiding


def takeover_shape(call: HttpCall) -> str | None:
    """The title when the request enrolls a sign-in factor for an account or hides its mail
    about money or security (see the module's docstring), else None."""
    if call.url is None or call.method not in ("POST", "PUT", "PATCH"):
        return None
    path = call.url.path[:500]
    if _FACTOR_PATH.search(path):
        return "enrolls a sign-in factor or recovery method for an account"
    mailbox = "mail" in path.lower() or "inbox" in path.lower()
    if _RULE_PATH.search(path) and mailbox and _hides_mail(call):
        return "adds a mailbox rule that hides mail about money or security"
    return None
