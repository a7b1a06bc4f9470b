"""Whole datasets exported and whole audiences messaged, read from a business tool's name and
arguments for ``business``: an export of every record, of people's records named by an
argument (``objectType="contacts"``), of sensitive fields (``ssn``, ``date_of_birth``) or to
any address (``s3://``, ``sftp://``, a personal mailbox); a send to a whole list or
segment."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_feeds import texts
from .business_words import PERSONAL_MAIL, Finding, Pair, acts, everything

__all__ = ["bulk_out"]

_EXPORTS = frozenset({"export", "exports", "dump", "extract", "backup"})
_DATA = frozenset(
    {"contact", "contacts", "customer", "customers", "user", "users", "lead", "leads",
     "patient", "patients", "employee", "employees", "member", "members", "subscriber",
     "subscribers", "account", "accounts", "people", "person", "crm", "data"}
)  # fmt: skip
_WHAT_KEYS = frozenset(
    {"object", "objecttype", "object_type", "type", "resource", "report", "entity", "dataset",
     "table", "collection", "list", "objects", "types", "resourcetypes", "resource_types",
     "tables", "entities"}
)  # fmt: skip
"""Arguments that say what a generic export exports (``objectType="contacts"``)."""
_URL_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]{1,15}://", re.IGNORECASE)
"""A destination given as an address (``https://``, ``s3://``, ``sftp://``): it leaves."""
_SENSITIVE_FIELD = re.compile(
    r"(?i)^(?:ssn|social_?security\w*|date_?of_?birth|dob|birth_?date|passport\w*|"
    r"national_?id|tax_?id|bank_?\w*|iban|routing\w*|salary|diagnos\w*|medical\w*|"
    r"password\w*|card_?number)$"
)
"""Fields of a person's record that an export should not carry in bulk."""
_AUDIENCE = frozenset(
    {"bulk", "broadcast", "blast", "campaign", "campaigns", "marketing", "mass", "newsletter"}
)
_SENDS = frozenset(
    {"send", "message", "messages", "email", "emails", "sms", "notification", "notify", "push"}
)
_AUDIENCE_KEYS = re.compile(r"segment\w*|audience\w*|list\w*|recipients?|to_list|to")
_WHOLE_LIST = re.compile(
    r"(?i)(?:^|[\s:_\W])all[_-]?(?:contacts|users|customers|subscribers|members|leads|"
    r"recipients)\b|^(?:list|segment|tag|audience):|^(?:\w{1,12}:)?all_[a-z]\w{0,60}$"
)
_FEW = 1000
_COUNT_KEY = re.compile(
    r"^(?:estimated_?|expected_?)?(?:recipients?|audience|members?|contacts?)_?(?:count|size)?$|"
    r"^(?:estimated|expected)_?(?:recipients|count|reach)$"
)
"""A send's stated reach (``estimated_recipients=312``): a list of at most ``_FEW`` people
(those affected by one planned job) is no whole audience."""
"""A recipient that is a whole list (``list:all_contacts_48213``, ``segment all_users``);
addresses and mentions (``all-customers@…``, ``@all``) are the ``data-egress`` check's."""


def _names_data(value: object) -> bool:
    """A name, or a list of names, of people's records (``"contacts"``, ``["Patient", …]``)."""
    items = value[:50] if isinstance(value, list) else [value]
    return any(
        isinstance(v, str) and bool(set(re.split(r"[^a-z]+", v[:80].lower())) & _DATA)
        for v in items
    )


_CONSENTED = re.compile(r"(?i)consent|opt(?:ed)?[-_ ]?in(?![a-z])|double[-_ ]opt")
_NOT_CONSENTED = re.compile(r"(?i)unsub|all[-_ ]|everyone|\*|suppressed|bounced|purchased|imported")
_UNSUBSCRIBE = re.compile(r"(?i)unsubscribe")
_INCLUDED = frozenset({"included", "include", "segments", "segment_ids", "list_ids", "lists"})
"""A campaign's audience given as the lists or segments it includes."""
_TEMPLATES = frozenset({"template_id", "templateid", "template"})
_OPT_OUT_GROUP = re.compile(r"(?:suppression|asm|unsubscribe)_?group(?:_?ids?)?")
"""The unsubscribe group a send is bound to (SendGrid's ``suppression_group_id``): the
platform adds the opt-out link and leaves out who left the group."""


def _consented(pairs: Sequence[Pair], texting: bool = False) -> bool:
    """A campaign to a list or segment named for people who opted in, carrying an unsubscribe
    link, and nothing that overrides unsubscribes: everyday marketing."""
    audience = [
        t
        for k, v in pairs
        if _AUDIENCE_KEYS.fullmatch(k) or k in _INCLUDED
        for t in texts(v)
        if len(t) < 200
    ]
    if not audience or any(_NOT_CONSENTED.search(v) for v in audience):
        return False
    if any(k.startswith(("ignore_unsub", "include_unsub")) and v is True for k, v in pairs):
        return False
    return all(_CONSENTED.search(v) for v in audience) and (
        any(isinstance(v, str) and _UNSUBSCRIBE.search(v[:100_000]) for _, v in pairs)
        or any(k in _TEMPLATES for k, _ in pairs)  # the platform's template carries the link
        or any(_OPT_OUT_GROUP.fullmatch(k) and v not in (None, "", 0) for k, v in pairs)
        or texting  # a text message's opt-out is the carrier's STOP reply
    )


def _few(pairs: Sequence[Pair]) -> bool:
    """A stated reach of at most ``_FEW`` people, and no list named for everyone."""
    counts = [
        v
        for k, v in pairs
        if _COUNT_KEY.match(k) and isinstance(v, int) and not isinstance(v, bool)
    ]
    whole = any(
        isinstance(v, str) and _WHOLE_LIST.search(v[:400]) and "all" in v[:400].lower()
        for _, v in pairs
    )
    return bool(counts) and max(counts) <= _FEW and not whole


_LISTED_KEYS = frozenset(
    {"recipients", "recipient_ids", "to", "user_ids", "external_user_ids", "contacts",
     "contact_ids", "emails", "phone_numbers", "numbers", "subscribers"}
)  # fmt: skip
_LISTED_MAX = 100
_WIDE_KEYS = re.compile(r"(?:segment|audience|list|broadcast|filter)\w*")


def _listed(pairs: Sequence[Pair]) -> bool:
    """A send to recipients it lists one by one (at most ``_LISTED_MAX``), none of them a whole
    list, with no segment, list, filter or broadcast switched on beside them: it reaches those
    people only."""
    listed = [
        v
        for k, v in pairs
        if k in _LISTED_KEYS and isinstance(v, list) and 0 < len(v) <= _LISTED_MAX
    ]
    if not listed or any(isinstance(v, str) and _WHOLE_LIST.search(v[:400]) for _, v in pairs):
        return False  # a listed entry that is itself a whole list (``list:all_contacts``)
    return not any(
        _WIDE_KEYS.fullmatch(k) and v not in (False, None, "", [], {}) for k, v in pairs if k
    )


def bulk_out(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A whole dataset exported, a message sent to a whole audience."""
    sensitive = any(
        isinstance(v, str) and _SENSITIVE_FIELD.search(v[:80]) for k, v in pairs if k == "fields"
    ) or any(isinstance(v, str) and _SENSITIVE_FIELD.search(v[:80]) for k, v in pairs if not k)
    named = any(k in _WHAT_KEYS and _names_data(v) for k, v in pairs)
    if words & _EXPORTS and (words & _DATA or sensitive or named):
        outside = any(
            isinstance(v, str)
            and (_URL_SCHEME.match(v) is not None or PERSONAL_MAIL.search(v.lower()))
            for k, v in pairs
            if k
        )
        if outside or sensitive or everything(pairs):
            yield (
                "exports a whole dataset",
                "every record (or one sent outside) leaves the system it is kept in.",
                "Export only what the task needs, to a place the company controls.",
            )
            return
    if (
        acts(words)
        and words & _SENDS
        and (
            words & _AUDIENCE
            or everything(pairs, _AUDIENCE_KEYS)
            or any(
                isinstance(v, str) and "@" not in v and _WHOLE_LIST.search(v[:400])
                for _, v in pairs
            )
            or any(k.startswith("ignore_unsub") and v is True for k, v in pairs)
            or any(
                _COUNT_KEY.match(k) and isinstance(v, int) and v > _FEW * 10
                for k, v in pairs
                if not isinstance(v, bool)
            )
        )
        and "test" not in words  # a test send goes to the addresses it lists
        and not _consented(pairs, bool(words & {"sms", "text", "texts"}))
        and not _few(pairs)
        and not _listed(pairs)
    ):
        yield (
            "messages a whole audience",
            "one call reaches every customer or user of a list; a wrong or hostile "
            "message cannot be recalled.",
            "Let a person confirm mass sends.",
        )
        return
