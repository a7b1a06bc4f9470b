"""An AWS access key id named in work on that key: a name for a key, not the key.

An access key id (``AKIA…``, ``ASIA…``) is printed by every listing, shown in the console and
written in audit logs; it signs nothing. Deleting an old key by its id, or telling the security
team which key was exposed and rotated, names it. What signs requests is the 40-character
secret access key: a text (or a call) carrying one beside the id is still a credential. An id
handed over with no such work said (stored as a secret, posted in an issue) is still read as
the secrets scanners read it: a credential's half, and a sign the other half is near.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["call_texts", "is_key_id", "lone_key_ids"]

_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_SECRET_RUN = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])")
_SECRET_WORD = re.compile(
    r"(?i)secret[\s_-]*(?:access[\s_-]*)?key|aws_secret|session[\s_-]*token"
    r"|x-amz-(?:signature|credential|security-token)|[?&]signature="
    r"|access[\s_-]*key[\s_-]*id[\"']?\s*[=:]"
)
"""A secret named beside the id, a presigned link (its signature opens the object), or the id
written as a credential setting (``aws_access_key_id=…``, as credentials files and forms carry
it)."""
_KEY_WORK = re.compile(
    r"(?i)delet|deactivat|disabl|rotat|revok|inactiv|expos|leak|compromis|retir|last[\s_-]*used"
    r"|list[\s_-]*access[\s_-]*keys"
)
"""Work on a key that names it by its id: deleting, deactivating, rotating, revoking, listing,
reporting it exposed."""
_MAX_CHARS = 262_144
_MAX_NODES = 4_096


def is_key_id(value: str) -> bool:
    """Whether ``value`` is exactly one AWS access key id: a key's name, which the readers of
    labelled secrets leave to ``lone_key_ids`` and the secrets scanners."""
    return len(value) == 20 and _ID.fullmatch(value) is not None


def _secret_like(run: str) -> bool:
    """A 40-character run mixing upper and lower case letters and digits (a secret key's
    make-up; a hex digest or a word is not)."""
    return (
        any(c.isupper() for c in run)
        and any(c.islower() for c in run)
        and any(c.isdigit() for c in run)
    )


def lone_key_ids(texts: Iterable[str]) -> bool:
    """Whether ``texts`` name at least one AWS access key id in work on the key (deleting,
    rotating, reporting it exposed…) and carry no secret access key (no 40-character
    secret-looking value, no ``secret access key``/``session token`` wording, no presigned
    link's signature, no credential setting). Reads at most 256 KB in all."""
    seen_id = work = False
    budget = _MAX_CHARS
    for text in texts:
        if budget <= 0:
            return False  # not read to the end: no verdict of harmlessness
        part = text[:budget]
        budget -= len(part)
        if _SECRET_WORD.search(part):
            return False
        if any(_secret_like(m.group(0)) for m in _SECRET_RUN.finditer(part)):
            return False
        seen_id = seen_id or _ID.search(part) is not None
        work = work or _KEY_WORK.search(part) is not None
    return seen_id and work


def call_texts(arguments: Mapping[str, Any]) -> list[str]:
    """Every string of a call's arguments (keys too), depth-first, at most 4,096 values."""
    out: list[str] = []
    stack: list[Any] = [arguments]
    while stack and len(out) < _MAX_NODES:
        value = stack.pop()
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                out.append(str(k))
                stack.append(v)
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return out
