"""Mail that quietly leaves for a personal mailbox (for ``prose``): a blind copy or a
reply-to there while others are addressed, files named for payroll, tax, customers or
identity documents sent to one, and an archive of code sent to one. A customer's own invoice,
receipt or data-request file (named for one record by its number) sent to them is everyday.
Pure functions of the tool view and its mail.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .business import PERSONAL_MAIL
from .egress_mail import ADDRESS, Mail
from .view import ToolView

__all__ = ["to_personal_mailbox"]

_SENSITIVE_FILE = re.compile(
    r"(?i)(?:payroll|salar|w-?2|ssn|passport|kyc|customer|contacts|invoice|bank|tax|medical|"
    r"patient|employee|all[_-]|dump|export|credential|password)"
)
_ONE_RECORD = re.compile(
    r"(?i)^(?:inv(?:oice)?|receipt|rcpt|order|statement|credit[-_ ]?note|dsar|sar|"
    r"data[-_ ]request)[-_ #]?\d{4,12}\.(?:pdf|zip|html?|csv|json)$"
)
_SUBJECT_COPY = re.compile(
    r"(?i)^(?:dsar|sar|data[-_ ]?(?:access[-_ ]?)?request)[-_ #]?(\d[\d-]{3,15})[-_]"
    r"([a-z][a-z.]{1,40})(?:[-_](?:export|data|copy|records?))?\.(?:pdf|zip|html?|csv|json)$"
)
"""A data-access request's copy named for its reference and the person it is about
(``DSAR-2024-0117_psingh_export.zip``)."""
_ARCHIVE = re.compile(r"(?i)\.(?:zip|tar|tgz|tar\.gz|tar\.bz2|tar\.xz|7z|rar|bundle)$")
_CODE_NAME = re.compile(r"(?i)repo|source|src|code|backup|git|monorepo")
_BLIND = ("bcc", "reply_to", "replyto", "reply-to")


def _one_record(path: str, recipients: tuple[str, ...] = ()) -> bool:
    """A file named for one customer's document by its number (``INV-88230.pdf``,
    ``dsar_52018.zip``), or a data-access copy named for the one recipient it is sent to
    (``DSAR-0117_psingh.zip`` to ``p.singh@…``): a customer's own invoice or data sent to
    their own address."""
    name = path.rpartition("/")[2]
    if _ONE_RECORD.match(name) is not None:
        return True
    m = _SUBJECT_COPY.match(name)
    if m is None or len(recipients) != 1:
        return False
    local = "".join(c for c in recipients[0].partition("@")[0].lower() if c.isalpha())
    return len(local) >= 4 and local == "".join(c for c in m.group(2).lower() if c.isalpha())


def _source_archive(path: str, workspace: str | None) -> bool:
    """An archive of code: inside the workspace, or named for a repository or its backup."""
    name = path.rpartition("/")[2]
    if _ARCHIVE.search(name) is None:
        return False
    inside = bool(workspace) and path.startswith(str(workspace).rstrip("/") + "/")
    return inside or _CODE_NAME.search(name) is not None


def to_personal_mailbox(view: ToolView, mail: Mail | None) -> Iterator[tuple[str, str, str]]:
    """``(argument, title, advice)`` of mail that goes quietly to a personal mailbox."""
    if mail is None:
        return
    for name in _BLIND:
        got = view.get(name)
        if got is None:
            continue
        personal = [a for a in ADDRESS.findall(str(got[1])[:4096]) if PERSONAL_MAIL.search(a)]
        others = [a for a in mail.recipients if not PERSONAL_MAIL.search(a)]
        if personal and (others or name != "bcc"):
            yield (
                got[0],
                f"{'copies' if name == 'bcc' else 'routes replies of'} the message to a "
                f"personal mailbox ({personal[0][:60]})",
                "Keep company mail at company addresses.",
            )
            return
    if any(PERSONAL_MAIL.search(a) for a in mail.recipients):
        sensitive = next(
            (
                p
                for _, p in mail.attachments
                if _SENSITIVE_FILE.search(p) and not _one_record(p, mail.recipients)
            ),
            None,
        )
        sensitive = sensitive or next(
            (p for _, p in mail.attachments if _source_archive(p, view.call.workspace)), None
        )
        if sensitive is not None:
            yield (
                "attachments",
                f"sends {sensitive[-80:]} to a personal mailbox",
                "Send such files only to work addresses, after a person confirms.",
            )
