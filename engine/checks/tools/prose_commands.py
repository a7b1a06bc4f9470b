"""What a message tells people or bots to run, for ``prose``:

- a download piped into a shell or an interpreter (``curl … | sudo bash``, ``bash <(curl …)``,
  ``iex (iwr …)``), or a script's address with the advice to run it as root: whoever follows
  the message runs what that host serves, in the sender's name;
- a command to a merge or deploy bot in a comment (``bors r+``, ``/merge``, ``/approve``,
  ``/deploy production``, ``@dependabot merge``): the bot acts as if a person had approved.

Running tests (``/retest``, ``bors try``) and deploying outside production are everyday.
Pure functions of the text; each answers ``(title, advice)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["told_to_run"]

_MAX_TEXT = 20_000
_FETCH = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\b"
_RUNNER = (
    r"(?:sudo\s+(?:-\S+\s+){0,3})?(?:env\s+)?(?:ba|z|da|k|fi)?sh\b|"
    r"(?:sudo\s+)?(?:python[\d.]*|perl|ruby|node|php|iex|invoke-expression|pwsh|powershell)\b"
    r"(?!\s+-[mce]\b)"
)
_PIPED = re.compile(
    r"(?i)\b" + _FETCH + r"[^|\n`]{0,400}\|\s{0,3}(?:" + _RUNNER + r")|"
    r"\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s{0,3}" + _FETCH + r"|"
    r"\biex\s*\(\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object)\b"
)
"""A download handed straight to a shell or an interpreter."""
_SCRIPT_AS_ROOT = re.compile(
    r"(?i)https?://\S{1,500}?\.(?:sh|bash|ps1|py|pl|rb|bat|cmd)\b[^\n]{0,120}?"
    r"\b(?:sudo|as root|as (?:an )?admin(?:istrator)?)\b"
)
"""A script's address with the advice to run it as root."""
_BOT_COMMAND = re.compile(
    r"(?im)^\s{0,8}(?:@?bors\s+(?:r\+|r=\S+|merge|delegate\+)|"
    r"/(?:merge|approve|lgtm|land|ship(?:it)?|force-merge|automerge)\b|"
    r"/deploy\b[^\n]{0,80}\b(?:prod\w*|live|main|master)\b|"
    r"@(?:dependabot|mergify(?:io)?|kodiak\w*|renovate\w*)\S*\s+(?:squash and )?(?:merge|queue|"
    r"refresh --force)|"
    r"(?:\.|!)deploy\s+\S+\s+(?:to\s+)?(?:prod\w*|live)\b)"
)
"""A bot command that merges, approves or deploys to production (one to a line)."""


def told_to_run(raw: str) -> Iterator[tuple[str, str]]:
    """Each command ``raw`` hands to people or bots that runs what no person reviewed."""
    text = raw[:_MAX_TEXT]
    if _PIPED.search(text) or _SCRIPT_AS_ROOT.search(text):
        yield (
            "tells people to run a downloaded script (piped into a shell, or as root)",
            "Share a reviewed script from the repository, not a download to pipe into a shell.",
        )
    if _BOT_COMMAND.search(text):
        yield (
            "tells a bot to merge, approve or deploy to production",
            "Merges and production deploys are approved by a person, not by a comment.",
        )
