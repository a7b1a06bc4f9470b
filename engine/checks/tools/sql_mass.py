"""Mass changes of records: an UPDATE or DELETE whose WHERE keeps a whole class of rows (a date
range, a status flag, a pattern) rather than rows picked by their key, on production data or on
a clinical, personal-data, billing or moderation table anywhere; restrictions lifted from many rows
(``SET restricted = false``); any change to an audit or moderation trail; rows added in bulk to
such a table from a query in production.

Nothing here fires in a throwaway database or on a scratch schema's tables (``sql_scope``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .sql_all_past import before_now
from .sql_issue import C, H, Issue, fragment
from .sql_keys import conjuncts, key_column, one_value, snake_case
from .sql_money import money_changes
from .sql_parse import Parsed
from .sql_queue_done import finished_queue_rows
from .sql_routine import expiring, one_owner, purge
from .sql_scope import Target, record_table, sensitive_table, throwaway_schema, transient_table
from .sql_window import aged_out

__all__ = ["AUDIT_TABLE", "housekeeping", "mass_changes", "narrow_statement", "narrow_where"]

AUDIT_TABLE = re.compile(
    r"(?i)(?:^|[._\"`])(?:\w*audit\w*|aud\$|fga_log\$|security_?(?:log|event)\w*|"
    r"(?:admin|moderation|mod|staff|moderator)"
    r"_?(?:actions?|logs?|events?|history)|access_?logs?)(?:$|[.\"`])"
)
"""Tables that record who did what (``audit_log``, ``admin_actions``, ``moderation_log``,
``security_events``, Oracle's ``SYS.AUD$``):
their rows are removed or changed only to hide it."""
_GUARD_COLUMN = re.compile(
    r"(?i)(?:^|_)(?:restricted|restriction|restrict|confidential\w*|confid(?:_\w+)?|sensitive|"
    r"break_?glass\w*|protected|private|masked|is_hidden|locked|vip\w*|requires?_\w+|rls\w*|"
    r"need_to_know|embargo\w*|life_?support\w*|medical_?(?:priority|dependen\w*)|"
    r"critical_?care\w*|vulnerable\w*|legal_?hold\w*|safeguard\w*)$"
)
"""Columns that keep rows from most readers or keep people safe (``vip_restricted``,
``break_glass_required``, ``confid_ind``, ``embargo_until``, ``life_support``): cleared on a
whole class of rows, a protection the rows were given is gone."""
_OFF = frozenset({"0", "false", "f", "no", "n", "off", "none", ""})
_MAX_NODES = 20


_MAX_LISTED = 100
_ID_COLUMN = re.compile(r"(?:^|_)(?:id|uuid|guid|no|number|sku|ref)$")
"""Columns that name one entity each (``employee_id``, ``order_no``); a ``status_code`` or
``country_code`` names a class."""


def _key_test(e: exp.Expression, table: str) -> bool:
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.EQ):
        for col, value in ((e.this, e.expression), (e.expression, e.this)):
            if (
                isinstance(col, exp.Column)
                and (key_column(col.name, table) or _business_key(col.name, table))
                and one_value(value)
            ):
                return True
        return False
    if isinstance(e, exp.In) and isinstance(e.this, exp.Column) and not e.args.get("query"):
        values = e.expressions
        return (
            (key_column(e.this.name, table) or _listed_ids(e.this.name, table))
            and 0 < len(values) <= _MAX_LISTED
            and all(one_value(v) for v in values)
        )
    return False


_BUSINESS_KEY = frozenset({"sku", "item_sku", "product_sku"})
"""Columns that carry one product's stock-keeping unit. Another entity's number
(``customer_number``, ``batch_no``, ``route_no``) given one value keeps all that entity's rows,
a class; a table's own number (``po_number`` of ``purchase_orders``) is ``key_column``'s."""


def _business_key(column: str, table: str) -> bool:
    """``sku = 'X'``: one product's rows, in a table that is not people's records."""
    return snake_case(column) in _BUSINESS_KEY and not sensitive_table(table)


def _listed_ids(column: str, table: str) -> bool:
    """An identifier column given a typed list (``employee_id IN ('E1', 'E2')``): the rows
    of the entities the statement names, not a class; records tables keep the stricter
    reading (a list of patients' ids is all their records)."""
    return bool(_ID_COLUMN.search(snake_case(column))) and not sensitive_table(table)


def narrow_where(where: exp.Expression | None, table: str = "") -> bool:
    """A WHERE on ``table`` that picks rows by their key: one of its ANDed tests is ``key =
    value`` or ``key IN (a few values)`` (``id = 99127 AND status = 'failed'``). A date range,
    a status flag, a pattern or another table's key keeps a whole class of rows."""
    if where is None:
        return False
    tests = conjuncts(where.this if isinstance(where, exp.Where) else where)
    return tests is not None and any(_key_test(e, table) for e in tests)


def _off(value: exp.Expression) -> bool:
    if isinstance(value, exp.Boolean):
        return not value.this
    if isinstance(value, exp.Null):
        return True
    return isinstance(value, exp.Literal) and str(value.this).strip().lower() in _OFF


def _lifted(node: exp.Update) -> list[str]:
    """The restriction columns an UPDATE switches off."""
    return sorted(
        e.this.name
        for e in node.expressions
        if isinstance(e, exp.EQ)
        and isinstance(e.this, exp.Column)
        and _GUARD_COLUMN.search(e.this.name)
        and _off(e.expression)
    )


def _name(node: exp.Expression) -> str:
    t = node.this
    if isinstance(t, exp.Schema):
        t = t.this
    return t.sql()[:60] if isinstance(t, exp.Expression) else "?"


def _writes(tree: exp.Expression) -> Iterator[exp.Expression]:
    for n, node in enumerate(tree.find_all(exp.Delete, exp.Update)):
        if n >= _MAX_NODES:
            return
        if node.find_ancestor(exp.Merge) is None:
            yield node


def narrow_statement(p: Parsed) -> bool:
    """Every UPDATE and DELETE of ``p`` picks its rows by key (``WHERE id = 7``)."""
    if p.tree is None:
        return False
    nodes = list(_writes(p.tree))
    return bool(nodes) and all(narrow_where(n.args.get("where"), _name(n)) for n in nodes)


def mass_changes(p: Parsed, target: Target) -> Iterator[Issue]:
    """Mass changes of records in ``p`` (a statement with a WHERE: the ones without are read
    by ``sql_rules``)."""
    if p.tree is None or target.throwaway:
        return
    money = list(money_changes(p, narrow_statement(p)))
    yield from money
    for node in _writes(p.tree):
        if money:
            break
        where = node.args.get("where")
        name = _name(node)
        if where is None or throwaway_schema(name) or transient_table(name):
            continue
        verb = "DELETE" if isinstance(node, exp.Delete) else "UPDATE"
        narrow = narrow_where(where, name)
        lifted = _lifted(node) if isinstance(node, exp.Update) else []
        if AUDIT_TABLE.search(name) or target.audit:
            yield Issue(
                C if verb == "DELETE" else H,
                f"{verb} of audit records ({name})",
                fragment(p),
                "destroy",
            )
        elif lifted and not narrow:
            yield Issue(
                H,
                f"lifts restrictions ({', '.join(lifted)[:50]}) from many rows of {name}",
                fragment(p),
                "change",
            )
        elif not narrow and expiring(name, where):
            continue  # housekeeping: expired sessions, tokens, abandoned carts
        elif not narrow and verb == "DELETE" and finished_queue_rows(name, where):
            continue  # a queue's finished items (sql_queue_done)
        elif not narrow and verb == "UPDATE" and one_owner(where, name):
            continue  # one user's or one parent's rows of a table that is not records
        elif not narrow and (target.production or sensitive_table(name)):
            where_text = " ".join(where.this.sql().split())[:50]
            place = "in production" if target.production else "of records"
            yield Issue(
                H,
                f"{verb} of a whole class of rows {place} ({name} WHERE {where_text})",
                fragment(p),
                "change",
            )
        elif not narrow and verb == "DELETE" and (column := before_now(where)):
            yield Issue(
                H,
                f"DELETE of every row of {name} up to now (no cut-off on {column[:40]})",
                fragment(p),
                "destroy",
            )
        elif not narrow and verb == "DELETE" and (purge(name, where) or aged_out(name, where)):
            where_text = " ".join(where.this.sql().split())[:50]
            yield Issue(
                H,
                f"DELETE of a whole class of rows ({name} WHERE {where_text})",
                fragment(p),
                "change",
            )
    yield from _bulk_inserts(p, target)


def housekeeping(p: Parsed) -> bool:
    """Every write of ``p`` is routine: a DELETE of expired rows of a table whose rows expire
    or of a queue's finished items, an UPDATE of one owner's rows of a table that is not
    records, or a scoped write to a load's landing table (``staging.import_buffer WHERE
    batch_id = …``)."""
    if p.tree is None:
        return False
    nodes = list(_writes(p.tree))
    return bool(nodes) and all(
        (where := n.args.get("where")) is not None
        and (
            transient_table(_name(n))
            or (
                (expiring(_name(n), where) or finished_queue_rows(_name(n), where))
                if isinstance(n, exp.Delete)
                else one_owner(where, _name(n))
            )
        )
        for n in nodes
    )


def _from_table(select: exp.Select) -> str:
    source = select.args.get("from_") or select.args.get("from")
    table = source.this if isinstance(source, exp.From) else None
    return table.name if isinstance(table, exp.Table) else ""


def _bulk_inserts(p: Parsed, target: Target) -> Iterator[Issue]:
    """``INSERT INTO bans SELECT … FROM reports`` in production: a row added to a table of
    records for every row a query finds (no key picks them)."""
    if not target.production or p.tree is None:
        return
    for n, node in enumerate(p.tree.find_all(exp.Insert)):
        if n >= _MAX_NODES:
            return
        source = node.expression
        name = _name(node)
        if not isinstance(source, exp.Query) or not record_table(name):
            continue
        selects = list(source.find_all(exp.Select))[:_MAX_NODES]
        if any(narrow_where(s.args.get("where"), _from_table(s)) for s in selects):
            continue
        yield Issue(
            H,
            f"adds rows to {name} for every row a query finds, in production",
            fragment(p),
            "change",
        )
