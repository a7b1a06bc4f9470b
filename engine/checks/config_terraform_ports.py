"""Firewall rules in Terraform that open what matters to the internet (``config_terraform``):
a database, cache or remote-desktop port, or every port, open to ``0.0.0.0/0`` (or ``::/0``,
``*``, ``Internet``, ``Any``) inbound. Outbound rules and a subnet's network ACL (stateless,
left open so security groups decide) are not judged."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from humangr.contracts import Severity

from .base import Hit
from .config_iam import STRINGS
from .config_terraform_file import MAX_MATCHES, TerraformFile

__all__ = ["open_port_hits"]

_WORLD = re.compile(
    r"(?i)\b(?:cidr_blocks|ipv6_cidr_blocks|cidr_ipv4|cidr_ipv6|source_ranges|"
    r"source_address_prefix(?:es)?|remote_ip_prefix)\"?\s*[=:]\s*\[?[^\]\n]{0,400}?"
    r"\"(?:0\.0\.0\.0/0|::/0|\*|Internet|Any)\""
)
_OUTBOUND = re.compile(
    r"(?i)^egress\b|egress_rule\b|\btype\"?\s*[=:]\s*\"egress\"|"
    r"\bdirection\"?\s*[=:]\s*\"(?:egress|outbound)\"|\baccess\"?\s*[=:]\s*\"deny\""
)
_ADMIN_PORTS = {
    3389: "remote desktop (3389)",
    5432: "PostgreSQL (5432)",
    3306: "MySQL (3306)",
    1433: "SQL Server (1433)",
    6379: "Redis (6379)",
    27017: "MongoDB (27017)",
    9200: "Elasticsearch (9200)",
    11211: "memcached (11211)",
    2375: "the Docker API (2375)",
    2379: "etcd (2379)",
    5984: "CouchDB (5984)",
    9042: "Cassandra (9042)",
}
"""Ports whose service trusts whoever reaches it, or guards only a password (SSH is left to
``change_risks``: a bastion's port 22 is common and keys guard it)."""
_NUMBER = r"\"?\s*[=:]\s*\"?(-?\d{1,5})"
_FROM = re.compile(r"(?i)\b(?:from_port|port_range_min)" + _NUMBER)
_TO = re.compile(r"(?i)\b(?:to_port|port_range_max)" + _NUMBER)
_PORT_LISTS = re.compile(
    r"(?i)\b(?:ports|destination_port_ranges?)\"?\s*[=:]\s*(\[[^\]]{0,800}\]|\"[^\"\n]{0,80}\")"
)
_ALL_PROTOCOLS = re.compile(r"(?i)\b(?:ip_)?protocol\"?\s*[=:]\s*\"(?:-1|all)\"")
_ANY_PROTOCOL = re.compile(r"(?i)\b(?:ip_)?protocol\"?\s*[=:]\s*\"\*\"")
_PORTLESS_ALLOW = re.compile(r"(?is)\ballow\s*\{[^{}]{0,400}\}")


def open_port_hits(f: TerraformFile) -> Iterator[Hit]:
    """The added inbound rules that open every port, or an admin port, to the internet."""
    for m in islice(_WORLD.finditer(f.t.text), MAX_MATCHES):
        body, start, end = f.region(m.start())
        header = body.split("{", 1)[0].strip()
        if not f.t.any_added(start, end) or _OUTBOUND.search(header + "\n" + body):
            continue
        if f.within(m.start(), "network_acl"):
            continue  # a subnet's stateless filter, left open so security groups decide
        exposed = _exposed(body)
        if exposed:
            yield f.hit(
                Severity.HIGH,  # a risk a human may accept (a demo, a honeypot), not harm done
                f"{exposed} open to the internet",
                m.start(),
                f"Anyone on the internet can reach {exposed}: databases and remote "
                "desktops are scanned for and broken into within hours.",
                "Allow only your own networks (a VPN, a bastion, a security group).",
            )


def _exposed(body: str) -> str | None:
    """What the rule's ports expose that matters: every port, or a named admin port."""
    ranges: list[tuple[int, int]] = []
    low, high = _FROM.search(body), _TO.search(body)
    if low is not None:
        ranges.append((int(low.group(1)), int(high.group(1) if high else low.group(1))))
    for m in _PORT_LISTS.finditer(body):
        for item in STRINGS.findall(m.group(1)) or [m.group(1).strip('"')]:
            item = item.strip()
            if item == "*":
                ranges.append((0, 65535))
            elif (r := re.fullmatch(r"(\d{1,5})(?:-(\d{1,5}))?", item)) is not None:
                ranges.append((int(r.group(1)), int(r.group(2) or r.group(1))))
    allow = _PORTLESS_ALLOW.search(body)
    if (
        _ALL_PROTOCOLS.search(body)
        or (_ANY_PROTOCOL.search(body) and not ranges)
        or (allow and not _PORT_LISTS.search(allow.group(0)) and not ranges)
    ):
        return "every port"
    if any(a <= 0 and b >= 65535 for a, b in ranges):
        return "every port"
    names = [name for port, name in _ADMIN_PORTS.items() if any(a <= port <= b for a, b in ranges)]
    return ", ".join(names[:3]) if names else None
