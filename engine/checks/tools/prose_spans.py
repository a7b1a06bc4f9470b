"""Reading a pattern only where its first word stands (for the ``prose_*`` readers): a pattern
that may begin at many places of a long text is tried at the first few occurrences of its
starting words, each within a short span, so a text repeating the word costs no more than a
few matches. Pure."""

from __future__ import annotations

import re
from itertools import islice

__all__ = ["anchored"]

TRIES = 16
"""Occurrences of the starting words tried."""
SPAN = 160
"""Characters from each occurrence the pattern may match within."""


def anchored(start: re.Pattern[str], pattern: re.Pattern[str], window: str) -> bool:
    """Whether ``pattern`` matches at one of the first ``TRIES`` occurrences of ``start`` in
    ``window``, within ``SPAN`` characters of it."""
    return any(
        pattern.match(window, m.start(), m.start() + SPAN) is not None
        for m in islice(start.finditer(window), TRIES)
    )
