"""What a Terraform change removes (``config_terraform``): deletion protection
(``prevent_destroy``, ``deletion_protection``) taken away, or a stateful resource (a database,
bucket, volume, key) taken out of the configuration, which the next ``terraform apply``
destroys with its data: high, unless the change keeps it (a ``removed`` block that keeps the
real resource, a ``moved`` block, the resource added to another file)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit
from .change_risks import OPEN_INFRA
from .config_text import ConfigText
from .diff import DiffLine

__all__ = ["removed_protection"]

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
    weakened = any(OPEN_INFRA.search(ln) for ln in t.lines[:5_000])  # change_risks' finding
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
