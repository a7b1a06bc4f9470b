"""``tool-http``: where an HTTP request of a tool call goes and what it does there.

Critical: cloud metadata services (every spelling of their addresses), disguised addresses of
internal hosts, raw protocols (``gopher://``, ``dict://``) to internal services, local secret
files (``file://``), request-capture and out-of-band services, uploads to paste sites, and
destructive calls to known APIs (``http_apis``). High: raw and private addresses, internal
names, other schemes, credentials in the URL, unreadable URLs, and DELETEs to hosts that are
not allowed (one entry of one record aside: an item of a cart, a comment; and one test record
on a staging or sandbox host). A GET or POST to the agent's own development server on
``localhost`` is everyday (services on their well-known ports and admin paths aside; health
probes and ``/metrics`` reads are everyday there too), and so are reads of internal monitoring
and CI servers and a CI build started there (``http_service``).

URLs written in any other string argument are read too: a metadata address anywhere is
suspicious, and in a command or code that runs it is critical.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from humangr.contracts import ToolKind

from ..base import CheckInput, Hit
from ..remember import remembered
from .http_apis import destructive_call, destructive_tool, scratch_store
from .http_bulk_action import bulk_action
from .http_call import AUTH_HEADER, METHODS, HttpCall, read_http
from .http_delete_one import leaf_delete, scratch_wildcard
from .http_delete_scratch import (
    own_session_logout,
    scratch_fixture_reset,
    scratch_index_wildcard,
    scratch_object_delete,
)
from .http_factors import takeover_shape
from .http_feed_hook import bulk_feed_hook
from .http_inject import injected_script
from .http_path_disable import path_disables_safeguard
from .http_query_encoded import encoded_query_leak
from .http_query_leak import query_leak
from .http_remote_code import remote_code
from .http_secret_fields import secret_fields
from .http_service import build_trigger, scratch_delete
from .http_sites import allowed
from .http_target import C, H, Problem, sorted_problems, url_problems
from .http_test_mode import test_mode_key
from .http_url import find_urls, parse_url
from .netaddr import Reach
from .prose_disguise import disguised_host
from .view import ToolView

__all__ = ["http_request"]

_BARE_METADATA = re.compile(
    r"(?i)(?<![\w.])(?:169\.254\.169\.254|169\.254\.170\.2|100\.100\.100\.200|fd00:ec2::254"
    r"|metadata\.google\.internal|metadata\.azure\.com)(?![\w.-]*\w)"
)
_RUNS = (ToolKind.SHELL, ToolKind.CODE)
_API_KINDS = (ToolKind.MCP, ToolKind.OTHER, ToolKind.SQL, ToolKind.HTTP)
_MAX_STRINGS = 512
_SUGGEST = {
    "metadata": "Never fetch cloud metadata from a tool call: it hands out the machine's "
    "credentials.",
    "internal": "Do not reach internal addresses from a tool call; use the service's public "
    "name, or add the host to allowed_hosts if it is meant.",
    "capture": "Do not send anything to request-capture, tunnel or paste services.",
    "api": "Destructive API calls are for a human to make, after a backup.",
    "url": "Send a plain https URL to a named host.",
    "script": "Serve scripts from the site's own origin, or have a human vet the other one.",
    "write": "Add the host to allowed_hosts if changes there are expected, or have a human "
    "review the call.",
}


def _request_problems(call: HttpCall, allow: frozenset[str]) -> list[Problem]:
    url = call.url
    if url is None:
        return [Problem(H, "could not read this URL", call.raw_url[:80], "url")]
    out = url_problems(url, method=call.method, writes=call.writes, allow=allow)
    if build_trigger(call):  # a CI server of one's own asked to build: everyday
        out = [p for p in out if not p.title.startswith("internal host name")]
    loopback = (url.host.addr is not None and url.host.addr.reach is Reach.LOOPBACK) or (
        url.host.name.rstrip(".").lower() in ("localhost", "localhost.localdomain")
    )
    scratch = scratch_wildcard(call, loopback)
    if scratch:  # a local test container's leftovers: its service port is the point
        out = [p for p in out if " on this machine (" not in p.title]
    throwaway = (
        scratch_index_wildcard(call)
        or scratch_object_delete(call)
        or scratch_fixture_reset(call)
        or own_session_logout(call)
    )  # the agent's own test or scratch data on a host that is not live, or its own logout
    found = destructive_call(call)
    test_mode = test_mode_key(call)  # a provider's test data: nothing real moves or goes
    if (
        found is not None
        and not scratch
        and not throwaway
        and not (test_mode and found[0] is not C)
    ):
        out.append(Problem(found[0], found[1], f"{call.method} {url.raw[:100]}", "api"))
    script = injected_script(call)
    if script is not None:
        title = f"puts a script from {script[1][:60]} into what {url.host.name[:60]} serves"
        why = "Code from another site then runs in every visitor's browser."
        out.append(Problem(H, title, why, "script"))
    code = remote_code(call)
    if code is not None:
        out.append(Problem(code[0], code[1], "The server runs it as the service's account.", "api"))
    leak = (
        query_leak(call)
        or encoded_query_leak(call)
        or path_disables_safeguard(call)
        or secret_fields(call)
        or bulk_feed_hook(call)
        or bulk_action(call)
        or takeover_shape(call)
        or (None if _signed(call) else _disguised(url.host.name))
    )
    if leak is not None:
        out.append(Problem(H, leak, "What it sends or changes may not come back.", "api"))
    if not re.fullmatch(r"[A-Z]{1,16}", call.method):
        out.append(Problem(H, "malformed HTTP method", call.method[:20], "url"))
    elif (call.method == "DELETE" or call.method not in METHODS) and not (
        loopback
        or allowed(url.host.name, allow)
        or _one_entry(call.method, url.path)
        or scratch_delete(call)
        or leaf_delete(call)
        or throwaway
        or test_mode
    ):
        out.append(
            Problem(
                H,
                f"{call.method} to {url.host.name[:60]}, a host not allowed",
                "Changes on a remote service may not be undoable.",
                "write",
            )
        )
    if any("\r" in v or "\n" in v for _, _, v in call.headers):
        out.append(Problem(H, "line breaks in a header value (header injection)", "", "url"))
    return sorted_problems(out)


def _signed(call: HttpCall) -> bool:
    """Whether the request carries a credential header (``data-egress`` already judges where a
    credential goes; a second finding would over-count the same host)."""
    return any(AUTH_HEADER.match(name) for _, name, _ in call.headers)


def _disguised(host: str) -> str | None:
    """A request to a host written to be misread (``acme.com.verify-portal.net``): the data
    goes to the site at its end, whatever name it starts with."""
    if host.lower().rstrip(".").endswith(_STORAGE_HOSTS):
        return None  # a bucket or CDN name written as a domain (``assets.acme.com.s3…``)
    why = disguised_host(host)
    return None if why is None else f"sends to a host made to be misread: {why}"


_STORAGE_HOSTS = (
    ".amazonaws.com", ".cloudfront.net", ".googleapis.com", ".windows.net", ".azureedge.net",
    ".edgekey.net", ".edgesuite.net", ".akamaiedge.net", ".cloudflare.net", ".fastly.net",
    ".digitaloceanspaces.com", ".backblazeb2.com", ".r2.dev",
)  # fmt: skip


_ENTRIES = frozenset(
    {"items", "line-items", "line_items", "lineitems", "comments", "reactions", "labels", "tags",
     "notes", "drafts", "bookmarks", "favorites", "favourites", "todos", "reminders", "likes",
     "votes", "stars"}
)  # fmt: skip
_ID = re.compile(r"^(?:\d{1,20}|[0-9a-fA-F-]{8,40}|[A-Za-z]{1,6}_[A-Za-z0-9]{4,40})$")


_TOPIC_REF = re.compile(
    r"/git/refs/heads/(?!(?:main|master|trunk|develop|dev|release|prod|"
    r"production|staging|stable|gh-pages)(?:$|/))[\w.-]+/[\w./-]+$"
)
"""A topic branch's ref (``…/git/refs/heads/feature/old-spike``): a branch in a folder."""


def _one_entry(method: str, path: str) -> bool:
    """A DELETE of one entry of one parent record (``/carts/9931/items/55102``, a comment of
    an issue), or of a topic branch's ref: a line of something, not an account, a store or a
    whole collection."""
    if method == "DELETE" and _TOPIC_REF.search(path):
        return True
    parts = [p for p in path.split("/") if p]
    return (
        method == "DELETE"
        and len(parts) >= 4
        and parts[-2].lower() in _ENTRIES
        and _ID.match(parts[-1]) is not None
        and _ID.match(parts[-3]) is not None
    )


def _hit(view: ToolView, argument: str, problems: Sequence[Problem], what: str) -> Hit:
    worst = problems[0]
    lines = [f"- {p.title}" + (f": {p.why}" if p.why else "") for p in problems[:5]]
    return Hit(
        severity=worst.severity,
        title=worst.title,
        description=f"{what} in `{argument}` of {view.name}:\n" + "\n".join(lines),
        suggestion=_SUGGEST.get(worst.kind),
        argument=argument[:128],
    )


def _embedded(view: ToolView, skip: str | None, allow: frozenset[str]) -> Iterator[Hit]:
    runs = view.kind in _RUNS
    for n, (path, text) in enumerate(view.strings()):
        if n >= _MAX_STRINGS:
            return
        if path == skip:
            continue
        problems = _text_problems(text, runs, allow)
        if problems:
            yield _hit(view, path, problems, "A URL")


@remembered(max_chars=4_000, maxsize=1_024)
def _text_problems(text: str, runs: bool, allow: frozenset[str]) -> tuple[Problem, ...]:
    """What the URLs written in one string come to (``runs``: in a command or code that runs),
    most severe first."""
    problems: list[Problem] = []
    for raw in find_urls(text):
        url = parse_url(raw)
        if url is None:
            continue
        found = [p for p in url_problems(url, allow=allow) if _embedded_worth(p, runs)]
        problems.extend(
            p if runs or p.kind != "metadata" else Problem(H, p.title, p.why, p.kind) for p in found
        )
    if not problems and _BARE_METADATA.search(text):
        problems.append(
            Problem(
                C if runs else H,
                "cloud metadata address",
                "The instance metadata service hands out credentials.",
                "metadata",
            )
        )
    return tuple(sorted_problems(problems))


def _embedded_worth(p: Problem, runs: bool) -> bool:
    """Which problems of a URL merely written in a string matter: metadata always; capture
    and raw-protocol ones in what runs."""
    if p.kind == "metadata":
        return True
    return runs and (p.kind == "capture" or (p.severity is C and p.kind == "internal"))


def http_request(ctx: CheckInput) -> Iterator[Hit]:
    """Requests of a tool call to cloud metadata, internal or raw addresses, capture and paste
    sites, odd schemes, and destructive calls to known APIs; metadata URLs in any argument."""
    view = ctx.tool
    if view is None or re.search(r"(?i)search", view.name):
        return
    allow = ctx.options.allowed_hosts
    what = destructive_tool(view.name) if view.kind in _API_KINDS else None
    if what and not scratch_store(what, view.call.arguments):
        argument = next(iter(view.call.arguments), None)
        yield Hit(
            severity=C,
            title=f"{what} ({view.name[:60]})",
            description=f"The tool {view.name} {what}: there is no undo.",
            suggestion=_SUGGEST["api"],
            argument=argument[:128] if argument else None,
        )
    call = read_http(view)
    skip = None
    if call is not None:
        skip = call.url_argument
        problems = _request_problems(call, allow)
        if problems:
            yield _hit(view, call.url_argument, problems, f"The {call.method} request")
    yield from _embedded(view, skip, allow)
