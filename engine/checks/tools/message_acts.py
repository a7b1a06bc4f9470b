"""What a messaging or review tool does by its name and arguments, beyond the text it sends
(for ``prose``):

- a pull or merge request approved by the agent (a review whose event is ``APPROVE``, or a
  tool named for approving one): the approval stands in for a person's review;
- a message deleted from an incident, security or alert channel: the record of what happened
  goes with it;
- a message already posted edited to say that someone approved or signed off: an approval
  record written after the fact, in a person's name.

Comments and change requests, and deletes in other channels, are everyday. Pure functions of
the tool view.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .view import ToolView

__all__ = ["message_acts"]

_REVIEW_TOOL = re.compile(r"(?i)review|pull_?request|merge_?request|\bpr\b|_pr_|_mr_")
_APPROVE_TOOL = re.compile(r"(?i)approve_?(?:pull|merge|pr\b|mr\b|change)|(?:pr|mr)_approve")
_DELETE_MESSAGE = re.compile(
    r"(?i)(?:delete|remove|chat_?delete|unsend|redact)_?(?:\w*_)?(?:message|msg|post|chat|"
    r"comment)|chat[._]delete|delete_?(?:slack|teams|discord)"
)
_RECORD_CHANNEL = re.compile(
    r"(?i)incident|\binc[-_]|sec(?:urity|inc|ops|alert|-|_)|alert|audit|breach|forensic|"
    r"legal|compliance|\bsoc\b|[-_]soc\b|war-?room|postmortem"
)
"""A channel that keeps the record of incidents and security events (``#security-alerts``,
``C06SECINC``, ``#inc-2291``)."""
_EDIT_MESSAGE = re.compile(
    r"(?i)(?:update|edit|modify|change|patch)_?(?:\w*_)?(?:message|msg|post|comment)|"
    r"chat[._]update|message[._]update"
)
_APPROVED_BY = re.compile(
    r"(?i)\b(?:approved|signed[ -]off|authori[sz]ed|sanctioned|co-?signed)\b[^.\n]{0,20}\bby\b"
    r"\s{0,3}(?:@|<@)?[\w.-]{2,40}|\b(?:second|final|2nd) approv(?:al|er)\b|"
    r"\bapproved\b[^.\n]{0,40}\bapprover\b"
)
"""Text that records someone's approval (``approved by @maria (second approver)``)."""


def message_acts(view: ToolView) -> Iterator[tuple[str, str, str]]:
    """``(argument, title, advice)`` of each act of ``view``'s call that a person confirms."""
    name = view.name
    event = view.text("event", "review_event", "state", "action", "decision")
    approves = event is not None and event[1].strip().upper() in ("APPROVE", "APPROVED")
    if (approves and _REVIEW_TOOL.search(name)) or _APPROVE_TOOL.search(name):
        yield (
            event[0] if event is not None else "name",
            "approves a pull or merge request in a person's place",
            "Required reviews are given by people; leave the approval to a reviewer.",
        )
    if _EDIT_MESSAGE.search(name):
        text = view.text("text", "message", "content", "body", "blocks")
        if text is not None and _APPROVED_BY.search(text[1][:4000]):
            yield (
                text[0],
                "edits a posted message to record someone's approval",
                "Approvals are given by the approvers themselves; post a new message instead.",
            )
    if _DELETE_MESSAGE.search(name):
        channel = view.text("channel", "channel_id", "channel_name", "room", "conversation_id")
        if channel is not None and _RECORD_CHANNEL.search(channel[1][:200]):
            yield (
                channel[0],
                f"deletes a message from {channel[1][:60]}, a channel that keeps incident records",
                "Keep incident and security records; correct them with a new message.",
            )
