"""The taint engine's branches: conditions that fold to a constant run one branch alone;
a condition that validates a name (``x.isdigit()``, ``x in ALLOWED``, a containment check of
a normalized path) cleans that name where it holds, and after the ``if`` when the other
branch cannot fall through; ``assert`` cleans where it holds.
"""

from __future__ import annotations

import ast
from abc import abstractmethod

from .flow import NOCONST, PATH, Val, clean, join
from .guards import guards_of
from .interp_assign import AssignEval
from .interp_control import ends_in_jump
from .sources import TERMINATORS

__all__ = ["ENV_STEP", "BranchEval", "merge"]

ENV_STEP = 16
"""Names of an environment copied or merged per step of work."""


def merge(a: dict[str, Val], b: dict[str, Val]) -> dict[str, Val]:
    """The environment after two branches: each name joined, or as the branch that set it."""
    if a is b:
        return a
    out = dict(a)
    for k, v in b.items():
        mine = out.get(k)
        out[k] = v if mine is None else join(mine, v)
    return out


class BranchEval(AssignEval):
    """Conditions, branches and the blocks that end them (``Interp``'s base class)."""

    _exits: list[list[dict[str, Val]]]
    """Per enclosing loop: the environments a ``break`` / ``continue`` leaves with."""

    @abstractmethod
    def run(self, body: list[ast.stmt]) -> None:
        """Run the statements of ``body`` (``Interp``)."""

    def truth(self, test: ast.expr) -> bool | None:
        """The constant truth of a condition, or None."""
        v = self.ev(test)
        if v.const is NOCONST:
            return None
        try:
            return bool(v.const)
        except Exception:
            return None

    def _if(self, s: ast.If) -> None:
        truth = self.truth(s.test)
        if truth is not None:
            self._branch(s.body if truth else s.orelse)
            return
        guards, positive = guards_of(self, s.test)
        if any(PATH in kinds for _, kinds in guards):
            self.path_checked = True
        pre = self.env
        self._step(s, len(pre) // ENV_STEP)
        env_body, env_else = dict(pre), dict(pre)
        self._clean(env_body if positive else env_else, guards)
        self.env = env_body
        self._branch(s.body)
        env_body = self.env
        self.env = env_else
        self._branch(s.orelse)
        env_else = self.env
        ends_body, ends_else = self.terminates(s.body), self.terminates(s.orelse)
        if ends_body and not ends_else:
            self.env = env_else
        elif ends_else and not ends_body:
            self.env = env_body
        else:
            self.env = merge(env_body, env_else)

    def _branch(self, body: list[ast.stmt]) -> None:
        """Run one branch; one that ends in ``break`` / ``continue`` leaves the loop's
        iteration with its environment (kept for what follows the loop)."""
        self.run(body)
        if self._exits and ends_in_jump(body):
            self._step(body[-1], len(self.env) // ENV_STEP)
            self._exits[-1].append(dict(self.env))

    def guarded(self, test: ast.expr, holds: bool, e: ast.expr) -> Val:
        """The value of ``e`` where ``test`` is ``holds``: the names the test validates are
        clean there (``col if col in ALLOWED else "name"``)."""
        guards, positive = guards_of(self, test)
        if not guards or holds != positive:
            return self.ev(e)
        saved = {key: self.env.get(key) for key, _ in guards}
        self._clean(self.env, guards)
        try:
            return self.ev(e)
        finally:
            for key, v in saved.items():
                if v is None:
                    self.env.pop(key, None)
                else:
                    self.env[key] = v

    def _clean(self, env: dict[str, Val], guards: list[tuple[str, tuple[int, ...]]]) -> None:
        for key, kinds in guards:
            env[key] = clean(env.get(key) or self.lookup(key), kinds)

    def terminates(self, body: list[ast.stmt]) -> bool:
        """Whether a block never falls through (return, raise, abort(), ...)."""
        if not body:
            return False
        last = body[-1]
        if isinstance(last, ast.Return | ast.Raise | ast.Continue | ast.Break):
            return True
        if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
            return self.imports.canon(last.value.func) in TERMINATORS
        if isinstance(last, ast.If):
            return self.terminates(last.body) and self.terminates(last.orelse)
        return False

    def _assert(self, s: ast.Assert) -> None:
        self.ev(s.test)
        if s.msg is not None:
            self.ev(s.msg)
        guards, positive = guards_of(self, s.test)
        if positive:
            self._clean(self.env, guards)
