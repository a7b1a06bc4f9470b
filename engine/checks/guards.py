"""Conditions that validate a value: in the branch where they hold (and after an ``if`` whose
other branch cannot fall through) the validated names are clean.

Validators: ``x.isdigit()`` and friends, ``x in ALLOWED`` (any container not built from request
input: the value is one of its entries) / ``x == "literal"``, an anchored
``re.fullmatch``/``re.match``, a ``re.search`` for any character outside an allow-list
(``[^a-z0-9_-]``) that finds nothing, ``all(c in ALLOWED for c in x)``,
``hmac.compare_digest`` (for the names it authenticates, also
through a MAC computed earlier), and for file paths a containment check of a normalized path
(``startswith``, ``is_relative_to``, ``os.path.commonpath``) or a ``'..' in name`` test.
"""

from __future__ import annotations

import ast
import re
from typing import Protocol

from .flow import KINDS, NORM, PATH, REQUEST, TAINTED, Val
from .guards_text import NEGATED_CLASS, NOT_PATH, RISKY_CHARS, charset_kinds, pattern_kinds
from .pynames import dotted
from .sources import NORMALIZERS, Imports


class Interp(Protocol):
    """What a guard needs of the interpreter reading the code around it."""

    imports: Imports
    macs: dict[str, set[str]]

    def ev(self, e: ast.expr) -> Val:
        """The value of an expression."""
        ...

    def lookup(self, name: str) -> Val:
        """The value a name holds here."""
        ...

    def defs(self, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The functions named ``name`` defined in the analysed code."""
        ...


__all__ = ["Guard", "guards_of", "key_of", "mac_inputs"]

Guard = tuple[str, tuple[int, ...]]
"""A validated name and the sink kinds it is clean for."""

_VALIDATORS = frozenset(
    {"isdigit", "isnumeric", "isdecimal", "isalnum", "isalpha", "isidentifier", "fullmatch"}
)
_AUTHENTICATORS = frozenset({"hmac.compare_digest", "secrets.compare_digest"})
"""A signature check: the data it authenticates was produced by us."""
_TRAVERSAL = frozenset({"..", "../", "..\\", "/"})
_CONTAINMENT = re.compile(r"(?i)^_*(?:is_)?(?:within|inside|contained|under|sub_?path|safe_?path)")
"""Names of helpers that check a path stays inside a directory."""


def key_of(node: ast.AST) -> str | None:
    """The environment key of a name or attribute chain (``self.x``), or None."""
    if isinstance(node, ast.Name | ast.Attribute):
        key = dotted(node)
        return None if "?" in key or "()" in key else key
    return None


_MACS = frozenset({"hmac.new", "hmac.digest", "hmac.HMAC"})


def mac_inputs(it: Interp, value: ast.expr) -> set[str]:
    """The names a MAC computed in ``value`` authenticates (its message argument)."""
    out: set[str] = set()
    for node in ast.walk(value):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        if it.imports.canon(node.func) in _MACS:
            out |= {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
    return out


def guards_of(it: Interp, test: ast.expr) -> tuple[list[Guard], bool]:
    """Names a condition validates, with the kinds they become safe for, and its polarity."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        found, positive = guards_of(it, test.operand)
        return found, not positive
    if isinstance(test, ast.BoolOp):
        out: list[tuple[str, tuple[int, ...]]] = []
        want = isinstance(test.op, ast.And)
        for v in test.values:
            found, positive = guards_of(it, v)
            if positive == want:
                out += found
        return out, want
    if isinstance(test, ast.Call) and it.imports.canon(test.func) in _AUTHENTICATORS:
        keys = {n.id for a in test.args for n in ast.walk(a) if isinstance(n, ast.Name)}
        keys |= {m for k in list(keys) for m in it.macs.get(k, ())}
        return [(k, KINDS) for k in sorted(keys)], True
    helper = _helper_guard(it, test)
    if helper:
        return helper, True
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute):
        rejected = _rejecting_search(it, test, test.func)
        if rejected:
            return rejected, False
        return _call_guard(it, test, test.func), True
    if isinstance(test, ast.Call) and it.imports.canon(test.func) in ("all", "builtins.all"):
        return _all_chars(it, test), True
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _compare_guard(it, test)
    return [], True


def _call_guard(
    it: Interp, test: ast.Call, func: ast.Attribute
) -> list[tuple[str, tuple[int, ...]]]:
    method = func.attr
    if method in _VALIDATORS and method != "fullmatch":
        key = key_of(func.value)
        return [(key, KINDS)] if key else []
    if method in ("fullmatch", "match") and len(test.args) >= 2:
        key = key_of(test.args[1])
        pattern = test.args[0]
        text = pattern.value if isinstance(pattern, ast.Constant) else None
        if key is None or not isinstance(text, str):
            return []
        if method == "match" and not text.endswith(("$", "\\Z")):
            return []
        flags = it.ev(test.args[2]).const if len(test.args) > 2 else 0
        kinds = pattern_kinds(text, method, flags if isinstance(flags, int) else 0)
        return [(key, kinds)] if kinds is not None else []
    if method in ("fullmatch", "match") and len(test.args) == 1:
        key = key_of(test.args[0])
        return [(key, NOT_PATH)] if key else []
    if method in ("startswith", "is_relative_to") and test.args:
        return _normalized(it, func.value)
    return []


def _rejecting_search(it: Interp, test: ast.Call, func: ast.Attribute) -> list[Guard]:
    """``re.search(r"[^a-z0-9_-]", name)`` (any character outside an allow-list): where it
    finds nothing, ``name`` holds allowed characters only."""
    if func.attr != "search" or len(test.args) < 2:
        return []
    if it.imports.canon(func.value) != "re":
        return []
    pattern, key = test.args[0], key_of(test.args[1])
    text = pattern.value if isinstance(pattern, ast.Constant) else None
    if key is None or not isinstance(text, str) or not NEGATED_CLASS.match(text):
        return []
    try:
        rx = re.compile(text.rstrip("+"))
    except re.error:
        return []
    # a character is allowed when the negated class does not find it
    probe = RISKY_CHARS | {".", "/", "\\", "a", "0"}
    kinds = charset_kinds({c for c in probe if rx.fullmatch(c) is None})
    return [(key, kinds)] if kinds is not None else []


def _all_chars(it: Interp, test: ast.Call) -> list[Guard]:
    """``all(c in ALLOWED for c in name)`` with a constant ``ALLOWED``: ``name`` holds
    allowed characters only."""
    if len(test.args) != 1 or test.keywords:
        return []
    gen = test.args[0]
    if not isinstance(gen, ast.GeneratorExp | ast.ListComp) or len(gen.generators) != 1:
        return []
    comp = gen.generators[0]
    elt = gen.elt
    if comp.ifs or comp.is_async or not isinstance(comp.target, ast.Name):
        return []
    if not (
        isinstance(elt, ast.Compare)
        and len(elt.ops) == 1
        and isinstance(elt.ops[0], ast.In)
        and isinstance(elt.left, ast.Name)
        and elt.left.id == comp.target.id
    ):
        return []
    key = key_of(comp.iter)
    chars = it.ev(elt.comparators[0]).const
    if key is None or not isinstance(chars, str | frozenset | set | tuple | list):
        return []
    if not all(isinstance(c, str) for c in chars) or len(chars) > 4096:
        return []
    kinds = charset_kinds({c for x in chars for c in x})
    return [(key, kinds)] if kinds is not None else []


def _helper_guard(it: Interp, test: ast.expr) -> list[tuple[str, tuple[int, ...]]]:
    """A containment helper (``is_within_directory(dest, path)``): named so, and when it is
    defined in the analysed code, making a containment check itself. Its path arguments are
    clean for file paths where it holds."""
    if not isinstance(test, ast.Call) or not isinstance(test.func, ast.Name | ast.Attribute):
        return []
    name = test.func.id if isinstance(test.func, ast.Name) else test.func.attr
    if not _CONTAINMENT.search(name):
        return []
    bodies = it.defs(name)
    if bodies and not any(_checks_containment(b) for b in bodies):
        return []
    keys = [key_of(a) for a in test.args]
    return [(k, (PATH,)) for k in keys if k is not None]


def _checks_containment(fdef: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function normalizes a path and compares it with a directory."""
    calls = {
        dotted(node.func).rsplit(".", 1)[-1]
        for node in ast.walk(fdef)
        if isinstance(node, ast.Call)
    }
    normalizes = bool(calls & {"realpath", "abspath", "normpath", "resolve", "commonpath"})
    return normalizes and bool(
        calls & {"startswith", "is_relative_to", "relative_to", "commonpath", "commonprefix"}
    )


def _normalized(it: Interp, node: ast.expr) -> list[tuple[str, tuple[int, ...]]]:
    key = key_of(node)
    if key is not None and it.lookup(key).tags & NORM:
        return [(key, (PATH,))]
    if isinstance(node, ast.Call) and it.imports.canon(node.func) in NORMALIZERS and node.args:
        inner = key_of(node.args[0])
        return [(inner, (PATH,))] if inner else []
    return []


def _compare_guard(it: Interp, test: ast.Compare) -> tuple[list[tuple[str, tuple[int, ...]]], bool]:
    op, right = test.ops[0], test.comparators[0]
    right_key = key_of(right)
    if (
        right_key is None
        and isinstance(right, ast.Call)
        and isinstance(right.func, ast.Attribute)
        and right.func.attr in ("split", "rsplit", "parts")
    ):
        right_key = key_of(right.func.value)  # '..' in name.split('/')
    elif isinstance(right, ast.Attribute) and right.attr == "parts":
        right_key = key_of(right.value)  # '..' in path.parts
    if isinstance(op, ast.In | ast.NotIn) and right_key is not None:
        needle = it.ev(test.left).const
        if needle in _TRAVERSAL:
            return [(right_key, (PATH,))], isinstance(op, ast.NotIn)
    key = key_of(test.left)
    if isinstance(op, ast.In | ast.NotIn) and key is not None:
        allowed = it.ev(right)
        if max(allowed.lv) < TAINTED and not allowed.tags & REQUEST:
            return [(key, KINDS)], isinstance(op, ast.In)
    if isinstance(op, ast.Eq | ast.NotEq) and key is not None and max(it.ev(right).lv) == 0:
        return [(key, KINDS)], isinstance(op, ast.Eq)
    left = test.left
    if (
        isinstance(op, ast.Eq | ast.NotEq)
        and isinstance(left, ast.Call)
        and it.imports.canon(left.func) in ("os.path.commonpath", "os.path.commonprefix")
        and left.args
        and isinstance(left.args[0], ast.List | ast.Tuple)
    ):
        found = [g for e in left.args[0].elts for g in _normalized(it, e)]
        return found, isinstance(op, ast.Eq)
    return [], True
