"""The taint engine's budgets: how big one folded constant may be, how much work one action gets.

Constant folding predicts the size of a result *before* computing it (``interp_sizes``): a
folded value is at most ``MAX_FOLD`` characters, bytes or entries, an integer at most
``MAX_INT_BITS`` bits, and an action folds at most ``MAX_FOLDED`` in all. Every expression and
statement the engine runs is a step (copying an environment costs more); past ``MAX_STEPS``
steps or ``MAX_SECONDS`` by the monotonic clock, whichever comes first, the engine stops. A
value that is not computed is unknown text to the checks (both branches of a condition on it
run); every refusal and every stop is a ``Limit`` with its file and line, reported as "not
fully analysed".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "MAX_FOLD",
    "MAX_FOLDED",
    "MAX_INT_BITS",
    "MAX_SECONDS",
    "MAX_STEPS",
    "Budget",
    "BudgetExceeded",
    "Limit",
]

MAX_FOLD = 64 * 1024
"""Characters, bytes or entries of one folded value."""
MAX_INT_BITS = 4096
"""Bits of one folded integer (its text stays under Python's limit of 4300 digits)."""
MAX_FOLDED = 2 * 1024 * 1024
"""Characters, bytes or entries folded by one action in all."""
MAX_STEPS = 150_000
"""Expressions and statements the engine runs for one action."""
MAX_SECONDS = 3.0
"""Time the engine runs for one action (a backstop for steps that cost more than most)."""
_MAX_LIMITS = 20
_CLOCK_EVERY = 64


@dataclass(frozen=True, slots=True)
class Limit:
    """Where the engine stopped short: a file and line, and what it did not do."""

    path: str | None
    line: int | None
    what: str


class BudgetExceeded(Exception):
    """The action's work budget is spent: the fragment being analysed stops here."""

    def __init__(self, path: str | None, line: int | None, why: str) -> None:
        super().__init__(why)
        self.path, self.line, self.why = path, line, why


class Budget:
    """The work and folding budget of one action, and the limits it met."""

    def __init__(
        self,
        *,
        steps: int = MAX_STEPS,
        folded: int = MAX_FOLDED,
        seconds: float = MAX_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_steps, self.max_folded, self.seconds = steps, folded, seconds
        self.clock = clock
        self.deadline = clock() + seconds
        self.steps = 0
        self.folded = 0
        self.spent: str | None = None
        """Why the work budget ran out (None while it lasts)."""
        self.limits: list[Limit] = []
        self.more = 0
        """Limits met beyond the ones kept in ``limits``."""
        self._seen: set[tuple[str | None, int | None, str]] = set()
        self._next_clock = 0

    def step(self, n: int = 1) -> bool:
        """Count ``n`` steps of work; False once the action's steps or time are spent."""
        if self.spent is not None:
            return False
        self.steps += n
        if self.steps > self.max_steps:
            self.spent = f"the work budget ({self.max_steps:,} steps) ran out"
        elif self.steps >= self._next_clock:
            self._next_clock = self.steps + _CLOCK_EVERY
            if self.clock() > self.deadline:
                self.spent = f"the time budget ({self.seconds:g} s) ran out"
        return self.spent is None

    def fold(self, size: int) -> str | None:
        """None if a value of about ``size`` may be computed (it is counted), else why not."""
        if size > MAX_FOLD:
            return f"a constant of about {size:,} characters was not computed (limit {MAX_FOLD:,})"
        if self.folded + size > self.max_folded:
            return f"constants beyond {self.max_folded:,} characters in all were not computed"
        self.folded += size
        return None

    def note(self, path: str | None, line: int | None, what: str) -> None:
        """Record a limit met at ``path``:``line`` (once per place and reason)."""
        key = (path, line, what)
        if key in self._seen:
            return
        self._seen.add(key)
        if len(self.limits) < _MAX_LIMITS:
            self.limits.append(Limit(path, line, what))
        else:
            self.more += 1
