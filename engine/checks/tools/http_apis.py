"""Destructive calls to APIs the review knows: deleting a repository, a bucket, a database, a
cluster, a whole collection; removing branch protection; making private data public; AWS
actions that destroy or grant. A catalogue of (hosts, methods, path) rules plus a few shapes
that need the body (GraphQL mutations, Docker's privileged containers, PostgREST filters).

A DELETE, PUT or PATCH that no rule names is still reported by ``tool-http`` (high) when its
host is not allowed; these rules are what makes one critical.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, unquote

from humangr.contracts import Severity

from .graphql_fields import later_delete_field
from .http_api_rules import KNOWN_APIS, RULES
from .http_call import HttpCall, json_text
from .http_sites import host_in

__all__ = ["destructive_call", "destructive_tool", "name_words", "scratch_store"]

C, H = Severity.CRITICAL, Severity.HIGH

_AWS_DESTROY = re.compile(
    r"^(?:DeleteBucket|DeleteDB\w*|DeleteTable|TerminateInstances|DeleteStack|DeleteFileSystem"
    r"|DeleteVolume|DeleteRepository|ScheduleKeyDeletion|DeleteSecret|DeleteBackupVault|DeleteCluster"
    r"|DeleteGlobalCluster|DeleteLogGroup|DeleteTrail|StopLogging|DeleteDetector|DeleteFlowLogs"
    r"|DeleteBucketPolicy|PutBucketPolicy|PutBucketAcl|DeletePublicAccessBlock|CreateAccessKey"
    r"|CreateUser|CreateLoginProfile|AttachUserPolicy|AttachRolePolicy|PutUserPolicy|PutRolePolicy"
    r"|UpdateAssumeRolePolicy|AddUserToGroup|UpdateLoginProfile|DeleteUser|DeleteRole)$"
)
_GRAPHQL = re.compile(
    r"(?is)\bmutation\b[^{]{0,200}\{\s*(?:\w+\s*:\s*)?(delete|destroy|purge|drop|remove|wipe|archive)"
    r"(\w{0,60})"
)
_GRAPHQL_SUFFIX = re.compile(
    r"(?s)\bmutation\b[^{]{0,200}\{\s*(?:\w+\s*:\s*)?([a-z][A-Za-z0-9]{1,60}?)"
    r"(Delete|Destroy|Purge|Remove|Wipe)(?:Many|All|Bulk)?\s*\("
)
"""The noun-first form (Shopify's ``productDelete``, GitLab's ``projectDelete``, Linear's
``issueDelete``): the same delete as ``deleteProduct``."""
_BIG_THINGS = re.compile(
    r"(?i)^(?:repository|repo|project|organization|org|team|bucket|database|db|cluster|namespace"
    r"|workspace|environment|account|zone|site|app|branchprotectionrule|enterprise|service)s?$"
)
_S3_LIKE = (
    "r2.cloudflarestorage.com",
    "digitaloceanspaces.com",
    "backblazeb2.com",
    "wasabisys.com",
)
_VERSION = re.compile(r"^(?:v\d[\w.]*|api|rest|\d{4}-\d{2}-\d{2})$", re.I)


def _body(call: HttpCall) -> Any:
    for key, value in call.payload:
        if key.lower() in ("json", "body", "data", "payload", "json_body", "request_body"):
            return json_text(value)
    return None


def _path(call: HttpCall) -> tuple[str, str]:
    """The request's path, normalised, and the host its API answers as: GitHub Enterprise
    Server serves GitHub's API under ``/api/v3`` on its own host."""
    assert call.url is not None
    host = call.url.host.name
    path = re.sub(r"/{2,}", "/", unquote(call.url.path))
    if len(path) > 1:
        path = path.rstrip("/")
    if host != "api.github.com" and path.lower().startswith("/api/v3/"):
        return path[7:], "api.github.com"
    return path, host


def _s3(call: HttpCall, path: str) -> tuple[Severity, str] | None:
    host = call.url.host.name if call.url else ""
    aws = host.endswith(".amazonaws.com") and re.search(r"(?:^|\.)s3[.-]", host) is not None
    other = host_in(host, _S3_LIKE)
    if not aws and not other:
        return None
    virtual = not host.startswith(("s3.", "s3-")) if aws else host.count(".") >= 3
    query = call.url.query.lower() if call.url else ""
    if call.method == "DELETE" and (
        path in ("", "/") if virtual else re.fullmatch(r"/[^/]+", path)
    ):
        return C, "deletes the bucket"
    if call.method == "POST" and re.search(r"(?:^|&)delete(?:=|&|$)", query):
        return C, "deletes objects of the bucket in bulk"
    acl = " ".join(v.lower() for _, name, v in call.headers if name.lower() == "x-amz-acl")
    if call.method == "PUT" and "public-read" in acl:
        return C, "makes the bucket or object public"
    return None


def _collection(call: HttpCall, path: str) -> tuple[Severity, str] | None:
    host = call.url.host.name if call.url else ""
    if call.method != "DELETE":
        return None
    parts = [p for p in path.split("/") if p]
    rest = [p for p in parts if not _VERSION.match(p)]
    query = call.url.query if call.url else ""
    if host_in(host, KNOWN_APIS) and len(rest) == 1 and not query:
        return C, f"deletes the whole {rest[0]} collection"
    if (
        len(parts) >= 3
        and parts[-3:-1] == ["rest", "v1"]
        and not re.search(r"=(?:eq|neq|gt|gte|lt|lte|like|ilike|in|is)\.", query)
    ):
        return C, f"deletes every row of {parts[-1]} (no filter)"
    return None


def _aws(call: HttpCall) -> tuple[Severity, str] | None:
    if call.url is None or not call.url.host.name.endswith("amazonaws.com"):
        return None
    actions = [v for k, v in parse_qsl(call.url.query) if k == "Action"]
    body = _body(call)
    if isinstance(body, str):
        actions += [v for k, v in parse_qsl(body[:8192]) if k == "Action"]
    elif isinstance(body, dict) and isinstance(body.get("Action"), str):
        actions.append(body["Action"])
    actions += [v.rsplit(".", 1)[-1] for _, n, v in call.headers if n.lower() == "x-amz-target"]
    for action in actions:
        if _AWS_DESTROY.match(action):
            return C, f"AWS {action[:40]}"
        if action.startswith(("Delete", "Terminate", "Purge", "Remove")):
            return H, f"AWS {action[:40]}"
    return None


def _graphql(call: HttpCall) -> tuple[Severity, str] | None:
    body = _body(call)
    text = body.get("query") if isinstance(body, dict) else body
    if not isinstance(text, str):
        return None
    m = _GRAPHQL.search(text[:65536])
    if m is not None:
        name, thing = m.group(1) + m.group(2), m.group(2)
    elif (s := _GRAPHQL_SUFFIX.search(text[:65536])) is not None:
        name, thing = s.group(1) + s.group(2), s.group(1)
    elif (later := later_delete_field(text[:65536])) is not None:
        name, thing = later  # a delete behind a harmless first field
    else:
        return None
    return (C if _BIG_THINGS.match(thing) else H), f"GraphQL mutation {name[:50]}"


def destructive_call(call: HttpCall) -> tuple[Severity, str] | None:
    """The worst thing a known API does with this request: ``(severity, title)``."""
    if call.url is None:
        return None
    path, host = _path(call)
    for rule in RULES:
        if call.method not in rule.methods:
            continue
        if rule.hosts is not None and not host_in(host, rule.hosts):
            continue
        if not rule.path.search(path):
            continue
        if rule.body is not None and not rule.body(_body(call)):
            continue
        return rule.severity, rule.title
    for special in (_s3(call, path), _aws(call), _graphql(call), _collection(call, path)):
        if special is not None:
            return special
    return None


_TOOL_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_DESTROY_VERBS = frozenset({"delete", "destroy", "drop", "purge", "wipe", "terminate", "truncate"})
_STORES = re.compile(
    r"^(?:repository|repo|project|organization|org|bucket|database|db|cluster|namespace"
    r"|workspace|environment|account|zone|site|app|table|index|collection|instance|volume"
    r"|keyspace|schema|stack|tenant|subscription|vault)s?$"
)


def name_words(name: str, limit: int) -> list[str]:
    """The lower-cased words of a tool's name, at most ``limit`` (``deleteRepository``,
    ``delete_repository`` → ``delete``, ``repository``)."""
    return [w.lower() for w in _TOOL_WORDS.findall(name)][:limit]


def destructive_tool(name: str) -> str | None:
    """What an API-wrapping tool (``mcp__github__delete_repository``, ``dropDatabase``) destroys
    by its name alone: a whole store (repository, bucket, database, cluster…), or None."""
    words = name_words(name.rsplit("__", 1)[-1], 8)
    for k, word in enumerate(words[:-1]):
        if word in _DESTROY_VERBS and _STORES.match(words[k + 1]):
            return f"{word}s a whole {words[k + 1]}"
    return None


_SMALL_STORES = ("table", "index", "collection", "schema")
_SCRATCH_WORDS = frozenset({"scratch", "tmp", "temp", "playground", "sandbox"})
_LIVE_WORDS = frozenset({"prod", "production", "prd", "live"})


def scratch_store(what: str, arguments: dict[str, Any]) -> bool:
    """A table, index or collection that ``what`` deletes named as scratch work
    (``dataset_id="scratch_jdoe"``, ``table_id="tmp_join"``) and nothing named for
    production: a developer's own leftovers."""
    if not what.endswith(_SMALL_STORES):
        return False
    words: set[str] = set()
    for value in list(arguments.values())[:32]:
        if isinstance(value, str):
            words.update(re.split(r"[^a-z0-9]+", value[:200].lower()))
    return bool(words & _SCRATCH_WORDS) and not words & _LIVE_WORDS
