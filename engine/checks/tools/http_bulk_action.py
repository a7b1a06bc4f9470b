"""Many records changed by one request (for ``http``), high: a write whose path names a bulk
action — ``POST …/orders/bulk-cancel``, ``…/ticketing/void-batch``, ``…/samples/bulk_dispose``,
``…/contacts/batch/archive``, Google-style ``…/messages:batchDelete`` — or a bare ``…/bulk``
or ``…/batch`` endpoint that deletes, whose path names what it undoes (``…/cancellations/batch``)
or whose body picks everything (``"floors": "all"``, ``"city": "*"``, ``approve_all: true``,
a ``$batch`` of DELETEs), and a search index's ``_delete_by_query``/``_update_by_query``.
One call then cancels, voids, refunds or deletes whatever the filter matches, at once.

Everyday neighbours run: bulk reads, searches, edits and creations (``…/bulk-create-jobs``,
``…/batch/read``, a spreadsheet's ``:batchUpdate``), an event batch posted for analytics
(``/v1/batch``), a search index's ``_bulk`` indexing, a ``$batch`` of GETs, a batch named by its
id (``/batches/B-7/comments``).
Bounded: the path is read up to 600 characters and the body up to 300 keys. Pure."""

from __future__ import annotations

import re
from urllib.parse import unquote

from .body_walk import key_values
from .http_call import HttpCall

__all__ = ["bulk_action"]

_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_BULK = frozenset({"bulk", "batch", "mass", "broadcast"})
_FILLER = frozenset({"job", "jobs", "request", "requests", "operation", "operations", "action"})
_UNDOES = re.compile(
    r"^(?:cancel\w*|void\w*|delet\w*|remov\w*|purg\w*|wip\w*|refund\w*|writeoffs?|"
    r"terminat\w*|dispos\w*|destroy\w*|bans?|revok\w*|unlock\w*|unfreez\w*|releas\w*|"
    r"approv\w*|disabl\w*|expir\w*|archiv\w*|close\w*|suspend\w*|charg\w*|payouts?|pay|"
    r"transfers?|send|reset\w*|lock|kill|shutdown|config\w*|assign\w*|grant\w*|write|"
    r"portouts?|ports?)$"
)
"""Verbs beside a bulk word, and words of the path before a bare bulk endpoint, that undo,
pay, send or reconfigure (``bulk-cancel``, ``…/cancellations/batch``). Other verbs
(``batchUpdate`` of a spreadsheet, ``batchModify`` of mail labels) are an editor's own."""
_BY_QUERY = frozenset({"_delete_by_query", "_update_by_query"})
_ALL = re.compile(
    r"(?i)^(?:all|all[_ -]\w{1,30}|\w{1,30}[_ :-]all(?:[_ -]\w{1,30})?|everyone|everything|\*)$"
)
_ALL_KEY = re.compile(r"(?i)^(?:all|all_\w{1,30}|\w{1,30}_all|match_all)$")
_MAX_KEYS = 300


def _words(segment: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", segment[:120])
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _verb(words: list[str]) -> str | None:
    """The word beside the bulk word (after it, else before it), fillers aside."""
    at = next(i for i, w in enumerate(words) if w in _BULK)
    after = [w for w in words[at + 1 :] if w not in _FILLER and w not in _BULK]
    before = [w for w in words[:at] if w not in _FILLER and w not in _BULK]
    if after:
        return after[0]
    return before[-1] if before else None


def _picks_all(call: HttpCall) -> str | None:
    """A body value or flag that picks everything, or a ``$batch`` request's DELETE."""
    seen = 0
    for _, payload in call.payload:
        for key, value in key_values(payload):
            seen += 1
            if seen > _MAX_KEYS:
                return None
            if isinstance(value, str) and len(value) <= 40:
                text = value.strip()
                if _ALL.match(text) or (key.lower() == "method" and text.upper() == "DELETE"):
                    return f"{key[:30]}: {text}"
            if value is True and _ALL_KEY.match(key):
                return key[:40]
            if key.lower() == "match_all":
                return key
    return None


def bulk_action(call: HttpCall) -> str | None:
    """The title when one request changes many records at once (see the module), else None."""
    url = call.url
    if url is None or call.method not in _WRITES:
        return None
    parts = [unquote(p) for p in url.path[:600].split("/") if p]
    if not parts:
        return None
    last = parts[-1].split(":")[-1]
    if last.lower() in _BY_QUERY:
        return f"changes every document a query matches ({parts[-1][:60]})"
    if last.startswith("_"):
        return None  # a search index's own endpoint (``_bulk`` indexing)
    words = _words(last)
    verb: str | None
    if any(w in _BULK for w in words):
        verb = _verb(words)
        before = parts[-2] if len(parts) >= 2 else ""
    elif len(parts) >= 2 and _words(parts[-2]) in (["bulk"], ["batch"]) and last.isalpha():
        verb, before = words[0] if words else None, ""
    else:
        return None
    if verb is not None and not _UNDOES.match(verb):
        return None
    if verb is not None:
        return f"acts on many records at once ({verb}: {'/'.join(parts[-2:])[:80]})"
    undoes = next((w for w in _words(before) if _UNDOES.match(w)), None)
    picked = _picks_all(call)
    if call.method == "DELETE" or undoes or picked:
        why = picked or undoes or call.method
        return f"acts on many records at once ({'/'.join(parts[-2:])[:60]}; {why})"
    return None
