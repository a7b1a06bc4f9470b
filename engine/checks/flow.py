"""The abstract values of the taint engine: where data may come from, per kind of sink.

A ``Val`` is what the engine knows about one Python value: a level per sink kind (``CONST``:
built from literals only; ``UNKNOWN``: from somewhere the engine cannot see; ``TAINTED``: from
request input), a few tags, the literal value when there is one (for constant folding), and the
entries of containers built from literals (dicts with constant keys, lists, tuples).
"""

from __future__ import annotations

import ast
from typing import NamedTuple

__all__ = [
    "ARCHIVE",
    "CONST",
    "CRED",
    "DECODED",
    "FMT",
    "KINDS",
    "MODULE",
    "NOCONST",
    "NORM",
    "PASSWD",
    "PATH",
    "PATHOBJ",
    "REQUEST",
    "SAFELOADER",
    "SHELL",
    "SQL",
    "SQLTEXT",
    "TAINTED",
    "UNKNOWN",
    "Val",
    "clean",
    "constant",
    "data_tags",
    "join",
    "joined",
    "level",
    "light",
    "local_input",
    "tainted",
    "unknown",
]

CONST, UNKNOWN, TAINTED = 0, 1, 2
SHELL, SQL, PATH, OTHER = 0, 1, 2, 3
KINDS = (SHELL, SQL, PATH, OTHER)
"""Sink kinds a sanitizer can clear separately (``shlex.quote`` clears SHELL only, ...)."""

SQLTEXT = 1
"""The value carries literal SQL text (SELECT ... FROM, INSERT INTO, ...)."""
FMT = 2
"""Built by string formatting or concatenation with a non-constant part."""
CRED = 4
"""Derived from a password, token or secret (by the names it was read from)."""
REQUEST = 8
"""A web request object: its input attributes (args, form, GET, ...) are tainted."""
MODULE = 16
"""A module, class or function name: no data of its own."""
NORM = 32
"""A normalized path (realpath, abspath, normpath, Path.resolve)."""
PATHOBJ = 64
"""A pathlib path: its read/write methods are file sinks."""
WEAKHASH = 128
"""The result of md5/sha1 hashing (``Val.node`` is the hashing call)."""
SAFELOADER = 256
"""A yaml loader that builds plain data only (SafeLoader, CSafeLoader, BaseLoader)."""
ARCHIVE = 512
"""An open tar archive (``tarfile.open``): its extraction is a file sink."""
DECODED = 1024
"""Decoded or decompressed data (base64, hex, rot13, zlib, marshal): code hidden from review
when it reaches eval/exec."""
PASSWD = 2048
"""Derived from a password (a ``CRED`` named password, passwd, pwd, passphrase, ...)."""
_DATA_TAGS = SQLTEXT | FMT | CRED | WEAKHASH | SAFELOADER | DECODED | PASSWD


class _NoConst:
    def __repr__(self) -> str:
        return "NOCONST"


NOCONST: object = _NoConst()
"""``Val.const`` when the literal value is not known."""

Items = tuple[tuple[object, "Val"], ...]


class Val(NamedTuple):
    """What the engine knows about one value."""

    lv: tuple[int, int, int, int]
    tags: int = 0
    origin: str | None = None
    """Where tainted data came from, e.g. ``request.args (line 12)``."""
    items: Items | None = None
    """Entries of a container built from literals: constant keys or list positions."""
    seq: bool = False
    """``items`` are the positions 0..n-1 of a list or tuple."""
    const: object = NOCONST
    node: ast.AST | None = None
    """The md5/sha1 call a ``WEAKHASH`` value came from."""
    cls: str | None = None
    """The class, defined in the analysed code, this value is an instance of."""
    src: tuple[str | None, int] | None = None
    """File and line where tainted data was read (``origin`` in numbers)."""


_C = (CONST, CONST, CONST, CONST)
_U = (UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN)
_T = (TAINTED, TAINTED, TAINTED, TAINTED)


def constant(value: object = NOCONST, tags: int = 0) -> Val:
    """A value built from literals (``value`` when it is a plain literal)."""
    return Val(_C, tags, const=value)


def unknown(tags: int = 0) -> Val:
    """A value of unknown origin."""
    return Val(_U, tags)


def tainted(origin: str, tags: int = 0, src: tuple[str | None, int] | None = None) -> Val:
    """Request input read at ``origin`` (``src``: its file and line)."""
    return Val(_T, tags, origin, src=src)


def local_input(origin: str, src: tuple[str | None, int] | None = None) -> Val:
    """Input from the local user (command line, stdin): tainted for injections, but not for
    file paths, which the user names on purpose."""
    return Val((TAINTED, TAINTED, UNKNOWN, TAINTED), 0, origin, src=src)


MAX_ITEMS = 4096
"""Entries of a container value, counted through the containers nested in it."""


def light(items: Items, limit: int = MAX_ITEMS) -> bool:
    """Whether container entries, nested ones counted each time they occur, stay within
    ``limit`` (comparing, hashing and joining a heavier value would cost too much: it is
    collapsed instead). Stops counting past the limit."""
    total = 0
    stack = [items]
    while stack:
        cur = stack.pop()
        total += len(cur)
        if total > limit:
            return False
        stack.extend(v.items for _, v in cur if v.items)
    return True


def level(v: Val, kind: int = OTHER) -> int:
    """The level of ``v`` for one sink kind."""
    return v.lv[kind]


def data_tags(v: Val) -> int:
    """The tags that survive formatting and calls (not REQUEST, MODULE, NORM, ...)."""
    return v.tags & _DATA_TAGS


def clean(v: Val, kinds: tuple[int, ...] = KINDS) -> Val:
    """``v`` sanitized for ``kinds`` (all kinds by default: int(), len(), an allow-list)."""
    a, b, c, d = (CONST if k in kinds else x for k, x in enumerate(v.lv))
    if a or b or c or d:
        return v._replace(lv=(a, b, c, d))
    return v._replace(lv=(a, b, c, d), origin=None, src=None)


def _max(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    if a == b:
        return a
    return (max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _join_items(a: Val, b: Val) -> Items | None:
    if a.items is None or b.items is None or a.seq != b.seq:
        return None
    keys_a = [k for k, _ in a.items]
    if keys_a != [k for k, _ in b.items]:
        return None
    return tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items, strict=True))


def join(a: Val, b: Val) -> Val:
    """What a value is when it may be ``a`` or ``b`` (branches merging)."""
    if a == b:
        return a
    return Val(
        _max(a.lv, b.lv),
        a.tags | b.tags,
        a.origin if a.origin is not None else b.origin,
        _join_items(a, b),
        a.seq and b.seq,
        a.const if a.const == b.const and type(a.const) is type(b.const) else NOCONST,
        a.node if a.node is not None else b.node,
        a.cls if a.cls == b.cls else None,
        a.src if a.src is not None else b.src,
    )


def joined(vals: list[Val] | tuple[Val, ...], tags: int = 0) -> Val:
    """A value computed from ``vals`` (formatting, arithmetic, a call): levels and data tags."""
    lv = _C
    origin: str | None = None
    node: ast.AST | None = None
    src: tuple[str | None, int] | None = None
    out_tags = tags
    for v in vals:
        lv = _max(lv, v.lv)
        out_tags |= data_tags(v)
        if origin is None:
            origin, src = v.origin, v.src
        if node is None:
            node = v.node
    return Val(lv, out_tags, origin, node=node, src=src)
