"""Keep credentials out of every message, log and report.

``redact_urls`` hides the user-info of every URL in a text (``http://user:pass@host`` →
``http://***@host``); ``redact_url`` does it for one URL. Use them on anything that may echo a
configured URL back: connection errors, LLM transport errors, command output.
``install_log_redaction`` (the command line installs it) does it for every log record.
"""

from __future__ import annotations

import logging
import re
from typing import Any

__all__ = [
    "REDACTED",
    "RedactingFilter",
    "install_log_redaction",
    "redact_record",
    "redact_url",
    "redact_urls",
]

REDACTED = "***"
_USERINFO = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s\"'<>]*)@", re.ASCII
)


def redact_urls(text: str) -> str:
    """``text`` with the user-info (user name, password, token) of every URL replaced, up to
    the last ``@`` of the authority, as a URL parser reads it (``http://u:p@ss@host``)."""
    if "@" not in text:
        return text
    return _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)


def redact_url(url: str) -> str:
    """One URL without its user-info."""
    return redact_urls(url)


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """``record`` with URL credentials removed from its message, exception and stack texts
    (the message is formatted once, so its arguments cannot carry them either)."""
    try:
        message = record.getMessage()
    except Exception:
        message = f"{record.msg!s} (arguments {record.args!r})"
    shown = redact_urls(message)
    if shown != message or record.args:
        record.msg, record.args = shown, None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact_urls(record.exc_text)
    if record.stack_info:
        record.stack_info = redact_urls(record.stack_info)
    return record


class RedactingFilter(logging.Filter):
    """A logging filter that removes URL credentials from every record it sees."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


_installed = False


def install_log_redaction() -> None:
    """Redact URL credentials from every log record made in this process from now on, whatever
    logger or handler it goes to (the record factory redacts each record as it is made)."""
    global _installed
    if _installed:
        return
    make = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        return redact_record(make(*args, **kwargs))

    logging.setLogRecordFactory(factory)
    _installed = True
