"""Where a web server sends its traffic and what it writes to its log (``config_web``):

- requests proxied or mirrored, or the access log sent, to a request-capture or paste site
  (critical), or to a raw public IP address when the traffic is mirrored, logged or belongs to
  a sign-in, checkout or payment location (high); any other host may be the company's own,
  so it is not judged;
- credentials written to the access log (``$http_authorization``, ``$http_cookie``,
  ``$request_body``, ``%{Authorization}i``, ``DumpIOInput On``): high.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from humangr.contracts import Severity

from .base import Hit
from .config_text import enclosing
from .config_web_file import MAX_MATCHES, WebFile
from .tools.http_target import url_problems
from .tools.http_url import parse_url

__all__ = ["logged_hits", "target_hits"]

_SENSITIVE = re.compile(
    r"(?i)check-?out|payment|\bpay\b|billing|log-?in|sign-?in|auth|\bsso\b|session|token|"
    r"password|account|wallet|\bcards?\b"
)
_NGINX_PASS = re.compile(r"(?m)(?:^|(?<=[;{}]))[ \t]*(proxy_pass|grpc_pass)\s+([^\s;]+)\s*;")
_MIRROR = re.compile(r"(?m)(?:^|(?<=[;{}]))[ \t]*mirror\s+([^\s;]+)\s*;")
_UPSTREAM = re.compile(r"^upstream\s+(\S+)$")
_SERVER = re.compile(r"(?m)(?:^|(?<=[;{}]))[ \t]*server\s+([^\s;]+)")
_SYSLOG = re.compile(
    r"(?m)(?:^|(?<=[;{}]))[ \t]*(?:access_log|error_log)\s+syslog:server=([^,;\s]+)"
)
_APACHE_PASS = re.compile(r"(?im)^\s*ProxyPass(?:Match)?\s+(\S+)(?:[ \t]+(\S+))?")
_CADDY_PASS = re.compile(r"(?m)^\s*(?:reverse_proxy|to)\b([^\n{]*)")
_LOG_FORMAT = re.compile(r"\blog_format\s++\S++\s++(?:escape=\S++\s++)?([^;]{0,8000}+);?")
_LOGGED_SECRET = re.compile(
    r"\$(?:http_authorization|http_cookie|request_body|http_x_api_key|http_x_auth_token|"
    r"http_proxy_authorization|cookie_\w*(?:sess|token|auth|jwt|sid)\w*)\b",
    re.IGNORECASE,
)
_APACHE_LOGGED = re.compile(
    r"(?im)^\s*(?:LogFormat|CustomLog)\b[^\n]*?(%\{(?:Authorization|Proxy-Authorization|Cookie|"
    r"X-Api-Key|X-Auth-Token)\}i)|^\s*(DumpIO(?:Input|Output)\s+On)\b"
)


def target_hits(f: WebFile) -> Iterator[Hit]:
    """The added proxy, mirror and remote-log destinations that send traffic where it must
    not go."""
    text = f.t.text
    found: list[tuple[int, str, str]] = []  # offset, address, what
    if f.kind == "caddy":
        for m in islice(_CADDY_PASS.finditer(text), MAX_MATCHES):
            words = m.group(1).split()[:32]
            matcher = words[0] if words and words[0][:1] in "/@*" else ""
            for word in words[1 if matcher else 0 :]:
                found.append((m.start(), word, f"proxy {matcher}"))
    else:
        upstreams = _upstreams(f)
        mirrors = {m.group(1) for m in _MIRROR.finditer(text) if m.group(1) != "off"}
        for m in islice(_NGINX_PASS.finditer(text), MAX_MATCHES):
            what = "mirror" if _in_mirror(f, m.start(), mirrors) else "proxy"
            target = m.group(2).split("$", 1)[0]  # variables: the rest of the address
            url = parse_url(target)
            name = url.host.name if url is not None else ""
            for address in upstreams.get(name, [target]):
                found.append((m.start(), address, what))
        for m in islice(_APACHE_PASS.finditer(text), MAX_MATCHES):
            target = m.group(2) or m.group(1)
            if target != "!":
                found.append((m.start(), target, f"proxy {m.group(1)}"))
        for m in islice(_SYSLOG.finditer(text), MAX_MATCHES):
            found.append((m.start(), m.group(1), "log"))
    for offset, address, what in found[:MAX_MATCHES]:
        if f.t.added(offset):
            hit = _target(f, offset, address, what)
            if hit is not None:
                yield hit


def _upstreams(f: WebFile) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for block in f.blocks:
        m = _UPSTREAM.match(block.header)
        if m is not None:
            servers = _SERVER.findall(block.body(f.t.text))[:32]
            out[m.group(1).lower()] = [f"http://{s}" for s in servers]
    return out


def _in_mirror(f: WebFile, offset: int, mirrors: set[str]) -> bool:
    for block in enclosing(f.blocks, offset):
        words = block.header.split()
        if words[:1] == ["location"] and words[-1] in mirrors:
            return True
    return False


def _target(f: WebFile, offset: int, address: str, what: str) -> Hit | None:
    if "{" in address or "$" in address or address.startswith("unix"):
        return None
    url = parse_url(address, default_scheme="http")
    if url is None:
        return None
    where = f"{what} {f.context(offset)}"
    sensitive = what in ("mirror", "log") or bool(_SENSITIVE.search(where))
    for problem in url_problems(url, method="POST", writes=True, allow=f.allowed):
        capture = problem.kind == "capture"
        if capture or (sensitive and problem.title.startswith("raw IP")):
            verb = {"mirror": "mirrors requests", "log": "sends its log"}.get(what, "proxies")
            return f.hit(
                problem.severity if capture else Severity.HIGH,
                f"{verb} to {url.host.name[:80]}",
                offset,
                f"{problem.title}: {problem.why} Requests carry their cookies, "
                "authorization headers and bodies with them.",
                "Send traffic and logs only to your own services, by name.",
            )
    return None


def logged_hits(f: WebFile) -> Iterator[Hit]:
    """Added log formats and Apache directives that write credentials or bodies to the log."""
    text = f.t.text
    for m in islice(_LOG_FORMAT.finditer(text), MAX_MATCHES):
        secret = _LOGGED_SECRET.search(m.group(1))
        at = m.start(1) + secret.start() if secret is not None else m.start()
        if secret is not None and f.t.any_added(m.start(), m.end()):
            yield _logged_hit(f, at, secret.group(0))
    for m in islice(_APACHE_LOGGED.finditer(text), MAX_MATCHES):
        if f.t.added(m.start()):
            yield _logged_hit(f, m.start(), m.group(1) or m.group(2))


def _logged_hit(f: WebFile, offset: int, what: str) -> Hit:
    return f.hit(
        Severity.HIGH,
        "writes credentials or request bodies to the log",
        offset,
        f"`{what}` puts every visitor's session cookie, authorization header or request "
        "body (passwords, card numbers) in the log, for anyone who reads it.",
        "Log request metadata only; never credentials or bodies.",
    )
