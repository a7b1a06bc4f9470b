"""Every field a GraphQL mutation calls, not only its first: ``mutation { addComment(…) { id }
x: deleteRepository(…) { id } }`` deletes the repository as surely as a mutation that starts
with it. Bounded: 64 KiB of text, 24 field calls."""

from __future__ import annotations

import re

__all__ = ["later_delete_field"]

_MUTATION = re.compile(r"(?i)\bmutation\b")
_FIELD_CALL = re.compile(r"\b([A-Za-z][A-Za-z0-9_]{2,80})\s*\(")
_PREFIX = re.compile(r"(?i)^(delete|destroy|purge|drop|remove|wipe)_?([A-Za-z0-9_]{0,60})$")
_SUFFIX = re.compile(
    r"^([a-z][A-Za-z0-9]{1,60}?)(Delete|Destroy|Purge|Remove|Wipe)(?:Many|All|Bulk)?$"
)


def later_delete_field(text: str) -> tuple[str, str] | None:
    """The first field of a mutation that deletes (``deleteRepository``, ``projectDelete``),
    wherever it stands: its name and the thing it deletes; ``None`` for no mutation."""
    start = _MUTATION.search(text[:65536])
    if start is None:
        return None
    for count, found in enumerate(_FIELD_CALL.finditer(text, start.end(), min(len(text), 65536))):
        if count >= 24:
            return None
        name = found.group(1)
        if (m := _PREFIX.match(name)) is not None:
            return name, m.group(2)
        if (m := _SUFFIX.match(name)) is not None:
            return name, m.group(1)
    return None
