"""A recursive delete of the whole workspace from inside it: ``rm -rf .``, ``rm -rf *``,
``rm -rf build/..``, an unfiltered ``find . -delete``. Its absolute spelling is judged by the
path rules; the relative one is judged here, as at least what deleting ``.git`` alone is."""

from __future__ import annotations

from collections.abc import Iterator

from .shell_model import Cmd
from .shell_paths import classify, is_home, is_secret, normal
from .shell_rule_kit import Context, Flag, critical, high, operands, rule, short_flags

__all__: list[str] = []

_HERE = frozenset({".", "", "$PWD", "${PWD}", "$(pwd)", "`pwd`"})
_EVERYTHING = frozenset({"*", "./*", ".*", "./.*", ".[!.]*", "./.[!.]*", "{*,.*}", ".??*"})
_SCOPE_ONLY = frozenset(
    {"-mindepth", "-maxdepth", "-depth", "-d", "-xdev", "-mount", "-delete", "-print", "-P", "-H"}
)
"""``find`` words that do not narrow what it deletes (``-mindepth`` takes a number after it)."""


def _whole(word: str) -> bool:
    return word in _EVERYTHING or normal(word) in _HERE


def _deletes_here(cmd: Cmd) -> bool:
    if cmd.name == "rm":
        return bool({"-r", "-R", "--recursive"} & short_flags(cmd.argv)) and any(
            _whole(w) for w in operands(cmd.argv)
        )
    if cmd.name == "find" and "-delete" in cmd.argv:
        args = cmd.argv[1:]
        start = next((w for w in args if not w.startswith("-")), None)
        if start is None or normal(start) not in _HERE:
            return False
        rest = [w for w in args if w != start and not w.isdigit()]
        return all(w in _SCOPE_ONLY for w in rest)
    return False


@rule
def workspace_deleted(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Everything in the folder the command runs in, deleted, when that folder is the
    workspace (no earlier ``cd`` moved elsewhere)."""
    moved = normal(ctx.folder_named) not in _HERE
    at_root = ctx.cwd is not None and normal(ctx.cwd) == normal(ctx.workspace or "")
    if ((ctx.cwd is None and not moved) or at_root) and _deletes_here(cmd):
        place = classify(ctx.workspace) if ctx.workspace else None
        if place == "home" and not is_home(normal(ctx.workspace or "")):
            place = None  # a project in a home's src/ or code/ folder is a workspace
        if place in ("root", "home", "system"):  # an agent's cwd of / or ~ is no project
            where = "/" if place == "root" else normal(ctx.workspace or "")
            yield critical(
                f"recursive delete of {where}",
                cmd.text,
                f"it runs in {where}, the folder given as the workspace, and deletes all of it.",
                "Delete the build outputs or the files named, not the folder it runs in.",
            )
            return
        yield high(
            "deletes the whole workspace",
            cmd.text,
            "every file of the project goes, work not committed or pushed with it.",
            "Delete the build outputs or the files named, not the workspace.",
        )


@rule
def links_out(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A symbolic link to the root, a home or system folder, or a secret (``ln -s ~/.ssh
    keys``): tools that follow links then read or write there under a harmless name."""
    if cmd.name != "ln" or not {"-s", "--symbolic"} & short_flags(cmd.argv):
        return
    ops = operands(cmd.argv, frozenset({"-t", "--target-directory", "-S", "--suffix"}))
    for target in ops[:-1] if len(ops) > 1 else ops:
        if classify(target) in ("root", "home", "system") or is_secret(target):
            yield high(
                f"links {normal(target)} under another name",
                cmd.text,
                "a file tool that follows the link then reads or writes there while its "
                "path names something harmless.",
                "Use the path itself, or copy the one file the task needs.",
            )
            return
