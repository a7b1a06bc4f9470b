"""Rules about disks and permissions: formatting and wiping, set-uid bits and capabilities,
permission or owner changes of wide or system paths, and fork bombs."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_model import Cmd, Program
from .shell_paths import DEVICE, PRIVILEGE_FILES, classify, normal
from .shell_rule_kit import Context, Flag, critical, high, operands, program_rule, rule, short_flags
from .shell_rules_fs import UNDER_SYSTEM, WHAT

__all__: list[str] = []

_FORK_TEXT = re.compile(r"([^\s(){}|&;]{1,40})\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&")


_DISK_TOOLS = re.compile(
    r"^(?:mkfs(?:\.\w+)?|mke2fs|mkswap|mkdosfs|mkntfs|newfs\w*|wipefs|"
    r"blkdiscard|sgdisk|sfdisk|fdisk|gdisk|cfdisk|parted|zpool|"
    r"cryptsetup|diskutil|format)$"
)


@rule
def disks(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Formatting, partitioning and wiping of disks."""
    if not _DISK_TOOLS.match(cmd.name):
        return
    args = cmd.argv[1:]
    if any(w in ("-l", "--list", "print", "list", "status", "info", "-h", "--help") for w in args):
        return
    device = next((w for w in args if DEVICE.match(normal(w))), None)
    if cmd.name.startswith("mk") or cmd.name in ("wipefs", "blkdiscard", "newfs", "format"):
        if device or cmd.name in ("wipefs", "blkdiscard"):
            yield critical(
                "formats or wipes a disk",
                cmd.text,
                f"{cmd.name} destroys the data on the device.",
                "Never format disks from an agent.",
            )
        else:
            yield high(
                "creates a file system",
                cmd.text,
                f"{cmd.name} on {' '.join(args)}.",
                "Check the target is an image file, not a disk.",
            )
    elif device or cmd.name in ("cryptsetup", "zpool", "diskutil"):
        if cmd.name in ("cryptsetup", "zpool", "diskutil") and not re.search(
            r"\b(?:luksFormat|erase|luksErase|luksKillSlot|destroy|eraseDisk|"
            r"zeroDisk|partitionDisk|create)\b",
            " ".join(args),
        ):
            return
        yield critical(
            "repartitions or erases a disk",
            cmd.text,
            f"{cmd.name} changes the disk layout; data is lost.",
            "Never repartition disks from an agent.",
        )


_SETUID = re.compile(r"^(?:[ugoa]*[+=][rwxXt]*s[rwxXt]*|[0-7]?[2467][0-7]{3})$")


_OPEN = re.compile(r"^(?:0?[0-7]?[0-7][0-7][67]|[ugoa]*o[ugoa]*\+[rwx]*w|a\+[rwx]*w|\+w|777|666)$")


@rule
def permissions(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Set-uid bits, capabilities, and permission or owner changes of wide or system paths."""
    if cmd.name == "setcap":
        yield critical(
            "grants file capabilities",
            cmd.text,
            "setcap lets a binary act with root powers (privilege escalation).",
            "Do not grant capabilities.",
        )
        return
    modes = [cmd.argv[i + 1] for i, w in enumerate(cmd.argv[:-1]) if w in ("-m", "--mode")]
    modes += [
        w.split("=", 1)[-1] if "=" in w[:7] else w[2:]
        for w in cmd.argv
        if w.startswith(("-m", "--mode=")) and len(w) > 2 and w not in ("-m", "--mode")
    ]
    if cmd.name == "install" and any(
        _SETUID.match(m) or re.match(r"^[ugoa]*=[rwx]*s", m) or re.match(r"^=?x?s", m)
        for m in modes
    ):
        yield critical(
            "sets the set-uid bit",
            cmd.text,
            "a set-uid copy runs as its owner (root): a privilege-escalation backdoor.",
            "Do not create set-uid files.",
        )
        return
    if cmd.name not in ("chmod", "chown", "chgrp", "setfacl"):
        return
    recursive = bool(short_flags(cmd.argv) & {"-R", "--recursive"})
    ops = operands(cmd.argv, frozenset({"--reference", "-m", "-M", "-x"}))
    mode, targets = (ops[0], ops[1:]) if ops else ("", [])
    if cmd.name == "chmod" and any(_SETUID.match(m) for m in mode.split(",")):
        yield critical(
            "sets the set-uid bit",
            cmd.text,
            f"mode {mode} makes the file run as its owner (privilege escalation).",
            "Do not create set-uid files.",
        )
    broad = ("root", "system", "home")
    if (
        cmd.name == "chmod"
        and recursive
        and _OPEN.match(mode)
        and targets
        and all(classify(t, ctx.cwd) not in broad for t in targets)
    ):
        yield high(
            "makes a folder tree writable by everyone",
            cmd.text,
            f"mode {mode} lets every user and process change every file beneath "
            f"{', '.join(targets[:3])}: code there can then be replaced.",
            "Grant the access the files need (u+x, g+w), not write for everyone.",
        )
    for target in targets:
        kind = classify(target, ctx.cwd)
        path = normal(target)
        if kind in ("root", "system") or (kind == "home" and cmd.name == "chmod"):
            if recursive or (cmd.name == "chmod" and _OPEN.match(mode)):
                yield critical(
                    f"{cmd.name} of {path}",
                    cmd.text,
                    f"it changes {WHAT[kind]} "
                    "for everything beneath it; the system's security depends on "
                    "these.",
                    "Change permissions of workspace files only.",
                )
        elif (
            cmd.name == "chmod"
            and _OPEN.match(mode)
            and (PRIVILEGE_FILES.match(path) or UNDER_SYSTEM.match(path) or "docker.sock" in path)
        ):
            yield critical(
                f"makes {path} writable by everyone",
                cmd.text,
                "any user can then change it (privilege escalation).",
                "Keep system files restricted.",
            )


@program_rule
def fork_bomb(prog: Program, ctx: Context) -> Iterator[Flag]:
    """A function that calls itself in a pipe or the background: ``:(){ :|:& };:``."""
    source = prog.source
    # The pattern needs a brace and an ampersand; most commands have neither, and its
    # back-reference makes a search cost about 40 tries at every character.
    found = _FORK_TEXT.search(source) if "{" in source and "&" in source else None
    if found is not None:
        yield critical(
            "fork bomb",
            found.group(0),
            "the function starts copies of itself without end and exhausts the machine.",
            "Remove the self-calling function.",
        )
        return
    for name, body in list(prog.functions.items())[:64]:
        for pipe in body.pipelines:
            calls = sum(1 for c in pipe.commands if c.words and c.words[0] == name)
            if calls and (len(pipe.commands) > 1 or pipe.background):
                yield critical(
                    "fork bomb",
                    f"{name}() {{ … }}",
                    "the function starts copies of itself without end and exhausts the machine.",
                    "Remove the self-calling function.",
                )
                return
