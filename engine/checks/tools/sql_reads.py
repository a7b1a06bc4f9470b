"""What a parsed SQL read returns, from sqlglot's tree: its row limit, the tables it reads, the
credential columns and tables it returns, and what the second half of a UNION reads."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from .sql_words import CREDENTIAL_TABLES, RECON_FUNCTIONS, SCHEMA_TABLES, credential_column

__all__ = ["bare_credentials", "credential_reads", "limit_of", "table_names", "union_shape"]


def limit_of(select: exp.Expression) -> int | None:
    """The row limit of a SELECT as a number; None when absent; -1 when not a literal."""
    limit = select.args.get("limit")
    if limit is None:
        return None
    count = limit.args.get("expression") or limit.args.get("count")
    if isinstance(count, exp.Literal) and not count.is_string:
        try:
            return int(float(count.this))
        except ValueError:
            return -1
    return -1


def table_names(node: exp.Expression) -> list[str]:
    """The tables ``node`` reads (``db.table`` when qualified), lower-case."""
    out: list[str] = []
    for n, t in enumerate(node.find_all(exp.Table)):
        if n > 200:
            break
        name = t.name.lower()
        db = t.args.get("db")
        out.append(f"{db.name.lower()}.{name}" if isinstance(db, exp.Identifier) else name)
    return out


def _from(select: exp.Expression) -> exp.Expression | None:
    got = select.args.get("from_") or select.args.get("from")
    return got if isinstance(got, exp.Expression) else None


def _projected_columns(select: exp.Select) -> Iterator[str]:
    for proj in select.expressions:
        for col in proj.find_all(exp.Column):
            if col.find_ancestor(exp.Count) is None:
                yield col.name


def credential_reads(select: exp.Select) -> tuple[list[str], list[str]]:
    """The credential columns a SELECT returns and the credential tables it reads."""
    cols = sorted({c for c in _projected_columns(select) if credential_column(c)})
    aggregate_only = all(p.find(exp.AggFunc) is not None for p in select.expressions)
    from_ = _from(select)
    tables = table_names(from_) if from_ is not None else []
    cred = [
        t for t in tables if t in CREDENTIAL_TABLES or t.rsplit(".", 1)[-1] in CREDENTIAL_TABLES
    ]
    return cols, ([] if aggregate_only else cred)


def bare_credentials(select: exp.Select) -> list[str]:
    """The credential columns a SELECT returns as they are stored (``password``, ``otp_secret
    AS s``), not passed through a function (``right(ssn, 4)``, ``count(token)``)."""
    out: set[str] = set()
    for proj in select.expressions[:64]:
        col = proj.this if isinstance(proj, exp.Alias) else proj
        if isinstance(col, exp.Column) and credential_column(col.name):
            out.add(col.name)
    return sorted(out)


def union_shape(tree: exp.Expression) -> tuple[str, str] | None:
    """What the second half of a UNION reads: ``("credentials", cols)``, ``("schema", table)``,
    ``("recon", fn)`` or ``("padding", …)`` (``UNION SELECT NULL, NULL``); None for none."""
    for n, node in enumerate(tree.find_all(exp.Union)):
        if n > 50:
            break
        right = node.expression
        if not isinstance(right, exp.Select):
            continue
        cols, creds = credential_reads(right)
        if cols or creds:
            return "credentials", ", ".join(cols or creds)
        for t in table_names(right):
            if t.split(".", 1)[0] in SCHEMA_TABLES or t in SCHEMA_TABLES:
                return "schema", t
        for f in right.find_all(exp.Func, exp.SessionParameter, exp.Parameter):
            if isinstance(f, exp.Anonymous):
                name = f.name.upper()
            elif isinstance(f, exp.Func):
                name = f.sql_name().upper()
            else:
                name = f.sql().upper().replace(" ", "")
            if name in RECON_FUNCTIONS:
                return "recon", name
        projs = right.expressions
        consts = [p for p in projs if isinstance(p, exp.Null | exp.Literal)]
        if len(projs) >= 2 and len(consts) == len(projs) and _from(right) is None:
            nulls = sum(isinstance(p, exp.Null) for p in projs)
            digits = [p.this for p in projs if isinstance(p, exp.Literal) and not p.is_string]
            if nulls >= 2 or digits == [str(i) for i in range(1, len(projs) + 1)]:
                return "padding", right.sql()[:60]
    return None
