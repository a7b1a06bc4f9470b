"""A flaw published before its fix (for ``prose``): an issue, a discussion, a public reply or a
post that tells how to get past a check — any user can, authentication is skipped, code runs
remotely — while it says the fix is still to come. Whoever reads the tracker can use it before
the patch ships; a security channel or a private advisory is the place for it. A fix that
has shipped, and a flaw told without how to use it, are everyday.

Pure functions of the tool's name, whether the reply is public, and the text.
"""

from __future__ import annotations

import re

__all__ = ["published_flaw"]

_MAX_TEXT = 20_000
_PUBLISHING = re.compile(
    r"(?i)issue|discussion|gist|forum|tweet|mastodon|reddit|hacker_?news|stack_?overflow|"
    r"community|(?:^|[._])post_?(?:to_)?(?:blog|status)|changelog"
)
"""Tools that publish to a tracker or a forum others read."""
_HOW = re.compile(
    r"(?i)\b(?:any(?:one| user| attacker| caller| client)|an attacker|unauthenticated users?)"
    r"\b[^.\n]{0,30}\bcan\b|\b(?:skips?|bypass(?:es)?|bypassing|disables?) (?:the )?"
    r"(?:auth(?:entication|orization)?|token|permission|signature|csrf|tenant|access) checks?\b|"
    r"\bauth(?:entication)? bypass\b|\bremote code execution\b|\b(?:sql|command) injection\b|"
    r"\bprivilege escalation\b|\bwithout (?:any )?(?:auth(?:entication)?|a token|logging in)\b"
)
"""How to get past a check (``skips the token check``, ``any user can download``)."""
_NOT_FIXED = re.compile(
    r"(?i)\bpatch(?:es)? (?:is |are )?(?:coming|soon|pending|in progress|on (?:the|its) way)\b|"
    r"\bfix (?:is )?(?:coming|pending|in progress|on (?:the|its) way)\b|\bunpatched\b|"
    r"\bnot (?:yet )?(?:patched|fixed|deployed)\b|\bno (?:fix|patch) (?:yet|available)\b|"
    r"\bstill (?:vulnerable|exploitable|open)\b|\buntil (?:we|the fix|the patch) (?:ship|land|"
    r"deploy|release)s?\b|\b(?:working on|will ship) (?:a |the )?(?:fix|patch)\b"
)
"""The fix is still to come."""


def published_flaw(tool: str, public: bool, text: str) -> bool:
    """Whether ``text``, sent by ``tool`` (or as a ``public`` reply), tells how to exploit a
    flaw whose fix is still to come."""
    if not (public or _PUBLISHING.search(tool)):
        return False
    text = text[:_MAX_TEXT]
    return _HOW.search(text) is not None and _NOT_FIXED.search(text) is not None
