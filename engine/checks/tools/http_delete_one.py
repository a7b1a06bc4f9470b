"""Everyday DELETEs of ``tool-http``: one leaf item of a service named by its id — a topic
branch, an image manifest, a media attachment, a discount code, an alert silence, a session or
invitation, a monitoring downtime, an item whose id marks it a draft — and throwaway indices
on the agent's own machine.

A DELETE to a host outside ``allowed_hosts`` needs a human because it may not be undoable; but
removing one disposable item, or one that grants something (a silence mutes alerts, an
invitation or a token lets someone in), is housekeeping or security-positive. Containers
(repositories, projects, users, buckets, courses, lists…) are not leaves and keep the rule.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .http_call import HttpCall
from .http_delete_event import calendar_path

__all__ = ["leaf_delete", "scratch_wildcard"]

_LEAVES = frozenset(
    {"branch", "manifest", "artifact", "cache", "media", "attachment", "upload", "file",
     "image", "thumbnail", "discount_code", "discount", "coupon", "promotion_code",
     "promo_code", "silence", "mute", "snooze", "downtime", "session", "invitation", "invite",
     "comment",
     "draft", "note", "reaction", "label", "contact", "lead", "job_run", "run", "build",
     "pipeline_run", "workflow_run", "notification", "subscriber_tag", "seat_hold",
     "room_hold", "inventory_hold", "stock_hold", "cart_hold", "export", "export_job",
     "report_job", "pod", "messagerule", "message_rule", "inbox_rule", "appointment",
     "booking", "api_key", "apikey", "access_key", "token", "access_token",
     "personal_access_token", "app_password", "swap", "shift_swap", "swap_request"}
)  # fmt: skip
"""Collections whose one item is disposable, or whose removal takes something away from
someone (singular; ``discount_codes`` → ``discount_code``); a seat or stock hold (a
reservation, not a legal hold) and an export job one asked for; a pod (its controller starts
another, as ``kubectl delete pod`` does), a mailbox rule (removing one stops mail being moved
or forwarded), one booking or appointment (cancelled: the slot is freed), and one item of
any ``draft_…`` collection (a draft never went out), an API key or access token (revoked: access
taken away; a KMS or vault ``key`` is not one, its data dies with it) and one swap offered
between people's shifts or slots (withdrawn). Log
entries are not: removing one hides a trace; nor are webhooks: one often feeds a build, an
alert or a security tool, and removing it silences that."""
_CONTAINERS = frozenset(
    {"repo", "repository", "project", "user", "bucket", "org", "organization", "account",
     "team", "namespace", "database", "cluster", "workspace", "group", "site", "domain",
     "zone", "tenant", "app", "application", "key", "secret", "vault", "backup", "snapshot",
     "webhook", "hook", "log", "audit", "event"}
)  # fmt: skip
"""Collections whose item is never a throwaway draft, whatever its id says."""
_DRAFT_ID = re.compile(r"(?i)(?:^|[-_.])draft(?:$|[-_.]\d)")
"""An id the service gave a draft (``2024-06-B-draft-3``): it never went out."""
_RUN_NUMBERED = frozenset({"job"})
"""Collections whose item is one run only when its id is a number (a batch job's ``/job/4417823``
is cancelled; a named or UUID job is a definition, such as a backup job, and keeps the rule)."""
_HELD = frozenset({"reservation", "booking", "order", "cart", "checkout", "basket"})
"""Parents whose ``…/<id>/holds/<id>`` is stock or a seat held for a sale (a legal hold sits
under a matter or a custodian)."""

_PROTECTED = re.compile(
    r"(?i)^(?:main|master|trunk|develop|dev|release|releases|prod|production|staging|stable|"
    r"gh-pages|live)(?:$|/)|^release[/-]"
)
_ITEM = re.compile(
    r"^(?:\d{1,20}|[0-9a-fA-F-]{8,64}|sha256:[0-9a-f]{64}|[A-Za-z]{1,8}_[A-Za-z0-9]{4,40}"
    r"|(?=[^/]*[\d-])[A-Za-z0-9][\w.-]{2,100}={0,2})$"
)
"""One item's id: a number, a hex id or UUID, an image digest, a prefixed id, or a slug
(base64 padding allowed: ``AAMkAG…=``)."""
_CACHE_ENTRY = re.compile(r"^[A-Za-z0-9][\w.:-]{0,100}$")
"""One named entry of a cache (``/cache/rates``): purged, it is filled again on the next read."""
_MANY = re.compile(r"(?i)[*,]|\b_?all\b")
_SCRATCH_WORDS = frozenset(
    {"test", "tests", "testing", "qa", "fixture", "fixtures", "e2e", "tmp", "temp", "scratch",
     "dummy", "mock", "sample", "dev", "local"}
)  # fmt: skip


def _singular(word: str) -> str:
    w = word.lower().replace("-", "_")
    if w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("sses", "ches", "shes")):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


def leaf_delete(call: HttpCall) -> bool:
    """A DELETE of one leaf item named by its id (``/media/99123``,
    ``/repository/branches/feature%2Fx``, ``/silence/<uuid>``), not of a container nor of
    many items (no wildcard, list or ``all``); a branch only when it is not a shared one."""
    url = call.url
    if url is None or call.method != "DELETE" or _MANY.search(unquote(url.query)):
        return False
    parts = [unquote(p) for p in url.path.split("/") if p][-12:]
    if len(parts) < 2 or _MANY.search("/".join(parts[-2:])):
        return False
    item = re.sub(r"\.(?:json|xml)$", "", parts[-1])
    collection = _singular(parts[-2])
    if collection == "event" and calendar_path(parts[:-2]):
        return _ITEM.match(item) is not None  # one meeting of a calendar, not a log's record
    if collection == "hold" and len(parts) >= 4 and _singular(parts[-4]) in _HELD:
        return _ITEM.match(item) is not None  # a booking's hold on stock, not a legal hold
    if collection in _RUN_NUMBERED:
        return item.isdigit() and len(item) <= 20
    if _DRAFT_ID.search(item) and collection not in _CONTAINERS:
        return _ITEM.match(item) is not None  # one draft by its id: it never went out
    if collection not in _LEAVES and not collection.startswith("draft_"):
        return False
    if collection == "cache":
        return _CACHE_ENTRY.match(item) is not None  # a cache entry by name: rebuilt on use
    if collection == "branch":
        return not _PROTECTED.search(item) and "protection" not in item.lower()
    return _ITEM.match(item) is not None


def scratch_wildcard(call: HttpCall, loopback: bool) -> bool:
    """A wildcard DELETE of indices named as test data on this machine
    (``localhost:9200/test-orders-*``): a local test container's leftovers."""
    url = call.url
    if not loopback or url is None or call.method != "DELETE":
        return False
    parts = [p for p in unquote(url.path).split("/") if p]
    if len(parts) != 1 or not re.match(r"[a-z0-9]", parts[0]):
        return False
    words = {w for w in re.split(r"[^a-z0-9]+", parts[0].lower()[:100]) if w}
    return bool(words & _SCRATCH_WORDS)
