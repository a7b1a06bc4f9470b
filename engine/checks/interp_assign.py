"""The taint engine's bindings: names assigned (also by unpacking, ``+=`` and annotations),
attributes and container items stored, entries deleted; a weak hash stored under a
credential's name is reported where it is stored.
"""

from __future__ import annotations

import ast

from .flow import NOCONST, WEAKHASH, Val
from .guards import key_of, mac_inputs
from .interp_calls import CallEval, collapse, with_items
from .interp_control import drop_entry
from .interp_expr import element
from .sinks_data import weak_hash_stored
from .sources import is_cred_name

__all__ = ["AssignEval"]


class AssignEval(CallEval):
    """Assignment and deletion (the base of ``BranchEval`` and ``Interp``)."""

    macs: dict[str, set[str]]
    """Names holding a MAC (``hmac.new(key, msg)``) -> the names of its message."""

    def bind(self, target: ast.expr, v: Val) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = v
            self._credential(target.id, v, target)
        elif isinstance(target, ast.Tuple | ast.List):
            elts = target.elts
            exact = v.items is not None and v.seq and len(v.items) == len(elts)
            for i, t in enumerate(elts):
                if isinstance(t, ast.Starred):
                    self.bind(t.value, element(v))
                else:
                    self.bind(t, v.items[i][1] if exact and v.items is not None else element(v))
        elif isinstance(target, ast.Attribute):
            self.ev(target.value)
            key = key_of(target)
            if key is not None:
                self.env[key] = v
            self._credential(target.attr, v, target)
        elif isinstance(target, ast.Subscript):
            self._store_item(target, v)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, v)

    def _store_item(self, target: ast.Subscript, v: Val) -> None:
        base = self.ev(target.value)
        k = self.ev(target.slice).const
        self._credential(k, v, target)
        key = key_of(target.value)
        if key is None or (key not in self.env and key not in self.globals):
            return
        items = base.items
        if items is None or k is NOCONST or isinstance(target.slice, ast.Slice):
            self.env[key] = collapse(base, [v])
            return
        hit = [i for i, (ik, _) in enumerate(items) if ik == k and type(ik) is type(k)]
        if hit:
            new = tuple((ik, v if i in hit else iv) for i, (ik, iv) in enumerate(items))
        elif base.seq:
            self.env[key] = collapse(base, [v])
            return
        else:
            new = (*items, (k, v))
        self.env[key] = with_items(base, new, base.seq)

    def _credential(self, name: object, v: Val, target: ast.AST) -> None:
        if v.tags & WEAKHASH and v.node is not None and is_cred_name(name):
            weak_hash_stored(self, v.node, str(name))

    def _assign(self, s: ast.Assign) -> None:
        v = self.ev(s.value)
        for t in s.targets:
            self.bind(t, v)
        macs = mac_inputs(self, s.value)
        if macs:
            for t in s.targets:
                key = key_of(t)
                if key is not None:
                    self.macs[key] = macs

    def _annassign(self, s: ast.AnnAssign) -> None:
        if s.value is not None:
            self.bind(s.target, self.ev(s.value))

    def _augassign(self, s: ast.AugAssign) -> None:
        fake = ast.BinOp(left=_load(s.target), op=s.op, right=s.value)
        ast.copy_location(fake, s)
        self.bind(s.target, self.ev(fake))

    def _delete(self, s: ast.Delete) -> None:
        for t in s.targets:
            if isinstance(t, ast.Subscript) and not isinstance(t.slice, ast.Slice):
                self._delete_item(t)
                continue
            key = key_of(t)
            if key is not None:
                self.env.pop(key, None)

    def _delete_item(self, t: ast.Subscript) -> None:
        """``del x[k]`` with a constant ``k``: the entry is gone (a list's later entries
        move up); otherwise the container keeps every value it may hold."""
        key = key_of(t.value)
        if key is None or key not in self.env:
            return
        base = self.env[key]
        left = drop_entry(base, self.ev(t.slice).const)
        if left is not None:
            self.env[key] = with_items(base, left, base.seq)


def _load(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(id=target.id, ctx=ast.Load())
    return target
