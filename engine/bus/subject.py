"""NATS subject syntax: validation and wildcard matching."""

from __future__ import annotations

import re

__all__ = [
    "inbox_prefix_for",
    "matches",
    "validate_inbox_prefix",
    "validate_publish_subject",
    "validate_subscribe_subject",
]


def _tokens(subject: str) -> list[str]:
    if not subject or subject != subject.strip() or any(c in subject for c in " \t\r\n"):
        raise ValueError(f"invalid subject {subject!r}: empty or contains whitespace")
    tokens = subject.split(".")
    if any(t == "" for t in tokens):
        raise ValueError(f"invalid subject {subject!r}: empty token")
    return tokens


def validate_publish_subject(subject: str) -> None:
    """A publish subject has no wildcards."""
    for token in _tokens(subject):
        if token in ("*", ">"):
            raise ValueError(f"cannot publish to wildcard subject {subject!r}")


def validate_subscribe_subject(subject: str) -> tuple[str, ...]:
    """A subscribe subject may use ``*`` anywhere and ``>`` only as the last token."""
    tokens = _tokens(subject)
    for index, token in enumerate(tokens):
        if token == ">" and index != len(tokens) - 1:
            raise ValueError(f"invalid subject {subject!r}: '>' must be the last token")
        if ("*" in token or ">" in token) and token not in ("*", ">"):
            raise ValueError(f"invalid subject {subject!r}: wildcard inside token {token!r}")
    return tuple(tokens)


def matches(pattern: tuple[str, ...], subject: tuple[str, ...]) -> bool:
    """Whether the subject tokens match the pattern tokens."""
    for index, token in enumerate(pattern):
        if token == ">":
            return len(subject) > index
        if index >= len(subject):
            return False
        if token != "*" and token != subject[index]:
            return False
    return len(pattern) == len(subject)


def validate_inbox_prefix(prefix: str) -> str:
    """An inbox prefix (reply subjects are ``PREFIX.<id>``): tokens without wildcards."""
    try:
        validate_publish_subject(prefix)
    except ValueError as exc:
        raise ValueError(f"invalid inbox prefix {prefix!r}: {exc}") from None
    return prefix


def inbox_prefix_for(user: str) -> str:
    """The inbox prefix of a NATS user in deploy/nats-server.conf: ``_INBOX_<user>``.

    Each user may read only its own replies (``_INBOX_<user>.>``), so one agent never sees
    the replies another one asked for. Characters a subject token cannot hold become ``_``.
    """
    return "_INBOX_" + re.sub(r"[^A-Za-z0-9_-]", "_", user)[:64]
