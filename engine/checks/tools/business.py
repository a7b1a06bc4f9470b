"""What business tools of any name do (``stripe_create_coupon``, ``gdrive_share_file``,
``okta_update_policy``): read from the words of the tool's name and its arguments, for the
tools no kind covers. Each reading is one small function of the name's words and the
argument pairs; all yield high findings (a person confirms).

- money: a payment, payout, refund, credit, gift card, coupon or price set, with an amount;
  a payee's bank details changed;
- exposure: a file, page, dashboard or repository made public or shared by an anonymous link,
  or shared with a personal mailbox;
- sign-in: multi-factor, SSO or password policies turned off or weakened; a user's factors or
  password reset; administrator rights granted;
- people and places deleted (users, customers, channels…), and bulk or hard deletes;
- whole datasets exported, and messages sent to a whole audience;
- safety nets taken down (``business_ops``): audit trails stopped, monitoring muted or
  deleted, paging off or paused for long, privacy scrubbing or a password removed, actions
  over every record a filter selects, administrator credentials minted, clinical records
  deleted;
- a build released to everyone (``business_release``): set live on the public channel;
- security controls switched off (``business_guards``): branch protection deleted, a port
  opened to the whole internet, secret scanning, encryption or a firewall turned off.
- compliance screenings cleared by hand and deploy keys that push (``business_screening``).
- a password set to a known value, an organisation's notices sent to a personal mailbox
  (``business_takeover``); scanners told to skip broad places, paging weakened, deletes with
  the recycle bin emptied (``business_blindspots``).

Reads (``get``, ``list``, ``search``…) get no finding, whatever their nouns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ..db_guard_off import FIX as GUARD_FIX
from ..db_guard_off import TITLE as GUARD_TITLE
from ..db_guard_off import WHY as GUARD_WHY
from ..db_guard_off import guard_flag_set
from .admin_equivalents import admin_equivalent
from .business_access import sign_in
from .business_amounts import amount_contradicts_note
from .business_approvals import approval_recorded
from .business_authority import claimed_authority
from .business_blindspots import blind_spots
from .business_defences import defences_down
from .business_exports import bulk_out
from .business_feeds import data_set_to_leave
from .business_flags import safeguards_cleared
from .business_grants import access_widened
from .business_guards import guards_off
from .business_many_ids import many_ids
from .business_mass_wide import wide_action
from .business_money import money
from .business_open import opened_or_hidden
from .business_ops import safety_nets
from .business_plant import plant_control
from .business_quiet import quiet_changes
from .business_registry import shared_places
from .business_release import public_release
from .business_scope import population_reach
from .business_screening import screening_cleared
from .business_takeover import takeover
from .business_throwaway import throwaway_target
from .business_told import told_or_many
from .business_words import DELETE_VERBS, PERSONAL_MAIL, Finding, Pair, acts
from .controls_named import security_feature_off
from .egress_mail import ADDRESS
from .storage_public import container_public

__all__ = ["PERSONAL_MAIL", "Pair", "business_consequences"]

_PUBLIC_VALUES = frozenset(
    {
        "public", "public-read", "public-read-write", "publicread", "anyone", "anyonewithlink",
        "publicly",
        "anyone_with_link", "anonymous", "everyone", "world", "internet", "unlisted", "open",
    }
)  # fmt: skip
_PUBLIC_KEYS = frozenset(
    {"acl", "access", "visibility", "scope", "type", "audience", "link_type", "link_scope",
     "permission", "sharing", "share_type", "access_level", "public_access", "share_with",
     "shared_with", "who_can_view", "link_access", "share_recording", "viewers"}
)  # fmt: skip
_PUBLIC_FLAGS = frozenset({"public", "is_public", "publicly_accessible", "allowfilediscovery"})
_PRIVATE_FLAGS = frozenset(
    {"private", "is_private", "requiresignin", "require_sign_in", "password_protected"}
)
_SHARED_THINGS = frozenset(
    {
        "share", "sharing", "link", "permission", "permissions", "visibility", "repository",
        "repo", "gist", "dashboard", "view", "page", "space", "bucket", "object", "file",
        "folder", "document", "doc", "site", "report", "board", "publish", "access", "item",
        "drive", "container", "blob", "notebook", "sheet", "spreadsheet", "workbook",
        "recording", "recordings",
    }
)  # fmt: skip
_CONVERSATION = frozenset({"comment", "reply", "ticket", "message", "channel", "conversation"})
_SHARE_VERBS = frozenset({"share", "sharing", "permission", "permissions"})
"""Words of sharing a thing (an invitation of a person to an app is everyday)."""
_REPOS = ("repo", "repos", "repository", "repositories")
_PEOPLE_PLACES = frozenset(
    {
        "user", "users", "account", "accounts", "customer", "customers", "channel", "channels",
        "conversation", "conversations", "workspace", "org", "organization", "team", "tenant",
        "site", "space", "mailbox", "group", "project", "vault", "backup", "backups",
        "subscription", "subscriptions", "employee", "employees", "domain", "app", "course",
        "courses", "classroom", "gradebook", "enrollment", "enrollments", "audience",
        "audiences", "workspaces", "orgs", "organizations", "teams", "tenants", "sites",
        "spaces", "mailboxes", "groups", "projects", "vaults", "apps", "domains",
        "classrooms", *_REPOS,
    }
)  # fmt: skip
_REPO_HOMES = frozenset({*_REPOS, "project", "projects", "group", "groups", "org", "orgs"})
"""What holds a repository in a forge's paths (GitLab's ``/projects/412/repository/…``)."""
_REPO_PARTS = frozenset(
    {"branch", "branches", "ref", "refs", "tag", "tags", "label", "labels", "comment",
     "comments", "file", "files", "content", "contents", "hook", "hooks", "webhook", "webhooks",
     "release", "releases", "asset", "artifact", "artifacts", "secret", "secrets", "variable",
     "variables", "collaborator", "collaborators", "invitation", "deployment", "deployments",
     "reaction", "milestone", "issue", "issues", "key", "keys", "cache", "caches", "run", "runs",
     "package", "version", "topic", "topics", "autolink", "environment", "rule", "ruleset"}
)  # fmt: skip
"""A part of a repository (``repos.delete_branch``): deleting it leaves the repository."""
_MEMBERSHIP = frozenset({"group", "groups", "team", "teams", "role", "roles", "list", "lists"})
_JOINED = frozenset({"user", "users", "member", "members", "subscriber", "contact"})
"""A person taken out of a group, team or list (``remove_user_from_group``): the account
stays; only what the membership gave goes."""
_BINS = frozenset({"trash", "recycle", "recyclebin", "bin", "wastebasket", "deleted"})
_MANY = frozenset({"bulk", "batch", "all", "mass"})
"""Words of a delete of many records at once (``delete_many`` with a filter is everyday)."""
_LIVE = re.compile(r"(?i)(?:^|[-_.\s])(?:prod|production|prd|live)(?:$|[-_.\s\d])")
_ALWAYS = re.compile(
    r"(?i)^\s*\(?\s*(?:1\s*=\s*1|0\s*=\s*0|1\s*>\s*0|true|1|'(\w*)'\s*=\s*'\1'|\*)\s*\)?\s*$"
)
"""A filter that keeps every record (``where="1=1"``): a delete with it deletes them all."""
_PEOPLE_COUNT = re.compile(r"^(?:member|subscriber|contact|recipient|user)s?_?count$")
_EVENT_ARGS = frozenset({"event", "action", "operation", "op", "verb", "command"})
_NAMED_BY = re.compile(r"^(?:\w*id|\w*_?name|target|resource|environment|env|stage|slug)$")
"""Arguments that name what a tool deletes (``deploymentId="starfall-live"``)."""


def _anyone(principal: Any) -> bool:
    """A policy statement's principal that is everyone (``"*"``, ``{"AWS": "*"}``)."""
    if isinstance(principal, dict):
        return any(_anyone(v) for v in list(principal.values())[:8])
    if isinstance(principal, list):
        return any(_anyone(v) for v in principal[:8])
    return isinstance(principal, str) and principal == "*"


def exposure(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Something made public or reachable by anyone with a link, or shared with a personal
    mailbox."""
    if not acts(words):
        return
    things = words & _SHARED_THINGS and not words & _CONVERSATION
    public = any(
        (k in _PUBLIC_FLAGS and v is True and things)
        or (k in _PRIVATE_FLAGS and v is False and things)
        or (k in _PUBLIC_KEYS and isinstance(v, str) and v.strip().lower() in _PUBLIC_VALUES)
        or (k == "anonymous" and (v is True or (isinstance(v, dict) and True in v.values())))
        or (k == "public_access" and isinstance(v, dict) and v.get("enabled") is True)
        or container_public(k, v)
        or (k == "principal" and _anyone(v) and things and ("effect", "Deny") not in pairs)
        for k, v in pairs
    )
    if public:
        yield (
            "makes data public",
            "what it shares becomes readable by anyone with the link or on the internet.",
            "Share with named people, or let a person confirm publishing.",
        )
        return
    if words & _SHARE_VERBS:
        personal = [
            a
            for _, v in pairs
            if isinstance(v, str) and len(v) < 400
            for a in ADDRESS.findall(v)
            if PERSONAL_MAIL.search(a.lower())
        ]
        if personal:
            yield (
                "shares with a personal mailbox",
                f"{personal[0][:80]} is a personal address: what is shared leaves the "
                "company's control.",
                "Share with work addresses, or let a person confirm.",
            )


_OP_WORD = re.compile(r"[A-Z]?[a-z]+")
_OP_NAME = re.compile(r"^\s*[A-Za-z][A-Za-z_ -]{0,58}\s*$")
_HARD = frozenset({"hard", "permanent", "permanently", "purge"})
"""Words of an operation that skips the recycle bin (``hardDelete``, ``permanent_delete``)."""


def _op_words(value: str) -> set[str]:
    """The lower-case words of an operation's name (``hardDelete``: ``hard``, ``delete``); a
    dotted event name (``contact.delete``, what a webhook listens for) is one word."""
    if len(value) > 60 or not _OP_NAME.match(value):
        return {value.strip().lower()}
    return {w.lower() for w in _OP_WORD.findall(value)}


def deletes(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """People and places deleted, bulk and hard deletes (a delete of every document of a
    collection is the ``tool-sql`` check's: ``docstore``)."""
    told = {  # a batch tool told what to do by an argument (``event="delete"``, ``hardDelete``)
        w for k, v in pairs if k in _EVENT_ARGS and isinstance(v, str) for w in _op_words(v)
    }
    if told & DELETE_VERBS:
        words = words | told | ({"permanent"} if told & _HARD else set())
    if "empty" in words and words & _BINS:  # ``empty_trash``: a delete for good
        words = words | {"delete", "permanent"}
    if not (words & DELETE_VERBS or ("archive" in words and words & _MANY)):
        return
    if (
        words & DELETE_VERBS == {"remove"}
        and words & _MEMBERSHIP
        and words & _JOINED
        and not words & _MANY
        and not any(isinstance(v, list) for _, v in pairs)
    ):
        return  # one person taken out of a group: the account stays
    live = any(
        _NAMED_BY.match(k) and isinstance(v, str) and len(v) < 200 and _LIVE.search(v)
        for k, v in pairs
    )
    every = any(
        k in ("where", "filter", "condition", "where_clause")
        and isinstance(v, str)
        and _ALWAYS.match(v[:80]) is not None
        for k, v in pairs
    )
    people = any(  # a list that holds people (``member_count=38214``)
        _PEOPLE_COUNT.match(k) and isinstance(v, int) and not isinstance(v, bool) and v > 0
        for k, v in pairs
    )
    if ("sandbox", True) in pairs:
        return  # a payment provider's test mode (``http_test_mode``): test data only
    bulk_ids = many_ids(pairs) is not None
    if not (people or every or live or bulk_ids) and throwaway_target(pairs):
        return  # one sandbox, test or scratch target, named so by its own name
    places = words & _PEOPLE_PLACES
    if places <= _REPO_HOMES and words & _REPO_PARTS:
        places = set()  # a branch, a tag, a file of a repository: the repository stays
    if (
        places
        or people
        or words & _MANY
        or live
        or every
        or "permanent" in words
        or bulk_ids
        or any(
            k in ("hard_delete", "permanent", "purge", "batch", "bulk", "allowitemdeletion")
            and v is True
            for k, v in pairs
        )
    ):
        yield (
            "deletes accounts, records or places" + (" in production" if live else ""),
            "a user, customer, channel, many records or a production service go with their "
            "history; the agent cannot bring them back.",
            "Let a person confirm the delete.",
        )


def business_consequences(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Every consequence above: its title, why it matters and what to do (each high)."""
    yield from amount_contradicts_note(words, pairs)  # before money: the more telling title
    yield from money(words, pairs)
    yield from exposure(words, pairs)
    yield from sign_in(words, pairs)
    yield from guards_off(words, pairs)
    yield from bulk_out(words, pairs)
    yield from deletes(words, pairs)
    yield from safety_nets(words, pairs)
    yield from public_release(words, pairs)
    yield from plant_control(words, pairs)
    yield from defences_down(words, pairs)
    yield from data_set_to_leave(words, pairs)
    yield from shared_places(words, pairs)
    yield from screening_cleared(words, pairs)
    yield from population_reach(words, pairs)
    yield from wide_action(words, pairs)
    yield from approval_recorded(words, pairs)
    yield from claimed_authority(words, pairs)
    yield from opened_or_hidden(words, pairs)
    yield from told_or_many(words, pairs)
    yield from safeguards_cleared(words, pairs)
    yield from takeover(words, pairs)
    yield from blind_spots(words, pairs)
    yield from quiet_changes(words, pairs)
    yield from access_widened(words, pairs)
    if acts(words):  # ``Action: *`` on ``Resource: *``, RBAC ``*``, a SCIM role patch
        yield from admin_equivalent(pairs)
        yield from security_feature_off(words)  # ``disable_vulnerability_alerts``
    if acts(words) and guard_flag_set(pairs):  # a framework's production-database guard off
        yield (GUARD_TITLE, GUARD_WHY, GUARD_FIX)
