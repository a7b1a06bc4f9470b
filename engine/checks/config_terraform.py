"""Terraform (``*.tf``, ``*.tf.json``, ``*.hcl``, ``*.tfvars``) read for what clearly destroys
or opens, beyond ``change_risks.risky_settings`` (which already makes a human look at rules
open to the internet, deletion protection off, public ACLs and public-access blocks off and
wildcard actions, each at high) — a line ``_OPEN_INFRA`` matches is left to it:

- a database, cache or remote-desktop port, or every port, open to 0.0.0.0/0: critical;
- ``force_destroy = true`` on a bucket whose name or folder says production data: high;
- deletion protection (``prevent_destroy``, ``deletion_protection``) removed by the change, or
  a stateful resource (database, bucket, volume, key) removed from the configuration: high;
- a bucket anyone may write to (``public-read-write``, a grant to ``AllUsers``): critical;
- IAM statements (``config_iam``): every action on every resource, all of IAM, a resource
  policy open to anyone, a role anyone may assume, administrator rights for another account;
- the commands of ``local-exec`` / ``remote-exec`` provisioners and ``external`` data sources,
  judged by the shell rules (``${…}`` read as an unknown shell variable).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from itertools import islice

from humangr.contracts import Severity

from .base import Hit
from .change_risks import _OPEN_INFRA
from .config_hosts import flags_hit, host_flags
from .config_iam import ACTION_KEY, ADMIN_POLICY, STRINGS, statement_risk
from .config_text import ConfigText, blocks, enclosing, inside
from .diff import DiffLine
from .tools.shell import judge
from .tools.shell_rules import Context

__all__ = ["terraform_hits"]

_MAX_MATCHES = 200
_MAX_REGION = 20_000
"""The most characters of one block read as a unit (a rule, a statement, a bucket)."""
_NEAR = 2_000
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
_FORCE_DESTROY = re.compile(r"(?i)\bforce_destroy\"?\s*[=:]\s*\"?true\b")
_PRODUCTION = re.compile(
    r"(?i)(?:^|[^a-z])(?:prod|production|prd|backups?|archives?|customers?|billing|"
    r"finance|payments?|audit|records|datalake|data-lake|warehouse)(?:[^a-z]|$)"
)
_PROTECTION = re.compile(
    r"(?i)\b(?:prevent_destroy|(?:enable_)?deletion_protection|termination_protection)"
    r"\"?\s*[=:]\s*\"?true\b"
)
_STATEFUL = re.compile(
    r"(?i)^\s*\"?resource\"?\s*\"((?:aws_(?:db_instance|rds_cluster|s3_bucket|dynamodb_table|"
    r"efs_file_system|ebs_volume|elasticache_\w+|kms_key|docdb_cluster|redshift_cluster)|"
    r"google_(?:sql_database_instance|storage_bucket|bigquery_dataset|spanner_instance)|"
    r"azurerm_(?:\w+_server|storage_account|cosmosdb_account|key_vault)))\"\s*\"([\w-]+)\""
)
_KEEPS_REMOVED = re.compile(r"(?m)^\s*\"?moved\"?\s*[:=]?\s*[\[{]|\bdestroy\"?\s*[=:]\s*false\b")
"""A ``moved`` block, or a ``removed`` block that keeps the real resource."""
_PUBLIC_WRITE = re.compile(
    r"(?i)\bacl\"?\s*[=:]\s*\"public-read-write\"|"
    r"acs\.amazonaws\.com/groups/global/(?:AllUsers|AuthenticatedUsers)"
)
_GRANT_WRITE = re.compile(r"(?i)\"(?:WRITE|WRITE_ACP|FULL_CONTROL)\"")
_IGNORE_ACLS = re.compile(r"(?i)\bignore_public_acls\"?\s*[=:]\s*\"?false\b")
_EXEC_HEADER = re.compile(r"(?i)local-exec|remote-exec|\bdata\s+\"external\"|^\"?external\"?")
_COMMAND = re.compile(
    r"(?s)\bcommand\"?\s*[=:]\s*(?:<<-?\s*\"?(\w{1,40})\"?\n(.{0,20000}?)\n[ \t]*\1\b|"
    r"\"((?:[^\"\\]|\\.){0,8000})\")"
)
_LISTED = re.compile(
    r"\b(inline|program|interpreter)\"?\s*[=:]\s*\[\s*+"
    r"((?:\"[^\"\\]*+(?:\\.[^\"\\]*+)*+\"\s*+,?\s*+)*+)\]"
)
"""A list of strings (possessive: a list left open fails at once, not after retries)."""
_HCL_STRING = re.compile(r"\"([^\"\\]*+(?:\\.[^\"\\]*+)*+)\"")
_INTERPOLATION = re.compile(r"(?<!\$)\$\{([^{}]{0,200})\}|%\{[^{}]{0,200}\}")


class _Reader:
    def __init__(self, t: ConfigText, path: str, allowed: frozenset[str]) -> None:
        self.t, self.path, self.allowed = t, path, allowed
        self.blocks = blocks(t.text, lines=True)

    def hit(self, severity: Severity, title: str, offset: int, why: str, fix: str) -> Hit:
        return Hit(
            severity,
            title,
            f"{why} Line: `{self.t.at(offset)}`",
            fix,
            file=self.path,
            line=self.t.number(offset),
        )

    def region(self, offset: int) -> tuple[str, int, int]:
        """The text of the innermost block around ``offset`` (its first ``_MAX_REGION``
        characters), or the lines near ``offset`` outside any block."""
        block = inside(self.blocks, offset)
        if block is None:
            start = max(0, self.t.text.rfind("\n", 0, max(0, offset - _NEAR)) + 1)
            end = min(len(self.t.text), offset + _NEAR)
        else:
            start, end = block.start, min(block.close, block.start + _MAX_REGION)
        return self.t.text[start:end], start, end

    def within(self, offset: int, kind: str) -> bool:
        """Whether a block around ``offset`` is a resource of ``kind`` (``network_acl``)."""
        return any(kind in b.header for b in enclosing(self.blocks, offset))

    def hits(self) -> Iterator[Hit]:
        yield from self._open_ports()
        yield from self._force_destroy()
        yield from self._public_write()
        yield from self._statements()
        yield from self._commands()

    def _open_ports(self) -> Iterator[Hit]:
        for m in islice(_WORLD.finditer(self.t.text), _MAX_MATCHES):
            body, start, end = self.region(m.start())
            header = body.split("{", 1)[0].strip()
            if not self.t.any_added(start, end) or _OUTBOUND.search(header + "\n" + body):
                continue
            if self.within(m.start(), "network_acl"):
                continue  # a subnet's stateless filter, left open so security groups decide
            exposed = _exposed(body)
            if exposed:
                yield self.hit(
                    Severity.HIGH,  # a risk a human may accept (a demo, a honeypot), not harm done
                    f"{exposed} open to the internet",
                    m.start(),
                    f"Anyone on the internet can reach {exposed}: databases and remote "
                    "desktops are scanned for and broken into within hours.",
                    "Allow only your own networks (a VPN, a bastion, a security group).",
                )

    def _force_destroy(self) -> Iterator[Hit]:
        for m in islice(_FORCE_DESTROY.finditer(self.t.text), _MAX_MATCHES):
            body, _, _ = self.region(m.start())
            named = " ".join(STRINGS.findall(body[:4_000])[:64])
            if self.t.added(m.start()) and _PRODUCTION.search(f"{self.path} {named}"):
                yield self.hit(
                    Severity.HIGH,
                    "a production bucket may be deleted with everything in it",
                    m.start(),
                    "`force_destroy = true` lets `terraform destroy` (or a replacement) "
                    "delete the bucket with every object in it, with no way back.",
                    "Keep force_destroy off for buckets that hold data.",
                )

    def _public_write(self) -> Iterator[Hit]:
        for m in islice(_PUBLIC_WRITE.finditer(self.t.text), _MAX_MATCHES):
            if not self.t.added(m.start()):
                continue
            around = enclosing(self.blocks, m.start())[:2]  # the grantee and its grant
            body = self.t.text[around[-1].open : around[-1].close] if around else ""
            writes = "public-read-write" in m.group(0) or bool(_GRANT_WRITE.search(body))
            if not writes and _OPEN_INFRA.search(self.t.at(m.start())):
                continue  # change_risks' finding
            yield self.hit(
                Severity.CRITICAL if writes else Severity.HIGH,
                "a bucket anyone may " + ("write to" if writes else "read"),
                m.start(),
                "Every internet user (or every AWS account) is granted the bucket: "
                + ("they can overwrite and plant files." if writes else "its data is public."),
                "Keep buckets private; serve public files through a CDN with its own access.",
            )
        for m in islice(_IGNORE_ACLS.finditer(self.t.text), _MAX_MATCHES):
            if self.t.added(m.start()):
                yield self.hit(
                    Severity.HIGH,
                    "public ACLs of a bucket take effect",
                    m.start(),
                    "`ignore_public_acls = false` lets any object ACL make it public.",
                    "Keep all four public-access-block settings true.",
                )

    def _statements(self) -> Iterator[Hit]:
        text = self.t.text
        seen: set[int] = set()
        admin = ADMIN_POLICY.search(text) is not None
        for m in islice(ACTION_KEY.finditer(text), _MAX_MATCHES):
            block = inside(self.blocks, m.start())
            key = block.open if block is not None else -1
            if key in seen:
                continue
            seen.add(key)
            body, start, end = self.region(m.start())
            if self.t.any_added(start, end) and not self.within(m.start(), "organizations_policy"):
                found = statement_risk(body, admin)  # (a service control policy only limits)
                if found is None:
                    continue
                severity, title, why = found
                if severity is Severity.CRITICAL or not _OPEN_INFRA.search(self.t.at(m.start())):
                    fix = "Grant the actions and resources the role needs, to named principals."
                    yield self.hit(severity, title, m.start(), why, fix)

    def _commands(self) -> Iterator[Hit]:
        text = self.t.text
        runners = (b for b in self.blocks if _EXEC_HEADER.search(b.header))
        for block in islice(runners, _MAX_MATCHES):
            if not self.t.any_added(block.open, block.close):
                continue
            if any(_EXEC_HEADER.search(b.header) for b in enclosing(self.blocks, block.open)):
                continue  # read with the block around it
            body = block.body(text)
            remote = "remote-exec" in block.header
            for offset, command in _block_commands(body)[:16]:
                at = block.open + 1 + offset
                if remote:
                    flags = [f for f in host_flags(command, self.allowed) if f.title not in _VM]
                else:
                    flags = judge(command, Context(None, self.allowed))
                if flags:
                    where = "Run on the new machine (remote-exec)" if remote else "Run by terraform"
                    yield flags_hit(flags, self.path, self.t.number(at), where)


_VM = frozenset({"runs as root (sudo)", "enables a service at boot"})
"""Flags that are what provisioning a new machine does (``remote-exec``)."""


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


def _block_commands(body: str) -> list[tuple[int, str]]:
    """The commands of a provisioner's or external data source's block, with their offsets."""
    out: list[tuple[int, str]] = []
    interpreter: list[str] = []
    lists: list[tuple[int, str, list[str]]] = []
    for m in _LISTED.finditer(body):
        items = [_unescape(s) for s in _HCL_STRING.findall(m.group(2))][:64]
        if m.group(1) == "interpreter":
            interpreter = items
        else:
            lists.append((m.start(), m.group(1), items))
    for m in _COMMAND.finditer(body):
        command = _unescape(m.group(2) if m.group(1) else m.group(3) or "")
        if interpreter:
            command = shlex.join([*interpreter, command])
        out.append((m.start(), command))
    for at, kind, items in lists:
        if kind == "program":
            out.append((at, shlex.join(items)))
        else:
            out.extend((at, item) for item in items)
    return [(at, c) for at, c in out if c.strip()]


def _unescape(text: str) -> str:
    """An HCL or JSON string's value as the shell gets it: escapes resolved, ``${expr}`` as
    an unknown shell variable named after it, template directives left out."""
    text = _INTERPOLATION.sub(
        lambda m: "$TF_" + re.sub(r"\W+", "_", m.group(1))[:40].strip("_") if m.group(1) else "",
        text,
    )
    text = text.replace("$${", "${").replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t")
    return text.replace("\\\\", "\\")


def removed_protection(
    removed: tuple[DiffLine, ...], t: ConfigText, path: str, elsewhere: str = ""
) -> Iterator[Hit]:
    """Deletion protection removed by the change, or a stateful resource removed from the
    configuration (``terraform apply`` destroys it), unless the change keeps it: ``removed`` /
    ``moved`` blocks, the protection or resource in the new text or ``elsewhere`` (the lines
    the change adds to its other files: a resource moved to another file)."""
    text = t.text
    kept = text + "\n" + elsewhere
    line = t.numbers[t.added_lines.index(True)] if True in t.added_lines else None
    weakened = any(_OPEN_INFRA.search(ln) for ln in t.lines[:5_000])  # change_risks' finding
    protected, reported = False, 0
    for old in removed[:5_000]:
        if (
            not protected
            and _PROTECTION.search(old.text)
            and not _PROTECTION.search(kept)
            and not weakened
        ):
            yield Hit(
                Severity.HIGH,
                "deletion protection removed",
                f"The change removes `{old.text.strip()[:120]}`: the resource can now be "
                "destroyed by an apply.",
                "Keep deletion protection on resources that hold data.",
                file=path,
                line=line,
            )
            protected = True
        found = _STATEFUL.search(old.text)
        if found and not _KEEPS_REMOVED.search(kept) and f'"{found.group(2)}"' not in kept:
            yield Hit(
                Severity.HIGH,
                f"removes {found.group(1)}.{found.group(2)}: terraform destroys it",
                "A resource taken out of the configuration is destroyed at the next apply, "
                "with its data.",
                "Use a `removed` block with `destroy = false`, or have a human confirm it.",
                file=path,
                line=line,
            )
            reported += 1
            if reported >= 4:
                return


def terraform_hits(
    t: ConfigText,
    path: str,
    *,
    removed: tuple[DiffLine, ...] = (),
    elsewhere: str = "",
    allowed_hosts: frozenset[str] = frozenset(),
) -> Iterator[Hit]:
    """The findings of a Terraform file: its new text ``t``, the lines the change
    ``removed`` from it, and what the change adds ``elsewhere`` (its other files)."""
    yield from _Reader(t, path, allowed_hosts).hits()
    yield from removed_protection(removed, t, path, elsewhere)
