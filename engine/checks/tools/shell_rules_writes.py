"""Rules about writes to the machine (for ``shell_rules_fs``): the files a command writes
(redirections, ``tee``, ``cp``/``mv`` targets, ``dd of=``, ``sed -i``, downloads' ``-o``) and
the writes that matter: disk devices overwritten, privilege files changed, logs and history
emptied, start-up files written (persistence), credential files replaced, a database's data
overwritten, system files written outside the workspace."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_binaries import PASSIVE
from .shell_catalogue import words
from .shell_data_store import overwrites_data
from .shell_model import Cmd
from .shell_paths import (
    DEVICE,
    HISTORY,
    LOGS,
    PERSISTENCE,
    PRIVILEGE_FILES,
    SYSTEM_DIRS,
    is_secret,
    normal,
    outside_workspace,
)
from .shell_rule_kit import Context, Flag, critical, high, operands, rule
from .shell_write_kinds import CI_WORKFLOW, KEY_FOLDER, extra_targets, in_place

__all__ = ["UNDER_SYSTEM", "write_targets", "writes"]

_NOT_OUTPUT = words(
    """
    ssh scp sftp sshfs mount ps tmux screen kubectl helm docker curl wget nc ncat
    """
)
_OUTPUT_OPTIONS = {
    "find": ("-fprint", "-fprint0", "-fprintf", "-fls"),
    "openssl": ("-out", "-keyout"),
    "out-file": ("-FilePath", "-Path", "-LiteralPath"),
    "set-content": ("-Path", "-LiteralPath"),
    "add-content": ("-Path", "-LiteralPath"),
}
"""Options whose value is a file the program writes, for programs whose other words are
data (``find / -fprintf FILE …``, ``openssl enc -out FILE``)."""
UNDER_SYSTEM = re.compile(r"^/(?:etc|usr|bin|sbin|lib\w*|boot|var|opt|srv|root|sys|proc)/")
_BENIGN_PROFILE = re.compile(
    r"^\s*(?:export\s+[\w]+=|alias\s|source\s|\.\s|[\w]+=|#|eval\s+\"\$\((?:\w+)\s+\w+|"
    r"(?:fpath|path)\+?=|$)"
)


def write_targets(cmd: Cmd) -> list[str]:
    """The files ``cmd`` writes: redirections, ``tee``, the target of ``cp``/``mv``/
    ``install``/``ln``, ``dd of=``, ``sed -i``, ``truncate``, downloads' ``-o``."""
    out = [
        r.target
        for r in cmd.redirects
        if r.op in (">", ">>", ">|", "&>", "&>>", "<>")
        and not r.target.isdigit()
        and r.target != "-"
    ]
    ops = operands(
        cmd.argv,
        words(
            """
    -t -m -o -g -S -s --target-directory
    """
        ),
    )
    if cmd.name in ("tee", "vim", "vi", "nano", "emacs", "ed", "ex", "pico", "joe", "red"):
        out.extend(w for w in cmd.argv[1:] if not w.startswith(("-", "+")))
    elif cmd.name in ("cp", "mv", "install", "ln", "rsync") and len(ops) >= 2:
        out.append(ops[-1])
    elif cmd.name == "dd":
        out.extend(w[3:] for w in cmd.argv if w.startswith("of="))
    elif cmd.name in ("sed", "perl", "ruby") and in_place(cmd):
        scripted = any(w.startswith("-") and not w.startswith("--") and "e" in w for w in cmd.argv)
        out.extend(ops[1:] if cmd.name == "sed" or not scripted else ops)
    elif cmd.name == "truncate":
        out.extend(operands(cmd.argv, frozenset({"-s", "-r", "--size", "--reference"})))
    elif cmd.name not in _NOT_OUTPUT and cmd.name not in PASSIVE:
        for i, word in enumerate(cmd.argv[:-1]):
            if word in ("-o", "--output", "--out") and re.search(r"[/.]", cmd.argv[i + 1]):
                out.append(cmd.argv[i + 1])
    if cmd.name in ("out-file", "set-content", "add-content"):  # PowerShell
        out.extend(operands(cmd.argv, frozenset({"-Value", "-Encoding"}))[:1])
    for i, word in enumerate(cmd.argv[:-1]):
        if word in _OUTPUT_OPTIONS.get(cmd.name, ()):
            out.append(cmd.argv[i + 1])
    if cmd.name in ("curl", "wget"):
        for i, word in enumerate(cmd.argv[:-1]):
            if word in ("-o", "--output", "-O", "--output-document") and not (
                cmd.name == "curl" and word == "-O"
            ):
                out.append(cmd.argv[i + 1])
    out.extend(extra_targets(cmd))
    return out


def _emptying(cmd: Cmd) -> bool:
    content = cmd.stdin if cmd.name == "tee" else None
    if cmd.name in ("truncate",) or (cmd.name == "ln" and "/dev/null" in cmd.argv):
        return True
    if cmd.name in ("cp", "mv", "cat") and "/dev/null" in cmd.argv:
        return True
    if cmd.name in ("", ":", "true", "echo", "printf") and len(cmd.argv) <= 1:
        return True
    return content is not None and not content.strip()


@rule
def writes(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Writes to disks, privilege files, start-up files and logs."""
    for target in write_targets(cmd):
        path = normal(target)
        if DEVICE.match(path):
            yield critical(
                "overwrites a disk device",
                cmd.text,
                f"it writes to {path}; the disk's data is destroyed.",
                "Never write to a raw disk from an agent.",
            )
        elif PRIVILEGE_FILES.match(path):
            yield critical(
                f"changes {path}",
                cmd.text,
                "writing the account or sudo files grants privileges (privilege escalation).",
                "Change users and sudo rights through an administrator.",
            )
        elif HISTORY.search(path) or LOGS.match(path):
            if _emptying(cmd) or (cmd.redirects and any(r.op == ">" for r in cmd.redirects)):
                yield critical(
                    "erases logs or shell history",
                    cmd.text,
                    f"it empties {path}, hiding what was done.",
                    "Leave logs and history alone.",
                )
            else:
                yield high(
                    "writes to logs",
                    cmd.text,
                    f"it writes into {path}.",
                    "Applications should log through their own logger.",
                )
        elif PERSISTENCE.search(path):
            yield _persistence(cmd, path)
        elif CI_WORKFLOW.search(path) or KEY_FOLDER.search(path):
            hook = "/.husky/" in f"/{path}" or "/.githooks/" in f"/{path}"
            what = "the SSH folder" if KEY_FOLDER.search(path) else "a CI workflow"
            what = "a git hook" if hook else what
            yield high(
                f"writes {what}",
                cmd.text,
                f"it writes {path}: a CI workflow or a hook runs by itself on the next push "
                "or commit; what lands in the SSH folder decides who may log in.",
                "Ask the user first.",
            )
        elif is_secret(target) and outside_workspace(target, ctx.workspace):
            yield high(
                f"replaces the credential file {path}",
                cmd.text,
                "whoever wrote the new content decides which key or account is used from now on.",
                "Leave credential files to the user.",
            )
        elif overwrites_data(cmd, path, _emptying(cmd)) and outside_workspace(
            target, ctx.workspace
        ):
            yield critical(
                "destroys a database's stored data",
                cmd.text,
                f"it overwrites {path}, a file a database or stateful service keeps its data "
                "in: what it held is gone, and the service may not start again.",
                "Change a database's data through the database, and only with a backup.",
            )
        elif (
            UNDER_SYSTEM.match(path)
            and not path.startswith(("/var/tmp/", "/tmp/"))
            and not _in_workspace(path, ctx.workspace)
        ):
            yield high(
                "writes a system file",
                cmd.text,
                f"it writes {path}, outside the workspace.",
                "Keep changes inside the workspace.",
            )


def _in_workspace(path: str, workspace: str | None) -> bool:
    """``path`` is inside a workspace that lives under a system folder (``/srv/app``,
    ``/opt/project``): the project's own files, not the system's. A workspace that is itself a
    system folder, or one level under the root, makes nothing inside it ordinary."""
    if not workspace:
        return False
    root = normal(workspace)
    if root in SYSTEM_DIRS or root.lower() in SYSTEM_DIRS or root.count("/") < 2:
        return False
    return not outside_workspace(path, root)


def _persistence(cmd: Cmd, path: str) -> Flag:
    if cmd.name in ("vim", "vi", "nano", "emacs", "ed", "ex", "pico", "joe", "code"):
        return high(
            "edits a start-up file",
            cmd.text,
            f"{path} runs commands automatically; an edit there persists.",
            "Ask the user first.",
        )
    if "/.git/hooks" in path or path.startswith(".git/hooks"):
        return high(
            "installs a git hook",
            cmd.text,
            f"it writes {path}, which git runs on every commit or push.",
            "Install hooks through the project's hook tool.",
        )
    content = cmd.stdin if cmd.name == "tee" else None
    if cmd.name in ("echo", "printf"):
        content = " ".join(cmd.argv[1:])
    profile = re.search(r"/\.(?:bash|zsh|profile|zprofile|zshenv|bash_profile|zlogin)", path)
    if (
        profile
        and content is not None
        and all(_BENIGN_PROFILE.match(line) for line in content.splitlines() or [""])
    ):
        return high(
            "changes a shell profile",
            cmd.text,
            f"it adds to {path}, which every new shell runs.",
            "Ask the user before changing their shell profile.",
        )
    return critical(
        "persistence: writes a start-up file",
        cmd.text,
        f"it writes {path}, "
        "which runs commands automatically (cron, systemd, shell profiles, ssh "
        "keys, preloaded libraries).",
        "Do not install anything that runs by itself.",
    )
