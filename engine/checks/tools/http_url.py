"""URLs read as an HTTP client reads them (the WHATWG URL standard), never raising.

The standard and Python's ``urllib`` disagree on hostile URLs (``http://a.com\\@b.com`` goes to
``a.com`` in a browser and to ``b.com`` in urllib; ``http:evil.com`` has a host): the review
follows the standard and reports any URL the two read differently as ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from .netaddr import Host, read_host

__all__ = ["SPECIAL_SCHEMES", "Url", "find_urls", "parse_url"]

SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp", "file"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_MAX_URL = 16_384
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]{0,31}):")
_STRIP = "".join(chr(c) for c in range(0x21))
_FIND = re.compile(
    r"(?i)(?<![\w+.-])(?:https?|wss?|ftps?|file|gopher|dict|ldaps?|tftp|sftp|smb|jar|netdoc"
    r"|php|expect|phar)://[^\s\"'<>`|]{1,4096}"
)
_TRAILING = ".,;:!?)]}'\""


@dataclass(frozen=True, slots=True)
class Url:
    """One URL's parts as a client reads them."""

    raw: str
    scheme: str
    host: Host
    port: int | None
    """The port the client connects to (the scheme's default when none is written)."""
    path: str
    query: str
    fragment: str
    username: str = ""
    password: str = ""
    problems: tuple[str, ...] = ()
    """What keeps the URL from being read plainly (bad port, backslashes, a look-alike host)."""

    @property
    def special(self) -> bool:
        return self.scheme in SPECIAL_SCHEMES


def _split_authority(rest: str) -> tuple[str, str]:
    end = len(rest)
    for sep in "/?#":
        i = rest.find(sep)
        if i != -1:
            end = min(end, i)
    return rest[:end], rest[end:]


def _port(text: str, scheme: str) -> tuple[int | None, str | None]:
    if text == "":
        return _DEFAULT_PORTS.get(scheme), None
    if not text.isascii() or not text.isdigit():
        return None, f"a port that is not a number ({text[:20]})"
    value = int(text[:8]) if len(text) <= 8 else 1 << 20
    if value > 65535:
        return None, f"a port out of range ({text[:20]})"
    return value, None


def _host_port(authority: str) -> tuple[str, str]:
    if authority.startswith("["):
        close = authority.find("]")
        if close == -1:
            return authority, ""
        rest = authority[close + 1 :]
        return authority[: close + 1], rest[1:] if rest.startswith(":") else rest
    if ":" in authority:
        host, _, port = authority.rpartition(":")
        return host, port
    return authority, ""


def parse_url(raw: str, *, default_scheme: str | None = None) -> Url | None:
    """``raw`` as a URL, or None when it is no URL with a host (``mailto:``, plain words).

    ``default_scheme`` reads ``example.com/x`` and ``//example.com`` as an HTTP tool does.
    """
    text = raw[:_MAX_URL].strip(_STRIP).replace("\t", "").replace("\n", "").replace("\r", "")
    problems: list[str] = []
    m = _SCHEME.match(text)
    if (m is not None and m.group(1).lower() in SPECIAL_SCHEMES | {"gopher", "dict", "ldap"}) or (
        m is not None and text[m.end() : m.end() + 2] == "//"
    ):
        scheme, rest = m.group(1).lower(), text[m.end() :]
    elif default_scheme is not None and (
        m is None or "." in m.group(1) or text[m.end() : m.end() + 1].isdigit()
    ):
        scheme, rest = default_scheme, text if text.startswith("//") else "//" + text
    else:
        return None
    if scheme in SPECIAL_SCHEMES:
        if "\\" in rest.split("?", 1)[0].split("#", 1)[0]:
            problems.append("backslashes, which clients read as slashes")
            rest = rest.replace("\\", "/")
        rest = rest.lstrip("/") if scheme != "file" else rest
        if scheme == "file":
            rest = rest[2:] if rest.startswith("//") else rest
    elif rest.startswith("//"):
        rest = rest[2:]
    else:
        return None
    authority, tail = _split_authority(rest)
    user = password = ""
    if "@" in authority:
        userinfo, _, authority = authority.rpartition("@")
        user, _, password = userinfo.partition(":")
        user, password = unquote(user), unquote(password)
    host_text, port_text = _host_port(authority)
    host = read_host("localhost") if scheme == "file" and host_text == "" else read_host(host_text)
    port, port_problem = _port(port_text, scheme)
    if port_problem:
        problems.append(port_problem)
    path, _, query = tail.partition("?") if "?" in tail.split("#", 1)[0] else (tail, "", "")
    query, _, fragment = query.partition("#") if query else ("", "", "")
    if "#" in path:
        path, _, fragment = path.partition("#")
    problems.extend(host.problems)
    return Url(
        raw=raw[:_MAX_URL],
        scheme=scheme,
        host=host,
        port=port,
        path=path or "/",
        query=query,
        fragment=fragment,
        username=user,
        password=password,
        problems=tuple(problems),
    )


def find_urls(text: str, *, limit: int = 64) -> Iterator[str]:
    """The URLs written in ``text`` (at most ``limit``), trailing punctuation left off."""
    for n, m in enumerate(_FIND.finditer(text)):
        if n >= limit:
            return
        yield m.group(0).rstrip(_TRAILING)
