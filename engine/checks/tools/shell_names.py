"""What a command's words stand for before the rules read them: a name printed by a
substitution (``$(echo rm)``), a name written as a glob (``/???/r?``), and the command
``xargs`` runs when its input is known text."""

from __future__ import annotations

import fnmatch
import re

__all__ = [
    "GLOB",
    "WHOLE_SUB",
    "cli_prefixed",
    "expanded",
    "globbed",
    "globbed_path",
    "plain_params",
    "unset_dropped",
    "xargs_fed",
]

WHOLE_SUB = re.compile(r"^(?:\$\((?!\().*\)|`[^`]*`)$", re.DOTALL)
"""A word that is one command substitution, whole: ``$(…)`` or backticks."""
GLOB = re.compile(r"[?*\[]")
"""A glob character: a word holding one is a pattern the shell expands."""
_GLOBBED = (
    "rm",
    "sh",
    "bash",
    "dash",
    "zsh",
    "nc",
    "ncat",
    "curl",
    "wget",
    "dd",
    "chmod",
    "chown",
    "python3",
    "python",
    "perl",
    "mkfs",
    "shred",
    "socat",
    "base64",
    "cat",
)
"""Programs a command name written as a pattern (``/bin/r?m``, ``/usr/bin/c[u]rl``) is
matched against: what such a name runs is whichever of these the pattern names."""


def xargs_fed(argv: list[str], command: list[str], stdin: str) -> list[str]:
    """The command ``xargs`` runs when its input is known text (``xargs -I{} rm -rf {} <<<
    /``): the first item put in place of the replacement string, or every item appended."""
    items = stdin.split()[:64]
    if not items:
        return command
    replace: str | None = None
    for i, word in enumerate(argv[1:], 1):
        if word == "-I" and i + 1 < len(argv):
            replace = argv[i + 1]
            break
        if word.startswith("-I") and len(word) > 2:
            replace = word[2:]
            break
        if word in ("-i", "--replace") or word.startswith("--replace="):
            replace = word.partition("=")[2] or "{}"
            break
    if replace:
        return [w.replace(replace, items[0]) for w in command]
    return [*command, *items]


def globbed(word: str) -> str:
    """A command name that is a pattern, as the program it matches (first of ``_GLOBBED``),
    keeping its folder; the word itself when it matches none."""
    folder, _, base = word.rpartition("/")
    if GLOB.search(folder):
        folder = ""
    for name in _GLOBBED:
        if fnmatch.fnmatchcase(name, base):
            return f"{folder}/{name}" if folder else name
    return word


_PARAM = re.compile(r"\$\{(\w+)(?::?[-?=][^{}]*)\}")
"""``${NAME:?msg}``, ``${NAME:-default}``, ``${NAME=x}``: the variable itself, whatever the
operator does when it is unset (``rm -rf "${HOME:?}"/`` deletes the home folder)."""
_IFS = re.compile(r"(?:\$\{IFS\}|\$IFS(?!\w))(?:\$[0-9](?![0-9]))?")
"""The field separator written for a blank (``rm${IFS}-rf${IFS}/``, ``cat$IFS$9/etc/passwd``)."""
_BRACE = re.compile(r"^(.*?)\{([\w./~+-]*(?:,[\w./~+-]*)+)\}(.*)$")
"""A brace expansion of plain words (``/{etc,usr}``, ``{rm,-rf,/}``); a JSON object is none."""
_MAX_WORDS = 256


def plain_params(word: str) -> str:
    """``word`` with each ``${NAME<operator>…}`` written ``${NAME}``."""
    return _PARAM.sub(r"${\1}", word) if "${" in word else word


def expanded(argv: list[str], written: str = "") -> list[str]:
    """The words a shell makes of ``argv``: split where ``$IFS`` stands for a blank, and each
    brace expansion of plain words made into its words (bounded). A word ``written`` (the
    command as typed) opens with a quote is left whole, as the shell leaves it."""
    out: list[str] = []
    for word in argv:
        if (
            ("{" not in word and "IFS" not in word)
            or f"'{word}" in written
            or f'"{word}' in written
        ):
            out.append(word)
            continue
        parts = [p for p in _IFS.split(word) if p] if "IFS" in word else [word]
        for part in parts:
            m = _BRACE.match(part) if "{" in part and "," in part else None
            if m is None:
                out.append(part)
            else:
                out.extend(m.group(1) + item + m.group(3) for item in m.group(2).split(","))
        if len(out) >= _MAX_WORDS:
            return out[:_MAX_WORDS]
    return out


_REFERENCE = re.compile(r"\$\{\w+\}|\$\w+")


def unset_dropped(word: str, known: frozenset[str]) -> str:
    """A command name with variables no one set (``c${u}url``, ``b$x'ash``): what is left once
    they expand to nothing, when that is a program of ``known``; the word itself otherwise."""
    if "$" not in word:
        return word
    left = _REFERENCE.sub("", word)
    base = left.rsplit("/", 1)[-1]
    return left if left and base in known else word


_SENSITIVE = (
    "/etc/passwd",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/crontab",
    "/root/.ssh/id_rsa",
    "/root/.ssh/authorized_keys",
    "/root/.bash_history",
    "/proc/self/environ",
    "~/.ssh/id_rsa",
    "~/.ssh/id_ed25519",
    "~/.ssh/authorized_keys",
    "~/.aws/credentials",
    "~/.bash_history",
    "~/.bashrc",
)
"""Files a path written as a pattern (``/???/p??s??``) is matched against: the pattern names
whichever of these it matches."""


def globbed_path(word: str) -> str:
    """An argument that is a pattern, as the sensitive file it matches (first of
    ``_SENSITIVE``); the word itself when it matches none."""
    if not word.startswith(("/", "~")) or "*" in word or not re.search(r"[?\[]", word):
        return word  # a star is a whole folder's files, which the path rules read as such
    parts = word.split("/")
    for path in _SENSITIVE:
        names = path.split("/")
        if len(names) == len(parts) and all(map(fnmatch.fnmatchcase, names, parts)):
            return path  # matched name by name: ``*`` never spans a folder, as in the shell
    return word


_CLIS = frozenset(
    {"aws", "gcloud", "gsutil", "bq", "az", "kubectl", "helm", "terraform", "tofu", "docker",
     "podman", "gh", "glab", "git", "oc", "doctl", "heroku", "flyctl", "fly", "vercel",
     "netlify", "wrangler", "firebase", "eksctl", "kubeadm", "ansible", "vault", "consul",
     "nomad", "pulumi", "linode-cli", "hcloud", "ibmcloud", "oci", "aliyun", "mc", "rclone",
     "s3cmd"}
)  # fmt: skip
"""Programs a tool may be named for (``aws_cli``, ``gcloud-tool``, ``run_kubectl``) whose
argument list then leaves the program's own name out (``["s3", "rm", …]``)."""
_TOOL_WORDS = re.compile(r"[^a-z0-9-]+")
_CLI_WORDS = frozenset(["cli", "tool", "command", "cmd", "run", "runner", "call", "invoke"])
"""The other words of such a tool's name (``aws_cli``, ``run_gcloud``); ``docker_exec`` runs
its command inside a container, not as ``docker``'s words."""


def cli_prefixed(tool_name: str, command: str) -> str:
    """``command`` as the program a tool is named for runs it: ``aws_cli`` given
    ``s3 rm s3://b --recursive`` runs ``aws s3 rm s3://b --recursive``. Unchanged when the
    tool names no such program or the command already starts with it."""
    names = [w for w in _TOOL_WORDS.split(tool_name.lower().replace("_", " ")) if w]
    program = next((w for w in names[:4] if w in _CLIS), None)
    if program is None or not set(names) - {program} <= _CLI_WORDS:
        return command
    first = command.lstrip().split(" ", 1)[0].strip("'\"").rsplit("/", 1)[-1]
    if first in (program, f"{program}.exe", "sudo", "env") or not first:
        return command
    return f"{program} {command.lstrip()}"
