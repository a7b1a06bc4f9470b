"""Routines made to run with more rights than their caller, or to replace a check the
application trusts:

- a ``SECURITY DEFINER`` function or procedure (PostgreSQL; MySQL's ``SQL SECURITY DEFINER``),
  or one created ``DEFINER = root``: whoever may call it acts with its owner's rights;
- an authentication or authorization routine replaced (``CREATE OR REPLACE FUNCTION
  auth.verify_password …``, ``has_role``, ``check_access``): the check itself rewritten, so
  one ``RETURN true`` lets everyone in.

Either needs a person, whatever the routine's body says."""

from __future__ import annotations

import re
from itertools import pairwise

from .sql_issue import H, Issue, fragment, object_names
from .sql_lex import TokKind
from .sql_parse import Parsed
from .sql_words import ADMIN_ROLES

__all__ = ["routine_risk"]

_ROUTINES = frozenset({"FUNCTION", "PROCEDURE"})
_AUTH_NAME = re.compile(
    r"(?i)(?:^|[._])(?:auth|authn|authz|iam|security)\.|(?:^|[._])\w*(?:login|logon|password|"
    r"passwd|verify|authenticat|authori[sz]|permission|has_role|is_admin|check_access|"
    r"can_access|api_key|session_valid|mfa|otp)\w*$"
)
"""Routine names (and schemas) that say the routine decides who gets in."""


def routine_risk(p: Parsed) -> Issue | None:
    """``p`` creates a routine that runs with its owner's rights or replaces an
    authentication check (see the module's docstring)."""
    toks = [t for t in p.stmt.tokens[:80] if t.kind is not TokKind.COMMENT]
    words = [t.upper for t in toks if t.kind is TokKind.WORD]
    if words[:1] != ["CREATE"]:
        return None
    k = next((k for k, t in enumerate(toks[:16]) if t.upper in _ROUTINES), -1)
    if k == -1:
        return None
    pairs = set(pairwise(words))
    if ("SECURITY", "DEFINER") in pairs:
        return Issue(
            H,
            "creates a routine that runs with its owner's rights (SECURITY DEFINER)",
            fragment(p),
            "privilege",
        )
    definer = next((toks[j + 2] for j in range(k - 2) if toks[j].upper == "DEFINER"), None)
    if definer is not None and definer.text.strip("'\"`").lower() in ADMIN_ROLES:
        return Issue(H, "creates a routine that runs as an administrator", fragment(p), "privilege")
    names = object_names(tuple(toks), k + 1)
    if ("OR", "REPLACE") in pairs and names and _AUTH_NAME.search(names[0]):
        return Issue(
            H, f"replaces an authentication routine ({names[0][:60]})", fragment(p), "privilege"
        )
    return None
