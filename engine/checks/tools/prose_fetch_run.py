"""Downloads a message tells people to run, in the forms besides a pipe (for ``prose_more``;
the pipe is ``prose_commands``):

- a script saved by one step and run by the next (``curl -o /tmp/fix.sh https://…`` then
  ``sudo bash /tmp/fix.sh``, ``wget https://…/x.sh && sh x.sh``);
- Windows launchers that fetch and run an address themselves (``mshta https://…``,
  ``msiexec /i https://…``, ``rundll32 …,http…``, ``regsvr32 /i:https://…``,
  ``certutil -urlcache -f https://…``): the "paste this in Win+R" lure.

``curl -o`` of a file that is then read (``tar xf``, ``jq``), and installers from a package
index (``pip install``, ``msiexec /i setup.msi`` of a local file) are everyday. A pure function
of the text; gated by substrings, bounded.
"""

from __future__ import annotations

import re
from itertools import islice

__all__ = ["fetched_and_run"]

_MAX_TEXT = 20_000
_SAVED = re.compile(
    r"(?i)\b(?:curl\b[^\n|]{0,300}?(?:-o|--output)\s{1,3}|wget\b[^\n|]{0,300}?-O\s{1,3}|"
    r"(?:iwr|invoke-webrequest)\b[^\n|]{0,300}?-outfile\s{1,3})([\w./~$%\\:-]{1,200})"
)
_WGET_NAME = re.compile(
    r"(?i)\bwget\s+(?:-\S+\s+){0,4}https?://\S{0,300}/([\w.-]{1,100}\.(?:sh|ps1|py|pl))"
)
_RUN = (
    r"(?:sudo\s+(?:-\S+\s+){0,3})?(?:(?:ba|z|da|k)?sh|python\d?|perl|ruby|node|pwsh|"
    r"powershell(?:\s+-\S+){0,4}|source|chmod\s+\+x)\s+"
)
_LAUNCHER = re.compile(
    r"(?i)\b(?:mshta(?:\.exe)?\s+[\"']?(?:https?|vbscript|javascript):|"
    r"msiexec(?:\.exe)?\s+(?:/\w+\s+){0,3}/(?:i|package)\s+[\"']?https?://|"
    r"rundll32(?:\.exe)?\s+[^\n]{0,200}(?:https?://|javascript:)|"
    r"regsvr32(?:\.exe)?\s+[^\n]{0,100}/i:\s{0,2}[\"']?https?://|"
    r"certutil(?:\.exe)?\s+[^\n]{0,60}-urlcache\b[^\n]{0,100}https?://)"
)


def fetched_and_run(raw: str) -> tuple[str, str] | None:
    """``(title, advice)`` when ``raw`` tells people to save a download and run it, or to give
    an address to a launcher that runs it; None otherwise."""
    text = raw[:_MAX_TEXT]
    lower = text.lower()
    launchers = ("mshta", "msiexec", "rundll32", "regsvr32", "certutil")
    if any(w in lower for w in launchers) and _LAUNCHER.search(text):
        return _FOUND
    if not any(w in lower for w in ("curl", "wget", "iwr", "invoke-web")):
        return None
    names = [m.group(1) for m in islice(_SAVED.finditer(text), 8)]
    names += [m.group(1) for m in islice(_WGET_NAME.finditer(text), 8)]
    for name in names:
        base = name.rstrip("'\"").rpartition("/")[2].rpartition("\\")[2]
        if len(base) < 2:
            continue
        ran = re.compile(_RUN + r"[\"']?(?:\S{0,200}[/\\])?" + re.escape(base) + r"\b", re.I)
        direct = re.compile(
            r"(?:^|[\s;&])\.?[/\\]?(?:\S{0,200}[/\\])?" + re.escape(base) + r"(?:\s|$)"
        )
        after = text[text.find(name) + len(name) :]
        if ran.search(after) or (base.endswith((".sh", ".exe", ".ps1")) and direct.search(after)):
            return _FOUND
    return None


_FOUND = (
    "tells people to run a downloaded script (saved then run, or through a launcher)",
    "Share a reviewed script from the repository, not a download to run.",
)
