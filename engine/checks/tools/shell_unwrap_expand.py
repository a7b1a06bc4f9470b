"""What one command runs in turn, for the walker in ``shell_unwrap``: the command after a
launcher (``sudo``, ``env``, ``xargs``…), ``find -exec``, ``sh -c``/``eval``/``trap`` strings,
``cmd /c``, AppleScript's ``do shell script``, aliases, ``ssh`` remote commands, interpreters'
code, stdin fed to a program, command-valued options and typed escapes."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

from .shell_binaries import PASSIVE
from .shell_catalogue import INTERPRETERS, LAUNCHERS, SHELLS
from .shell_code import escape_lines
from .shell_model import MAX_TEXT, Cmd, Program
from .shell_names import xargs_fed
from .shell_options import command_values
from .shell_reach import REACHING, reached
from .shell_wrappers import find_commands, interpreter_code, launcher_inner, positional, shell_flags

__all__ = ["Expander"]

_APPLESCRIPT_SHELL = re.compile(r'do\s+shell\s+script\s+"((?:[^"\\]|\\.){1,4000})"')
_ESCAPE_WORD = re.compile(r"^(?:\^[A-Z]|v)?[:\\@]?!|^v?:(?:sh|shell|terminal|py|lua|set)\b")
_LOCALHOST = re.compile(r"^(?:localhost|127\.\d+\.\d+\.\d+|::1)$")
_SSH_VALUED = frozenset(
    {"-b", "-B", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o",
     "-p", "-Q", "-R", "-S", "-W", "-w"}
)  # fmt: skip
"""ssh's options that take the next word (``-i key``, ``-p 2222``, ``-o Opt=v``)."""


def _ssh_operands(argv: list[str]) -> list[str]:
    """ssh's destination and the remote command's words after it; the remote host runs them
    as a shell command line (``ssh host 'sudo iptables -F'``)."""
    out: list[str] = []
    k = 1
    while k < len(argv):
        word = argv[k]
        if out or not word.startswith("-") or word == "--":
            if word != "--" or out:
                out.append(word)
        elif word in _SSH_VALUED:
            k += 1
        k += 1
    return out


class Expander(ABC):
    """``expand``: what a command runs in turn, handed back through the walker's ``nested``
    (a shell text), ``code`` (an interpreter's code) and ``child`` (a command's words)."""

    prog: Program

    @abstractmethod
    def child(
        self,
        cmd: Cmd,
        argv: list[str],
        label: str,
        env: dict[str, str],
        stage: list[Cmd],
        assigns: list[tuple[str, str]] | None = None,
    ) -> None:
        """Walk ``argv`` as a command ``cmd`` runs."""

    @abstractmethod
    def nested(
        self,
        cmd: Cmd,
        text: str,
        label: str,
        env: dict[str, str],
        stage: list[Cmd],
        guessed: bool = False,
    ) -> None:
        """Walk ``text`` as a shell script ``cmd`` runs."""

    @abstractmethod
    def code(self, cmd: Cmd, code: str, label: str, env: dict[str, str], stage: list[Cmd]) -> None:
        """Scan ``code`` ``cmd`` runs for the commands and escapes in it."""

    @abstractmethod
    def called(self, cmd: Cmd, env: dict[str, str], stage: list[Cmd]) -> None:
        """Walk the body of the shell function ``cmd`` calls (``f(){ rm -rf ~; }; f``)."""

    def expand(self, cmd: Cmd, env: dict[str, str], stage: list[Cmd]) -> None:
        """Add to ``stage`` the commands ``cmd`` runs in turn, walked recursively."""
        name, argv = cmd.name, cmd.argv
        env = {**env, **dict(cmd.assigns)}
        if not argv:
            return
        if _ESCAPE_WORD.match(argv[0]):
            shells, codes = escape_lines(" ".join(argv))
            for text in shells:
                self.nested(cmd, text, "typed escape", env, stage)
                self.code(cmd, text, "typed escape", env, stage)
            for text in codes:
                self.code(cmd, text, "typed escape", env, stage)
            return
        if name in self.prog.functions and "/" not in argv[0]:
            self.called(cmd, env, stage)
            return
        if name in REACHING and (far := reached(name, argv)) is not None:
            if far[0]:
                self.child(cmd, far[0], far[2], env, stage)
            for text in far[1]:
                self.nested(cmd, text, far[2], env, stage)
            return
        if name in SHELLS:
            string, operands, _ = shell_flags(argv)
            if string is not None:
                self.nested(cmd, positional(string, operands), "sh -c", env, stage)
            elif operands and operands[0] in self.prog.writes:
                self.nested(cmd, self.prog.writes[operands[0]], f"{name} script", env, stage, True)
            elif not operands and cmd.stdin:
                self.nested(cmd, cmd.stdin, f"{name} stdin", env, stage)
            return
        if name == "cmd":  # ``cmd.exe /c "certutil … && x.exe"``: the line cmd runs
            at = next((i for i, w in enumerate(argv[1:8], 1) if w.lower() in ("/c", "/k")), 0)
            if at and len(argv) > at + 1:
                self.nested(cmd, " ".join(argv[at + 1 :]), "cmd /c", env, stage)
            return
        if name == "osascript":  # AppleScript's ``do shell script "…"`` runs a shell command
            for text in _APPLESCRIPT_SHELL.findall(" ".join(argv[1:])[:MAX_TEXT])[:8]:
                self.nested(cmd, text.replace('\\"', '"'), "osascript", env, stage)
            return
        if name == "alias":  # ``alias ls='…; curl … | sh'``: what the alias will run
            for word in argv[1:16]:
                if "=" in word:
                    self.nested(cmd, word.split("=", 1)[1], "alias", env, stage, guessed=True)
            return
        if name in ("eval", "trap") and len(argv) > 1:
            if name == "eval" or argv[1] not in ("-", "-l", "-p", ""):
                self.nested(
                    cmd, " ".join(argv[1:]) if name == "eval" else argv[1], name, env, stage
                )
            return
        if name in ("source", ".") and len(argv) > 1 and argv[1] in self.prog.writes:
            self.nested(cmd, self.prog.writes[argv[1]], "source", env, stage, True)
            return
        inner = launcher_inner(name, argv)
        if inner is not None:
            cmd.shell_when_empty = inner.shell
            for text in inner.strings:
                self.nested(cmd, text, name, env, stage)
            if len(inner.argv) == 1 and re.search(r"\s|[;|&]", inner.argv[0]):
                self.nested(cmd, inner.argv[0], name, env, stage)
            elif inner.argv or (name == "xargs" and not inner.strings):
                argv = inner.argv or ["echo"]
                if name == "xargs" and cmd.stdin:
                    argv = xargs_fed(cmd.argv, argv, cmd.stdin)
                self.child(cmd, argv, name, env, stage, inner.assigns)
            return
        if name == "ssh" and len(argv) > 2:
            ops = _ssh_operands(argv)
            if len(ops) > 1:
                host = ops[0].rsplit("@", 1)[-1]
                label = "ssh localhost" if _LOCALHOST.match(host) else f"ssh {host[:80]}"
                self.nested(cmd, " ".join(ops[1:]), label, env, stage)
        if name == "find":
            for words in find_commands(argv):
                if words:
                    self.child(cmd, words, "find -exec", env, stage)
        if name in INTERPRETERS:
            codes, script = interpreter_code(name, argv)
            if script is not None and script in self.prog.writes:
                codes.append(self.prog.writes[script])
            if not codes and script is None and cmd.stdin:
                codes.append(cmd.stdin)
            for code in codes:
                self.code(cmd, code, f"{name} code", env, stage)
        elif cmd.stdin and name not in PASSIVE and name not in LAUNCHERS:
            if name in ("at", "batch", "crontab"):
                self.nested(cmd, cmd.stdin, name, env, stage)
            else:
                self.code(cmd, cmd.stdin, f"{name} input", env, stage)
        for text, is_shell in command_values(name, argv, cmd.assigns):
            if is_shell:
                self.nested(cmd, text, f"{name} option", env, stage, guessed=True)
            self.code(cmd, text, f"{name} option", env, stage)
