"""Passwords and keys a message writes out in shapes the labelled readers of ``prose`` miss
(for ``prose._credential``):

- a bare account and password pair, ``netadmin / Fr4nkfurt!PE#2024``, when the second half has
  a generated password's make-up (upper and lower case, a digit and a symbol);
- a label quoted apart from its value: ``user `app` / pw `Qp7!vRt2#Lm9` ``, ``pass 'x…'``;
- a password said after a few words: ``the temporary password for your account: Rb!Temp-24``;
- a name for a password given a quoted value: ``~/.vault_pass = 'V3lt-ans1ble-pr0d'``;
- a ``user/password@host`` login string of any database client (``app/N7#vQ2r!Lx@db01:1521``);
- a key written out on its own after the word ``key`` (``our munge key: uiKjH2x9…``) when it
  looks generated: both cases and digits, twenty-four characters or more.

Pure functions of the text, each window bounded; a word with the shape of a password but no
label (a version, a ticket id) is not one.
"""

from __future__ import annotations

import re

__all__ = ["more_passwords"]

_MAX_TEXT = 20_000
_BARE_PAIR = re.compile(r"(?<![\w/.@-])([a-z][a-z0-9_.-]{2,31})[ \t]{1,3}/[ \t]{1,3}(\S{8,64})")
"""``account / password`` with nothing around it (the password's make-up decides)."""
_QUOTED_LABEL = re.compile(
    r"(?i)\b(?:pw|pwd|pass|passwd|password|passcode)\b[ \t]{0,3}(?:is[ \t]{1,3})?[:=]?[ \t]{0,3}"
    r"[`'\"]([^\s`'\"]{6,64})[`'\"]"
)
_SAID_LATER = re.compile(
    r"(?i)\b(?:password|passwd|passcode|passphrase)\b[^\n:=.!?]{0,60}?[:=][ \t]{0,3}"
    r"[`'\"]?([^\s`'\"<>,;()]{6,64})"
)
_NAMED_QUOTED = re.compile(
    r"(?i)[\w.~/-]{0,40}(?:pass|pwd|secret)\w{0,20}[ \t]{0,3}[:=][ \t]{0,3}"
    r"[`'\"]([^\s`'\"]{6,64})[`'\"]"
)
_LOGIN_STRING = re.compile(
    r"(?<![\w/:.-])([A-Za-z][\w$#]{1,29})/([^\s@/\"'`]{6,64})@[A-Za-z0-9][\w-]{0,62}\.[\w.-]{2,200}"
)
_KEY_ALONE = re.compile(
    r"(?i)\bkey\b[^:=\n]{0,60}[:=][ \t\r\n]{0,8}[`'\"]?([A-Za-z0-9+/_-]{24,400}={0,2})(?![\w+/=-])"
)
_PLACEHOLDER = re.compile(r"(?i)example|changeme|placeholder|redacted|your|xxxx|\$\{|\{\{")


def _generated(value: str) -> bool:
    """Upper and lower case, a digit and a symbol, eight characters or more: a password, not a
    word, a version or an id."""
    value = value.rstrip(".,;:)")
    return (
        len(value) >= 8
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and any(not c.isalnum() for c in value)
        and _PLACEHOLDER.search(value) is None
    )


def _passwordish(value: str) -> bool:
    """Letters with digits, and a symbol or both cases: ``Rb!Temp-2024-09``, ``V3lt-ans1ble``."""
    value = value.rstrip(".,;:)")
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    cased = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbol = any(not c.isalnum() for c in value)
    return (
        len(value) >= 8
        and letters
        and digits
        and (symbol or cased)
        and not value.startswith(("http", "/", "~"))
        and _PLACEHOLDER.search(value) is None
    )


def _keyish(value: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and sum(c.isdigit() for c in value) >= 3
        and len(set(value)) >= 12
        and _PLACEHOLDER.search(value) is None
    )


def more_passwords(raw: str) -> str | None:
    """What credential ``raw`` writes out in one of the shapes above, or None."""
    text = raw[:_MAX_TEXT]
    if "/" in text:
        for m in list(_BARE_PAIR.finditer(text))[:32]:
            if _generated(m.group(2)):
                return "writes out an account and its password"
        for m in list(_LOGIN_STRING.finditer(text))[:32]:
            if _passwordish(m.group(2)):
                return "writes out a login string with its password (user/password@host)"
    lowered = text.lower()
    if "pw" in lowered or "pass" in lowered or "secret" in lowered:
        for pattern in (_QUOTED_LABEL, _SAID_LATER, _NAMED_QUOTED):
            for m in list(pattern.finditer(text))[:16]:
                if _passwordish(m.group(1)):
                    return "writes out what looks like a password"
    if "key" in lowered:
        for m in list(_KEY_ALONE.finditer(text))[:16]:
            if _keyish(m.group(1)):
                return "writes out what looks like a secret key"
    return None
