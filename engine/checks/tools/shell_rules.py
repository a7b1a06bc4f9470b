"""Running the shell rules: every rule family over every command of a program (``evaluate``).
The families register themselves in ``shell_rule_kit`` when imported here."""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from . import (  # noqa: F401 - the rule families register themselves on import
    shell_rules_alerts_off,
    shell_rules_backups_off,
    shell_rules_cloud,
    shell_rules_deploy_settings,
    shell_rules_disk,
    shell_rules_escape,
    shell_rules_exports,
    shell_rules_flow,
    shell_rules_fs,
    shell_rules_git,
    shell_rules_grants,
    shell_rules_guards_off,
    shell_rules_host,
    shell_rules_impact,
    shell_rules_interactive,
    shell_rules_leaks,
    shell_rules_net,
    shell_rules_ops,
    shell_rules_policy_off,
    shell_rules_remote,
    shell_rules_secrets,
    shell_rules_setting_flips,
    shell_rules_settings,
    shell_rules_sql,
    shell_rules_streams,
    shell_rules_transfer,
    shell_rules_tunnels,
    shell_rules_windows,
    shell_rules_windows_admin,
    shell_rules_wipes,
    shell_rules_workspace,
)
from .shell_model import Program
from .shell_rule_kit import PROGRAM_RULES, RULES, Context, Flag

__all__ = ["Context", "Flag", "evaluate"]


def _problems(prog: Program) -> Iterator[Flag]:
    problems = prog.budget.problems
    if not problems:
        return
    limit = any(p.startswith(("more than", "longer than", "commands nested")) for p in problems)
    yield Flag(
        Severity.HIGH,
        "could not read this command fully" if limit else "could not read this command",
        "The shell reader stopped: " + "; ".join(problems) + ". What it could not read was "
        "not checked, and a shell may run it.",
        "Split the command into smaller, plainly quoted commands a reviewer can read.",
    )


def evaluate(prog: Program, ctx: Context) -> list[Flag]:
    """Every flag of every rule over ``prog``, most severe first, each title once."""
    found: list[Flag] = list(_problems(prog))
    for fn in PROGRAM_RULES:
        found.extend(fn(prog, ctx))
    for cmd in prog.commands:
        if cmd.name == "cd" and not cmd.guessed:
            target = next((w for w in cmd.argv[1:] if not w.startswith("-")), "~")
            ctx.folder_named = target[:400]
            if target.startswith(("/", "~", "$HOME")):
                ctx.cwd = target
        elif cmd.name in ("terraform", "tofu") and cmd.argv[1:3] in (
            ["workspace", "select"],
            ["workspace", "new"],
        ):
            chosen = [w for w in cmd.argv[3:6] if not w.startswith("-")]
            name = chosen[0] if chosen else ""
            # only a select the next command waits on (``&&``): after a failed one joined by
            # ``;`` or a new line, destroy runs in the workspace that was current
            joined = name and re.search(
                rf"workspace\s+(?:select|new)\s+(?:-\S+\s+)*{re.escape(name)}\s*&&",
                prog.source[:20_000],
            )
            ctx.workspace_chosen = name if joined else ""
        for check in RULES:
            found.extend(check(cmd, ctx))
    unique: dict[str, Flag] = {}
    for flag in sorted(found, key=lambda f: -_RANK[f.severity]):
        unique.setdefault(flag.title, flag)
    return list(unique.values())


_RANK = {s: i for i, s in enumerate(Severity)}
