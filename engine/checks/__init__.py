"""Deterministic local checks per layer: they run once per action, before any LLM call.

``run_checks(action, layers)`` returns each requested layer's rule findings
(``source=rules``); ``CHECKS`` lists every check with its layer and where it comes from
(bandit, detect-secrets or HUMANGR's own rules); ``parse_diff`` reads unified diffs.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Check, CheckInput, Hit, Source
    from .diff import DiffLine, DiffParse, FileDiff, Hunk, HunkLine, looks_like_diff, parse_diff
    from .options import CheckOptions
    from .registry import CHECKS, checks_markdown, run_checks
    from .shared import SharedChecks

__all__ = [
    "CHECKS",
    "Check",
    "CheckInput",
    "CheckOptions",
    "DiffLine",
    "DiffParse",
    "FileDiff",
    "Hit",
    "Hunk",
    "HunkLine",
    "SharedChecks",
    "Source",
    "checks_markdown",
    "looks_like_diff",
    "parse_diff",
    "run_checks",
]

_HOME = {
    "Check": "base",
    "CheckInput": "base",
    "CheckOptions": "options",
    "Hit": "base",
    "Source": "base",
    "DiffLine": "diff",
    "DiffParse": "diff",
    "FileDiff": "diff",
    "Hunk": "diff",
    "HunkLine": "diff",
    "looks_like_diff": "diff",
    "parse_diff": "diff",
    "CHECKS": "registry",
    "checks_markdown": "registry",
    "run_checks": "registry",
    "SharedChecks": "shared",
}


def __getattr__(name: str) -> Any:
    """Names are imported on first use, so that reading a diff (``checks.diff``) does not load
    every check."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
