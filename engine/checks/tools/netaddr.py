"""Host names and IP addresses as an HTTP client reads them, in every spelling.

``169.254.169.254`` is also ``2852039166``, ``0xa9fea9fe``, ``0251.0376.0251.0376``,
``169.254.43518``, ``[::ffff:a9fe:a9fe]`` and ``①⑥⑨.②⑤④.①⑥⑨.②⑤④``: hosts are read as the
WHATWG URL standard (which browsers and most HTTP clients follow) and ``inet_aton`` read
them, then classed by where the address leads. Pure, bounded, never raises.
"""

from __future__ import annotations

import enum
import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = ["Addr", "Host", "Reach", "classify_ip", "parse_ipv4", "read_host"]

_MAX_HOST = 512
IP = ipaddress.IPv4Address | ipaddress.IPv6Address


class Reach(enum.Enum):
    """Where an address leads, from most to least telling."""

    METADATA = "cloud metadata service"
    LOOPBACK = "this machine (loopback)"
    UNSPECIFIED = "the unspecified address, which reaches this machine"
    LINK_LOCAL = "a link-local address"
    PRIVATE = "a private network"
    RESERVED = "a reserved or multicast address"
    PUBLIC = "a public address"


@dataclass(frozen=True, slots=True)
class Addr:
    ip: IP
    reach: Reach
    spelling: str
    """``standard`` or how the address hides: ``decimal``, ``hex``, ``octal``, ``IPv4-mapped``…"""


@dataclass(frozen=True, slots=True)
class Host:
    """A URL's host as a client resolves it."""

    name: str
    """Lower-case ASCII (punycode for international names); brackets kept off IPv6."""
    addr: Addr | None
    """The address when the host is one (or names one, as ``10.0.0.1.nip.io`` does)."""
    problems: tuple[str, ...] = ()
    """What makes the host unreadable or deceptive (empty for an ordinary host)."""


_METADATA_IPS = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack
        "169.254.170.2",  # AWS ECS task credentials
        "169.254.170.23",  # AWS EKS pod identity
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud classic
        "168.63.129.16",  # Azure WireServer
        "fd00:ec2::254",  # AWS IPv6
        "fd00:ec2::23",  # AWS EKS pod identity IPv6
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_PRIVATE_NETS = tuple(
    ipaddress.ip_network(n)
    for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)
_EXAMPLE_NETS = tuple(
    ipaddress.ip_network(n)
    for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "198.18.0.0/15", "2001:db8::/32")
)
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_WILDCARD_DNS = re.compile(
    r"(?:^|[.-])(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})"
    r"\.(?:nip\.io|sslip\.io|xip\.io|nip\.direct|traefik\.me|xip\.name|ip\.addr\.tools)$"
)
_WILDCARD_HEX = re.compile(r"(?:^|[.-])([0-9a-f]{8})\.(?:nip\.io|sslip\.io)$")
_WILDCARD_SUFFIXES = (".nip.io", ".sslip.io", ".xip.io", ".nip.direct", ".traefik.me")
_LOOPBACK_NAMES = frozenset(
    {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "localtest.me"}
)
_LOOPBACK_SUFFIXES = (".localhost", ".localtest.me", ".lvh.me", ".vcap.me", ".lacolhost.com")
_LOOPBACK_EXACT = frozenset({"lvh.me", "vcap.me", "lacolhost.com"})
_HOST_CHARS = re.compile(r"^[a-z0-9._-]+$")
_NUMBER_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]*|[0-9]+)$")
_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE")


def _part(text: str) -> tuple[int, str] | None:
    """One dotted part of an IPv4 host and how it is written; None when not a number."""
    if text[:2] in ("0x", "0X"):
        digits = text[2:]
        if digits == "":
            return 0, "hex"
        if re.fullmatch(r"[0-9a-fA-F]+", digits) is None or len(digits) > 16:
            return None
        return int(digits, 16), "hex"
    if not text.isascii() or not text.isdigit() or len(text) > 40:
        return None
    if len(text) > 1 and text[0] == "0":
        if any(c in "89" for c in text):
            return None
        return int(text, 8), "octal"
    return int(text), "decimal"


def parse_ipv4(host: str) -> tuple[ipaddress.IPv4Address, str] | None:
    """``host`` read as an IPv4 address the way clients read it (1 to 4 parts, each decimal,
    ``0x`` hex or ``0`` octal, the last filling the remaining bytes), with its spelling."""
    parts = host.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    numbers: list[int] = []
    styles: set[str] = set()
    for text in parts:
        got = _part(text)
        if got is None:
            return None
        numbers.append(got[0])
        styles.add(got[1])
    last = numbers.pop()
    if any(n > 255 for n in numbers) or last >= 256 ** (4 - len(numbers)):
        return None
    value = last
    for i, n in enumerate(numbers):
        value += n << (8 * (3 - i))
    ip = ipaddress.IPv4Address(value)
    styles.discard("decimal")
    if styles:
        spelling = "hex" if "hex" in styles else "octal"
    elif len(parts) != 4:
        spelling = "decimal" if len(parts) == 1 else "shortened"
    else:
        spelling = "standard"
    return ip, spelling


def classify_ip(ip: IP) -> Reach:
    """Where ``ip`` leads."""
    if ip in _METADATA_IPS:
        return Reach.METADATA
    if ip.is_loopback:
        return Reach.LOOPBACK
    if ip.is_unspecified:
        return Reach.UNSPECIFIED
    if ip.is_link_local:
        return Reach.LINK_LOCAL
    if ip.is_multicast or ip.is_reserved:
        return Reach.RESERVED
    if any(ip in net for net in _PRIVATE_NETS if net.version == ip.version):
        return Reach.PRIVATE
    if any(ip in net for net in _EXAMPLE_NETS if net.version == ip.version):
        return Reach.PUBLIC  # documentation ranges stand for public addresses
    if not ip.is_global:
        return Reach.RESERVED
    return Reach.PUBLIC


def _embedded_v4(ip: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, str] | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped, "IPv4-mapped IPv6"
    if ip.sixtofour is not None:
        return ip.sixtofour, "6to4 IPv6"
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF), "NAT64 IPv6"
    value = int(ip)
    if value >> 32 == 0 and value > 1:
        return ipaddress.IPv4Address(value), "IPv4-compatible IPv6"
    return None


def _ipv6(text: str) -> Addr | None:
    inner = text.split("%", 1)[0]
    try:
        ip = ipaddress.IPv6Address(inner)
    except ValueError:
        return None
    embedded = _embedded_v4(ip)
    if embedded is not None and classify_ip(ip) not in (Reach.METADATA, Reach.LOOPBACK):
        v4, spelling = embedded
        return Addr(v4, classify_ip(v4), spelling)
    return Addr(ip, classify_ip(ip), "standard")


def _scripts(label: str) -> set[str]:
    out: set[str] = set()
    for ch in label:
        if not ch.isalpha():
            continue
        if ch.isascii():
            out.add("LATIN")
            continue
        name = unicodedata.name(ch, "")
        out.add(next((s for s in _SCRIPTS if name.startswith(s)), name.split(" ", 1)[0]))
    return out


def _ascii(name: str) -> tuple[str, tuple[str, ...]]:
    """``name`` in ASCII (punycode) and what is wrong with it."""
    if name.isascii():
        return name, ()
    problems: list[str] = []
    if any(len(_scripts(label)) > 1 for label in name.split(".")):
        problems.append("a look-alike host name mixing alphabets")
    try:
        return name.encode("idna").decode("ascii"), tuple(problems)
    except (UnicodeError, ValueError):
        return name, (*problems, "an international host name that cannot be encoded")


def _punycode_ok(label: str) -> bool:
    if not label.startswith("xn--"):
        return True
    try:
        return bool(label[4:].encode("ascii").decode("punycode"))
    except (UnicodeError, ValueError):
        return False


def _wildcard(name: str) -> Addr | None:
    """The address a wildcard-DNS name (``10.0.0.1.nip.io``) resolves to."""
    m = _WILDCARD_DNS.search(name)
    if m is not None:
        got = parse_ipv4(".".join(m.groups()))
        if got is not None:
            return Addr(got[0], classify_ip(got[0]), "wildcard DNS name")
    h = _WILDCARD_HEX.search(name)
    if h is not None:
        ip = ipaddress.IPv4Address(int(h.group(1), 16))
        return Addr(ip, classify_ip(ip), "wildcard DNS name")
    return None


def read_host(raw: str) -> Host:
    """``raw`` (a URL's host, brackets and all) as a client resolves it."""
    text = raw[:_MAX_HOST]
    if "%" in text and not text.startswith("["):
        text = unquote(text, errors="replace")
    text = unicodedata.normalize("NFKC", text).translate(_DOTS).strip().lower()
    disguised = text != raw[:_MAX_HOST].strip().lower()
    if text.startswith("["):
        if not text.endswith("]"):
            return Host(text, None, ("an unterminated IPv6 address",))
        addr = _ipv6(unquote(text[1:-1]))
        if addr is None:
            return Host(text, None, ("an IPv6 address that cannot be read",))
        return Host(text[1:-1], addr)
    name = text.rstrip(".") if text not in (".", "") else text
    if not name:
        return Host("", None, ("no host",))
    labels = name.split(".")
    if _NUMBER_PART.match(labels[-1]):
        got = parse_ipv4(name)
        if got is None:
            return Host(name, None, ("a host that ends in a number but is no IPv4 address",))
        spelling = "encoded" if disguised and got[1] == "standard" else got[1]
        return Host(name, Addr(got[0], classify_ip(got[0]), spelling))
    ascii_name, problems = _ascii(name)
    if not problems and not _HOST_CHARS.match(ascii_name):
        problems = ("characters no host name has",)
    elif not problems and (len(ascii_name) > 253 or any(len(x) > 63 for x in labels)):
        problems = ("a host name longer than DNS allows",)
    elif not problems and not all(_punycode_ok(x) for x in ascii_name.split(".")):
        problems = ("an international host name that cannot be decoded",)
    addr = _wildcard(ascii_name)
    if addr is None and (
        ascii_name in _LOOPBACK_NAMES
        or ascii_name in _LOOPBACK_EXACT
        or ascii_name.endswith(_LOOPBACK_SUFFIXES)
    ):
        addr = Addr(ipaddress.IPv4Address("127.0.0.1"), Reach.LOOPBACK, "loopback name")
    if addr is None and ascii_name.endswith(_WILDCARD_SUFFIXES):
        problems = (*problems, "a wildcard DNS name that resolves to any address")
    return Host(ascii_name, addr, problems)
