"""Code that hands over everything it is given or holds, for ``source_code`` (Python and the
other languages alike), read as text:

- the whole environment (``dict(os.environ)``, ``os.environ.copy()``, ``process.env`` whole)
  put in what a file sends to an address it names — critical, the environment holds the
  process's credentials;
- a web request's whole form or body (``request.POST.items()``, ``request.body``,
  ``req.body``, ``request.get_json()``) sent on to an address on another site — high: every
  field a user types (cards, passwords, addresses) leaves for that site (form-jacking);
- data written to a storage bucket named as someone's own (``gs://jdoe-personal-…``) — high.

A field read by name (``request.POST["email"]``) and an environment variable read by name
are not wholes. Pure functions of the text; bounded patterns over at most ``_MAX``
characters.
"""

from __future__ import annotations

import re

from humangr.contracts import Severity

__all__ = ["forwards_everything", "personal_bucket"]

_MAX = 200_000
_SENDS = re.compile(
    r"\b(?:requests|httpx|session|client|aiohttp\.ClientSession\(\)|http)\.(?:post|put|patch)\b"
    r"|\burllib\.request\.(?:urlopen|Request)\b|\burlopen\(|\bfetch\(|\baxios(?:\.(?:post|put))?\b"
    r"|navigator\.sendBeacon\(|\bhttp\.NewRequest\(|\bhttp\.Post\(|\.PostAsync\("
)
_SEND_WORDS = (
    ".post",
    ".put",
    ".patch",
    "urlopen",
    "Request(",
    "fetch(",
    "axios",
    "sendBeacon",
    ".Post",
    "PostAsync",
)
"""Words every call ``_SENDS`` finds contains: a file with none of them sends nothing."""
_OUT_URL = re.compile(r"[\"'`]https?://([\w.-]{1,253})(?::\d{1,5})?(?:/[^\s\"'`]{0,300})?[\"'`]")
_WHOLE_ENV = re.compile(
    r"\bdict\(\s*os\.environ\s*\)|\bos\.environ\.copy\(\)|\{\s*\*\*os\.environ\b"
    r"|\bjson\.dumps\(\s*(?:dict\()?\s*os\.environ\b|\bos\.environ\.items\(\)"
    r"|\bENV\.to_h\b|(?<![\w.])process\.env\s*[,)}]|\.\.\.process\.env\b"
    r"|JSON\.stringify\(\s*process\.env\s*\)|\bos\.Environ\(\)"
)
_WHOLE_INPUT = re.compile(
    r"\brequest\.(?:POST|GET|form|values|data)\.(?:items|dict|copy|to_dict|lists)\(\)"
    r"|\bdict\(\s*request\.(?:POST|GET|form|values|data|json)\s*\)|\brequest\.body\b"
    r"|\brequest\.get_json\(\)|\brequest\.json\b(?!\s*\[)|\bawait\s+request\.json\(\)"
    r"|\breq\.body\b(?!\s*\.\w|\s*\[)|\brequest\.data\b(?!\s*\[|\s*\.get)"
)
_LOCAL = re.compile(r"(?i)^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[?::1\]?)$")


def _site(host: str) -> str:
    return ".".join(host.lower().rstrip(".").split(".")[-2:])


_WINDOW = 400
_ASSIGNED = re.compile(r"(?m)^[ \t]*(?:(?:const|let|var)\s+)?(\w{1,64})\s*(?::[^=\n]{1,60})?=(?!=)")


def _reaches_send(text: str, found: re.Match[str]) -> bool:
    """The whole value ``found`` is, or the name the line assigns it to, is in the arguments
    of a send (the ``_WINDOW`` characters after a sending call)."""
    line_start = text.rfind("\n", 0, found.start()) + 1
    assigned = _ASSIGNED.match(text, line_start)
    name = assigned.group(1) if assigned is not None and assigned.end() <= found.start() else None
    for n, send in enumerate(_SENDS.finditer(text)):
        if n >= 100:
            break
        window = text[send.start() : send.start() + _WINDOW]
        if found.group(0) in window:
            return True
        if name is not None and re.search(rf"(?<![\w.]){re.escape(name)}\b", window):
            return True
    return False


_BUCKET = re.compile(r"[\"'](?:gs|s3a?|az|abfss?|wasbs?)://([\w.-]{3,63})[/\"']")
_PERSONAL_BUCKET = re.compile(r"(?i)(?:^|[-_.])(?:personal|laptop|home)(?:[-_.]|$)")
_WRITES_TO = re.compile(
    r"(?i)\.to_(?:parquet|csv|json|excel|feather|pickle|orc)\(|upload|put_object|\.write\(|"
    r"copy|save|export|sync"
)


def personal_bucket(text: str) -> tuple[int, Severity, str, str] | None:
    """``(offset, severity, title, why)`` when the code writes to a storage bucket named as
    someone's own (``gs://jdoe-personal-sandbox/…``, ``s3://home-laptop-sync``)."""
    text = text[:_MAX]
    if "://" not in text:
        return None
    for n, m in enumerate(_BUCKET.finditer(text)):
        if n >= 200:
            break
        if not _PERSONAL_BUCKET.search(m.group(1)):
            continue
        if _WRITES_TO.search(text, max(0, m.start() - 120), m.start()) is None:
            continue
        return (
            m.start(),
            Severity.HIGH,
            "writes data to a personal storage bucket",
            f"The bucket {m.group(1)[:60]} is named as someone's own: what the code reads "
            "(people's records, company data) leaves the company's control.",
        )
    return None


def forwards_everything(text: str) -> tuple[int, Severity, str, str] | None:
    """``(offset, severity, title, why)`` when the code sends its whole environment, or a web
    request's whole input, to an address it names; else None."""
    text = text[:_MAX]
    if not any(word in text for word in _SEND_WORDS):
        return None  # nothing that sends: skip the searches
    sends = _SENDS.search(text)
    if sends is None:
        return None
    outside = [m for m in list(_OUT_URL.finditer(text))[:200] if not _LOCAL.match(m.group(1))]
    if not outside:
        return None
    env = _WHOLE_ENV.search(text)
    if env is not None and _reaches_send(text, env):
        return (
            env.start(),
            Severity.CRITICAL,
            "sends the whole environment over the network",
            f"The environment, with every credential the process holds, goes to "
            f"{outside[0].group(1)[:60]}.",
        )
    taken = _WHOLE_INPUT.search(text)
    if taken is None or not _reaches_send(text, taken):
        return None
    sites = {_site(m.group(1)) for m in outside}
    if len(sites) > 3:
        return None  # a file naming many services: not one destination
    return (
        taken.start(),
        Severity.HIGH,
        "sends a web request's whole input to another site",
        f"Every field a user submits (cards, passwords, addresses) is sent on to "
        f"{outside[0].group(1)[:60]} (form-jacking).",
    )
