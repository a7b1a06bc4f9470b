"""Permission policies written as JSON or YAML files (for ``source_code``): the statement an
edit adds is read as ``config_iam`` reads Terraform's — every action on every resource, all of
IAM, a resource policy open to anyone — and one more shape, high: every action of one service
on every resource (``"Action": "s3:*"`` with ``"Resource": "*"``), a role widened from the
objects it needs to all of a service in the account.

Only a file whose path names a policy, a role or IAM (``iam/``, ``policies/``,
``task-role.json``) and whose added text has an ``Action`` key is read; an explicit ``Deny``
allows nothing. Everyday neighbours run: named actions on named resources, one service's
actions on its named resources (``s3:*`` on ``arn:aws:s3:::bucket/*``), read actions on every
resource. Bounded: at most ``_MAX_TEXT`` characters of added text. Pure.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, is_test_path
from .config_iam import ACTION_KEY, STRINGS, statement_risk
from .diff import FileDiff

__all__ = ["policy_file_hits"]

_MAX_TEXT = 20_000
_POLICY_PATH = re.compile(r"(?i)(?:^|[/_.-])(?:iam|polic(?:y|ies)|roles?|permissions?)(?:$|[/_.-])")
_EXTENSIONS = frozenset({".json", ".yaml", ".yml"})
_RESOURCE_ALL = re.compile(r"(?i)\bresources?[\"']?\s*:\s*\[?\s*[\"']\*[\"']")
_ACTION_VALUE = re.compile(
    r"(?i)\bactions?[\"']?\s*:\s*(\[[^\]]{0,2000}\]|[\"'][^\"'\n]{0,200}[\"'])"
)
_SERVICE_ALL = re.compile(r"^[a-z0-9-]{2,40}:\*$", re.I)


def policy_file_hits(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first risky statement an edit adds to a permission policy file (see the module)."""
    if file.deleted or posixpath.splitext(path.lower())[1] not in _EXTENSIONS:
        return
    if is_test_path(path) or not _POLICY_PATH.search(path[-300:]):
        return
    added = file.added
    text = "\n".join(line.text[:400] for line in added)[:_MAX_TEXT]
    if not ACTION_KEY.search(text):
        return
    line = next((a.number for a in added if ACTION_KEY.search(a.text[:400])), None)
    found = statement_risk(text, admin=False)
    if found is None and _RESOURCE_ALL.search(text) and not re.search(r"(?i)\"deny\"", text):
        action = _ACTION_VALUE.search(text)
        services = STRINGS.findall(action.group(1)) if action else []
        wide = next((a for a in services if _SERVICE_ALL.match(a.strip())), None)
        if wide is not None:
            found = (
                Severity.HIGH,
                f"grants all of {wide.split(':', 1)[0][:40]} on every resource",
                f'`{wide[:40]}` on `"Resource": "*"` reaches every such resource in the account.',
            )
    if found is None:
        return
    severity, title, why = found
    yield Hit(
        severity=severity,
        title=title,
        description=f"{path}: {why}",
        suggestion="Grant the actions and resources the role needs, to named principals.",
        file=path,
        line=line,
    )
