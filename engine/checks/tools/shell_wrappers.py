"""What a command runs besides itself, read from its words alone: the command after a
launcher (``sudo``, ``env``, ``timeout``, ``xargs``, ``nohup``, …), ``find -exec``, the
command-valued options of ordinary binaries (``tar --checkpoint-action=exec=``, ``rsync -e``,
``ssh -o ProxyCommand=``, ``git -c core.pager=``), and the code given to interpreters.

Pure functions over argument lists; the unwrapper reads what they return.
"""

from __future__ import annotations

import base64
import binascii
import re
import shlex
from dataclasses import dataclass, field

from .shell_binaries import SHELL_WHEN_EMPTY
from .shell_catalogue import CODE_FLAGS, LAUNCHERS, RUNNER_VERBS

__all__ = [
    "Inner",
    "find_commands",
    "interpreter_code",
    "launcher_inner",
    "positional",
    "repl_line",
    "shell_flags",
    "typed_keys",
]

_POSITIONAL = re.compile(r"\"?\$\{?([@*])\}?\"?|\"?\$\{?([1-9])\}?\"?")
_REPL_VERBS = frozenset({"console", "fsi", "repl", "shell", "interactive", "c", "i"})
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NO_COMMAND = {"su": 999, "script": 999}  # their operands are a user / a log file


@dataclass(slots=True)
class Inner:
    """What a launcher runs: a command's words, command strings, the environment it sets,
    and whether it starts an interactive shell (``sudo -s``, ``su``, ``script``)."""

    argv: list[str] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)
    assigns: list[tuple[str, str]] = field(default_factory=list)
    shell: bool = False


def _special(name: str, argv: list[str]) -> Inner | None:
    if name == "capsh":
        if "--" in argv:
            rest = argv[argv.index("--") + 1 :]
            return Inner(argv=["bash", *rest], shell=not rest)
        return Inner()
    if name == "start-stop-daemon":
        for i, word in enumerate(argv):
            opt, eq, value = word.partition("=")
            if opt in ("-x", "--exec", "-a", "--startas"):
                target = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
                tail = argv[argv.index("--") + 1 :] if "--" in argv else []
                return Inner(argv=[target, *tail] if target else [])
        return Inner()
    if name == "ip":
        if len(argv) > 4 and argv[1] in ("netns", "vrf") and argv[2] == "exec":
            return Inner(argv=argv[4:])
        return Inner()
    head = argv[: argv.index("--")] if "--" in argv else argv
    calls = [i for i, w in enumerate(head) if w in ("-c", "--call")]
    if calls and (name == "npx" or (name == "npm" and {"exec", "x"} & set(head[: calls[0]]))):
        return Inner(strings=head[calls[0] + 1 : calls[0] + 2])  # npm exec -c 'command'

    if name == "command" and any(w in ("-v", "-V") for w in argv[1:2]):
        return Inner()
    quiet = ("-e", "--edit", "-l", "--list", "-v", "-k", "-K")
    if name in ("sudo", "doas") and any(w in quiet for w in argv[1:3]):
        return Inner()
    if name == "taskset" and any(w in ("-p", "--pid") for w in argv[1:3]):
        return Inner()
    return None


def launcher_inner(name: str, argv: list[str]) -> Inner | None:
    """The command a launcher runs, or None when ``name`` is no launcher."""
    spec = LAUNCHERS.get(name)
    if spec is None:
        return None
    special = _special(name, argv)
    if special is not None:
        return special
    out = Inner()
    i, n = 1, len(argv)
    flags: set[str] = set()
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            break
        if name == "env" and _ASSIGN.match(word):
            key, _, value = word.partition("=")
            out.assigns.append((key, value))
        elif name == "env" and word in ("-S", "--split-string") and i + 1 < n:
            out.strings.append(argv[i + 1])
            i += 1
        elif word.startswith("-") and word != "-":
            opt, eq, value = word.partition("=")
            if opt in spec.string_options:
                if eq or i + 1 < n:
                    out.strings.append(value if eq else argv[i + 1])
                i += 0 if eq else 1
            elif not eq and word[:2] in spec.string_options and not word.startswith("--"):
                out.strings.append(word[2:])
            elif opt in spec.valued and not eq:
                i += 1
            flags.add(opt)
        else:
            break
        i += 1
    verbs = RUNNER_VERBS.get(name)
    if verbs is not None and (i >= n or argv[i] not in verbs):
        return Inner()
    i += _NO_COMMAND.get(name, spec.operands)
    out.argv = argv[i:] if i < n else []
    if name == "watch" and len(out.argv) > 1 and not flags & {"-x", "--exec"}:
        out.strings.append(" ".join(out.argv))
        out.argv = []
    if not out.argv and not out.strings:
        out.shell = (
            name in SHELL_WHEN_EMPTY
            or bool(flags & {"-s", "-i", "--shell", "--login", "-S"} and name in ("sudo", "doas"))
            or (name == "systemd-run" and bool(flags & {"-S", "--shell"}))
        )
    return out


def shell_flags(argv: list[str]) -> tuple[str | None, list[str], set[str]]:
    """For a shell's words: its ``-c`` command string (None without), its operands, and its
    single-letter flags (``-p``, ``-i``, ``-s``)."""
    flags: set[str] = set()
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        if word in ("--", "-"):
            i += 1
            break
        if word.startswith("--"):
            if word in ("--command", "--init-file", "--rcfile") and i + 1 < n:
                if word == "--command":
                    return argv[i + 1], argv[i + 2 :], flags
                i += 1
            i += 1
            continue
        if word.startswith(("-", "+")) and len(word) > 1:
            letters = word[1:]
            flags.update(f"-{c}" for c in letters)
            if "c" in letters or word.lower() in ("-command", "-encodedcommand", "-enc"):
                value = argv[i + 1] if i + 1 < n else ""
                if word.lower() in ("-encodedcommand", "-enc", "-e", "-ec"):
                    value = _utf16_base64(value)
                return value, argv[i + 2 :], flags
            if letters in ("o", "O") and i + 1 < n:
                i += 1
            i += 1
            continue
        break
    return None, argv[i:], flags


def _utf16_base64(text: str) -> str:
    try:
        return base64.b64decode(text, validate=True).decode("utf-16-le", "replace")
    except (binascii.Error, ValueError):
        return text


def find_commands(argv: list[str]) -> list[list[str]]:
    """The commands of ``find``'s ``-exec``/``-execdir``/``-ok``/``-okdir`` actions."""
    out: list[list[str]] = []
    i, n = 1, len(argv)
    while i < n:
        if argv[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < n and argv[j] not in (";", "+", "\\;"):
                j += 1
            out.append(argv[i + 1 : j])
            i = j
        i += 1
    return out


def interpreter_code(name: str, argv: list[str]) -> tuple[list[str], str | None]:
    """The code an interpreter is given on its command line and its script operand."""
    flags = CODE_FLAGS.get(name, ())
    codes: list[str] = []
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word in flags and i + 1 < n:
            codes.append(argv[i + 1])
            i += 2
            continue
        short = next((f for f in flags if len(f) == 2 and word.startswith(f)), None)
        if short and len(word) > 2 and not word.startswith("--"):
            codes.append(word[2:])
        elif name == "ruby" and word.startswith("-r"):
            codes.append(f"require '{word[2:] or (argv[i + 1] if i + 1 < n else '')}'")
        elif name == "perl" and word.startswith("-M"):
            codes.append(f"use {word[2:]};")
        elif name == "awk" and word in ("-f", "-F", "-v", "-i", "--file") and i + 1 < n:
            i += 1
        elif not word.startswith("-") or word == "-":
            break
        i += 1
    operand = argv[i] if i < n else None
    if name == "awk" and operand is not None and "-f" not in argv and "--file" not in argv:
        return [*codes, operand], None
    if operand is not None and operand.startswith("\\") and not CODE_FLAGS.get(name, ("-",)):
        return [*codes, operand], None  # a TeX engine given its document inline
    if name == "python" and "-m" in argv[1:i]:
        return codes, None
    return codes, (None if codes else operand)


def repl_line(words: list[str]) -> bool:
    """A line that starts a program reading typed input: no operands but options, or a
    console subcommand (``jshell``, ``irb -r x``, ``dotnet fsi``, ``terraform console``)."""
    rest = [w for w in words[1:] if not w.startswith("-")]
    return not rest or rest[0] in _REPL_VERBS


def positional(string: str, operands: list[str]) -> str:
    """``sh -c '$@|sh' _ echo id``: the words after ``$0`` put in for ``$@``, ``$*`` and
    ``$1``…``$9``, so the command the arguments spell is read."""
    if len(operands) < 2 or not _POSITIONAL.search(string):
        return string
    args = operands[1:]

    def put(m: re.Match[str]) -> str:
        key = m.group(1) or m.group(2)
        if key in ("@", "*"):
            return shlex.join(args)
        index = int(key) - 1
        return shlex.quote(args[index]) if index < len(args) else "''"

    return _POSITIONAL.sub(put, string)


_KEY_EFFECTS = {"shell": "sh", "editor": "vi", "write": "tee -a {}", "read": "cat {}"}


def typed_keys(table: dict[str, str], lines: list[str]) -> list[str]:
    """The commands that keys typed alone on their lines amount to, given a program's key
    table (``b`` → ``sh`` in ncdu; ``s FILE`` → ``tee -a FILE`` in less)."""
    out: list[str] = []
    keys = sorted(table, key=len, reverse=True)
    for index, line in enumerate(lines):
        typed = line.strip()
        key = next((k for k in keys if typed.startswith(k)), "")
        rest = typed[len(key) :].strip()
        if not key or (len(typed) > len(key) and typed[len(key)] not in " /~$." and rest):
            continue
        template = _KEY_EFFECTS.get(table[key])
        if template is not None and "{}" in template and not rest:
            rest = lines[index + 1].strip() if index + 1 < len(lines) else ""  # asked for
        if template is not None and ("{}" not in template or rest):
            out.append(template.format(shlex.quote(rest)))
    return out
