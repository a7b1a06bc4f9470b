"""Checks of tool calls: the paths a file tool writes, edits, deletes or reads.

``file_paths`` judges each path a file tool call names (see ``paths_args``) against the
catalogue of protected paths (``paths_catalogue``) and the call's workspace, after resolving it
without touching the disk (``paths_norm``). Python code to run (``run_python(code=…)``) is
read for the constant paths it opens, writes, deletes, copies or moves (``paths_code``). What a
call writes is reviewed elsewhere: the framework turns written and edited code into the diff
of the file it makes, so the code checks read it (``files.py``).

Severities: writing, editing or deleting system files, credentials and start-up files
(persistence) is CRITICAL, so is reading secrets and deleting ``/``, a home folder or the
workspace; CI workflows, git-hook managers, agent settings, ``.env`` reads, reads of files in
a home folder outside the workspace, and any change outside the workspace (or climbing out of
the working folder) are HIGH; everything else (reading ``/etc/os-release``, writing ``/tmp``)
is no finding. A change that only hardens a configuration, or writes a plain log rotation
policy, is no system or outside-the-workspace change (``paths_hardening``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity, ToolKind

from ..base import CheckInput, Hit, snippet
from .paths_alert_routes import quiet_alert_routes
from .paths_args import MAX_TARGETS, file_operation, targets
from .paths_checkout import CHECKOUT_QUIET, quiet_checkout
from .paths_ci import CI_WORKFLOW, quiet_workflow
from .paths_code import code_targets
from .paths_hardening import QUIET_TITLES, quiet_hardening
from .paths_hooks import HOOK_MANAGER, quiet_hook
from .paths_judge import Verdict, judge, workspace_place
from .paths_move import same_tree_move
from .paths_norm import inside, resolve
from .paths_ssh_alias import SSH_CLIENT_CONFIG, quiet_ssh_alias
from .view import ToolView

__all__ = ["file_paths"]

_PYTHON = frozenset({"python", "python3", "py", "ipython"})
_MAX_VERDICTS = 64
_MAX_ALSO = 6
_SECRET_SEARCH = re.compile(
    r"passw|secret|api[_-]?key|apikey|access[_-]?key|token|credential|private[ _-]?key"
    r"|BEGIN [A-Z ]*PRIVATE|AKIA|aws_secret|ghp_|xox[abp]-|sk-[a-z]",
    re.IGNORECASE,
)


def _secret_search(tool: ToolView) -> Hit | None:
    """A content search for secret-looking text in a folder outside the workspace."""
    pattern = tool.text("pattern", "query", "regex", "search")
    folder = tool.text("path", "dir_path", "directory", "dir", "folder")
    if pattern is None or not _SECRET_SEARCH.search(pattern[1][:4096]):
        return None
    ws = workspace_place(tool.call.workspace)
    where = resolve(folder[1][:4096], ws.text if ws else None) if folder else None
    if where is None or not where.root:
        return None
    if ws is not None and inside(where, ws.place):
        return None
    return Hit(
        severity=Severity.HIGH,
        title="search for secrets outside the workspace",
        description=(
            f"The search for `{snippet(pattern[1], 80)}` in `{snippet(where.show(), 80)}` looks "
            "for passwords, keys or tokens where the agent's work does not lie."
        ),
        suggestion="Search inside the workspace, or ask a human for the value you need.",
        argument=pattern[0],
    )


def _code(tool: ToolView) -> tuple[str, str] | None:
    """The Python code a code tool runs: (argument, code)."""
    if tool.kind not in (ToolKind.CODE, ToolKind.OTHER, ToolKind.MCP):
        return None
    language = tool.text("language", "lang", "runtime")
    if language is not None and language[1].strip().lower() not in _PYTHON:
        return None
    names = ("code", "source", "python", "program", "script", "query", "input", "snippet")
    return tool.text(*names) if tool.kind is ToolKind.CODE else tool.text("code", "python")


def _hit(argument: str, verdicts: list[Verdict]) -> Hit:
    """One finding per argument (the registry keeps one): the worst verdict, naming the rest."""
    ordered = sorted(verdicts, key=lambda v: v.severity, reverse=True)
    first, rest = ordered[0], ordered[1:]
    description = first.description
    others = list(dict.fromkeys(f"{v.title} ({v.description.rstrip('.')})" for v in rest))
    if others:
        description += " Also: " + "; ".join(others[:_MAX_ALSO]) + "."
        if len(others) > _MAX_ALSO:
            description += f" And {len(others) - _MAX_ALSO} more."
    return Hit(
        severity=first.severity,
        title=first.title,
        description=description,
        suggestion=first.suggestion,
        argument=argument,
    )


def file_paths(ctx: CheckInput) -> Iterator[Hit]:
    """Paths of file tool calls: system, credential and start-up files, repository hooks and
    CI, secrets read, deletes that cannot be undone, and changes outside the workspace."""
    if ctx.tool is None:
        return
    op = file_operation(ctx.tool)
    skipped: tuple[str, int] | None = None
    if op is not None:
        found, skipped = targets(ctx.tool, op)
    elif (code := _code(ctx.tool)) is not None:
        found = code_targets(code[1], code[0])
    else:
        return
    workspace = workspace_place(ctx.tool.call.workspace)
    by_argument: dict[str, list[Verdict]] = {}
    checkout: dict[str, bool] = {}
    for target in found:
        checkout[target.argument] = checkout.get(target.argument, True) and quiet_checkout(
            posixpath.normpath(target.raw), target.op
        )
        verdicts = by_argument.setdefault(target.argument, [])
        for verdict in judge(target, workspace):
            if len(verdicts) < _MAX_VERDICTS and verdict not in verdicts:
                verdicts.append(verdict)
    quiet = op in ("write", "edit") and quiet_workflow(ctx.tool)
    hook = op in ("write", "edit") and quiet_hook(ctx.tool)
    alias = op in ("write", "edit") and quiet_ssh_alias(ctx.tool)
    safer = (
        (op in ("write", "edit") and quiet_hardening(ctx.tool))
        or same_tree_move(ctx.tool)
        or (op == "edit" and quiet_alert_routes(ctx.tool))
    )
    for argument, verdicts in by_argument.items():
        if quiet:
            verdicts = [v for v in verdicts if not v.title.endswith(CI_WORKFLOW)]
        if hook:
            verdicts = [v for v in verdicts if not v.title.endswith(HOOK_MANAGER)]
        if alias:
            verdicts = [v for v in verdicts if not v.title.endswith(SSH_CLIENT_CONFIG)]
        if safer:
            verdicts = [v for v in verdicts if not v.title.endswith(QUIET_TITLES)]
        if checkout.get(argument):
            verdicts = [v for v in verdicts if not v.title.endswith(CHECKOUT_QUIET)]
        if verdicts:
            yield _hit(argument, verdicts)
    if skipped is not None:
        argument, count = skipped
        yield Hit(
            severity=Severity.HIGH,
            title="too many paths to review",
            description=(
                f"The call names {count} paths beyond the {MAX_TARGETS} the review reads; "
                "any of them may be a protected file."
            ),
            suggestion=f"Pass at most {MAX_TARGETS} paths per call.",
            argument=argument,
        )
    if op == "search" and (hit := _secret_search(ctx.tool)) is not None:
        yield hit
