"""Suppressions: a local-check finding the policy names stays in the report, marked, and vetoes
nothing (``consensus`` and the gate skip suppressed rule findings).

A ``[[suppress]]`` entry matches a finding when its ``check`` glob matches the finding's check
id, one of its ``paths`` globs (if any) the finding's file, and its ``match`` glob (if any) a
word of the evidence — the line the finding was made on — or the finding's title. Secret
values never reach a report, so the evidence is read from the action itself.

The agent under review writes that line. So that ``AKIAIOSFODNN7EXAMPLE AKIA<a real key>`` does
not hide the real key behind the sample, a ``match`` applies only if the line, with the matched
words removed, passes the same check again.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

import msgspec

from humangr.contracts import ActionContext, Finding, FindingSource, LayerID

from .model import Policy, Suppression

__all__ = ["check_id", "suppress"]

_CHECK_ID = re.compile(r"^HL\d-R-(.+)-\d+$")
_WORDS = re.compile(r"[^\s\"'`=:,;()<>\[\]{}]+")
_MAX_EVIDENCE = 4_096
_TRIM = ".!?"
"""Sentence punctuation around a word, not part of it (``…EXAMPLE.``)."""


def check_id(finding: Finding) -> str | None:
    """The id of the local check that made ``finding`` (``secret``), or ``None``."""
    if finding.source is not FindingSource.RULES:
        return None
    m = _CHECK_ID.match(finding.id)
    return m.group(1) if m else None


def _file(finding: Finding) -> str | None:
    if not finding.file:
        return None
    path = posixpath.normpath(finding.file.replace("\\", "/"))
    return None if path.startswith("..") else path.removeprefix("./")


class _Evidence:
    """The added lines of the action's files, read once, on demand."""

    def __init__(self, action: ActionContext) -> None:
        self.action = action
        self._lines: dict[tuple[str, int], str] | None = None

    def line(self, file: str, number: int) -> str | None:
        if self._lines is None:
            from humangr.engine.checks.base import CheckInput

            self._lines = {}
            for f in CheckInput(self.action).files:
                path = _file_path(f.path)
                for ln in f.added:
                    if path is not None:
                        self._lines[(path, ln.number)] = ln.text
        return self._lines.get((file, number))


def _file_path(path: str | None) -> str | None:
    if not path:
        return None
    return posixpath.normpath(path).removeprefix("./")


def _passes_without(check: str, file: str, line: str) -> bool:
    """Whether the check ``check`` finds nothing in ``line`` alone, as an added line of
    ``file`` (a check that fails, or is unknown, counts as finding something)."""
    from humangr.engine.checks.base import CheckInput
    from humangr.engine.checks.registry import CHECKS

    found = [c for c in CHECKS if c.id == check]
    if not found:
        return False
    diff = f"--- a/{file}\n+++ b/{file}\n@@ -0,0 +1,1 @@\n+{line}\n"
    probe = ActionContext(
        agent_id="policy", action_type="code_diff", action_description="", code_diff=diff
    )
    try:
        ctx = CheckInput(probe)
        return not any(True for c in found for _ in c.run(ctx))
    except Exception:
        return False


def _applies(entry: Suppression, finding: Finding, check: str, evidence: _Evidence) -> bool:
    if not entry.check.matches(check):
        return False
    file = _file(finding)
    if entry.paths and (file is None or not any(g.matches(file) for g in entry.paths)):
        return False
    if entry.match is None:
        return True
    if entry.match.matches(finding.title):
        return True
    if file is None or finding.line is None:
        return False
    line = evidence.line(file, finding.line)
    if line is None or len(line) > _MAX_EVIDENCE:
        return False
    glob = entry.match
    found = False

    def mask(m: re.Match[str]) -> str:
        nonlocal found
        word = m.group(0)
        core = word.strip(_TRIM)
        if core and glob.matches(core):
            found = True
            return word.replace(core, "", 1)
        return word

    rest = _WORDS.sub(mask, line)
    return found and _passes_without(check, file, rest)


def suppress(
    policy: Policy, action: ActionContext, findings: Mapping[LayerID, Sequence[Finding]]
) -> tuple[dict[LayerID, list[Finding]], list[str]]:
    """``findings`` with each one a suppression matches marked (``suppressed_by``,
    ``suppression_reason``), and the ids of the suppressions applied (one per finding)."""
    out = {lid: list(fs) for lid, fs in findings.items()}
    if not policy.suppressions:
        return out, []
    evidence = _Evidence(action)
    applied: list[str] = []
    for fs in out.values():
        for i, finding in enumerate(fs):
            check = check_id(finding)
            if check is None or finding.suppressed_by:
                continue
            for entry in policy.suppressions:
                if _applies(entry, finding, check, evidence):
                    fs[i] = msgspec.structs.replace(
                        finding, suppressed_by=entry.id, suppression_reason=entry.reason[:2_000]
                    )
                    applied.append(entry.id)
                    break
    return out, applied
