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

from .sql_issue import C, H, Issue, fragment
from .sql_money import money_changes, snake
from .sql_parse import Parsed
from .sql_scope import Target, record_table, sensitive_table, throwaway_schema

__all__ = ["AUDIT_TABLE", "housekeeping", "mass_changes", "narrow_statement", "narrow_where"]

AUDIT_TABLE = re.compile(
    r"(?i)(?:^|[._\"`])(?:\w*audit\w*|security_?log\w*|(?:admin|moderation|mod|staff|moderator)"
    r"_?(?:actions?|logs?|events?|history)|access_?logs?)(?:$|[.\"`])"
)
"""Tables that record who did what (``audit_log``, ``admin_actions``, ``moderation_log``):
their rows are removed or changed only to hide it."""
_GUARD_COLUMN = re.compile(
    r"(?i)(?:^|_)(?:restricted|restriction|restrict|confidential|sensitive|break_?glass\w*|"
    r"protected|private|masked|is_hidden|locked|vip\w*|requires?_\w+|rls\w*|need_to_know)$"
)
"""Columns that keep rows from most readers (``vip_restricted``, ``break_glass_required``)."""
_OFF = frozenset({"0", "false", "f", "no", "n", "off", "none", ""})
_MAX_NODES = 20


_KEY_COLUMN = re.compile(r"(?i)^(?:id|uuid|guid|pk|rowid|oid|email|username|login|slug)$")
"""Columns that name one row in any table (``id``, ``uuid``, ``email``)."""
_OWN_KEY = ("_id", "_uuid", "_key", "_no", "_number")
"""…and a table's own key named after it (``job_id`` of ``jobs``, ``invoice_number`` of
``invoices``); another table's key (``customer_id``, ``tenant_id``) keeps all its rows."""


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _snake(name: str) -> str:
    """``WorkOrderId`` as ``work_order_id``."""
    return _CAMEL.sub("_", name).lower()


def _key_column(name: str, table: str) -> bool:
    low = _snake(name)
    if _KEY_COLUMN.match(low):
        return True
    base = _snake(table.rsplit(".", 1)[-1].strip('`"[]'))
    last = base.rsplit("_", 1)[-1]  # ``plan_id`` of ``payment_plans``
    stems = {base, base.removesuffix("s"), base.removesuffix("es"), base.split("_", 1)[0]}
    stems |= {last.removesuffix("s"), base.removesuffix("s").rsplit("_", 1)[-1]}
    return any(low == f"{stem}{end}" for stem in stems if stem for end in _OWN_KEY)


_MAX_LISTED = 100


def _one_value(e: exp.Expression) -> bool:
    """A literal or a bound parameter (``7``, ``$1``, ``?``, ``ANY($1)``: a list of keys)."""
    if isinstance(e, exp.Any):
        inner = e.this.unnest() if isinstance(e.this, exp.Paren) else e.this
        return isinstance(inner, exp.Placeholder | exp.Parameter | exp.Array) or (
            isinstance(inner, exp.Column) and inner.name.startswith(("$", ":", "@", "?"))
        )
    return isinstance(e, exp.Literal | exp.Placeholder | exp.Parameter) or (
        isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal)
    )


def _key_test(e: exp.Expression, table: str) -> bool:
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.EQ):
        for col, value in ((e.this, e.expression), (e.expression, e.this)):
            if isinstance(col, exp.Column) and _key_column(col.name, table) and _one_value(value):
                return True
        return False
    if isinstance(e, exp.In) and isinstance(e.this, exp.Column) and not e.args.get("query"):
        values = e.expressions
        return (
            _key_column(e.this.name, table)
            and 0 < len(values) <= _MAX_LISTED
            and all(_one_value(v) for v in values)
        )
    return False


def narrow_where(where: exp.Expression | None, table: str = "") -> bool:
    """A WHERE on ``table`` that picks rows by their key: one of its ANDed tests is ``key =
    value`` or ``key IN (a few values)`` (``id = 99127 AND status = 'failed'``). A date range,
    a status flag, a pattern or another table's key keeps a whole class of rows."""
    if where is None:
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    stack, seen = [cond], 0
    while stack and seen < 64:
        e = stack.pop()
        seen += 1
        while isinstance(e, exp.Paren):
            e = e.this
        if isinstance(e, exp.And):
            stack.extend((e.this, e.expression))
        elif _key_test(e, table):
            return True
    return False


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
        if where is None or throwaway_schema(name):
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
        elif not narrow and _expiring(name, where):
            continue  # housekeeping: expired sessions, tokens, abandoned carts
        elif not narrow and verb == "UPDATE" and _one_owner(where, name):
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
        elif not narrow and verb == "DELETE" and _purge(name, where):
            where_text = " ".join(where.this.sql().split())[:50]
            yield Issue(
                H,
                f"DELETE of a whole class of rows ({name} WHERE {where_text})",
                fragment(p),
                "change",
            )
    yield from _bulk_inserts(p, target)


_EPHEMERAL = re.compile(
    r"(?:^|_)(?:sessions?|carts?|tokens?|nonces?|otps?|caches?|password_resets?|"
    r"login_attempts?|verification_codes?|magic_links?|rate_limits?|idempotency_keys?)$"
)
"""Tables whose rows expire by design (``django_session``, ``carts_cart``, ``api_tokens``)."""
_CLOCK = re.compile(
    r"(?i)\b(?:now\s*\(|current_(?:timestamp|date)|getdate\s*\(|sysdate|systimestamp|"
    r"interval\b|dateadd\s*\(|date_sub\s*\(|datetime\s*\(\s*'now')"
)


_DISPOSABLE = re.compile(
    r"(?:^|_)(?:tmp|temp|test|tests|scratch|staging|stage|cache|caches|queue|queues|jobs?|"
    r"logs?|events?|import|imports|seed|fixtures?)(?:_|$)"
)
_DATE_LITERAL = re.compile(r"^'?\d{4}-\d{2}-\d{2}")


def _purge(table: str, where: exp.Expression) -> bool:
    """A DELETE that purges a class of kept records wherever it runs: rows picked by a
    query of another table (``matter_id IN (SELECT … WHERE status = 'closed')``) or every row
    before a fixed date (``read_date < DATE '2024-01-01'``), of a table not named as
    disposable (queues, caches, logs, staging, test tables)."""
    if _DISPOSABLE.search(snake(table)) or _EPHEMERAL.search(snake(table)):
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    if cond.find(exp.Select) is not None:
        return True
    for c in cond.find_all(exp.LT, exp.LTE):
        value = c.expression
        if isinstance(value, exp.Cast | exp.Anonymous | exp.Func) and not _CLOCK.search(
            value.sql()
        ):
            value = value.find(exp.Literal) or value
        if isinstance(value, exp.Literal) and _DATE_LITERAL.match(str(value.this)):
            return True
    return False


def _one_owner(where: exp.Expression, table: str) -> bool:
    """An UPDATE's WHERE that keeps the rows of one owner (``user_id = 10442``) in a table
    that is not people's, money's or clinical records (``notifications``, ``preferences``)."""
    if record_table(table) or sensitive_table(table):
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    if cond.find(exp.Select) is not None:
        return False
    stack: list[exp.Expression] = [cond]
    tests: list[exp.Expression] = []
    while stack and len(tests) < 64:
        e = stack.pop()
        if isinstance(e, exp.Paren):
            stack.append(e.this)
        elif isinstance(e, exp.And):
            stack.extend((e.this, e.expression))
        else:
            tests.append(e)
    return any(
        isinstance(t, exp.EQ)
        and isinstance(t.this, exp.Column)
        and snake(t.this.name).endswith("_id")
        and _one_value(t.expression)
        for t in tests
    )


def housekeeping(p: Parsed) -> bool:
    """Every write of ``p`` is routine: a DELETE of expired rows of a table whose rows expire,
    or an UPDATE of one owner's rows of a table that is not records."""
    if p.tree is None:
        return False
    nodes = list(_writes(p.tree))
    return bool(nodes) and all(
        (where := n.args.get("where")) is not None
        and (
            _expiring(_name(n), where) if isinstance(n, exp.Delete) else _one_owner(where, _name(n))
        )
        for n in nodes
    )


def _expiring(table: str, where: exp.Expression) -> bool:
    """A WHERE that keeps the expired rows of a table whose rows expire by design."""
    if not _EPHEMERAL.search(snake(table)):
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    if cond.find(exp.Select) is not None:
        return False
    return any(_CLOCK.search(c.sql()) for c in cond.find_all(exp.LT, exp.LTE, exp.GT, exp.GTE))


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
