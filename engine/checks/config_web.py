"""Web-server configurations (nginx, Apache, Caddy) read for what they expose (``config_files``):

- the file system's root or a system folder served (``root /;``, ``alias /etc/;``,
  ``DocumentRoot /``, ``<Directory />`` granted to all, Caddy ``root * /`` with a file
  server): critical, its listing (``autoindex on``, ``Options Indexes``, ``browse``) named;
- requests proxied or mirrored, or the access log sent, to a request-capture or paste site
  (critical), or to a raw public IP address when the traffic is mirrored, logged or belongs to
  a sign-in, checkout or payment location (high); any other host may be the company's own,
  so it is not judged;
- credentials written to the access log (``$http_authorization``, ``$http_cookie``,
  ``$request_body``, ``%{Authorization}i``, ``DumpIOInput On``): high;
- PHP run in an uploads folder, or for image files: high;
- the upstream's TLS certificate not verified (``proxy_ssl_verify off``,
  ``SSLProxyVerify none``, ``tls_insecure_skip_verify``): medium. ``ssl_verify_client off``
  (no client certificates) is everyday.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from itertools import islice

from humangr.contracts import Severity

from .base import Hit
from .config_text import Block, ConfigText, blocks, enclosing, inside
from .tools.http_target import url_problems
from .tools.http_url import parse_url
from .tools.shell_paths import is_secret

__all__ = ["served_system_folder", "web_hits"]

_MAX_MATCHES = 200
_SYSTEM_FOLDERS = frozenset(
    [
        "/",
        "/etc",
        "/root",
        "/home",
        "/proc",
        "/sys",
        "/dev",
        "/boot",
        "/var",
        "/var/log",
        "/var/lib",
        "/var/run",
        "/run",
        "/usr",
        "/usr/local",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/opt",
        "/srv",
        "/mnt",
        "/media",
    ]
)
_SYSTEM_UNDER = re.compile(
    r"^/(?:etc|root|proc|sys|dev|boot|var/log|run/secrets|var/run/secrets)(?:/|$)|"
    r"^/home/[^/]+$|/\.(?:ssh|aws|gnupg|kube|docker|git)(?:/|$)"
)
_SENSITIVE = re.compile(
    r"(?i)check-?out|payment|\bpay\b|billing|log-?in|sign-?in|auth|\bsso\b|session|token|"
    r"password|account|wallet|\bcards?\b"
)
_UPLOADS = re.compile(r"(?i)upload")
_LISTING = re.compile(
    r"(?im)(?:^|(?<=[;{}]))[ \t]*(?:autoindex\s+on\b|Options\s[^\n]*(?<![-\w])\+?Indexes\b|"
    r"file_server\s+browse\b|browse\s*$)"
)
_ROOT_NGINX = re.compile(r"(?m)(?:^|(?<=[;{}]))[ \t]*(root|alias)\s+([\"']?)([^\s;\"']+)\2\s*;")
_ROOT_APACHE = re.compile(
    r"(?im)^\s*(DocumentRoot|Alias(?:Match)?\s+\S+)\s+([\"']?)([^\s\"']+)\2\s*$"
)
_ROOT_CADDY = re.compile(r"(?m)^\s*(root)(?:\s+(?:\*|/\S*|@\S+))?\s+([\"']?)(/[^\s\"'{}]*)\2\s*$")
_CADDY_SERVES = re.compile(r"(?m)^\s*(?:file_server|php_fastcgi|templates)\b")
_GRANTED = re.compile(r"(?im)^\s*(?:Require\s+all\s+granted|Allow\s+from\s+all)\b")
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
_FASTCGI = re.compile(r"(?m)(?:^|(?<=[;{}]))[ \t]*(?:fastcgi_pass|php_fastcgi)\b")
_REFUSED = re.compile(r"(?m)(?:^|(?<=[;{}]))[ \t]*(?:deny\s+all|return\s+40[34])\b")
_PHP_HANDLER = re.compile(
    r"(?im)^\s*(?:AddHandler|AddType|SetHandler)\s[^\n]*php[^\n]*$|"
    r"^\s*php_(?:admin_)?flag\s+engine\s+on\b"
)
_IMAGE_EXTENSIONS = re.compile(r"(?i)\.(?:jpe?g|png|gif|bmp|webp|ico|svg|txt)\b")
_UPSTREAM_TLS_OFF = re.compile(
    r"(?im)(?:^|(?<=[;{}]))[ \t]*(?:proxy_ssl_verify\s+off\b|grpc_ssl_verify\s+off\b|"
    r"SSLProxyVerify\s+none\b|SSLProxyCheckPeer(?:CN|Name|Expire)\s+off\b|"
    r"tls_insecure_skip_verify\b)"
)
_SECTION = re.compile(r"(?m)^[ \t]*<(/?)([A-Za-z]\w*)\b([^>\n]*)>")


def served_system_folder(raw: str) -> str | None:
    """``raw``, normalized, when it is the file system's root, a system folder or a secret's
    place (``/``, ``/etc/``, ``/home/alice``, ``/root/.ssh``); None for anything else and for a
    path with variables."""
    if not raw.startswith("/") or "$" in raw or "{" in raw:
        return None
    path = "/" + posixpath.normpath(raw.replace("\\", "/")).lstrip("/")
    if path in _SYSTEM_FOLDERS or _SYSTEM_UNDER.search(path) or is_secret(path):
        return path
    return None


def _sections(text: str) -> list[Block]:
    """Apache's ``<Directory …> … </Directory>`` sections, as blocks."""
    found: list[Block] = []
    stack: list[tuple[str, str, int]] = []
    for m in _SECTION.finditer(text):
        if len(found) + len(stack) >= 5_000:
            break
        name = m.group(2).lower()
        if not m.group(1):
            stack.append((name, f"{m.group(2)} {m.group(3).strip()}"[:500], m.end()))
            continue
        while stack:
            opened, header, at = stack.pop()
            found.append(Block(header, at, at, m.start()))
            if opened == name:
                break
    found.extend(Block(header, at, at, len(text)) for _, header, at in stack)
    return sorted(found, key=lambda b: b.open)


class _Reader:
    """One web-server file: its text, blocks and the hits of each rule."""

    def __init__(self, t: ConfigText, path: str, kind: str, allowed: frozenset[str]) -> None:
        self.t, self.path, self.kind, self.allowed = t, path, kind, allowed
        text = t.text
        if kind == "caddy":
            self.blocks = blocks(text, lines=True)
        else:
            self.blocks = blocks(text) + _sections(text)
        self.listings = [
            (m.start(), inside(self.blocks, m.start()))
            for m in islice(_LISTING.finditer(text), _MAX_MATCHES)
        ]

    def hit(self, severity: Severity, title: str, offset: int, why: str, fix: str) -> Hit:
        return Hit(
            severity,
            title,
            f"{why} Line: `{self.t.at(offset)}`",
            fix,
            file=self.path,
            line=self.t.number(offset),
        )

    def context(self, offset: int) -> str:
        return " ".join(b.header for b in enclosing(self.blocks, offset))

    def hits(self) -> Iterator[Hit]:
        yield from self._served()
        yield from self._targets()
        yield from self._logged()
        yield from self._php()
        for m in islice(_UPSTREAM_TLS_OFF.finditer(self.t.text), _MAX_MATCHES):
            if self.t.added(m.start()):
                yield self.hit(
                    Severity.MEDIUM,
                    "the upstream's TLS certificate is not verified",
                    m.start(),
                    "Requests to the backend accept any certificate: anyone on the path can "
                    "read and change them.",
                    "Verify the upstream: proxy_ssl_verify on, with its trusted certificate.",
                )

    def _served(self) -> Iterator[Hit]:
        text = self.t.text
        if self.kind == "caddy":
            served = _CADDY_SERVES.search(text) is not None
            found = list(islice(_ROOT_CADDY.finditer(text), _MAX_MATCHES)) if served else []
        else:
            found = [
                *islice(_ROOT_NGINX.finditer(text), _MAX_MATCHES),
                *islice(_ROOT_APACHE.finditer(text), _MAX_MATCHES),
            ]
        for m in found:
            folder = served_system_folder(m.group(3))
            if folder is None:
                continue
            listing = self._listing(m.start())
            if self.t.added(m.start()) or (listing is not None and self.t.added(listing)):
                yield self._served_hit(folder, m.start(), listing is not None)
        directories = (b for b in self.blocks if b.header.lower().startswith("directory"))
        for block in islice(directories, _MAX_MATCHES):
            header = block.header.split(None, 1)
            if len(header) < 2:
                continue
            folder = served_system_folder(header[1].strip("\"' "))
            granted = _GRANTED.search(text, block.open, min(block.close, block.open + 50_000))
            if folder is not None and granted and self.t.added(granted.start()):
                listed = self._listing(granted.start()) is not None
                yield self._served_hit(folder, granted.start(), listed)

    def _listing(self, offset: int) -> int | None:
        """Where directory listing is turned on for ``offset``: in its block or a block around
        it (nginx inherits it), not in a sibling block."""
        chain: list[Block | None] = [*enclosing(self.blocks, offset), None]
        return next((at for at, block in self.listings if block in chain), None)

    def _served_hit(self, folder: str, offset: int, listed: bool) -> Hit:
        shown = "the file system's root (/)" if folder == "/" else folder
        return self.hit(
            Severity.CRITICAL,
            f"serves {shown} to the web" + (", with directory listing" if listed else ""),
            offset,
            f"Anyone who can reach the server can download {shown}: system files, keys and "
            "credentials"
            + (", and browse its folders to find them." if listed else ".")
            + " A site's root is its own public folder.",
            "Point root / DocumentRoot at the site's public folder only.",
        )

    def _targets(self) -> Iterator[Hit]:
        text = self.t.text
        found: list[tuple[int, str, str]] = []  # offset, address, what
        if self.kind == "caddy":
            for m in islice(_CADDY_PASS.finditer(text), _MAX_MATCHES):
                words = m.group(1).split()[:32]
                matcher = words[0] if words and words[0][:1] in "/@*" else ""
                for word in words[1 if matcher else 0 :]:
                    found.append((m.start(), word, f"proxy {matcher}"))
        else:
            upstreams = self._upstreams()
            mirrors = {m.group(1) for m in _MIRROR.finditer(text) if m.group(1) != "off"}
            for m in islice(_NGINX_PASS.finditer(text), _MAX_MATCHES):
                what = "mirror" if self._in_mirror(m.start(), mirrors) else "proxy"
                target = m.group(2).split("$", 1)[0]  # variables: the rest of the address
                url = parse_url(target)
                name = url.host.name if url is not None else ""
                for address in upstreams.get(name, [target]):
                    found.append((m.start(), address, what))
            for m in islice(_APACHE_PASS.finditer(text), _MAX_MATCHES):
                target = m.group(2) or m.group(1)
                if target != "!":
                    found.append((m.start(), target, f"proxy {m.group(1)}"))
            for m in islice(_SYSLOG.finditer(text), _MAX_MATCHES):
                found.append((m.start(), m.group(1), "log"))
        for offset, address, what in found[:_MAX_MATCHES]:
            if self.t.added(offset):
                hit = self._target(offset, address, what)
                if hit is not None:
                    yield hit

    def _upstreams(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for block in self.blocks:
            m = _UPSTREAM.match(block.header)
            if m is not None:
                servers = _SERVER.findall(block.body(self.t.text))[:32]
                out[m.group(1).lower()] = [f"http://{s}" for s in servers]
        return out

    def _in_mirror(self, offset: int, mirrors: set[str]) -> bool:
        for block in enclosing(self.blocks, offset):
            words = block.header.split()
            if words[:1] == ["location"] and words[-1] in mirrors:
                return True
        return False

    def _target(self, offset: int, address: str, what: str) -> Hit | None:
        if "{" in address or "$" in address or address.startswith("unix"):
            return None
        url = parse_url(address, default_scheme="http")
        if url is None:
            return None
        where = f"{what} {self.context(offset)}"
        sensitive = what in ("mirror", "log") or bool(_SENSITIVE.search(where))
        for problem in url_problems(url, method="POST", writes=True, allow=self.allowed):
            capture = problem.kind == "capture"
            if capture or (sensitive and problem.title.startswith("raw IP")):
                verb = {"mirror": "mirrors requests", "log": "sends its log"}.get(what, "proxies")
                return self.hit(
                    problem.severity if capture else Severity.HIGH,
                    f"{verb} to {url.host.name[:80]}",
                    offset,
                    f"{problem.title}: {problem.why} Requests carry their cookies, "
                    "authorization headers and bodies with them.",
                    "Send traffic and logs only to your own services, by name.",
                )
        return None

    def _logged(self) -> Iterator[Hit]:
        text = self.t.text
        for m in islice(_LOG_FORMAT.finditer(text), _MAX_MATCHES):
            secret = _LOGGED_SECRET.search(m.group(1))
            at = m.start(1) + secret.start() if secret is not None else m.start()
            if secret is not None and self.t.any_added(m.start(), m.end()):
                yield self._logged_hit(at, secret.group(0))
        for m in islice(_APACHE_LOGGED.finditer(text), _MAX_MATCHES):
            if self.t.added(m.start()):
                yield self._logged_hit(m.start(), m.group(1) or m.group(2))

    def _logged_hit(self, offset: int, what: str) -> Hit:
        return self.hit(
            Severity.HIGH,
            "writes credentials or request bodies to the log",
            offset,
            f"`{what}` puts every visitor's session cookie, authorization header or request "
            "body (passwords, card numbers) in the log, for anyone who reads it.",
            "Log request metadata only; never credentials or bodies.",
        )

    def _php(self) -> Iterator[Hit]:
        text = self.t.text
        uploads_file = bool(_UPLOADS.search(posixpath.dirname(self.path)))
        for m in islice(_FASTCGI.finditer(text), _MAX_MATCHES):
            around = enclosing(self.blocks, m.start())
            if not self.t.added(m.start()) or not any(_UPLOADS.search(b.header) for b in around):
                continue
            if around and _REFUSED.search(around[0].body(text)):
                continue
            yield self._php_hit(m.start(), "in an uploads folder")
        for m in islice(_PHP_HANDLER.finditer(text), _MAX_MATCHES):
            if not self.t.added(m.start()):
                continue
            if _IMAGE_EXTENSIONS.search(m.group(0)):
                yield self._php_hit(m.start(), "for image and text files")
            elif uploads_file or _UPLOADS.search(self.context(m.start())):
                yield self._php_hit(m.start(), "in an uploads folder")

    def _php_hit(self, offset: int, where: str) -> Hit:
        return self.hit(
            Severity.HIGH,
            f"runs PHP {where}",
            offset,
            "Whoever uploads a file named .php (or a picture with PHP inside) runs code on the "
            "server.",
            "Serve uploads as static files and deny PHP there.",
        )


def web_hits(
    t: ConfigText, path: str, *, kind: str, allowed_hosts: frozenset[str] = frozenset()
) -> Iterator[Hit]:
    """The findings of a web server's configuration: ``kind`` is ``nginx``, ``apache`` (both
    dialects are read: ``sites-available`` holds either) or ``caddy``."""
    yield from _Reader(t, path, kind, allowed_hosts).hits()
