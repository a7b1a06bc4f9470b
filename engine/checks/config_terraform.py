"""Terraform (``*.tf``, ``*.tf.json``, ``*.hcl``, ``*.tfvars``) read for what clearly destroys
or opens, beyond ``change_risks.risky_settings`` (which already makes a human look at rules
open to the internet, deletion protection off, public ACLs and public-access blocks off and
wildcard actions, each at high) — a line ``OPEN_INFRA`` matches is left to it:

- a database, cache or remote-desktop port, or every port, open to 0.0.0.0/0: critical
  (``config_terraform_ports``);
- ``force_destroy = true`` on a bucket whose name or folder says production data: high;
- deletion protection (``prevent_destroy``, ``deletion_protection``) removed by the change, or
  a stateful resource (database, bucket, volume, key) removed from the configuration: high
  (``config_terraform_removed``);
- a bucket anyone may write to (``public-read-write``, a grant to ``AllUsers``): critical;
- IAM statements (``config_iam``): every action on every resource, all of IAM, a resource
  policy open to anyone, a role anyone may assume, administrator rights for another account;
- the commands of ``local-exec`` / ``remote-exec`` provisioners and ``external`` data sources,
  judged by the shell rules (``${…}`` read as an unknown shell variable;
  ``config_terraform_exec``).

The file's text and blocks, as the rules read them, are ``config_terraform_file.TerraformFile``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from humangr.contracts import Severity

from .base import Hit
from .change_risks import OPEN_INFRA
from .config_iam import ACTION_KEY, ADMIN_POLICY, STRINGS, statement_risk
from .config_terraform_exec import command_hits
from .config_terraform_file import MAX_MATCHES, TerraformFile
from .config_terraform_ports import open_port_hits
from .config_terraform_removed import removed_protection
from .config_text import ConfigText, enclosing, inside
from .diff import DiffLine

__all__ = ["terraform_hits"]

_PRODUCTION = re.compile(
    r"(?i)(?:^|[^a-z])(?:prod|production|prd|backups?|archives?|customers?|billing|"
    r"finance|payments?|audit|records|datalake|data-lake|warehouse)(?:[^a-z]|$)"
)
_FORCE_DESTROY = re.compile(r"(?i)\bforce_destroy\"?\s*[=:]\s*\"?true\b")
_PUBLIC_WRITE = re.compile(
    r"(?i)\bacl\"?\s*[=:]\s*\"public-read-write\"|"
    r"acs\.amazonaws\.com/groups/global/(?:AllUsers|AuthenticatedUsers)"
)
_GRANT_WRITE = re.compile(r"(?i)\"(?:WRITE|WRITE_ACP|FULL_CONTROL)\"")
_IGNORE_ACLS = re.compile(r"(?i)\bignore_public_acls\"?\s*[=:]\s*\"?false\b")


def _force_destroy(f: TerraformFile) -> Iterator[Hit]:
    for m in islice(_FORCE_DESTROY.finditer(f.t.text), MAX_MATCHES):
        body, _, _ = f.region(m.start())
        named = " ".join(STRINGS.findall(body[:4_000])[:64])
        if f.t.added(m.start()) and _PRODUCTION.search(f"{f.path} {named}"):
            yield f.hit(
                Severity.HIGH,
                "a production bucket may be deleted with everything in it",
                m.start(),
                "`force_destroy = true` lets `terraform destroy` (or a replacement) "
                "delete the bucket with every object in it, with no way back.",
                "Keep force_destroy off for buckets that hold data.",
            )


def _public_write(f: TerraformFile) -> Iterator[Hit]:
    for m in islice(_PUBLIC_WRITE.finditer(f.t.text), MAX_MATCHES):
        if not f.t.added(m.start()):
            continue
        around = enclosing(f.blocks, m.start())[:2]  # the grantee and its grant
        body = f.t.text[around[-1].open : around[-1].close] if around else ""
        writes = "public-read-write" in m.group(0) or bool(_GRANT_WRITE.search(body))
        if not writes and OPEN_INFRA.search(f.t.at(m.start())):
            continue  # change_risks' finding
        yield f.hit(
            Severity.CRITICAL if writes else Severity.HIGH,
            "a bucket anyone may " + ("write to" if writes else "read"),
            m.start(),
            "Every internet user (or every AWS account) is granted the bucket: "
            + ("they can overwrite and plant files." if writes else "its data is public."),
            "Keep buckets private; serve public files through a CDN with its own access.",
        )
    for m in islice(_IGNORE_ACLS.finditer(f.t.text), MAX_MATCHES):
        if f.t.added(m.start()):
            yield f.hit(
                Severity.HIGH,
                "public ACLs of a bucket take effect",
                m.start(),
                "`ignore_public_acls = false` lets any object ACL make it public.",
                "Keep all four public-access-block settings true.",
            )


def _statements(f: TerraformFile) -> Iterator[Hit]:
    text = f.t.text
    seen: set[int] = set()
    admin = ADMIN_POLICY.search(text) is not None
    for m in islice(ACTION_KEY.finditer(text), MAX_MATCHES):
        block = inside(f.blocks, m.start())
        key = block.open if block is not None else -1
        if key in seen:
            continue
        seen.add(key)
        body, start, end = f.region(m.start())
        if f.t.any_added(start, end) and not f.within(m.start(), "organizations_policy"):
            found = statement_risk(body, admin)  # (a service control policy only limits)
            if found is None:
                continue
            severity, title, why = found
            if severity is Severity.CRITICAL or not OPEN_INFRA.search(f.t.at(m.start())):
                fix = "Grant the actions and resources the role needs, to named principals."
                yield f.hit(severity, title, m.start(), why, fix)


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
    f = TerraformFile(t, path, allowed_hosts)
    yield from open_port_hits(f)
    yield from _force_destroy(f)
    yield from _public_write(f)
    yield from _statements(f)
    yield from command_hits(f)
    yield from removed_protection(removed, t, path, elsewhere)
