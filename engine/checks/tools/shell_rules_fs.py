"""Rules about the machine itself: deletes of wide or system paths, disks overwritten or
formatted, permissions opened or set-uid bits set, fork bombs, writes to start-up, privilege
and log files, traces hidden and security switched off. The write rules are in
``shell_rules_writes``, imported first so they register before the delete rules as before."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .scratch_places import scratch_file
from .scratch_trees import scratch_tree
from .shell_ageing import ages_out
from .shell_data_store import DATA_STORE
from .shell_model import Cmd
from .shell_paths import (
    classify,
    empty_var_root,
    normal,
    outside_workspace,
)
from .shell_rule_kit import Context, Flag, critical, high, operands, rule, short_flags
from .shell_rules_writes import UNDER_SYSTEM, write_targets

__all__ = ["UNDER_SYSTEM", "WHAT", "write_targets"]

WHAT = {
    "root": "the root file system",
    "home": "a home folder",
    "system": "a system folder",
    "device": "a disk device",
    "history": "shell history",
    "log": "system logs",
}
_RECOVER = "Delete only paths inside the workspace, named explicitly."


def _guarded(target: str, written: str) -> bool:
    """The command as written stops when the target's variable is empty (``${DIR:?}``)."""
    m = re.match(r"^\$\{?(\w+)", target.strip("'\""))
    return m is not None and re.search(r"\$\{" + m.group(1) + r":?\?", written) is not None


@rule
def remove(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Recursive deletes of the root, homes, system folders, logs; variables that may be
    empty; deletes outside the workspace."""
    if cmd.name not in ("rm", "rmdir", "unlink", "shred", "srm", "wipe", "remove-item", "del"):
        return
    flags = short_flags(cmd.argv)
    recursive = bool(flags & {"-r", "-R", "--recursive", "-Recurse"}) or cmd.name == "srm"
    if "--no-preserve-root" in flags:
        yield critical(
            "recursive delete of /",
            cmd.text,
            "--no-preserve-root removes the root file system.",
            _RECOVER,
        )
    for target in operands(cmd.argv, frozenset({"-n", "--iterations", "-s", "--size"})):
        kind = classify(target, ctx.cwd)
        if kind in ("history", "log"):
            yield critical(
                "erases logs or shell history",
                cmd.text,
                f"it deletes {WHAT[kind]} ({target}), hiding what was done.",
                "Leave logs and history alone.",
            )
        elif kind == "device" and cmd.name == "shred":
            yield critical("wipes a disk", cmd.text, f"shred overwrites {target}.", _RECOVER)
        elif kind in ("root", "home", "system") and (recursive or "*" in target):
            where = normal(target) if kind != "root" else "/"
            yield critical(
                f"recursive delete of {where}",
                cmd.text,
                f"it deletes {WHAT[kind]}; this cannot be undone.",
                _RECOVER,
            )
        elif recursive and empty_var_root(target) and not _guarded(target, cmd.text):
            yield critical(
                "recursive delete through a variable that may be empty",
                cmd.text,
                f"if the variable in {target} is empty or unset this deletes from the root.",
                'Guard it: "${VAR:?}/…", or name the path.',
            )
        elif DATA_STORE.match(normal(target)) and outside_workspace(target, ctx.workspace):
            yield critical(
                "deletes a database's or a service's stored data",
                cmd.text,
                f"{target} holds the data a database or service keeps; it is gone for good.",
                _RECOVER,
            )
        elif UNDER_SYSTEM.match(normal(target)) and outside_workspace(target, ctx.workspace):
            yield high("deletes system files", cmd.text, f"it deletes {target}.", _RECOVER)
        elif (
            recursive
            and outside_workspace(target, ctx.workspace)
            and not (".." not in target and scratch_tree(normal(target)))
        ):
            yield high(
                "recursive delete outside the workspace",
                cmd.text,
                f"it deletes {target}, outside the workspace.",
                _RECOVER,
            )
        elif (
            cmd.name == "shred"
            and not target.startswith("-")
            and not (target.startswith("/") and scratch_file(normal(target).split("/")[1:]))
        ):
            yield high(
                "destroys files irreversibly",
                cmd.text,
                f"shred overwrites {target}.",
                "Delete files normally unless the user asked for shredding.",
            )


@rule
def move_away(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``mv /etc /tmp/x``: moving the root, a home or a system folder away breaks the system
    as a delete does (everything that reads it fails), and nothing reviews the way back."""
    if cmd.name != "mv":
        return
    sources = operands(cmd.argv, frozenset({"-t", "--target-directory", "-S", "--suffix"}))[:-1]
    for source in sources:
        kind = classify(source, ctx.cwd)
        if kind in ("root", "home", "system") and "*" not in source.rstrip("/*"):
            where = normal(source) if kind != "root" else "/"
            if kind == "system" and not _SYSTEM_TOP.match(where):
                continue  # a file below a system folder: the write rules judge it
            yield critical(
                f"moves {where} away",
                cmd.text,
                f"it takes {WHAT[kind]} from where the system looks for it.",
                _RECOVER,
            )
            return


_SYSTEM_TOP = re.compile(r"^/(?:etc|usr|bin|sbin|lib\w*|boot|var|opt|root|home|dev|proc|sys)/?$")


@rule
def find_delete(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``find`` deleting from wide places; ``find`` hunting set-uid binaries or keys."""
    if cmd.name != "find":
        return
    starts = []
    for word in cmd.argv[1:]:
        if word.startswith(("-", "(", "!", ")")):
            break
        starts.append(word)
    text = " ".join(cmd.argv)
    deleting = "-delete" in cmd.argv or bool(
        re.search(r"-(?:exec|execdir|ok|okdir)\s.*\b(?:rm|shred|unlink|srm)\b", text)
    )
    if deleting and ages_out(cmd.argv):
        deleting = False  # retention: old files aged out of a log, temporary or scratch folder
    for start in starts or ["."]:
        if re.match(r"^/(?:var/|private/)?tmp(?:/|$)", start):
            continue
        kind = classify(start, ctx.cwd)
        if deleting and kind:
            yield critical(
                f"find deletes from {WHAT[kind]}",
                cmd.text,
                f"it deletes files under {start}.",
                _RECOVER,
            )
        elif deleting and outside_workspace(start, ctx.workspace):
            yield high(
                "find deletes outside the workspace",
                cmd.text,
                f"it deletes files under {start}.",
                _RECOVER,
            )
    if re.search(r"-perm\s+[-/+]?(?:u=s|g=s|[246]000|-4000)", text):
        yield high(
            "searches for set-uid binaries",
            cmd.text,
            "a first step of privilege escalation.",
            "There is no development need for this search.",
        )
    if re.search(
        r"-i?name\s+['\"]?(?:id_rsa|id_ed25519|\*\.pem|\*\.key|\.env|credentials|"
        r"\*\.kdbx|shadow|\.git-credentials)",
        text,
    ):
        yield high(
            "hunts for credential files",
            cmd.text,
            "it searches for private keys or credentials.",
            "Use only the credentials the task was given.",
        )
