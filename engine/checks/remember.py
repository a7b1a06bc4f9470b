"""What checks remember across actions: agents send the same commands and texts again and
again, so a short text read once need not be read again. Only pure readings are remembered,
and only for short texts, in bounded memory."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterator
from typing import Concatenate, Generic, ParamSpec, TypeVar, cast

__all__ = ["CleanTexts", "remembered"]

K = TypeVar("K", bound=Hashable)
P = ParamSpec("P")
R = TypeVar("R")


class CleanTexts(Generic[K]):
    """The keys of texts of up to ``max_chars`` a check found clean, at most ``limit`` of them
    (then all are forgotten in one step, safe from any thread, and the next fill it again). A
    text with a finding is never kept: it is read each time."""

    def __init__(self, *, limit: int, max_chars: int) -> None:
        self.limit = limit
        self.max_chars = max_chars
        self._keys: set[K] = set()

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[K]:
        return iter(set(self._keys))

    def __len__(self) -> int:
        return len(self._keys)

    def keep(self, key: K, text: str) -> None:
        """Remember ``key``, found clean, if its ``text`` is short enough."""
        if len(text) > self.max_chars:
            return
        if len(self._keys) >= self.limit:
            self._keys.clear()
        self._keys.add(key)


def remembered(
    *, max_chars: int, maxsize: int
) -> Callable[[Callable[Concatenate[str, P], R]], Callable[Concatenate[str, P], R]]:
    """A pure reading of a text (its first argument; the others hashable) remembered for the
    ``maxsize`` latest texts of up to ``max_chars``; a longer text is read each time. What it
    returns is shared between callers: it must be immutable."""

    def wrap(read: Callable[Concatenate[str, P], R]) -> Callable[Concatenate[str, P], R]:
        # The arguments are hashable by this decorator's contract (lru_cache cannot say so).
        cached = cast(Callable[Concatenate[str, P], R], functools.lru_cache(maxsize=maxsize)(read))

        @functools.wraps(read)
        def call(text: str, /, *args: P.args, **kwargs: P.kwargs) -> R:
            if len(text) > max_chars:
                return read(text, *args, **kwargs)
            return cached(text, *args, **kwargs)

        return call

    return wrap
