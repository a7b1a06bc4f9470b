"""``tool-consequence``: tools of any name whose call has consequences outside the workspace
that the agent cannot take back — read from the tool's name and its arguments, for the
tools no kind covers (``deploy``, ``transfer_funds``, ``mcp__docker__run_container``):

- a container given the host's root (a ``/:`` volume) is critical; one run privileged is high;
- what business tools do (``business``): money moved or priced, data made public, sign-in
  weakened, administrators made, accounts deleted, whole datasets exported, whole audiences
  messaged, monitoring muted — high;
- a deploy, release, rollback, scale, restart, migration or delete aimed at production is high;
- a DNS record created, changed or deleted is high;
- a protection overridden (``admin_override``, ``bypass_…``, ``skip_checks`` set true) is high;
- a mailbox filter or setting that forwards mail to an address is critical;
- a browser script that reads cookies or storage and makes a request is critical.

What a generic tool does may be named by an argument (``action="destroy"``).

Everyday calls (``get_weather``, ``create_issue``, a deploy to staging) get no finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from humangr.contracts import Severity, ToolKind

from ..base import CheckInput, Hit
from .admin_equivalents import named_admin
from .business import business_consequences
from .business_feed_hosts import feed_elsewhere
from .business_feed_wide import service_brands, wide_feed
from .business_ops import root_bound
from .business_words import DELETE_VERBS, READS
from .consequence_tags import only_tags
from .graphql_inputs import mutation_inputs
from .graphql_words import mutation_words
from .http_apis import name_words
from .http_call import REQUEST_ARGS, HttpCall, json_text
from .http_service import api_words, arg_pairs
from .manifest_args import manifest_hits
from .view import ToolView

__all__ = ["consequential"]

_CONTAINER = frozenset({"docker", "container", "containers", "podman", "pod", "compose"})
_CHANGES = frozenset(
    {
        "deploy",
        "release",
        "rollback",
        "scale",
        "restart",
        "migrate",
        "delete",
        "update",
        "promote",
        "publish",
        "apply",
        "destroy",
        "drop",
        "shutdown",
        "stop",
        "terminate",
        "restore",
    }
)
_PRODUCTION = re.compile(r"(?i)^(?:prod|production|prd|live)(?:[-_.]\w+)?$")
_LIVE_WORDS = frozenset({"prod", "production", "prd"})
"""Production named among the words of a tool's name or an API's path (``job/deploy-prod``)."""
_WHERE = re.compile(
    r"^(?:env|environment|stage|target|cluster|namespace|context|tier|space|workspace|project)$"
)
"""Arguments that say where a change lands (``environment="production"``)."""
_DNS = frozenset({"dns", "zone", "zones", "cname", "nameserver", "nameservers", "registrar"})
_DNS_HOSTS = frozenset({"cloudflare", "route53", "godaddy", "namecheap", "gandi", "porkbun"})
_DNS_TOO = frozenset({"record", "records"})
"""A record is DNS only at a DNS host (``update_record`` of a CRM is not DNS)."""
_DNS_VERBS = frozenset({"create", "update", "delete", "set", "change", "upsert", "put", "add"})
_NOT_DNS = frozenset({"purge", "purge_cache", "cache", "analytics", "logs", "insights"})
"""A zone's cache, logs or analytics: the zone's content, not where its names point."""
_ROOT_MOUNT = re.compile(r"^/(?::|$)")
_BROWSER_SECRETS = re.compile(r"document\.cookie|localStorage|sessionStorage|indexedDB")
_SENDS = re.compile(
    r"\bfetch\s*\(|XMLHttpRequest|sendBeacon|new\s+Image\b|\.src\s*=|location(?:\.href)?\s*="
    r"|WebSocket\s*\("
)
"""Script that reads a page's secrets and script that makes a request (a browser tool's
``evaluate``)."""
_FILE_CONTENT = frozenset({ToolKind.FILE_WRITE, ToolKind.FILE_EDIT})
_WHOLE_JAR = re.compile(
    r"JSON\.stringify\(\s*(?:window\.)?(?:localStorage|sessionStorage)\s*\)|"
    r"Object\.(?:keys|entries|values)\(\s*(?:window\.)?(?:localStorage|sessionStorage)\s*\)|"
    r"\b(?:chrome|browser)\.cookies\.getAll\b|"
    r"\b(?:encodeURIComponent|btoa|escape)\(\s*document\.cookie\s*\)|"
    r"[+,:=]\s*document\.cookie\b(?!\s*\.)|\$\{\s*document\.cookie\s*\}"
)
"""In a file's content: every cookie or the whole storage read as one value, as a thief
does (an app reads one named item — its token, its CSRF cookie — to send to its own API)."""
_VERB_ARGS = frozenset({"action", "operation", "op", "verb", "subcommand", "mode"})
"""Arguments that name what a generic tool does (``terraform(action="destroy")``)."""
_ONE = re.compile(r"^[A-Za-z][A-Za-z0-9]{1,23}$")
_JOB_ARGS = frozenset({"job", "job_name", "pipeline", "workflow"})
"""Arguments that name the job a CI trigger starts; their words say what it does."""
_FORWARD = re.compile(
    r"^(?:forward|forward_?to|redirect_?to|forwarding_?(?:smtp_?)?address|forwarding_?smtp)$"
)
_BYPASS = re.compile(
    r"^(?:[a-z]{1,2}_)?(?:admin_?override|override_?protection|bypass_?\w*|skip_?(?:\w+_)?(?:review|checks?|"
    r"verification|approvals?|hooks|tests?|ci)|no_?verify|ignore_?(?:protection|checks?)|"
    r"force_?merge)$"
)
"""Arguments that switch a protection off (``admin_override=true``, ``skip_checks=true``)."""
_KIND_ARGS = frozenset({"kind", "resource", "resource_type", "type", "object"})
_NAME_ARGS = frozenset({"name", "names", "id", "namespace", "target", "resource_name"})
_WHOLE = frozenset(
    {"namespace", "namespaces", "ns", "cluster", "database", "bucket", "project", "repository",
     "zone", "persistentvolume", "pv", "persistentvolumeclaim", "pvc", "keyspace", "index"}
)  # fmt: skip
_PROD_NAME = re.compile(r"(?i)(?:^|[-_.])(?:prod|production|prd|live)(?:$|[-_.\d])")
"""A generic tool's delete of a whole store, named by a kind argument (``k8s_delete(kind=
"namespace", name="shop-prod")``)."""
_SECRET_STORES = frozenset(
    {"secret", "secrets", "password", "passwords", "credential", "credentials", "vault",
     "secretsmanager", "keyvault", "apikey", "apikeys"}
)  # fmt: skip
_REVEALS = frozenset(
    {"value", "values", "reveal", "decrypt", "read", "get", "show", "export", "access", "plaintext"}
)
_REVEAL_FLAGS = frozenset(
    {"decrypt", "with_decryption", "withdecryption", "reveal", "show_values", "show_secrets",
     "plaintext", "unmask", "include_values", "include_secrets"}
)  # fmt: skip
"""Arguments that ask a tool for secrets' values (``get_project_env(decrypt=true)``)."""
_NOT_REVEALS = frozenset(
    {"list", "describe", "metadata", "rotate", "create", "delete", "update", "put", "set",
     "policy", "versions", "tags", "exists", "status", "reset", "strength", "account",
     "accounts", "balance", "balances", "asset", "assets", "wallet", "wallets"}
)  # fmt: skip
"""A tool that hands back a stored secret (``get_secret_value``, ``vault_read``): not one that
lists, describes, rotates or writes them."""
_UNPROTECTS = frozenset(
    {"allow_force_pushes", "allow_force_push", "allow_deletions", "allows_force_pushes",
     "allows_deletions"}
)  # fmt: skip
_PROTECTS = frozenset(
    {"required_pull_request_reviews", "required_status_checks", "required_approving_review_count",
     "requires_status_checks", "requires_approving_reviews"}
)  # fmt: skip
_PROTECTED = frozenset({"protection", "protections", "branch", "branches", "ruleset", "rulesets"})
"""A branch protection's settings: ``true`` for the first, none for the second, weakens it."""


def _hit(
    view: ToolView, severity: Severity, title: str, why: str, fix: str, argument: str | None = None
) -> Hit:
    return Hit(
        severity=severity,
        title=title,
        description=f"{view.name}: {why}",
        suggestion=fix,
        argument=argument,
    )


def consequential(ctx: CheckInput) -> Iterator[Hit]:
    """Consequences outside the workspace that a tool's name and arguments announce."""
    view = ctx.tool
    if view is None:
        return
    if not view.read_by_own_checks:
        yield from manifest_hits(view)
    words = set(name_words(view.call.name, 12))  # the MCP server's name counts too
    api = api_words(view)
    if api is None:
        pairs = arg_pairs(view.call.arguments)
    else:  # a raw API call: its method, path and body say what it does, not the HTTP tool's
        words = (words - READS) | api[0]  # name (``http_fetch``) nor its headers
        pairs = api[1] + arg_pairs(
            {k: v for k, v in view.call.arguments.items() if k.lower() not in REQUEST_ARGS}
        )
    verbs = [v for k, v in pairs if k in _VERB_ARGS and isinstance(v, str) and len(v) < 40]
    words |= {v.lower() for v in verbs} | {w for v in verbs[:8] for w in name_words(v, 8)}
    words |= {  # a generic cloud tool's ``service="guardduty"``
        v.lower() for k, v in pairs[:200] if k == "service" and isinstance(v, str) and _ONE.match(v)
    }
    if api is None:  # a SaaS tool's GraphQL mutation: the fields it calls
        words |= mutation_words(pairs)
        pairs += mutation_inputs(view.call.arguments)
    words |= {  # a CI trigger's ``job="db-restore"``, word by word
        w
        for k, v in pairs
        if k in _JOB_ARGS and isinstance(v, str) and len(v) < 80
        for w in re.split(r"[^a-z]+", v.lower())
        if w and w not in READS
    }
    strings = [v for _, v in pairs if isinstance(v, str)]
    if words & _CONTAINER:
        if any(_ROOT_MOUNT.match(s.strip()) for s in strings):
            yield _hit(
                view,
                Severity.CRITICAL,
                "mounts the host's root into a container",
                "a volume binds / into the container: it can read and change every host file.",
                "Mount only the project folder.",
            )
        elif any(k == "privileged" and v is True for k, v in pairs):
            yield _hit(
                view,
                Severity.HIGH,
                "runs a privileged container",
                "a privileged container can take over the host.",
                "Run it unprivileged.",
            )
    aimed = [v for k, v in pairs if _WHERE.match(k) and isinstance(v, str)]
    live = any(_PRODUCTION.match(s.strip()) or _PROD_NAME.search(s) for s in aimed[:200])
    if words & _CHANGES and (live or words & _LIVE_WORDS) and not _tags_only(view, api):
        yield _hit(
            view,
            Severity.HIGH,
            "changes production",
            "the call deploys, scales, restarts or deletes something in production.",
            "Let a person confirm changes to production.",
        )
    secrets = _WHOLE_JAR if view.kind in _FILE_CONTENT else _BROWSER_SECRETS
    stolen = next((v for v in strings if secrets.search(v) and _SENDS.search(v)), None)
    if stolen is not None:
        yield _hit(
            view,
            Severity.CRITICAL,
            "sends the browser's cookies or storage",
            "the page's script reads its cookies or storage and sends them away: the session "
            "can be taken over.",
            "Never read cookies or storage in a script that makes requests.",
        )
    bypass = next((k for k, v in pairs if _BYPASS.match(k) and _truthy(v)), None)
    if bypass is not None:
        yield _hit(
            view,
            Severity.HIGH,
            "overrides a protection",
            f"`{bypass}` skips a required review, check or protection of the target.",
            "Let a person decide to override a protection.",
        )
    whole = next(
        (v for k, v in pairs if k in _KIND_ARGS and isinstance(v, str) and v.lower() in _WHOLE),
        None,
    )
    if whole is not None and words & DELETE_VERBS:
        named = [v for k, v in pairs if k in _NAME_ARGS and isinstance(v, str)]
        production = any(_PRODUCTION.match(v.strip()) or _PROD_NAME.search(v) for v in named)
        yield _hit(
            view,
            Severity.CRITICAL if production else Severity.HIGH,
            f"deletes a whole {whole.lower()}" + (" in production" if production else ""),
            f"everything the {whole.lower()} holds goes with it.",
            "Let a person confirm deletes of whole namespaces, clusters and stores.",
        )
    named_store = words & _SECRET_STORES and words & _REVEALS and not words & _NOT_REVEALS
    if named_store or any(k in _REVEAL_FLAGS and v is True for k, v in pairs):
        yield _hit(
            view,
            Severity.HIGH,
            "reads a secret's value",
            "the call returns a stored secret itself: once in the agent's context it can be "
            "repeated, logged or sent anywhere.",
            "Let the tool that needs the secret read it; have a person confirm a read by hand.",
        )
    unprotected = next(
        (
            k
            for k, v in pairs
            if (k in _UNPROTECTS and v is True) or (k in _PROTECTS and v in (None, False, 0))
        ),
        None,
    )
    if unprotected is not None and words & _PROTECTED:
        yield _hit(
            view,
            Severity.HIGH,
            "removes a branch protection",
            f"`{unprotected}` lets changes reach the branch without the reviews and checks it "
            "required, or lets its history be rewritten or deleted.",
            "Let a repository administrator change branch protection.",
        )
    forward = next((v for k, v in pairs if _FORWARD.match(k) and isinstance(v, str)), None)
    if (
        forward
        and "@" in forward
        and words
        & {
            "filter",
            "filters",
            "rule",
            "rules",
            "forward",
            "forwarding",
            "settings",
            "mail",
            "gmail",
            "mailbox",
        }
    ):
        yield _hit(
            view,
            Severity.CRITICAL,
            "forwards mail elsewhere",
            f"every matching message is copied to {forward[:80]} from now on.",
            "Let the mailbox's owner set up forwarding.",
        )
    dns = words & _DNS or (words & _DNS_TOO and words & _DNS_HOSTS)
    if dns and words & _DNS_VERBS and not words & _NOT_DNS:
        yield _hit(
            view,
            Severity.HIGH,
            "changes DNS",
            "a DNS change redirects a domain's traffic and takes hours to undo everywhere.",
            "Let a person confirm DNS changes.",
        )
    if view.read_by_own_checks:  # a shell, file, code or SQL tool: its own checks read what
        for title, why, fix in root_bound(pairs):  # it does; a login bound to root aside
            yield _hit(view, Severity.HIGH, title, why, fix)
        return
    where = api[2].url_argument if api is not None else None  # the request's address
    for title, why, fix in business_consequences(words, pairs):
        yield _hit(view, Severity.HIGH, title, why, fix, argument=where)
    path = api[2].url.path if api is not None and api[2].url is not None else ""
    for title, why, fix in named_admin(view.call.name, path):  # ``admin.users.setAdmin``
        yield _hit(view, Severity.HIGH, title, why, fix, argument=where)
    own = [api[2].url.host.name] if api is not None and api[2].url is not None else []
    elsewhere = list(feed_elsewhere(words, pairs, own))  # a feed to another domain
    for title, why, fix in elsewhere or wide_feed(
        words, pairs, service_brands(view.call.name, own)
    ):
        yield _hit(view, Severity.HIGH, title, why, fix, argument=where)


def _truthy(value: object) -> bool:
    """``True``, or a text that says so (a query parameter's ``SKIP_TESTS=true``, an ABAP
    flag's ``"X"``)."""
    return value is True or (
        isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "x", "y", "on")
    )


def _tags_only(
    view: ToolView, api: tuple[set[str], list[tuple[str, Any]], HttpCall] | None
) -> bool:
    """The call only sets tags or labels (``consequence_tags``): bookkeeping, not a change."""
    if api is None:
        return only_tags(view.call.name, view.call.arguments, None, None)
    request = api[2]
    bodies = [json_text(v) for _, v in request.payload[:4]]
    body = bodies[0] if len(bodies) == 1 else None
    path = request.url.path if request.url is not None else None
    return path is not None and only_tags(view.call.name, view.call.arguments, path, body)
