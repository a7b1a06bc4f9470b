"""The taint engine's method calls on values: string methods folded on constants, containers
changed in place (``append``, ``update``, ``pop``, ...), path methods, archive member names.

Calls in general (sources, sanitizers, library passthrough, local calls) are in
``interp_calls``, whose ``CallEval`` builds on ``MethodEval``.
"""

from __future__ import annotations

import ast
from typing import Any

from .flow import (
    ARCHIVE,
    CRED,
    FMT,
    MODULE,
    NOCONST,
    NORM,
    PASSWD,
    PATH,
    PATHOBJ,
    REQUEST,
    TAINTED,
    UNKNOWN,
    Val,
    clean,
    constant,
    data_tags,
    join,
    joined,
    light,
    tainted,
)
from .interp_expr import ExprEval, element, from_const
from .interp_sizes import method_size
from .libtypes import MEMBER_LISTS, lib_kind, method_result
from .pynames import dotted
from .sources import PURE, cred_tags, names

__all__ = ["MethodEval", "collapse", "unknown_result", "with_items"]

_STR_METHODS = names(
    """
    format format_map join replace strip lstrip rstrip lower upper title capitalize casefold
    encode decode split rsplit splitlines partition rpartition center ljust rjust zfill
    expandtabs removeprefix removesuffix translate swapcase read readline readlines getvalue
    hexdigest digest hex
    """
)
_PREDICATES = names(
    """
    isdigit isnumeric isdecimal isalnum isalpha isidentifier isascii islower isupper isspace
    startswith endswith is_relative_to exists is_file is_dir
    """
)
_PATH_METHODS = frozenset({"joinpath", "with_name", "with_suffix", "absolute", "expanduser"})
_FOLDABLE = frozenset(_STR_METHODS - {"read", "readline", "readlines", "getvalue"} | _PREDICATES)
_MAX_ENTRIES = 256
"""Entries a container built by ``append``, ``update``, ... keeps apart."""


def unknown_result(v: Val, name: str) -> Val:
    """The result of a call the engine does not know: at least unknown, tainted when its
    arguments are; a password only when the function says so by its name (``get_password``)."""
    lv = (
        max(v.lv[0], UNKNOWN),
        max(v.lv[1], UNKNOWN),
        max(v.lv[2], UNKNOWN),
        max(v.lv[3], UNKNOWN),
    )
    tags = (data_tags(v) & ~(CRED | PASSWD)) | cred_tags(name.rsplit(".", 1)[-1])
    return Val(lv, tags, v.origin, node=v.node, src=v.src)


def with_items(base: Val, items: tuple[tuple[object, Val], ...], seq: bool) -> Val:
    """A container of ``items`` (collapsed to one value when there are too many)."""
    if len(items) > _MAX_ENTRIES or not light(items):
        return collapse(base, [v for _, v in items])
    out = joined([v for _, v in items])
    return out._replace(tags=out.tags | (base.tags & PATHOBJ), items=items, seq=seq)


def collapse(base: Val, extra: list[Val]) -> Val:
    """``base`` joined with ``extra``, its entries no longer kept apart."""
    out = joined([base, *extra])
    return out._replace(tags=out.tags | (base.tags & PATHOBJ))


def _consts(args: list[Val]) -> list[Any] | None:
    consts: list[Any] = []
    for a in args:
        if a.const is not NOCONST:
            consts.append(a.const)
        elif a.items is not None and all(v.const is not NOCONST for _, v in a.items):
            consts.append([v.const for _, v in a.items])
        else:
            return None
    return consts


class MethodEval(ExprEval):
    """Methods called on values (the calls' base class)."""

    def fold_method(self, e: ast.Call, recv: Val, method: str, args: list[Val]) -> object:
        """``recv.method(*args)`` on constant text, its size predicted and paid for first;
        NOCONST when it is not folded, too big or fails."""
        if not isinstance(recv.const, str | bytes) or method not in _FOLDABLE:
            return NOCONST
        consts = _consts(args)
        if consts is None:
            return NOCONST
        size = 1 if method in _PREDICATES else method_size(recv.const, method, consts)
        if size is None or not self.afford(size, e):
            return NOCONST
        try:
            return getattr(recv.const, method)(*consts)
        except Exception:
            return NOCONST

    def _method(
        self, e: ast.Call, canon: str, recv: Val, method: str, args: list[Val], vals: list[Val]
    ) -> Val:
        func = e.func
        assert isinstance(func, ast.Attribute)
        key = dotted(func.value)
        if method in MEMBER_LISTS and (recv.tags & ARCHIVE or lib_kind(recv.cls) == "zip"):
            return self.member_names(e, method)
        typed = method_result(recv.cls, method)
        if typed is not None:
            return unknown_result(joined([recv, *vals]), method)._replace(cls=typed)
        mutated = self._mutate(key, recv, method, args)
        if mutated is not None:
            return mutated
        if method == "get" and recv.items is not None and not recv.seq and len(args) >= 2:
            option = tuple(a.const for a in args[:2])
            if NOCONST not in option:
                found = next((v for k, v in recv.items if k == option), None)
                if found is not None:
                    return found
        if method == "get" and recv.items is not None and not recv.seq and args:
            for k, v in recv.items:
                if k == args[0].const and type(k) is type(args[0].const):
                    return v
            return join(element(recv), args[1]) if len(args) > 1 else element(recv)
        if recv.tags & PATHOBJ:
            if method == "resolve":
                return Val(recv.lv, recv.tags | NORM, recv.origin, src=recv.src)
            if method == "relative_to" and recv.tags & NORM and key in self.env:
                self.env[key] = clean(recv, (PATH,))
            if method in _PATH_METHODS:
                return joined([recv, *vals], PATHOBJ)
        if recv.tags & MODULE and canon in PURE:
            return joined(vals)
        if method in _PREDICATES:
            return constant(self.fold_method(e, recv, method, args))
        if method in _STR_METHODS:
            c = self.fold_method(e, recv, method, args)
            if c is not NOCONST:
                return from_const(c)
            fmt = FMT if method in ("format", "format_map") and any(max(v.lv) for v in vals) else 0
            return joined([recv, *vals], fmt)
        if recv.tags & MODULE:
            return joined(vals) if canon in PURE else unknown_result(joined(vals), canon)
        return unknown_result(joined([recv, *vals]), method)

    def member_names(self, e: ast.Call, method: str) -> Val:
        """Member names of an archive: chosen by whoever made the archive, so a path built
        from them may escape the target directory (zip slip), like request input."""
        line = self.line_of(e)
        what = f"archive member names (.{method}(), line {line})"
        v = tainted(what, src=(self.path, line) if line is not None else None)
        return v._replace(lv=(UNKNOWN, UNKNOWN, TAINTED, UNKNOWN))

    def _mutate(self, key: str, recv: Val, method: str, args: list[Val]) -> Val | None:
        if "?" in key or "()" in key or recv.tags & (MODULE | REQUEST):
            return None
        items = recv.items
        new: Val | None = None
        out: Val = constant(None)
        if method == "set" and items is not None and not recv.seq and len(args) >= 3:
            option = tuple(a.const for a in args[:-1])
            if NOCONST in option:
                new = collapse(recv, args)
            else:
                kept = tuple((k, v) for k, v in items if k != option)
                new = with_items(recv, (*kept, (option, args[-1])), False)
        elif method == "append" and len(args) == 1:
            new = (
                with_items(recv, (*items, (len(items), args[0])), True)
                if items is not None and recv.seq
                else collapse(recv, args)
            )
        elif method in ("extend", "add", "insert", "update") and args:
            if method == "update" and items is not None and args[0].items is not None:
                merged = dict(items)
                merged.update(dict(args[0].items))
                new = with_items(recv, tuple(merged.items()), False)
            else:
                new = collapse(recv, args)
        elif method == "remove" and len(args) == 1 and items is not None and recv.seq:
            idx = next((i for i, (_, v) in enumerate(items) if v == args[0]), None)
            left = [v for i, (_, v) in enumerate(items) if i != idx]
            new = with_items(recv, tuple(enumerate(left)), True) if idx is not None else None
        elif method == "pop" and items is not None:
            pos = args[0].const if args else -1
            index = next((i for i, (k, _) in enumerate(items) if k == pos), None)
            if recv.seq and isinstance(pos, int) and -len(items) <= pos < 0:
                index = len(items) + pos
            if index is None:
                return None
            out = items[index][1]
            rest: list[tuple[object, Val]] = [kv for i, kv in enumerate(items) if i != index]
            if recv.seq:
                rest = list(enumerate(v for _, v in rest))
            new = with_items(recv, tuple(rest), recv.seq)
        elif method == "clear":
            new = with_items(recv, (), recv.seq)
        if new is None:
            return None
        self.env[key] = new
        return out
