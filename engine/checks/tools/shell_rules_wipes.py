"""Whole stores wiped by tools the other rules do not name:

- ``bq rm`` of a dataset with its tables (``-r``) is gone for good, like ``gsutil rm -r``;
  one table or view removed needs a person;
- ``robocopy /MIR`` or ``/PURGE`` deletes every file of the destination the source lacks:
  an empty or wrong source empties the destination, as ``rsync --delete`` would.

Everyday neighbours run: ``bq ls``, ``bq query``, ``robocopy src dst /E`` (copies, deletes
nothing).
"""

from __future__ import annotations

from collections.abc import Iterator

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, rule, short_flags
from .shell_throwaway import scratch_bq_table

__all__ = ["bigquery_removed", "mirror_deletes"]


@rule
def bigquery_removed(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``bq rm`` of a dataset with its tables (critical), or of one table (high)."""
    if cmd.name != "bq" or "rm" not in cmd.argv[1:6]:
        return
    if short_flags(cmd.argv) & {"-r", "--recursive"}:
        yield critical(
            "deletes a BigQuery dataset",
            cmd.text,
            "the dataset is removed with every table in it; the data is gone for good.",
            "Ask a human; export or snapshot the dataset first.",
        )
    elif not scratch_bq_table(cmd.argv):
        yield high(
            "deletes BigQuery data",
            cmd.text,
            "a table, view or dataset is removed.",
            "Check what it names, and that a copy exists.",
        )


@rule
def mirror_deletes(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``robocopy`` told to delete what its source lacks."""
    if cmd.name != "robocopy":
        return
    if any(w.lower() in ("/mir", "/purge") for w in cmd.argv[1:40]):
        yield high(
            "mirrors a folder, deleting what the source lacks",
            cmd.text,
            "every destination file missing from the source is deleted; an empty or wrong "
            "source empties the destination.",
            "Copy without /MIR or /PURGE, or list what would go with /L first.",
        )
