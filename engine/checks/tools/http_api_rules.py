"""Catalogue of destructive calls to known APIs: (hosts, methods, path, body test) rules for
GitHub, GitLab, Bitbucket, cloud storage and databases, PaaS providers, Kubernetes, Docker,
Elasticsearch and Firebase; and the provider APIs whose collections a DELETE must not empty.
Data, and the small body tests the rules use."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from humangr.contracts import Severity

from .egress_mail import ADDRESS, DISTRIBUTION, MENTION_ALL

__all__ = ["KNOWN_APIS", "RULES", "Rule"]

C, H = Severity.CRITICAL, Severity.HIGH
_DEFAULT = r"(?:main|master|trunk|develop|development|production|prod|release|stable|live)"
_ID = r"[^/]+"


@dataclass(frozen=True, slots=True)
class Rule:
    hosts: tuple[str, ...] | None
    methods: frozenset[str]
    path: re.Pattern[str]
    severity: Severity
    title: str
    body: Callable[[Any], bool] | None = None


def _r(
    hosts: tuple[str, ...] | None,
    methods: str,
    path: str,
    sev: Severity,
    title: str,
    body: Callable[[Any], bool] | None = None,
) -> Rule:
    return Rule(hosts, frozenset(methods.split()), re.compile(path, re.I), sev, title, body)


def _flag(key: str, *values: Any) -> Callable[[Any], bool]:
    def test(body: Any) -> bool:
        return isinstance(body, dict) and body.get(key) in values

    return test


_GH = ("api.github.com",)
RULES: tuple[Rule, ...] = (
    _r(_GH, "DELETE", rf"^/repos/{_ID}/{_ID}$", C, "deletes the repository"),
    _r(_GH, "DELETE", rf"^/orgs/{_ID}$", C, "deletes the organization"),
    _r(
        _GH,
        "DELETE",
        rf"^/repos/{_ID}/{_ID}/git/refs/heads/{_DEFAULT}$",
        C,
        "deletes the default branch",
    ),
    _r(
        _GH,
        "PATCH POST",
        rf"^/repos/{_ID}/{_ID}/git/refs/heads/{_DEFAULT}$",
        C,
        "force-updates the default branch",
        _flag("force", True, "true"),
    ),
    _r(
        _GH,
        "DELETE",
        rf"^/repos/{_ID}/{_ID}/branches/{_ID}/protection(?:/.*)?$",
        C,
        "removes branch protection",
    ),
    _r(_GH, "DELETE", rf"^/repos/{_ID}/{_ID}/rulesets/{_ID}$", C, "removes a branch ruleset"),
    _r(
        _GH,
        "PATCH",
        rf"^/repos/{_ID}/{_ID}$",
        C,
        "makes the repository public",
        lambda b: _flag("private", False, "false")(b) or _flag("visibility", "public")(b),
    ),
    _r(
        _GH,
        "PUT",
        rf"^/repos/{_ID}/{_ID}/collaborators/{_ID}$",
        C,
        "grants admin access to the repository",
        _flag("permission", "admin", "maintain"),
    ),
    _r(
        _GH,
        "PUT",
        rf"^/repos/{_ID}/{_ID}/collaborators/{_ID}$",
        H,
        "grants someone access to the repository",
    ),
    _r(
        _GH,
        "POST",
        rf"^/(?:repos/{_ID}/{_ID}|orgs/{_ID})/hooks$",
        H,
        "adds a webhook: every event of the repository goes to its URL",
    ),
    _r(_GH, "POST", rf"^/repos/{_ID}/{_ID}/keys$", H, "adds a deploy key to the repository"),
    _r(_GH, "POST", r"^/user/(?:keys|gpg_keys|ssh_signing_keys)$", H, "adds a key to the account"),
    _r(
        _GH,
        "PUT",
        rf"^/repos/{_ID}/{_ID}/actions/secrets/{_ID}$",
        H,
        "sets a secret of the repository's workflows",
    ),
    _r(
        _GH,
        "PUT",
        rf"^/orgs/{_ID}/memberships/{_ID}$",
        C,
        "makes someone an organization owner",
        _flag("role", "admin"),
    ),
    _r(
        None,
        "DELETE",
        rf"^/api/v4/(?:projects|groups)/{_ID}$",
        C,
        "deletes the GitLab project or group",
    ),
    _r(
        None,
        "DELETE",
        rf"^/api/v4/projects/{_ID}/(?:repository/branches/{_DEFAULT}"
        rf"|protected_branches/{_ID})$",
        C,
        "deletes or unprotects the default branch",
    ),
    _r(
        ("api.bitbucket.org",),
        "DELETE",
        rf"^/2\.0/repositories/{_ID}/{_ID}$",
        C,
        "deletes the repository",
    ),
    _r(("storage.googleapis.com",), "DELETE", rf"^/storage/v1/b/{_ID}$", C, "deletes the bucket"),
    _r(("googleapis.com",), "DELETE", rf"^/v\d\w*/projects/{_ID}$", C, "deletes the GCP project"),
    _r(
        (
            "sqladmin.googleapis.com",
            "spanner.googleapis.com",
            "container.googleapis.com",
            "redis.googleapis.com",
            "alloydb.googleapis.com",
            "firestore.googleapis.com",
        ),
        "DELETE",
        r"/(?:instances|clusters|databases)/[^/]+$",
        C,
        "deletes a database or cluster",
    ),
    _r(
        ("bigquery.googleapis.com", "www.googleapis.com"),
        "DELETE",
        rf"^/bigquery/v2/projects/{_ID}/datasets/{_ID}$",
        C,
        "deletes the BigQuery dataset",
    ),
    _r(
        ("management.azure.com",),
        "DELETE",
        rf"^/subscriptions/{_ID}/resourcegroups/{_ID}$",
        C,
        "deletes the Azure resource group",
    ),
    _r(
        ("management.azure.com",),
        "DELETE",
        rf"/providers/microsoft\.(?:storage|sql|dbforpostgresql|dbformysql|documentdb|keyvault"
        rf"|containerservice|cache)/{_ID}/{_ID}$",
        C,
        "deletes an Azure data store or cluster",
    ),
    _r(("api.cloudflare.com",), "DELETE", rf"^/client/v4/zones/{_ID}$", C, "deletes the zone"),
    _r(
        None,
        "POST",
        rf"^/api/v4/users/{_ID}/(?:impersonation_tokens|personal_access_tokens)$",
        C,
        "mints a token that acts as another GitLab user",
    ),
    _r(
        ("api.stripe.com",),
        "POST",
        r"^/v1/webhook_endpoints(?:/[^/]+)?$",
        H,
        "sends the account's payment events to a new address",
    ),
    _r(
        None,
        "POST PUT",
        r"^/api/v1/namespaces/[^/]+/pods$",
        C,
        "creates a pod with the host's privileges",
        lambda b: _host_pod(b),
    ),
    _r(
        ("slack.com",),
        "POST",
        r"^/api/chat\.(?:postMessage|scheduleMessage)$",
        H,
        "notifies everyone in a channel",
        lambda b: bool(MENTION_ALL.search(json.dumps(b)[:65_536])),
    ),
    _r(
        ("api.stripe.com",),
        "POST",
        r"^/v1/(?:transfers|payouts|topups)$",
        H,
        "moves money (a transfer or payout)",
    ),
    _r(
        _GH,
        "PATCH",
        rf"^/orgs/{_ID}$",
        H,
        "changes the organization's settings or members' default rights",
    ),
    _r(
        ("api.cloudflare.com",),
        "DELETE",
        rf"^/client/v4/accounts/{_ID}/(?:r2/buckets|d1/database|storage/kv/namespaces)/{_ID}$",
        C,
        "deletes a Cloudflare data store",
    ),
    _r(
        ("api.digitalocean.com",),
        "DELETE",
        rf"^/v2/(?:droplets|databases|kubernetes/clusters|volumes|apps|projects)/{_ID}$",
        C,
        "deletes a DigitalOcean resource",
    ),
    _r(("api.heroku.com",), "DELETE", rf"^/apps/{_ID}$", C, "deletes the Heroku app"),
    _r(("api.vercel.com",), "DELETE", rf"^/v\d+/projects/{_ID}$", C, "deletes the Vercel project"),
    _r(("api.netlify.com",), "DELETE", rf"^/api/v1/sites/{_ID}$", C, "deletes the Netlify site"),
    _r(
        ("api.render.com",),
        "DELETE",
        rf"^/v1/(?:services|postgres|redis)/{_ID}$",
        C,
        "deletes the Render service",
    ),
    _r(("api.machines.dev",), "DELETE", rf"^/v1/apps/{_ID}$", C, "deletes the Fly app"),
    _r(
        ("api.supabase.com", "console.neon.tech"),
        "DELETE",
        rf"^/(?:api/)?v\d/projects/{_ID}$",
        C,
        "deletes the database project",
    ),
    _r(
        ("api.planetscale.com",),
        "DELETE",
        rf"^/v1/organizations/{_ID}/databases/{_ID}$",
        C,
        "deletes the database",
    ),
    _r(
        ("cloud.mongodb.com",),
        "DELETE",
        rf"/groups/{_ID}/clusters/{_ID}$",
        C,
        "deletes the Atlas cluster",
    ),
    _r(
        ("hub.docker.com",),
        "DELETE",
        rf"^/v2/repositories/{_ID}/{_ID}$",
        C,
        "deletes the image repository",
    ),
    _r(
        ("registry.npmjs.org",),
        "DELETE",
        r"^/(?:@[^/]+/)?[^/]+/-rev/",
        C,
        "unpublishes the package",
    ),
    _r(None, "DELETE", rf"^/api/v1/namespaces/{_ID}$", C, "deletes the Kubernetes namespace"),
    _r(
        None,
        "DELETE",
        rf"^/api/v1/(?:persistentvolumes|nodes)/{_ID}$",
        C,
        "deletes a Kubernetes volume or node",
    ),
    _r(
        None,
        "DELETE",
        r"^/apis?/(?:[^/]+/)*namespaces/[^/]+/[a-z]+$",
        C,
        "deletes every object of a kind in the namespace",
    ),
    _r(
        None,
        "DELETE",
        r"^/apis/apiextensions\.k8s\.io/v1/customresourcedefinitions/",
        C,
        "deletes a custom resource definition and all its objects",
    ),
    _r(None, "DELETE", r"^/(?:_all|\*|[^/_][^/]*\*[^/]*)$", C, "deletes every index (wildcard)"),
    _r(
        None,
        "POST",
        r"^/[^/]+/_delete_by_query$",
        C,
        "deletes every document of the index",
        lambda b: "match_all" in json.dumps(b)[:4096],
    ),
    _r(
        ("firebaseio.com", "firebasedatabase.app"),
        "DELETE PUT",
        r"^/(?:\.json)?$",
        C,
        "deletes or overwrites the whole Realtime Database",
    ),
    _r(
        None,
        "POST",
        r"^/(?:v[\d.]+/)?(?:containers|images|volumes|networks|system)/prune$",
        H,
        "prunes Docker objects",
    ),
    _r(
        None,
        "POST",
        r"^/(?:v[\d.]+/)?containers/create$",
        C,
        "creates a privileged container (takes over the host)",
        lambda b: _privileged(b),
    ),
    _r(
        ("api.cloudflare.com",),
        "POST PUT PATCH DELETE",
        rf"^/client/v4/zones/{_ID}/dns_records(?:/{_ID})?$",
        H,
        "changes a DNS record (where a name's traffic goes)",
    ),
    _r(
        ("route53.amazonaws.com",),
        "POST",
        rf"^/\d{{4}}-\d\d-\d\d/hostedzone/{_ID}/rrset/?$",
        H,
        "changes a DNS record (where a name's traffic goes)",
    ),
    _r(
        ("api.digitalocean.com",),
        "POST PUT PATCH DELETE",
        rf"^/v2/domains/{_ID}/records(?:/{_ID})?$",
        H,
        "changes a DNS record (where a name's traffic goes)",
    ),
    _r(
        ("api.sendgrid.com",),
        "POST",
        r"^/v3/mail/send$",
        H,
        "sends e-mail to many people at once",
        lambda b: _recipients(b) > 10 or _to_list(b),
    ),
    _r(
        ("api.sendgrid.com",),
        "PUT POST",
        r"^/v3/marketing/singlesends/[^/]+/schedule$|^/v3/campaigns/[^/]+/schedules/now$",
        H,
        "sends a marketing campaign",
    ),
    _r(
        ("api.mailchimp.com",),
        "POST",
        r"^/3\.0/campaigns/[^/]+/actions/send$",
        H,
        "sends a marketing campaign",
    ),
)
KNOWN_APIS = (
    "api.stripe.com", "api.github.com", "api.twilio.com", "api.sendgrid.com", "api.hubapi.com",
    "api.intercom.io", "api.notion.com", "api.airtable.com", "api.linear.app", "slack.com",
    "api.pagerduty.com", "api.datadoghq.com", "api.openai.com", "api.box.com",
    "api.dropboxapi.com", "graph.microsoft.com", "api.mailchimp.com", "api.zendesk.com",
    "api.segment.io", "api.mixpanel.com", "api.cloudflare.com", "api.digitalocean.com",
    "api.heroku.com", "api.vercel.com", "api.netlify.com", "api.atlassian.com", "gitlab.com",
    "api.shopify.com", "api.square.com", "api.paypal.com", "api.braintreegateway.com",
    "api.pinecone.io", "api.algolia.com", "api.contentful.com", "api.sanity.io",
)  # fmt: skip
"""Provider APIs whose top-level collections a DELETE must never empty."""


def _privileged(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    host = body.get("HostConfig") if isinstance(body.get("HostConfig"), dict) else body
    if not isinstance(host, dict):
        return False
    raw = host.get("Binds")
    binds: list[Any] = raw if isinstance(raw, list) else []
    return bool(
        host.get("Privileged") is True
        or host.get("PidMode") == "host"
        or any(
            isinstance(b, str)
            and b.split(":", 1)[0] in ("/", "/etc", "/root", "/var/run/docker.sock")
            for b in binds
        )
    )


_RECIPIENT_KEYS = frozenset({"to", "cc", "bcc", "personalizations", "recipients", "emails"})


def _recipients(body: Any, depth: int = 0) -> int:
    """How many recipients a mail API's body names (bounded walk)."""
    if depth > 6:
        return 0
    if isinstance(body, dict):
        total = 0
        for key, value in list(body.items())[:200]:
            if key in _RECIPIENT_KEYS and isinstance(value, list):
                total += max(
                    len(value[:10_000]), sum(_recipients(v, depth + 1) for v in value[:200])
                )
            elif key == "email" and isinstance(value, str):
                total += 1
            else:
                total += _recipients(value, depth + 1)
        return total
    if isinstance(body, list):
        return sum(_recipients(v, depth + 1) for v in body[:200])
    return 0


def _to_list(body: Any) -> bool:
    """Whether a mail API's body sends to a customers' list (``customers@``, ``lists.``)."""
    text = json.dumps(body)[:65_536] if isinstance(body, dict | list) else ""
    return any(DISTRIBUTION.search(a.lower()) for a in ADDRESS.findall(text)[:500])


def _host_pod(body: Any) -> bool:
    """A pod spec that takes the host: privileged, its process or network space, or a
    ``hostPath`` of ``/`` or the docker socket."""
    text = json.dumps(body)[:65_536] if isinstance(body, dict | list | str) else ""
    return bool(
        re.search(r'"(?:privileged|hostPID|hostNetwork|hostIPC)"\s*:\s*true', text)
        or re.search(r'"hostPath"\s*:\s*\{[^}]*"path"\s*:\s*"/(?:var/run/docker\.sock)?"', text)
    )
