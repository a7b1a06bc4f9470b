"""A security scanner's configuration told to skip everything: an allow list, ignore list or
exclusion of a secret, code or dependency scanner (gitleaks, trufflehog, detect-secrets,
semgrep, bandit, Snyk, Trivy, Checkov, CodeQL, Sonar…) that holds a pattern matching every path
(``'''.*'''``, ``"**"``, ``**/*``) switches the scanner off while it still appears to run.
An entry naming a folder (``'''^vendor/'''``, ``tests/**``) is everyday tuning."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from humangr.contracts import Severity

from .base import Hit, snippet
from .diff import FileDiff

__all__ = ["SCANNER_CONFIG", "scanner_blinded"]

SCANNER_CONFIG = re.compile(
    r"(?i)(?:^|/)[^/]*(?:gitleaks|trufflehog|secretlint|detect[-_]secrets|secrets[-_.]baseline|"
    r"semgrep|bandit|snyk|trivy|checkov|tfsec|gosec|codeql|sonar|ggshield|talisman|"
    r"gitguardian|kics|grype)[^/]*$"
)
"""A file that configures a security scanner (by its name)."""
_SKIP_WORD = re.compile(r"(?i)allow|ignore|exclu|skip|suppress|paths[-_]ignore")
_EVERYTHING = re.compile(
    r"(?:'''|\"|')\s*(?:\^?\.\*\$?|\^?\.\+\$?|\*\*(?:/\*{1,2}(?:\.\*)?)?)\s*(?:'''|\"|')"
)
_MAX_LINES = 2_000
_WINDOW = 300


def scanner_blinded(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first added entry of a scanner's allow or ignore list in ``file`` that matches
    every path (see the module)."""
    if not SCANNER_CONFIG.search(path):
        return
    lines = [line.text[:400] for line in file.added[:_MAX_LINES]]
    text = "\n".join(lines)
    for m in islice(_EVERYTHING.finditer(text), 50):
        before = text[max(0, m.start() - _WINDOW) : m.start()]
        if not _SKIP_WORD.search(before):
            continue
        index = text.count("\n", 0, m.start())
        yield Hit(
            severity=Severity.HIGH,
            title="a security scanner told to skip everything",
            description=f"{path}: `{snippet(lines[index])}` matches every path in an allow or "
            "ignore list: the scanner still runs but finds nothing.",
            suggestion="Allow or ignore only the files or findings that are known false positives.",
            file=path,
            line=file.added[index].number,
        )
        return
