"""Where every command's errors end: one line on stderr and exit 3, never a traceback.

``run_guarded`` runs a command; an ``EngineError``, an ``OSError``, undecodable input, a usage
error or an unexpected bug (whose traceback ``-v`` logs) becomes ``<prog>: <one line>`` with
URL credentials redacted and exit ``3``; a closed output pipe ends quietly with ``3`` (the
output was cut short); Ctrl-C exits ``130``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from collections.abc import Callable

from humangr.engine.errors import ContractError, EngineError
from humangr.engine.redact import redact_urls

__all__ = ["EXIT_ERROR", "EXIT_INTERRUPTED", "UsageError", "describe", "one_line", "run_guarded"]

EXIT_ERROR = 3
EXIT_INTERRUPTED = 130
log = logging.getLogger("humangr.cli")
_UNKNOWN_FIELD = re.compile(r"unknown field `([^`]+)`")


class UsageError(EngineError):
    """The command line is wrong (bad arguments, no input); ``usage`` is shown first if set."""

    def __init__(self, prog: str, message: str, *, usage: str = "") -> None:
        super().__init__(message)
        self.prog = prog
        self.usage = usage


def one_line(text: str) -> str:
    """``text`` on one line, without URL credentials."""
    return redact_urls("; ".join(line.strip() for line in text.splitlines() if line.strip()))


def _contract(exc: ContractError) -> str:
    unknown = _UNKNOWN_FIELD.search(exc.problem)
    if unknown is None:
        return str(exc)
    field = unknown.group(1)
    path = exc.path or "$"
    if not path.endswith(f".{field}"):
        path = f"{path}.{field}"
    return f"invalid {exc.type_name}: unknown field {path}; check its spelling"


def describe(exc: BaseException) -> str:
    """What went wrong, in one line for the user."""
    if isinstance(exc, ContractError):
        text = _contract(exc)
    elif isinstance(exc, EngineError):
        text = str(exc) or type(exc).__name__
    elif isinstance(exc, UnicodeError):
        text = f"not UTF-8 text ({exc}); give UTF-8 input"
    elif isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        text = f"{where}{exc.strerror or exc}"
    else:
        text = (
            f"internal error ({type(exc).__name__}: {exc}); run with -v for the traceback "
            "and report it"
        )
    return one_line(text)


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _report(prog: str, problems: list[BaseException]) -> None:
    for problem in problems:
        if not isinstance(problem, EngineError | OSError | UnicodeError):
            log.debug("%s: unexpected error", prog, exc_info=problem)
    if len(problems) == 1 and isinstance(problems[0], UsageError) and problems[0].usage:
        print(problems[0].usage.rstrip(), file=sys.stderr)
    lines = list(dict.fromkeys(describe(p) for p in problems))
    first = problems[0]
    name = first.prog if isinstance(first, UsageError) else prog
    more = f" (and {len(lines) - 1} more: {'; '.join(lines[1:])})" if len(lines) > 1 else ""
    error = "error: " if isinstance(first, UsageError) else ""
    with contextlib.suppress(OSError):
        print(f"{name}: {error}{lines[0]}{more}", file=sys.stderr, flush=True)


def run_guarded(prog: str, command: Callable[[], int]) -> int:
    """``command()``'s exit code, or ``EXIT_ERROR`` after one line on stderr if it failed."""
    try:
        code = command()
        sys.stdout.flush()
        return code
    except (Exception, KeyboardInterrupt, BaseExceptionGroup) as exc:
        problems = _leaves(exc)
    if any(isinstance(p, KeyboardInterrupt) for p in problems):
        return EXIT_INTERRUPTED
    if any(isinstance(p, BrokenPipeError) for p in problems):
        _silence_stdout()
        return EXIT_ERROR
    _report(prog, problems)
    return EXIT_ERROR
