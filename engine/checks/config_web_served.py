"""What a web server serves (``config_web``): the file system's root, a system folder or a
secret's place given to the web (``root /;``, ``alias /etc/;``, ``DocumentRoot /``, a
``<Directory />`` granted to all, Caddy ``root * /`` with a file server) is critical, its
directory listing (``autoindex on``, ``Options Indexes``, ``browse``) named."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from itertools import islice

from humangr.contracts import Severity

from .base import Hit
from .config_text import Block, enclosing, inside
from .config_web_file import MAX_MATCHES, WebFile
from .tools.shell_paths import is_secret

__all__ = ["served_hits", "served_system_folder"]

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
_DATA_FOLDER = re.compile(
    r"(?i)(?:^|/)(?:backups?|dumps?|db[_-]?dumps?|exports?|pgdata|mysql|postgres(?:ql)?|"
    r"snapshots?)(?:/|$)"
)
"""Folders of a database's files, backups, dumps and exports."""
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

_Listings = list[tuple[int, Block | None]]
"""Where directory listing is turned on, with the innermost block around it."""


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


def served_hits(f: WebFile) -> Iterator[Hit]:
    """A system folder the added lines serve, or serve with a listing turned on."""
    text = f.t.text
    listings: _Listings = [
        (m.start(), inside(f.blocks, m.start()))
        for m in islice(_LISTING.finditer(text), MAX_MATCHES)
    ]
    if f.kind == "caddy":
        served = _CADDY_SERVES.search(text) is not None
        found = list(islice(_ROOT_CADDY.finditer(text), MAX_MATCHES)) if served else []
    else:
        found = [
            *islice(_ROOT_NGINX.finditer(text), MAX_MATCHES),
            *islice(_ROOT_APACHE.finditer(text), MAX_MATCHES),
        ]
    for m in found:
        folder = served_system_folder(m.group(3))
        data = None if folder is not None else _data_folder(m.group(3))
        if folder is None and data is None:
            continue
        listing = _listing(f, listings, m.start())
        if f.t.added(m.start()) or (listing is not None and f.t.added(listing)):
            if folder is not None:
                yield _served_hit(f, folder, m.start(), listing is not None)
            elif data is not None:
                yield _data_hit(f, data, m.start(), listing is not None)
    directories = (b for b in f.blocks if b.header.lower().startswith("directory"))
    for block in islice(directories, MAX_MATCHES):
        header = block.header.split(None, 1)
        if len(header) < 2:
            continue
        folder = served_system_folder(header[1].strip("\"' "))
        granted = _GRANTED.search(text, block.open, min(block.close, block.open + 50_000))
        if folder is not None and granted and f.t.added(granted.start()):
            listed = _listing(f, listings, granted.start()) is not None
            yield _served_hit(f, folder, granted.start(), listed)


def _data_folder(raw: str) -> str | None:
    """``raw`` when it is a folder of backups, dumps, exports or a database's files."""
    if not raw.startswith("/") or "$" in raw or "{" in raw:
        return None
    return raw if _DATA_FOLDER.search(raw.replace("\\", "/")) else None


def _data_hit(f: WebFile, folder: str, offset: int, listed: bool) -> Hit:
    return f.hit(
        Severity.CRITICAL if listed else Severity.HIGH,
        f"serves {folder} (backups or database files) to the web"
        + (", with directory listing" if listed else ""),
        offset,
        f"Anyone who can reach the server can download what {folder} holds: a backup or dump "
        "is every record of the database"
        + (", and the listing names each file." if listed else "."),
        "Keep backups off the web server; hand them out by signed, expiring links if needed.",
    )


def _listing(f: WebFile, listings: _Listings, offset: int) -> int | None:
    """Where directory listing is turned on for ``offset``: in its block or a block around
    it (nginx inherits it), not in a sibling block."""
    chain: list[Block | None] = [*enclosing(f.blocks, offset), None]
    return next((at for at, block in listings if block in chain), None)


def _served_hit(f: WebFile, folder: str, offset: int, listed: bool) -> Hit:
    shown = "the file system's root (/)" if folder == "/" else folder
    return f.hit(
        Severity.CRITICAL,
        f"serves {shown} to the web" + (", with directory listing" if listed else ""),
        offset,
        f"Anyone who can reach the server can download {shown}: system files, keys and "
        "credentials"
        + (", and browse its folders to find them." if listed else ".")
        + " A site's root is its own public folder.",
        "Point root / DocumentRoot at the site's public folder only.",
    )
