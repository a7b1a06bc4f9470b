"""A message that tells people to approve sign-in prompts they did not start (for
``prose_controls``), whatever the identity provider:

"approve any MFA push you receive today", "accept all Duo prompts during the migration",
"tap Approve on the login request even if you didn't sign in". Whoever holds a password then
gets in by sending a prompt (push fatigue): the second factor no longer protects anyone.
Advice against it ("never approve a push you didn't start", "don't accept any prompt you did
not request") and a prompt for one's own sign-in ("approve the push on your phone to finish
enrolling") stay quiet.

A pure function of the text, read in a bounded window after a substring test.
"""

from __future__ import annotations

import re
from itertools import islice

__all__ = ["approve_any_prompt"]

_MAX_TEXT = 8_000
_PROMPT = (
    r"(?:MFA|2FA|multi-?factor|two-?factor|Duo|Okta(?: Verify)?|Authenticator|push|sign-?in|"
    r"log-?in|authentication)\s*(?:push(?:es)?|prompts?|requests?|"
    r"notifications?|pop-?ups?|approvals?)"
)
_ANY = re.compile(
    r"(?i)\b(?:approve|accept|allow|confirm|tap (?:approve|yes|allow) (?:on|for))\s+"
    r"(?:any|all|every|each)\s+(?:(?:of\s+)?(?:the|your|these|those|new|incoming)\s+)?"
    + _PROMPT
    + r"\b"
)
"""Every prompt to be approved (``approve any MFA push``)."""
_UNASKED = re.compile(
    r"(?i)\b(?:approve|accept|allow|confirm|tap (?:approve|yes|allow))\b[^.\n]{0,60}?"
    + _PROMPT
    + r"\b[^.\n]{0,60}?\beven (?:if|when|though) you (?:didn'?t|did not|haven'?t|have not|"
    r"are not|aren'?t)\b"
)
"""A prompt to be approved though one did not sign in (``… even if you didn't log in``)."""
_ADVICE = re.compile(r"(?i)\b(?:never|not|don'?t|do not|no one|must not|shouldn'?t)\b[^.\n]{0,20}$")


def approve_any_prompt(raw: str) -> bool:
    """``raw`` tells its readers to approve sign-in prompts they did not start."""
    text = raw[:_MAX_TEXT]
    low = text.lower()
    if not any(w in low for w in ("approv", "accept", "allow", "confirm")):
        return False
    if not any(w in low for w in ("push", "prompt", "request", "notification", "pop")):
        return False
    for pattern in (_ANY, _UNASKED):
        for m in islice(pattern.finditer(text), 8):
            if not _ADVICE.search(text[max(0, m.start() - 30) : m.start()]):
                return True
    return False
