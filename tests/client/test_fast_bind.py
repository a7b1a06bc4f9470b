"""A guarded call binds its arguments without ``inspect`` when the function has named
parameters only: the result must be ``inspect``'s own, defaults applied, and every wrong call
must raise ``inspect``'s TypeError, word for word."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from humangr.client.tool_call import _bind


def plain(command: str, call: int, timeout: float = 5.0) -> None: ...
def keywords(path: str, *, content: str, mode: int = 0o644) -> None: ...
def nothing() -> None: ...
def star(*parts: str, sep: str = " ") -> None: ...
def kw(**options: Any) -> None: ...
def positional(a: int, /, b: int = 2) -> None: ...


class Tools:
    def method(self, command: str, call: int = 0) -> None: ...


CALLS: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = [
    (plain, ("ls", 1), {}),
    (plain, ("ls",), {"call": 2}),
    (plain, (), {"command": "ls", "call": 3, "timeout": 1.0}),
    (plain, (), {"call": 3, "command": "ls"}),
    (plain, ("ls",), {}),  # missing call
    (plain, ("ls", 1, 2.0, 3), {}),  # too many
    (plain, ("ls", 1), {"command": "x"}),  # twice
    (plain, ("ls", 1), {"other": 1}),  # unknown
    (keywords, ("a.txt",), {"content": "x"}),
    (keywords, ("a.txt", "x"), {}),  # a keyword-only one given by position
    (keywords, ("a.txt",), {}),  # missing keyword-only
    (nothing, (), {}),
    (nothing, (1,), {}),
    (star, ("a", "b"), {"sep": "-"}),
    (kw, (), {"x": 1}),
    (positional, (1,), {}),
    (positional, (), {"a": 1}),  # positional-only by keyword
    (Tools().method, ("ls",), {}),
    (Tools().method, (), {"command": "ls", "call": 1}),
]


def _refusal(
    signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> str | None:
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(("func", "args", "kwargs"), CALLS)
def test_binding_is_inspects_own(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    signature = inspect.signature(func, eval_str=True)
    refused = _refusal(signature, args, kwargs)
    if refused is not None:
        with pytest.raises(TypeError) as caught:
            _bind(func, args, kwargs)
        assert str(caught.value) == refused
        return
    expected = signature.bind(*args, **kwargs)
    expected.apply_defaults()
    got = _bind(func, args, kwargs)
    assert list(got.arguments.items()) == list(expected.arguments.items())
    assert (got.args, got.kwargs) == (expected.args, expected.kwargs)
    assert got.signature == expected.signature
