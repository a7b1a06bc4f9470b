"""Protected files handed to options that read a file as a list, a configuration or more
arguments (``ssh -F``, ``file -f``, ``aria2c -i``, ``date -f``): the program echoes the lines
it cannot use in its errors, which reads the file as surely as ``cat``."""

from __future__ import annotations

from collections.abc import Iterator

from .shell_model import Cmd
from .shell_paths import PRIVILEGE_FILES, is_secret, normal
from .shell_rule_kit import Context, Flag, critical

__all__ = ["LIST_OPTIONS", "listed_reads"]

LIST_OPTIONS = {
    "file": ("-f", "--files-from", "-m", "--magic-file"),
    "ssh": ("-F",),
    "scp": ("-F",),
    "sftp": ("-F",),
    "ssh-copy-id": ("-i", "-F"),
    "aria2c": ("-i", "--input-file", "--conf-path"),
    "wget": ("-i", "--input-file", "--config"),
    "curl": ("-K", "--config"),
    "xargs": ("-a", "--arg-file"),
    "mosquitto": ("-c",),
    "nasm": ("-@",),
    "date": ("-f", "--file"),
    "last": ("-f",),
    "lastb": ("-f",),
    "git": ("-F", "--file"),
    "rake": ("-f", "--rakefile"),
    "tar": ("-T", "--files-from", "-X", "--exclude-from"),
    "rsync": ("--files-from", "--exclude-from", "--include-from"),
}
"""Options whose file a program reads as a list, a configuration or more arguments, echoing
lines it cannot use in its errors (``file -f``, ``ssh -F``, ``aria2c -i``, ``date -f``)."""


def _listed(cmd: Cmd) -> str | None:
    """A credential or account file given to one of ``LIST_OPTIONS``."""
    options = LIST_OPTIONS.get(cmd.name)
    if options is None:
        return None
    argv = cmd.argv
    for i, word in enumerate(argv[1:], 1):
        opt, eq, value = word.partition("=")
        if opt in options and (eq or i + 1 < len(argv)):
            path = value if eq else argv[i + 1]
        elif not eq and word[:2] in options and len(word) > 2 and not word.startswith("--"):
            path = word[2:]
        else:
            continue
        if is_secret(path) or PRIVILEGE_FILES.match(normal(path)):
            return path
    return None


def listed_reads(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A credential or account file read through a list or configuration option (run for
    the programs of ``LIST_OPTIONS`` by ``shell_rules_interactive``'s one dispatching rule)."""
    listed = _listed(cmd)
    if listed is not None:
        yield critical(
            f"reads {normal(listed)}",
            cmd.text,
            f"{cmd.name} reads this file as a list or configuration and shows its lines in "
            "its errors, a way to read a protected file.",
            "Never read credentials or account files.",
        )
