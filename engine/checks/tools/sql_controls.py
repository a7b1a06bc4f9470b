"""Rows that *are* a safety or legal control, removed or switched off by a statement (for
``sql_rules``): a lockout/tagout or permit-to-work of equipment people are working on, a
legal or litigation hold, an ethical wall or information barrier between teams, a
do-not-contact or suppression list. Deleting such a row, or updating its status or active
flag, lifts the control as surely as turning off a switch, whatever the schema calls it.

High: a person confirms. Gated on a substring test of the statement's lower-cased text, so
other SQL costs one scan of a bounded window. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .sql_issue import H, Issue, fragment
from .sql_money import snake
from .sql_parse import Parsed

__all__ = ["control_rows"]

_WINDOW = 4_000
_GATE = (
    "lockout", "tagout", "loto", "permit", "interlock", "hold", "wall", "barrier", "screen",
    "suppress", "do_not", "donot", "dnc", "opt_out", "optout",
)  # fmt: skip
_CONTROL_TABLE = re.compile(
    r"lockout|tagout|(?:^|_)loto(?:_|$)|permits?_to_work|safety_interlock|interlock_bypass"
    r"|(?:legal|litigation|preservation)_holds?|ethical_walls?|info(?:rmation)?_barriers?"
    r"|conflict_(?:walls?|screens?)|(?:^|_)walls?_members?|do_?not_(?:call|contact|mail|email)"
    r"|(?:^|_)dnc(?:_|$)|suppressions?(?:_|$)|opt_?outs?(?:_|$)"
)
"""Table names of controls (after ``snake``: ``EthicalWallMembers`` -> ``ethical_wall_members``)."""
_SWITCH = re.compile(
    r"(?:^|_)(?:status|state|active|is_active|enabled|is_enabled|released|lifted|removed|"
    r"cleared|ended|end_date|ends_at|expires?_at|valid_to|valid_until|effective_to)$"
)
"""Columns whose value says whether the control is in force."""


_IN_FORCE = frozenset(
    {"active", "on", "true", "1", "enabled", "in_force", "applied", "locked", "open", "placed"}
)
"""Values of a status or active column that put a control in force (a hold placed, a lock
applied): tightening, not lifting. A ``released`` or ``lifted`` column set to 1 lifts it."""
_STATE = re.compile(r"(?:^|_)(?:status|state|active|is_active|enabled|is_enabled)$")


def _puts_in_force(value: exp.Expression) -> bool:
    if isinstance(value, exp.Boolean):
        return bool(value.this)
    return isinstance(value, exp.Literal) and str(value.this).strip().lower() in _IN_FORCE


def _table(node: exp.Expression) -> str:
    t = node.this
    if isinstance(t, exp.Schema):
        t = t.this
    return t.sql()[:80] if isinstance(t, exp.Expression) else ""


def control_rows(p: Parsed) -> Iterator[Issue]:
    """A DELETE of rows from a table of safety or legal controls, or an UPDATE of their
    status, active flag or end date: the control is lifted."""
    lower = p.text[:_WINDOW].lower()
    if p.tree is None or not any(g in lower for g in _GATE):
        return
    for n, node in enumerate(p.tree.find_all(exp.Delete, exp.Update)):
        if n > 8:
            return
        name = _table(node)
        if not name or _CONTROL_TABLE.search(snake(name)) is None:
            continue
        if isinstance(node, exp.Delete):
            yield Issue(
                H, f"removes rows of a safety or legal control ({name})", fragment(p), "change"
            )
            return
        cols = [
            snake(e.this.name)
            for e in node.expressions[:64]
            if isinstance(e, exp.EQ)
            and isinstance(e.this, exp.Column)
            and not (_STATE.search(snake(e.this.name)) and _puts_in_force(e.expression))
        ]
        switched = next((c for c in cols if _SWITCH.search(c)), None)
        if switched is not None:
            yield Issue(
                H,
                f"switches off a safety or legal control ({name}.{switched})",
                fragment(p),
                "change",
            )
            return
