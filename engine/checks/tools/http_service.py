"""What an HTTP call to a service's API says in the words business tools use, and the kinds
of host and path the HTTP checks treat as everyday.

- ``api_words``: a request that changes something at a service, read as a business tool's
  call is read — the method as a verb (``POST`` → create), the path's words (``PATCH
  /orgs/acme/saml`` → update, orgs, acme, saml), the identity provider it is sent to
  (``*.okta.com`` → okta), and the body's keys and values (JSON, or a form's
  ``key=value&…``), with the path's own arguments (``/charges/ch_1/refunds`` →
  ``charge_id=ch_1``);
- ``service_host``: a host named for monitoring or CI (``prometheus.corp.internal``,
  ``jenkins.ci.lan``), whose reads show state and change nothing;
- ``cluster_read``: a read of workloads' state (pods, deployments, events) from the
  Kubernetes API inside the cluster;
- ``build_trigger``: a path that starts a CI build (Jenkins ``/job/…/build``, a generic
  webhook trigger, GitLab ``/trigger/pipeline``, Buildkite ``…/builds``);
- ``scratch_delete``: a DELETE of one named test, QA or fixture record on a staging, sandbox
  or test host.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise
from typing import Any
from urllib.parse import parse_qsl, unquote

from humangr.contracts import ToolKind

from .graphql_inputs import mutation_inputs
from .http_apis import name_words
from .http_call import HttpCall, json_text, read_http
from .http_url import Url
from .view import ToolView

__all__ = [
    "IDENTITY",
    "api_words",
    "arg_pairs",
    "build_trigger",
    "cluster_read",
    "scratch_delete",
    "service_host",
]

_METHOD_VERBS = {"POST": "create", "PUT": "set", "PATCH": "update", "DELETE": "delete"}
_LOCAL_HOSTS = re.compile(r"^(?:localhost|[\w.-]+\.localhost|127\.[\d.]+|\[?::1\]?|0\.0\.0\.0)$")
IDENTITY = frozenset(
    {"okta", "oktapreview", "auth0", "onelogin", "duosecurity", "jumpcloud", "pingone",
     "pingidentity", "microsoftonline", "entra", "keycloak", "cloudidentity", "workos"}
)  # fmt: skip
"""Identity providers, named by a host's labels (``acme.okta.com``) or a tool's name: their
policies and rules are what sign-in asks for."""
_FORM = re.compile(r"^[\w.\[\]%-]+=[^&]*(?:&[\w.\[\]%-]+=[^&]*)*$")
_PATH_ID = re.compile(r"^(?=.*\d)[A-Za-z0-9][\w.-]{2,63}$|^[A-Za-z]{1,8}_[A-Za-z0-9_]{4,60}$")
"""A path segment that names one record (``ch_3Pq…``, ``00u1ab2``, ``8842``, ``run-8842``)."""
_COLLECTION = re.compile(r"^[a-z][a-z_-]{2,40}$")
_VERSION = re.compile(r"^v\d+(?:\.\d+)?$|^\d{4}-\d{2}-\d{2}$")
_SERVICE_WORDS = frozenset(
    {"prometheus", "grafana", "alertmanager", "thanos", "loki", "tempo", "jaeger", "zipkin",
     "kibana", "victoriametrics", "metrics", "monitoring", "monitor", "observability", "o11y",
     "nagios", "zabbix", "icinga", "uptime", "status", "jenkins", "ci", "build", "builds",
     "buildkite", "teamcity", "drone", "concourse", "bamboo", "sonar", "sonarqube", "woodpecker"}
)  # fmt: skip
_CI_WORDS = frozenset(
    {"jenkins", "ci", "build", "builds", "buildkite", "teamcity", "drone", "concourse", "bamboo",
     "woodpecker", "gitlab"}
)  # fmt: skip
_PRIVATE_PATH = re.compile(
    r"(?i)/(?:admin|script\w*|credentials?|secrets?|env|\.env|\.git)(?:/|$|\.)"
)
"""Paths of a monitoring or CI server that hand out more than state (its admin pages, script
console, credentials)."""
_TRIGGERS = re.compile(
    r"(?i)(?:^|/)job/[^/]+(?:/job/[^/]+)*/(?:build|buildWithParameters|polling)$|"
    r"/generic-webhook-trigger/invoke$|/projects?/[^/]+/trigger/pipeline$|"
    r"/projects?/[^/]+/pipeline$|/pipelines/[^/]+/builds$|/app/rest/buildQueue$|"
    r"/repos/[^/]+/[^/]+/builds$"
)
_NOT_LIVE = frozenset(
    {"staging", "stage", "stg", "sandbox", "test", "testing", "qa", "dev", "uat", "preview",
     "demo", "ephemeral", "review"}
)  # fmt: skip
_TEST_HOSTS = frozenset({"test", "sandbox", "testing", "apitest", "sandbox1", "sandbox2"})
_TEST_KEY = re.compile(r"(?:^|[\s:])(?:sk|rk)_test_\w{8,}")
_SCRATCH = frozenset(
    {"test", "tests", "testing", "qa", "fixture", "fixtures", "e2e", "synthetic", "dummy",
     "sample", "samples", "scratch", "tmp", "temp", "seed", "mock", "mocks"}
)  # fmt: skip


def _labels(host: str) -> list[str]:
    return [p for p in re.split(r"[.-]", host.lower()) if p][:24]


def service_host(url: Url, *, ci: bool = False) -> bool:
    """A named (not numbered) host of a monitoring or CI service (``ci``: of CI only), on a
    path that is not its admin pages or credentials."""
    if url.host.addr is not None or _PRIVATE_PATH.search(url.path):
        return False
    return bool(set(_labels(url.host.name)) & (_CI_WORDS if ci else _SERVICE_WORDS))


_CLUSTER_API = re.compile(r"^kubernetes(?:\.default)?(?:\.svc)?(?:\.cluster\.local)?\.?$")
_CLUSTER_READ = re.compile(
    r"^/(?:api/v1|apis/[\w.-]{1,60}/v\w{1,12})(?:/namespaces/[\w-]{1,63})?/(?:pods|deployments"
    r"|replicasets|statefulsets|daemonsets|services|endpoints|events|jobs|cronjobs|ingresses"
    r"|nodes|namespaces|horizontalpodautoscalers|poddisruptionbudgets)(?:/[\w.-]{1,253})?"
    r"(?:/(?:status|log|scale))?/?$"
)
"""What a workload's state read from the cluster's own API is: pods, deployments, events…
(never secrets, config maps, service-account tokens, ``exec``, ``proxy`` or ``attach``)."""


def cluster_read(url: Url) -> bool:
    """A read of workloads' state from the Kubernetes API inside the cluster
    (``kubernetes.default.svc/api/v1/namespaces/x/pods``)."""
    return bool(_CLUSTER_API.match(url.host.name.lower()) and _CLUSTER_READ.match(url.path))


def build_trigger(call: HttpCall) -> bool:
    """A POST to a CI server that starts a build of a job or pipeline."""
    url = call.url
    return (
        url is not None
        and call.method == "POST"
        and service_host(url, ci=True)
        and _TRIGGERS.search(url.path.rstrip("/")) is not None
    )


def scratch_delete(call: HttpCall) -> bool:
    """A DELETE of one record named as test data (a fixture, a QA lobby) on a staging, sandbox
    or test host: what a test run leaves behind."""
    url = call.url
    if url is None or call.method != "DELETE" or url.host.addr is not None:
        return False
    if not set(_labels(url.host.name)) & _NOT_LIVE or re.search(r"(?i)\ball\b|\*", url.query):
        return False
    parts = [p for p in unquote(url.path).split("/") if p]
    if len(parts) < 2 or _PATH_ID.match(parts[-1]) is None:
        return False
    words = {w for p in parts[-3:] for w in re.split(r"[^a-z0-9]+", p.lower())}
    return bool(words & _SCRATCH)


def _values(value: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair of the arguments, nested ones too (bounded)."""
    if depth > 6:
        return
    if isinstance(value, dict):
        for key, item in list(value.items())[:200]:
            yield str(key).lower(), item
            yield from _values(item, depth + 1)
    elif isinstance(value, list):
        for item in value[:200]:
            yield "", item
            yield from _values(item, depth + 1)


def arg_pairs(value: Any) -> list[tuple[str, Any]]:
    """Every (key, value) pair of a tool's arguments or a request's body, nested ones too; a
    form body (``a=1&b=2``) read as its fields."""
    value = json_text(value)
    if isinstance(value, str) and len(value) < 65_536 and _FORM.match(value.strip()):
        return [(k.lower(), v) for k, v in parse_qsl(value.strip())[:200]]
    return list(_values(value))


def _path_args(path: str) -> list[tuple[str, Any]]:
    """The records a path names, as arguments: ``/v1/charges/ch_1/refunds`` → charge_id."""
    parts = [p for p in unquote(path).split("/") if p][:32]
    out: list[tuple[str, Any]] = []
    for name, value in pairwise(parts):
        if _COLLECTION.match(name) and _PATH_ID.match(value) and not _VERSION.match(value):
            out.append(
                (re.sub(r"(?:ies)$", "y", name).rstrip("s").replace("-", "_") + "_id", value)
            )
    return out


_ACTING_GET = re.compile(
    r"(?i)/(?:build|buildWithParameters|invoke|trigger|rebuild|restart|deploy|run)/?$"
)
"""A path whose last part starts something, whatever the method."""


def api_words(view: ToolView) -> tuple[set[str], list[tuple[str, Any]], HttpCall] | None:
    """An HTTP request that changes something at a service (not this machine): its words
    (verb, path, identity provider), what its body sends and the request itself."""
    if view.kind is not ToolKind.HTTP:
        return None
    request = read_http(view)
    verb = _METHOD_VERBS.get(request.method) if request is not None else None
    if verb is None and request is not None and request.url is not None:
        acting = _ACTING_GET.search(request.url.path) is not None  # ``/buildWithParameters``
        verb = "create" if acting else None  # a GET that starts something
    asked = [(k.lower(), v) for k, v in view.call.arguments.items() if k.lower() == "query"]
    mutation = _mutation_words(asked)
    if verb is None and mutation:
        verb = "create"  # a GraphQL mutation, whatever method the tool defaults to
    if request is None or request.url is None or verb is None:
        return None
    if _LOCAL_HOSTS.match(request.url.host.name):
        return None  # a dev server's API: everyday
    words = {verb, *name_words(request.url.path.replace("/", "_"), 16)}
    words |= set(_labels(request.url.host.name)) & IDENTITY
    pairs = [pair for _, value in request.payload for pair in arg_pairs(value)]
    pairs += [
        pair for _, value in request.payload[:4] for pair in mutation_inputs(json_text(value))
    ]
    pairs += _path_args(request.url.path)
    if request.url.query:
        pairs += [(k.lower(), v) for k, v in parse_qsl(request.url.query[:8192])[:50]]
    words |= mutation | _mutation_words(pairs)
    if _sandbox(request):
        pairs.append(("sandbox", True))  # as a provider's tool says it (``sandbox=true``)
    return words, pairs, request


_MUTATION = re.compile(r"(?s)^\s*mutation\b")
_FIELD_CALL = re.compile(r"\b([a-z][A-Za-z0-9]{3,60})\s*\(")


def _mutation_words(pairs: list[tuple[str, Any]]) -> set[str]:
    """A GraphQL mutation's words, read as a tool's name: the fields it calls
    (``deleteBranchProtectionRule(…)`` → delete, branch, protection, rule), those of a bulk
    job's inner mutation too."""
    out: set[str] = set()
    for key, value in pairs[:200]:
        if key != "query" or not isinstance(value, str) or not _MUTATION.match(value):
            continue
        for name in _FIELD_CALL.findall(value[:16384])[:12]:
            out.update(name_words(name, 8))
    return out


def _sandbox(call: HttpCall) -> bool:
    """A request to a provider's test environment: a test or sandbox host
    (``checkout-test.adyen.com``, ``api.sandbox.paypal.com``) or a test key (``sk_test_``)."""
    assert call.url is not None
    if set(_labels(call.url.host.name)) & _TEST_HOSTS:
        return True
    return any(_TEST_KEY.search(value[:200]) for _, _, value in call.headers)
