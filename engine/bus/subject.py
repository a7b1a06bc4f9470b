"""NATS subject syntax: validation and wildcard matching."""

from __future__ import annotations

__all__ = ["matches", "validate_publish_subject", "validate_subscribe_subject"]


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
