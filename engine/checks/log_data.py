"""``sensitive-logging``: what a change lets into the logs, in code of any language (test files
aside), read as text on the change's lines:

- a log or print call given card data, a national id or a secret as a field or value
  (``log.Info("card created", "pan", card.PAN, "cvv", card.CVV)``); words of the message
  itself (``"password reset requested"``) are not fields;
- a redaction list shortened: ``filter_parameters``, ``sensitive_fields``, a scrubber's or a
  masker's keys that named card data, ids or secrets before the change and no longer do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit, is_test_path, snippet

__all__ = ["sensitive_logging"]

_MAX_LINES = 5_000
_LOG_CALL = re.compile(
    r"(?:\b(?:log|logger|logging|console|slog|zap|klog|_logger|_log|Log|Logger|LOG|LOGGER|"
    r"Rails\.logger|self\.logger|this\.logger|this\.log)\.\w+|\bfmt\.(?:Print|Fprint)\w*|"
    r"\bSystem\.out\.print\w*|\bConsole\.Write\w*|\bputs|\bprintln!?|\bprint)\s*[(\s]"
)
_SENSITIVE = re.compile(
    r"(?i)(?<![\w$])(?:pan|cvv2?|cvc2?|card_?number|cardnumber|full_?pan|track_?data|"
    r"ssn|social_?security\w*|password|passwd|secret|api_?key|private_?key|access_?token|"
    r"refresh_?token|client_?secret|pin_?block|account_?number|iban)(?![\w$])"
)
"""Fields a log must not carry: card data, national ids, secrets."""
_PROSE = re.compile(r"\"[^\"\n]*\s[^\"\n]*\"|'[^'\n]*\s[^'\n]*'|`[^`\n]*\s[^`\n]*`")
"""A quoted message with spaces in it: words of the message, not fields."""
_REDACTION = re.compile(
    r"(?i)filter_param\w*|filter_attributes|sensitive_(?:fields|params|keys|variables|"
    r"post_parameters)|redact\w*|scrub\w*|mask(?:ed)?_?(?:fields|keys|params)|pii_?fields|"
    r"sanitize_?(?:fields|keys)|deny_?list|block_?list"
)
"""Lists of what a logger or an error reporter hides."""


def _logs_sensitive(text: str) -> str | None:
    """The sensitive field a log call of ``text`` is given, else ``None``."""
    call = _LOG_CALL.search(text)
    if call is None:
        return None
    found = _SENSITIVE.search(_PROSE.sub('""', text[call.end() :]))
    return found.group(0) if found is not None else None


def _hidden(lines: list[str]) -> set[str]:
    """The sensitive names that redaction lines of ``lines`` list (lower-cased)."""
    text = "\n".join(lines)
    if not _REDACTION.search(text):
        return set()
    return {m.group(0).lower() for m in _SENSITIVE.finditer(text)}


def sensitive_logging(ctx: CheckInput) -> Iterator[Hit]:
    """Card data, ids or secrets given to a log call, and redaction lists shortened."""
    for f in ctx.files:
        path = f.path or ""
        if not path or path.startswith("<") or is_test_path(path):
            continue
        for line in f.added[:_MAX_LINES]:
            field = _logs_sensitive(line.text[:2_000])
            if field is not None:
                yield Hit(
                    severity=Severity.HIGH,
                    title=f"writes {field} to the log",
                    description=f"{path}: `{snippet(line.text)}` puts {field} in the logs, "
                    "where everyone who reads them sees it (PCI DSS and privacy law forbid it).",
                    suggestion="Log an id or the last four digits, never the value.",
                    file=path,
                    line=line.number,
                )
                break
        before = _hidden([ln.text[:2_000] for ln in f.removed[:_MAX_LINES]])
        after = _hidden([ln.text[:2_000] for ln in f.added[:_MAX_LINES]])
        dropped = sorted(before - after)
        if dropped and f.removed:
            yield Hit(
                severity=Severity.HIGH,
                title="stops hiding sensitive fields from the logs",
                description=f"{path}: the redaction list no longer names {', '.join(dropped[:5])}"
                "; their values reach logs and error reports in clear.",
                suggestion="Keep every sensitive field in the redaction list.",
                file=path,
                line=f.added[0].number if f.added else None,
            )
