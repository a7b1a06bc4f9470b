"""Deterministic local checks per layer: they run once per action, before any LLM call.

``run_checks(action, layers)`` returns each requested layer's rule findings
(``source=rules``); ``CHECKS`` lists every check with its layer and where it comes from
(bandit, detect-secrets or HUMANGR's own rules); ``parse_diff`` reads unified diffs.
"""

from .base import Check, CheckInput, Hit, Source
from .diff import DiffLine, DiffParse, FileDiff, Hunk, HunkLine, looks_like_diff, parse_diff
from .registry import CHECKS, checks_markdown, run_checks
from .shared import SharedChecks

__all__ = [
    "CHECKS",
    "Check",
    "CheckInput",
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
