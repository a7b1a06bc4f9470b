"""A function call as an action to review: its arguments rendered as text the local checks read.

The call becomes a new file ``tool_calls/<function>.py`` in a synthetic diff, holding the call
as Python (``function(name=value, ...)``, one argument a line, each value its ``repr``), so the
checks that read added lines and Python (hard-coded credentials, ``shell=True``, injection text)
read the arguments as they read code. Sizes are bounded: a value longer than ``VALUE_LIMIT``
characters, or arguments past ``CALL_LIMIT`` characters in all, are cut with a marker naming
how much was left out.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any

from humangr.contracts import ActionContext

__all__ = ["CALL_LIMIT", "VALUE_LIMIT", "call_action", "call_name", "render_call"]

VALUE_LIMIT = 64_000
"""Characters of one argument's ``repr`` kept in the review."""
CALL_LIMIT = 256_000
"""Characters of all arguments kept in the review (well below the 1 MB diff limit)."""
_DESCRIPTION_LIMIT = 1_500
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def call_name(func: Callable[..., Any]) -> str:
    """``module.qualname`` of ``func``, the name a review shows."""
    module = str(getattr(func, "__module__", None) or "")
    qualname = str(getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func)))
    return f"{module}.{qualname}" if module and module != "__main__" else qualname


def _value(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}  # …[HUMANGR: {len(text) - limit:,} more characters not shown]"


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception as exc:  # a broken __repr__ must not let the call through unreviewed
        return f"<{type(value).__name__}: repr failed: {type(exc).__name__}>"


def render_call(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> list[str]:
    """The call as Python lines: ``name(``, one ``arg=value,`` a line, ``)``."""
    name = getattr(func, "__name__", "call")
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except (TypeError, ValueError):
        pairs = [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    else:
        bound.apply_defaults()
        pairs = []
        for key, value in bound.arguments.items():
            kind = bound.signature.parameters[key].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                pairs.extend((f"{key}_{i}", v) for i, v in enumerate(value))
            elif kind is inspect.Parameter.VAR_KEYWORD:
                pairs.extend(value.items())
            else:
                pairs.append((key, value))
    lines = [f"{name}("]
    budget = CALL_LIMIT
    for key, value in pairs:
        text = _value(_repr(value), min(VALUE_LIMIT, max(budget, 0)))
        budget -= len(text)
        lines.append(f"    {key}={text},")
        if budget <= 0:
            lines.append(f"    # …[HUMANGR: arguments past {CALL_LIMIT:,} characters not shown]")
            break
    lines.append(")")
    return lines


def call_action(
    func: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    *,
    agent_id: str,
    action_type: str,
) -> ActionContext:
    """The action that reviews calling ``func(*args, **kwargs)`` on behalf of ``agent_id``."""
    name = call_name(func)
    lines = [f"# agent {agent_id} calls {name}", *render_call(func, args, kwargs)]
    short = getattr(func, "__name__", "call")
    path = f"tool_calls/{_UNSAFE.sub('_', short)[:200] or 'call'}.py"
    diff = "".join(
        [
            "--- /dev/null\n",
            f"+++ b/{path}\n",
            f"@@ -0,0 +1,{len(lines)} @@\n",
            *(f"+{line}\n" for line in lines),
        ]
    )
    shown = " ".join(line.strip() for line in lines[1:])
    if len(shown) > _DESCRIPTION_LIMIT:
        shown = shown[:_DESCRIPTION_LIMIT] + " …"
    return ActionContext(
        agent_id=agent_id,
        action_type=action_type,
        action_description=f"Agent {agent_id} calls the tool {name}: {shown}",
        code_diff=diff,
        affected_files=[path],
    )
