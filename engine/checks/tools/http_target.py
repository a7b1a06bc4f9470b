"""Where a URL leads and what is wrong with going there: cloud metadata services (every
spelling of their addresses), internal, raw and disguised addresses, internal names, request-
capture, out-of-band and paste sites, local files and raw protocols, credentials in the URL.

A GET or POST to the agent's own development server on ``localhost`` is everyday (services
on their well-known ports, admin paths and disguised spellings aside; DELETE, PUT and PATCH
are high).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from humangr.contracts import Severity

from .egress_files import secret_file, system_file
from .http_service import cluster_read, service_host
from .http_sites import (
    METADATA_CREDENTIAL_PATH,
    METADATA_HOSTS,
    OUT_OF_BAND,
    SENSITIVE_PORTS,
    SHORTENERS,
    allowed,
    host_in,
    internal_name,
    is_capture,
    is_paste,
)
from .http_url import Url, parse_url
from .netaddr import Reach

__all__ = ["C", "H", "Problem", "sorted_problems", "url_problems"]

C, H = Severity.CRITICAL, Severity.HIGH
_PLACEMENT = re.compile(
    r"^/(?:latest/meta-data/(?:placement/[\w-]+|instance-id|instance-type|ami-id|"
    r"local-hostname|hostname|mac)|computeMetadata/v1/(?:instance/(?:zone|id|hostname|"
    r"machine-type|name)|project/(?:numeric-)?project-id)|metadata/instance/(?:compute|network)"
    r"(?:/(?![\w/-]*(?:userdata|customdata))[a-z][\w/-]{0,80})?)/?$",
    re.IGNORECASE,
)
"""Metadata paths that say where the machine runs and nothing more (no credentials, no
user data): read by ordinary tools to find their zone or instance id. Azure's compute and
network documents hold size, region and addresses; its user data has its own path."""
_RAW_SCHEMES = frozenset(
    {"gopher", "dict", "ldap", "ldaps", "tftp", "jar", "netdoc", "php", "expect", "phar"}
)
_ADMIN_PATH = re.compile(
    r"(?i)^/(?:admin|actuator|debug|server-status|_cat|_cluster|_nodes|console|manager|jmx-console"
    r"|env\b|heapdump|shutdown|api/v1/namespaces|v1/agent|v1/sys|containers|images|\.env|\.git"
    r"|metrics|jolokia|solr/admin|_search)"
)
_READINESS = re.compile(
    r"(?i)^/(?:actuator/|admin/)?(?:health(?:/[\w-]+)?|healthz|livez|readyz|ready|ping|info)/?$|"
    r"^/_cat/health\b|^/_cluster/health\b"
)
"""Health and readiness probes, under admin prefixes too (``/actuator/health``,
``/admin/healthz``): they show state and change nothing."""
_SCRAPED = re.compile(r"(?i)^/(?:actuator/)?(?:metrics|prometheus)(?:/[\w.-]+)?/?$")
"""A service's metrics as Prometheus scrapes them: read, they show counters."""


@dataclass(frozen=True, slots=True)
class Problem:
    severity: Severity
    title: str
    why: str
    kind: str
    """A key of the suggestions: ``metadata``, ``internal``, ``capture``, ``api``, ``url``…"""


def _host_problems(url: Url, *, method: str, allow: frozenset[str]) -> Iterator[Problem]:
    host, addr = url.host, url.host.addr
    name = host.name or "?"
    if name in METADATA_HOSTS or (addr is not None and addr.reach is Reach.METADATA):
        creds = " (its credential path)" if METADATA_CREDENTIAL_PATH.search(url.path) else ""
        shown = f", written as {name}" if addr is not None and addr.spelling != "standard" else ""
        if not shown and method in ("GET", "HEAD") and _PLACEMENT.match(url.path):
            yield Problem(
                Severity.LOW,
                "reads where the machine runs from the cloud metadata service",
                "The path reads the machine's zone or id only; its credential paths are reviewed.",
                "metadata",
            )
            return
        yield Problem(
            C,
            f"cloud metadata service{creds}{shown}",
            "The instance metadata service hands out the machine's cloud credentials; "
            "reaching it from a tool call is how SSRF steals them.",
            "metadata",
        )
        return
    if allowed(name, allow):
        return
    if addr is not None:
        spelled = addr.spelling not in ("standard", "loopback name")
        where = f"{name} = {addr.ip}" if name != str(addr.ip) else name
        if addr.reach is Reach.LOOPBACK:
            service = SENSITIVE_PORTS.get(url.port or 0)
            if spelled:
                yield Problem(
                    C,
                    f"disguised address of this machine ({where})",
                    f"The host is written in {addr.spelling} form, the way filters are evaded.",
                    "internal",
                )
            elif service is not None or url.scheme not in ("http", "https"):
                shown = f"[{name}]" if ":" in name else name
                yield Problem(
                    H,
                    f"{service or url.scheme} on this machine ({shown}:{url.port})",
                    "Local services trust local callers.",
                    "internal",
                )
            elif (
                _ADMIN_PATH.match(url.path)
                and not _READINESS.match(url.path)
                and not (method in ("GET", "HEAD") and _SCRAPED.match(url.path))
            ) or (method not in ("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE")):
                # A dev server's own API (``DELETE /api/todos/17``) is everyday; its admin
                # paths, and verbs no API uses, are not.
                yield Problem(
                    H,
                    f"admin or destructive request to this machine ({name})",
                    f"{method} {url.path[:60]}",
                    "internal",
                )
            return
        if addr.reach is Reach.PUBLIC:
            yield Problem(
                H,
                f"raw IP address {where}" + (" (disguised)" if spelled else ""),
                "A request to a bare address bypasses name-based review.",
                "internal",
            )
        else:
            yield Problem(
                C if spelled else H,
                f"{addr.reach.value} ({where})",
                "Internal addresses reach services that trust the network (SSRF)."
                + (f" The address is written in {addr.spelling} form." if spelled else ""),
                "internal",
            )
        return
    if internal_name(name) and not (
        method in ("GET", "HEAD") and (service_host(url) or cluster_read(url))
    ):
        # a monitoring or CI server's state read (a dashboard, a query, a build's status)
        yield Problem(
            H, f"internal host name {name}", "Only an internal network resolves it.", "internal"
        )


def _site_problems(url: Url, *, writes: bool) -> Iterator[Problem]:
    name = url.host.name
    data = bool(url.query) or url.path.strip("/").count("/") >= 1
    if host_in(name, OUT_OF_BAND):
        yield Problem(
            C,
            f"out-of-band testing service {name}",
            "These services exist to receive what a compromised system leaks.",
            "capture",
        )
    elif is_capture(name):
        if writes or data:
            yield Problem(
                C,
                f"sends data to request-capture service {name}",
                "Whatever reaches it is recorded for someone else.",
                "capture",
            )
        else:
            yield Problem(
                H,
                f"request-capture or tunnel service {name}",
                "A request to it tells someone else this ran.",
                "capture",
            )
    elif is_paste(name) and writes:
        yield Problem(
            C,
            f"uploads to public paste or file-drop site {name}",
            "What is posted there is readable by anyone with the link.",
            "capture",
        )
    elif host_in(name, SHORTENERS) and url.path.strip("/"):
        yield Problem(
            H,
            f"a shortened link ({name}) hides where it goes",
            "The request is redirected to an address nobody reviewed.",
            "url",
        )


_NESTED = re.compile(
    r"(?i)(?:^|[?&;])[^=&;#]{0,64}=((?:https?|gopher|file|dict)(?::|%3A)[^&;#]{3,})"
)


def _passed_on(url: Url) -> Iterator[Problem]:
    """A query value that is itself an address the server will fetch (``?src=http://…``):
    an internal or metadata address there is SSRF through that server."""
    for m in _NESTED.finditer(url.query[:8_192]):
        inner = parse_url(unquote(m.group(1)))
        if inner is None:
            continue
        addr = inner.host.addr
        name = inner.host.name or "?"
        metadata = name in METADATA_HOSTS or (addr is not None and addr.reach is Reach.METADATA)
        internal = addr is not None and addr.reach is not Reach.PUBLIC
        if metadata or internal or inner.scheme in ("gopher", "file", "dict"):
            yield Problem(
                C,
                f"passes an internal address to the server ({name[:60]}): SSRF",
                "The server fetches the address given in the query on the caller's behalf; "
                "an internal or metadata address makes it read what the caller cannot.",
                "metadata" if metadata else "internal",
            )
            return


def url_problems(
    url: Url, *, method: str = "GET", writes: bool = False, allow: frozenset[str] = frozenset()
) -> list[Problem]:
    """What is wrong with a request to ``url``, worst first."""
    out: list[Problem] = []
    for problem in url.problems:
        if problem.startswith("a look-alike"):
            out.append(Problem(H, f"look-alike host name {url.host.name}", problem, "url"))
        elif problem.startswith("backslashes"):
            out.append(Problem(H, "ambiguous URL (backslashes)", problem, "url"))
        elif problem.startswith("a wildcard DNS"):
            out.append(Problem(H, f"wildcard DNS name {url.host.name}", problem, "internal"))
        else:
            out.append(Problem(H, "could not read this URL", problem, "url"))
    if url.scheme == "file":
        bad = secret_file(url.path) or system_file(url.path)
        out.append(
            Problem(
                C if bad else H,
                f"reads local file {url.path[:60]} (file://)",
                "A file URL reads this machine's files.",
                "internal",
            )
        )
        return sorted_problems(out)
    if url.scheme in _RAW_SCHEMES or url.scheme in ("ftp", "ftps", "sftp", "smb", "ws", "wss"):
        internal = url.host.addr is not None and url.host.addr.reach is not Reach.PUBLIC
        if url.scheme in _RAW_SCHEMES:
            out.append(
                Problem(
                    C if internal else H,
                    f"{url.scheme}:// request"
                    + (" to an internal service (SSRF)" if internal else ""),
                    "Raw protocols let a URL speak to Redis, memcached or SMTP.",
                    "internal",
                )
            )
        elif url.scheme not in ("ws", "wss"):
            out.append(Problem(H, f"non-HTTP scheme {url.scheme}://", url.raw[:80], "url"))
    out.extend(_host_problems(url, method=method, allow=allow))
    out.extend(_site_problems(url, writes=writes))
    out.extend(_passed_on(url))
    if url.password:
        out.append(Problem(H, "credentials in the URL", "user:password@host", "url"))
    elif url.username and "." in url.username:
        out.append(
            Problem(
                H,
                f"host hidden behind a user name ({url.username[:40]}@…)",
                f"The part before @ is a user name; the request goes to {url.host.name}.",
                "url",
            )
        )
    return sorted_problems(out)


def sorted_problems(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: p.severity != C)
