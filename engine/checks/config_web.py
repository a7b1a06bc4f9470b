"""Web-server configurations (nginx, Apache, Caddy) read for what they expose (``config_files``):

- the file system's root or a system folder served (``root /;``, ``alias /etc/;``,
  ``DocumentRoot /``, ``<Directory />`` granted to all, Caddy ``root * /`` with a file
  server): critical, its listing (``autoindex on``, ``Options Indexes``, ``browse``) named
  (``config_web_served``);
- requests proxied or mirrored, or the access log sent, to a request-capture or paste site
  (critical), or to a raw public IP address when the traffic is mirrored, logged or belongs to
  a sign-in, checkout or payment location (high); any other host may be the company's own,
  so it is not judged (``config_web_traffic``);
- credentials written to the access log (``$http_authorization``, ``$http_cookie``,
  ``$request_body``, ``%{Authorization}i``, ``DumpIOInput On``): high (``config_web_traffic``);
- PHP run in an uploads folder, or for image files: high;
- the upstream's TLS certificate not verified (``proxy_ssl_verify off``,
  ``SSLProxyVerify none``, ``tls_insecure_skip_verify``): medium. ``ssl_verify_client off``
  (no client certificates) is everyday.

The file's text and blocks, as the rules read them, are ``config_web_file.WebFile``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from itertools import islice

from humangr.contracts import Severity

from .base import Hit
from .config_text import ConfigText, enclosing
from .config_web_file import MAX_MATCHES, WebFile
from .config_web_served import served_hits, served_system_folder
from .config_web_traffic import logged_hits, target_hits

__all__ = ["served_system_folder", "web_hits"]

_UPLOADS = re.compile(r"(?i)upload")
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


def _php_hits(f: WebFile) -> Iterator[Hit]:
    text = f.t.text
    uploads_file = bool(_UPLOADS.search(posixpath.dirname(f.path)))
    for m in islice(_FASTCGI.finditer(text), MAX_MATCHES):
        around = enclosing(f.blocks, m.start())
        if not f.t.added(m.start()) or not any(_UPLOADS.search(b.header) for b in around):
            continue
        if around and _REFUSED.search(around[0].body(text)):
            continue
        yield _php_hit(f, m.start(), "in an uploads folder")
    for m in islice(_PHP_HANDLER.finditer(text), MAX_MATCHES):
        if not f.t.added(m.start()):
            continue
        if _IMAGE_EXTENSIONS.search(m.group(0)):
            yield _php_hit(f, m.start(), "for image and text files")
        elif uploads_file or _UPLOADS.search(f.context(m.start())):
            yield _php_hit(f, m.start(), "in an uploads folder")


def _php_hit(f: WebFile, offset: int, where: str) -> Hit:
    return f.hit(
        Severity.HIGH,
        f"runs PHP {where}",
        offset,
        "Whoever uploads a file named .php (or a picture with PHP inside) runs code on the server.",
        "Serve uploads as static files and deny PHP there.",
    )


def _upstream_tls_hits(f: WebFile) -> Iterator[Hit]:
    for m in islice(_UPSTREAM_TLS_OFF.finditer(f.t.text), MAX_MATCHES):
        if f.t.added(m.start()):
            yield f.hit(
                Severity.MEDIUM,
                "the upstream's TLS certificate is not verified",
                m.start(),
                "Requests to the backend accept any certificate: anyone on the path can "
                "read and change them.",
                "Verify the upstream: proxy_ssl_verify on, with its trusted certificate.",
            )


def web_hits(
    t: ConfigText, path: str, *, kind: str, allowed_hosts: frozenset[str] = frozenset()
) -> Iterator[Hit]:
    """The findings of a web server's configuration: ``kind`` is ``nginx``, ``apache`` (both
    dialects are read: ``sites-available`` holds either) or ``caddy``."""
    f = WebFile(t, path, kind, allowed_hosts)
    yield from served_hits(f)
    yield from target_hits(f)
    yield from logged_hits(f)
    yield from _php_hits(f)
    yield from _upstream_tls_hits(f)
