"""Data stores emptied through code: an ORM, a database driver or a cache client called with no
filter (``Model.objects.all().delete()``, ``session.query(Order).delete()``,
``knex('orders').del()``, ``prisma.user.deleteMany({})``, ``db.users.delete_many({})``,
``db.users.drop()``, ``redis.flushall()``, ``User.delete_all``), written as the command that
does the same (``psql -c 'DELETE FROM orders'``, ``redis-cli FLUSHALL``) so the shell rules
judge them as they judge the statement itself. A filtered delete (``.filter(id=7).delete()``,
``deleteMany({where: …})``) is everyday and is not read. Pure, bounded, never raises."""

from __future__ import annotations

import re

__all__ = ["data_wipes"]

_MAX = 8
_GATE = re.compile(r"(?i)delete|\.del\(|flush|drop|destroy|truncate|remove\(")
"""A cheap test before the patterns: a text with none of these words empties nothing."""
_NAME = r"[\"']?(\w{1,64})[\"']?"
_DELETES = (
    # Django: Model.objects.all().delete(), Model.objects.filter().delete()
    re.compile(r"\b(\w{1,64})\.objects(?:\.(?:all|filter|exclude)\(\s*\))?\.delete\(\s*\)"),
    # SQLAlchemy: session.query(Order).delete(), Order.query.delete(), execute(delete(Order))
    re.compile(r"\.query\(\s*(\w{1,64})\s*\)\.delete\("),
    re.compile(r"\b(\w{1,64})\.query\.delete\("),
    re.compile(r"\bexecute\(\s*delete\(\s*(\w{1,64})\s*\)\s*\)"),
    # peewee: Order.delete().execute()
    re.compile(r"\b([A-Z]\w{0,63})\.delete\(\s*\)\.execute\("),
    # knex and its kin: knex('orders').del(), db('orders').truncate()
    re.compile(r"(?:\b\w{1,64}|\))\(\s*[\"'](\w{1,64})[\"']\s*\)\.(?:del|truncate)\(\s*\)"),
    # Prisma, MongoDB (pymongo, the node driver, mongoose): x.deleteMany({}), delete_many({})
    re.compile(
        r"(?:\b(\w{1,64})|\[\s*" + _NAME + r"\s*\]|\(\s*[\"'](\w{1,64})[\"']\s*\))"
        r"\s*\.(?:deleteMany|delete_many|remove)"
        r"\(\s*(?:\{\s*\})?\s*\)"
    ),
    # TypeORM: repo.delete({}); Sequelize: Order.destroy({ where: {} }), {truncate: true}
    re.compile(r"\b(\w{1,64})\.delete\(\s*\{\s*\}\s*\)"),
    re.compile(
        r"\b(\w{1,64})\.destroy\(\s*\{\s*(?:where\s*:\s*\{\s*\}|truncate\s*:\s*true)\s*[,}]"
    ),
    # ActiveRecord: User.delete_all, User.all.destroy_all
    re.compile(r"\b([A-Z]\w{0,63})(?:\.all)?\.(?:delete_all|destroy_all)\b"),
)
_DROPS = (
    re.compile(r"\bdb(?:\.(\w{1,64})|\[\s*" + _NAME + r"\s*\])\.drop\(\s*\)"),
    re.compile(r"\b(\w{0,64}coll\w{0,64})\.drop\(\s*\)", re.IGNORECASE),
    re.compile(r"\.(?:drop_collection|dropCollection|drop_database|dropDatabase)\(\s*" + _NAME),
    re.compile(r"\b(\w{1,64})\.drop_all\("),
)
_FLUSH = re.compile(r"\.flush_?(all|db)\s*\(|[\"']flush(all|db)[\"']", re.IGNORECASE)


def data_wipes(code: str) -> list[str]:
    """The unfiltered deletes, drops and flushes of a data store in ``code``, each as the
    shell command that does the same (``psql -c 'DELETE FROM t'``, ``psql -c 'DROP TABLE
    t'``, ``redis-cli FLUSHALL``); at most a few of each kind."""
    if not _GATE.search(code):
        return []
    out: list[str] = []
    for pattern in _DELETES:
        for m in pattern.finditer(code):
            name = next((g for g in m.groups() if g), "") or "records"
            out.append(f"psql -c 'DELETE FROM {name}'")
            if len(out) >= _MAX:
                return out
    for pattern in _DROPS:
        for m in pattern.finditer(code):
            name = next((g for g in m.groups() if g), "") or "collection"
            out.append(f"psql -c 'DROP TABLE {name}'")
            if len(out) >= 2 * _MAX:
                return out
    for m in _FLUSH.finditer(code):
        kind = next((g for g in m.groups() if g), "all").upper()
        out.append(f"redis-cli FLUSH{kind}")
        break
    return out
