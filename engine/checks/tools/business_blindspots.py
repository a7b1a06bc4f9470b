"""Blind spots made through a business tool (for ``business``), each high:

- a malware or endpoint scanner told to skip where attackers stage tools: a drive's root, the
  system, temporary or per-user folders, a script host or interpreter (``powershell.exe``),
  or every executable or script by its extension (one application's data folder or process
  excluded runs);
- on-call paging weakened: every incident of a service made low urgency by a standing rule,
  or the integration that pages for a service removed (one incident's urgency set runs);
- code run through a service's script endpoint that deletes records and then empties the
  recycle bin or purges them, so nothing can be restored (a script that deletes alone is left
  to the other rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from .business_words import DELETE_VERBS, Finding, Pair, acts

__all__ = ["blind_spots", "broad_exclusion", "paging_weakened", "purging_script"]

_SCANNERS = frozenset(
    {"antivirus", "av", "defender", "malware", "antimalware", "edr", "endpoint", "scan",
     "scanner", "scanning", "threat", "xdr", "epp", "crowdstrike", "sentinelone", "sophos"}
)  # fmt: skip
_EXCLUSION_KEY = re.compile(
    r"^(?:exclu\w*|exempt\w*|allow_?list\w*|whitelist\w*|paths|processes|extensions)$"
)
_BROAD = re.compile(
    r"(?i)^(?:[a-z]:\\?|/|\*|\*\*|\*\.\*)$"
    r"|^[a-z]:\\(?:windows|programdata|temp|users|perflogs)(?:\\|$)"
    r"|\\(?:appdata|temp|tmp|downloads|public)(?:\\|$)|^%(?:temp|tmp|appdata|programdata)%"
    r"|^/(?:tmp|var/tmp|dev/shm|home|root|users|etc|usr|opt)(?:/\*?)?$"
    r"|^(?:powershell|pwsh|cmd|wscript|cscript|rundll32|regsvr32|mshta|bash|sh|python\d?|"
    r"node|java|msiexec|certutil)(?:\.exe)?$"
    r"|^\*?\.(?:exe|dll|ps1|psm1|bat|cmd|vbs|js|hta|scr|msi|jar|sh|py)$"
)


def _items(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value[:300]]
    if isinstance(value, list):
        return [v[:300] for v in value[:50] if isinstance(v, str)]
    return []


def broad_exclusion(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    """A scanner's exclusions that cover where attackers stage tools."""
    if not words & _SCANNERS:
        return None
    broad = next(
        (t for k, v in pairs if _EXCLUSION_KEY.match(k) for t in _items(v) if _BROAD.search(t)),
        None,
    )
    if broad is None:
        return None
    return (
        "excludes broad places from malware scanning",
        f"`{broad[:60]}` is where attackers stage their tools: the scanner stops looking there.",
        "Exclude one application's own folder or process, with a security owner's consent.",
    )


_PAGING = frozenset({"pagerduty", "opsgenie", "oncall", "victorops", "paging", "pager"})
_ROUTES = frozenset({"integration", "integrations", "route", "routes", "routing", "escalation"})


def paging_weakened(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    """Every incident of a service made low urgency, or its paging integration removed."""
    low = any(
        k == "urgency" and isinstance(v, str) and v.strip().lower() in ("low", "none")
        for k, v in pairs
    ) and (any("urgency_rule" in k for k, _ in pairs) or bool(words & {"service", "services"}))
    removed = bool(words & DELETE_VERBS and words & _ROUTES and words & _PAGING)
    if not (low or removed):
        return None
    return (
        "stops paging the on-call",
        "the service's incidents no longer wake anyone: an outage runs until someone looks.",
        "Let the service's on-call owner change how it pages.",
    )


_RUNS = frozenset({"execute", "exec", "run", "anonymous", "script", "apex", "eval"})
_CODE_KEYS = re.compile(r"^(?:\w*body|code|script|source|apex|statement|program|snippet)$")
_DELETES = re.compile(r"(?i)\bdelete\b|\.delete\(|\bdestroy\(")
_PURGES = re.compile(r"(?i)emptyrecyclebin|empty_?(?:trash|recycle_?bin)|purge")


def purging_script(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    """Code run at a service that deletes records and removes their way back."""
    if not words & _RUNS:
        return None
    for k, v in pairs:
        if not (_CODE_KEYS.match(k) and isinstance(v, str)):
            continue
        text = v[:20_000]
        low = text.lower()
        if not ("delete" in low or "destroy" in low):
            continue
        if not any(w in low for w in ("recyclebin", "recycle_bin", "trash", "purge")):
            continue
        if _DELETES.search(text) and _PURGES.search(text):
            return (
                "deletes records for good in a script",
                "the script deletes records and empties the recycle bin or purges them: "
                "nothing can be restored.",
                "Let a person confirm the delete, and keep the recycle bin.",
            )
    return None


def blind_spots(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Each blind spot above (at most one finding)."""
    if not acts(words):
        return
    found = (
        broad_exclusion(words, pairs)
        or paging_weakened(words, pairs)
        or purging_script(words, pairs)
    )
    if found is not None:
        yield found
