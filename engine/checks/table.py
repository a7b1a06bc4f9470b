"""The table of local checks: layer, id, what each finds, where it comes from, severities,
and for the classes HUMANGR claims, what the rule does not cover."""

from __future__ import annotations

from humangr.contracts import LayerID

from . import (
    autoexec,
    compliance,
    interp_limits,
    log_data,
    performance,
    quality,
    removed_tests,
    security_text,
)
from .base import Check
from .table_actions import ACTION_CHECKS
from .table_security import SECURITY_CHECKS
from .tools import resemblance

__all__ = ["CHECKS"]

L = LayerID
CHECKS: tuple[Check, ...] = (
    Check(
        L.HL2,
        "todo",
        "Leftover TODO / FIXME / XXX / HACK markers",
        ("humangr",),
        "low",
        quality.todo_markers,
    ),
    Check(
        L.HL2,
        "not-implemented",
        "raise NotImplementedError outside abstract methods",
        ("humangr",),
        "medium",
        quality.not_implemented,
    ),
    Check(
        L.HL2,
        "deleted-test",
        "Deleted test files and removed test functions (not moved, split, renamed or parametrized)",
        ("humangr",),
        "high; medium when the action says tests are removed; low when the code they test is "
        "removed too",
        removed_tests.deleted_tests,
    ),
    Check(
        L.HL3,
        "swallowed-exception",
        "Bare except, except Exception: pass/continue/...",
        ("humangr",),
        "high (bare and swallowing), medium (bare, or Exception swallowed)",
        quality.swallowed_exceptions,
    ),
    *SECURITY_CHECKS,
    *ACTION_CHECKS,
    Check(
        L.HL4,
        "autoexec-file",
        "Files that run by themselves: .pth lines (import runs at every interpreter start), "
        "sitecustomize / usercustomize, git hooks, .envrc, package.json install scripts, "
        "editor and devcontainer open-time commands, .ssh/authorized_keys, CI workflows and "
        "pre-commit hooks",
        ("humangr",),
        "critical (code in .pth, .git/hooks, authorized_keys), high (the others), medium (CI "
        "workflows, pre-commit hooks)",
        autoexec.autoexec_files,
    ),
    Check(
        L.HL4,
        "binary-patch",
        "GIT binary patches of text files (a literal is decoded and reviewed as text; a delta "
        "or undecodable block cannot be read), compiled code and pickles added",
        ("humangr",),
        "critical (unreadable patch of a text file), high (compiled code), medium (text sent "
        "as a decoded binary literal)",
        autoexec.binary_patches,
    ),
    Check(
        L.HL4,
        "prompt-injection",
        "Text instructing the LLM reviewers, in added lines or the action description",
        ("humangr",),
        "high",
        security_text.prompt_injection,
    ),
    Check(
        L.HL4,
        "analysis-limit",
        "Code the taint engine did not fully analyse: constants too big to compute (over 64 KiB), "
        "more work or time than one action is given",
        ("humangr",),
        "medium",
        interp_limits.analysis_limits,
    ),
    Check(
        L.HL5,
        "blocking-in-async",
        "time.sleep, requests, urlopen, subprocess, os.system, open() inside async def",
        ("humangr",),
        "high; low for open()",
        performance.blocking_in_async,
    ),
    Check(
        L.HL5,
        "io-in-loop",
        "DB queries, HTTP requests, open() inside loops and comprehensions",
        ("humangr",),
        "medium",
        performance.io_in_loop,
    ),
    Check(
        L.HL6,
        "card-number",
        "Payment card numbers (Luhn-valid, public test cards excluded)",
        ("humangr",),
        "high",
        compliance.card_numbers,
    ),
    Check(
        L.HL6,
        "sensitive-logging",
        "Card data, national ids or secrets given to a log or print call; a redaction list "
        "(filter_parameters, sensitive_fields, a scrubber's keys) shortened",
        ("humangr",),
        "high",
        log_data.sensitive_logging,
        limits="text-level: a field passed under another name, or logged through a helper, "
        "is not seen",
    ),
    Check(
        L.HL6,
        "national-id",
        "US SSNs (valid ranges), Brazilian CPFs (check digits)",
        ("humangr",),
        "high",
        compliance.national_ids,
    ),
    Check(
        L.HL6,
        "email-in-fixture",
        "Real-looking e-mail addresses in test fixtures and data files",
        ("humangr",),
        "medium",
        compliance.fixture_emails,
    ),
    Check(
        L.HL6,
        "copyleft-licence",
        "GPL / AGPL / LGPL / SSPL header in a new file",
        ("humangr",),
        "medium (licence review needed)",
        compliance.copyleft_licence,
    ),
    Check(
        L.HL4,
        "resemblance",
        "Tool calls whose words resemble labelled dangerous calls (a linear model trained on "
        "the labelled corpus; `humangr checks-train`)",
        ("humangr",),
        "high (never more: a resemblance, not a harm found)",
        resemblance.resembles,
        fallback=True,
        limits="a statistical judgement: it misses what its training calls did not show and "
        "asks about some routine calls; see docs/tool-calls.md",
    ),
)
"""Every local check, in the order they run (a ``fallback`` check after those it falls back
on). HL1 and HL7 have none."""
