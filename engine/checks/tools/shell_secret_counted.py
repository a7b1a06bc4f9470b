"""A secret read only to be counted (for ``shell_rules_cloud.secret_shown``):
``kubectl get secret api-key -o jsonpath='{.data.key}' | base64 -d | wc -c`` checks that the
secret is set (its length) and does not print the value. The pipeline must end in a counter
(``wc``, ``grep -c``/``-q``) and pass only through filters that write nothing
(``base64``, ``jq``, ``tr``, ``head``…): a digest, ``tee``, a redirection to a file, ``awk`` or
``xargs`` on the way (which can write or run) keep the secret "shown". Pure and bounded."""

from __future__ import annotations

from .shell_model import Cmd

__all__ = ["counted_only"]

_FILTERS = frozenset(
    {"base64", "jq", "yq", "tr", "cut", "head", "tail", "grep", "egrep", "sort", "uniq", "cat"}
)
"""Filters that turn text into text and write nowhere (``cat`` with no file operand)."""
_DIGESTS = frozenset({"wc"})
"""Counters. A digest (``sha256sum``, ``md5sum``) is not one: it prints a value derived from
the secret, which a weak password's can be found from offline."""
_MAX_STAGES = 8


def _silent(cmd: Cmd) -> bool:
    """No redirection but to ``/dev/null`` or from another descriptor."""
    return all(r.target == "/dev/null" or r.op in (">&", "<&") for r in cmd.redirects)


def _counts(cmd: Cmd) -> bool:
    if cmd.name in _DIGESTS:
        return all(not w.startswith("--files0") for w in cmd.argv[1:])
    if cmd.name in ("grep", "egrep"):
        flags = [w for w in cmd.argv[1:] if w.startswith("-") and not w.startswith("--")]
        return any(("c" in f or "q" in f) for f in flags) or "--count" in cmd.argv
    return False


def counted_only(cmd: Cmd) -> bool:
    """Whether ``cmd``'s output reaches nothing but filters that end in a counter or digest
    (see the module): the secret's value is never printed."""
    later = cmd.downstream
    if not later or len(later) > _MAX_STAGES or not _silent(cmd):
        return False
    *middle, last = later
    if not _counts(last) or not _silent(last):
        return False
    return all(
        (c.name in _FILTERS or _counts(c))
        and _silent(c)
        and not (c.name == "cat" and len(c.argv) > 1)
        for c in middle
    )
