"""Checks on people and keys that a business tool clears or plants, read from its name words
and argument pairs (for ``business``), each high:

- a compliance screening cleared by hand: an identity (KYC) review answered as passed, a
  sanctions, watch-list or AML match marked a false positive or put on an allow list;
- a deploy key added with write access (a repository's default when ``read_only`` is not
  set): whoever holds the key pushes to the repository from now on.

A review answered as failed, a match confirmed or escalated, and a read-only deploy key are
everyday.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts

__all__ = ["screening_cleared"]

_SCREENING = frozenset(
    {"kyc", "kyb", "aml", "sanctions", "sanction", "screening", "screenings", "watchlist",
     "pep", "applicant", "applicants", "verification", "verifications", "identity", "match",
     "matches", "alert", "alerts", "hit", "hits", "search", "searches", "review", "case"}
)  # fmt: skip
"""Words of a screening tool (``set_review_result``, ``searches.update``, ``kyc_case``)."""
_COMPLIANCE = frozenset(
    {"kyc", "kyb", "aml", "sanctions", "sanction", "screening", "watchlist", "pep",
     "applicant", "applicants", "sumsub", "onfido", "complyadvantage", "persona", "jumio",
     "veriff", "refinitiv", "worldcheck", "alloy", "trulioo", "chainalysis", "elliptic"}
)  # fmt: skip
_SCREENING_KEYS = frozenset(
    {"reviewanswer", "review_answer", "match_status", "matchstatus", "applicantid",
     "applicant_id", "screening_id", "screeningid", "sanctions_match", "watchlist_id"}
)  # fmt: skip
"""Arguments only a screening tool takes (Sumsub's ``reviewAnswer``, a ``match_status``)."""
_ANSWER_KEYS = re.compile(
    r"^(?:review_?answer|review_?result|decision|verdict|outcome|result|match_?status|"
    r"resolution|disposition|risk_?level|status)$"
)
_CLEARED = frozenset(
    {"green", "approved", "approve", "passed", "pass", "clear", "cleared", "verified",
     "false_positive", "falsepositive", "no_match", "not_a_match", "accepted", "whitelisted",
     "allowlisted"}
)  # fmt: skip
_ALLOWS = re.compile(r"^(?:is_?)?(?:whitelist(?:ed)?|allowlist(?:ed)?|white_?listed|exempt\w*)$")
_DEPLOY_KEY = frozenset({"deploy", "deploykey", "deploykeys"})
_KEY_WORDS = frozenset({"key", "keys", "deploykey", "deploykeys"})
_ADDS = frozenset({"create", "add", "new", "put", "set", "upload", "register"})
_KEY_TEXT = re.compile(r"^\s*(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-|sk-ssh-)")


def _screening_cleared(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    compliance = words & _COMPLIANCE or any(k in _SCREENING_KEYS for k, _ in pairs)
    if not (compliance and words & (_SCREENING | _COMPLIANCE)):
        return None
    cleared = next(
        (
            f"{k}={v}"
            for k, v in pairs
            if (_ANSWER_KEYS.match(k) and isinstance(v, str) and v.strip().lower() in _CLEARED)
            or (_ALLOWS.match(k) and v is True)
        ),
        None,
    )
    if cleared is None:
        return None
    return (
        "clears a compliance screening by hand",
        f"`{cleared[:60]}` passes an identity or sanctions check that the screening did not "
        "pass: the customer or payment goes ahead unscreened.",
        "Let a compliance analyst decide matches and manual approvals.",
    )


def _writable_key(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if not (words & _DEPLOY_KEY and words & _KEY_WORDS and words & _ADDS):
        return None
    read_only = next((v for k, v in pairs if k in ("read_only", "readonly")), None)
    if read_only is True or not any(isinstance(v, str) and _KEY_TEXT.match(v) for _, v in pairs):
        return None
    return (
        "adds a deploy key that can push",
        "the key is not read-only: whoever holds it pushes to the repository from now on, "
        "past the people who review changes.",
        "Add deploy keys read-only, or let a repository administrator confirm.",
    )


def screening_cleared(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A compliance screening cleared by hand, or a deploy key added that can push."""
    if not acts(words):
        return
    for found in (_screening_cleared(words, pairs), _writable_key(words, pairs)):
        if found is not None:
            yield found
            return
