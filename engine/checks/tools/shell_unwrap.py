"""From a read script to every command that runs: each simple command with its pipeline
neighbours and stdin, then, recursively, what it runs in turn — the command after ``sudo``/
``env``/``xargs``/``timeout``…, ``find -exec``, ``sh -c``/``eval``/``trap`` strings, heredocs
and here-strings fed to shells, interpreters' code, command-valued options, keystrokes typed
into interactive programs, and files the same command line writes and then uses.

Literal variable assignments (``F=/etc/shadow; cat $F``) are followed in order
(``shell_unwrap_vars``); what one command runs in turn is ``shell_unwrap_expand``'s.
"""

from __future__ import annotations

import re

from ..remember import remembered
from .shell_binaries import NET_TOOLS, TYPED_INTO, TYPED_KEYS
from .shell_catalogue import INTERPRETERS, SHELLS, program
from .shell_code import escape_lines, scan_code
from .shell_feeds import decoded_pipeline, echoed, json_strings, record_write
from .shell_model import MAX_DEPTH, MAX_TEXT, Cmd, Program, Redirect, Script, Simple
from .shell_names import GLOB, WHOLE_SUB, expanded, globbed, globbed_path, unset_dropped
from .shell_parse import read_script
from .shell_unwrap_expand import Expander
from .shell_unwrap_vars import assign, resolve, split_var
from .shell_wrappers import launcher_inner, repl_line, typed_keys

__all__ = ["CACHED_CHARS", "Cmd", "Program", "unwrap"]

_PROGRAMS = (
    SHELLS
    | INTERPRETERS
    | NET_TOOLS
    | frozenset({"rm", "dd", "chmod", "chown", "mkfs", "shred", "cat", "base64", "sudo", "eval"})
)
"""Programs a name with unset variables in it (``c${u}url``) is recognised as."""
_MAX_SCANS = 64
_PROMPT = re.compile(r"^\s*[\w-]*\s?>{1,2}\s*(?=[!:\\])", re.MULTILINE)
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_BUILD_FILES = frozenset({"cmakelists.txt"})
_DOCS = (".md", ".txt", ".rst", ".adoc", ".html", ".htm", ".log", ".csv", ".tsv")


class _Unwrapper(Expander):
    def __init__(self, prog: Program) -> None:
        self.prog = prog

    def parse(self, text: str, depth: int, guessed: bool) -> Script:
        problems = len(self.prog.budget.problems)
        script = read_script(text, depth, self.prog.budget)
        if guessed:
            del self.prog.budget.problems[problems:]
        return script

    def text(
        self,
        text: str,
        depth: int,
        via: tuple[str, ...],
        env: dict[str, str],
        upstream: list[Cmd],
        guessed: bool = False,
    ) -> list[Cmd]:
        if depth > MAX_DEPTH:
            if not guessed:
                self.prog.budget.problem("commands nested too deep")
            return []
        script = self.parse(text, depth, guessed)
        return self.script(script, depth, via, dict(env), upstream, guessed)

    def script(
        self,
        script: Script,
        depth: int,
        via: tuple[str, ...],
        env: dict[str, str],
        upstream: list[Cmd],
        guessed: bool,
        owner: str = "",
    ) -> list[Cmd]:
        self.prog.functions.update(script.functions)
        made: list[Cmd] = []
        for pipe in script.pipelines:
            stages: list[list[Cmd]] = []
            for index, simple in enumerate(pipe.commands):
                before = [c for stage in stages for c in stage] or (upstream if index == 0 else [])
                cmd = self.make(simple, depth, via, env, before, guessed)
                cmd.owner = owner
                cmd.background = pipe.background
                if stages:
                    cmd.stdin = cmd.stdin or echoed(stages[-1][0])
                record_write(cmd, self.prog.writes)
                for earlier in before:
                    earlier.downstream.append(cmd)
                stage = [cmd]
                self.expand(cmd, env, stage)
                stages.append(stage)
                made.extend(stage)
            if len(pipe.commands) == 1:
                assign(pipe.commands[0], stages[0][0] if stages else None, env, self.prog)
        return made

    def make(
        self,
        simple: Simple,
        depth: int,
        via: tuple[str, ...],
        env: dict[str, str],
        upstream: list[Cmd],
        guessed: bool,
    ) -> Cmd:
        subs: list[tuple[str, int, list[Cmd]]] = []
        head = program(simple.words[0]) if simple.words else "="
        for sub in simple.subs:
            inner = self.script(sub.script, depth + 1, via, dict(env), [], guessed, head)
            subs.append((sub.kind, sub.word, inner))
        # One list of words per word written, so a substitution's index still finds its word
        # after an unquoted ``$cmd`` or ``$(…)`` before it was split into several.
        parts = [split_var(word, resolve(word, env)) for word in simple.words]
        for kind, index, inner in subs:  # ``$(echo rm) -rf /``: a word that is printed text
            if kind != "$" or not 0 <= index < len(parts) or len(parts[index]) != 1:
                continue
            if not WHOLE_SUB.match(parts[index][0]):
                continue
            printed = echoed(inner[0]) if len(inner) == 1 else None
            if printed is not None:
                if not inner[0].subs and "\n" not in printed.strip():
                    parts[index] = [printed.strip()]
            elif (decoded := decoded_pipeline(inner)) is not None and "\n" not in decoded:
                parts[index] = decoded.split()[:64] or [""]  # split as an unquoted one is
        argv = [w for part in parts for w in part]
        argv = expanded(argv, simple.text)
        if argv and GLOB.search(argv[0]):
            argv[0] = globbed(argv[0])
        if argv and "$" in argv[0]:
            argv[0] = unset_dropped(argv[0], _PROGRAMS)
        argv[1:] = [globbed_path(w) if GLOB.search(w) else w for w in argv[1:]]
        assigns = [(k, resolve(v, env)) for k, v in simple.assigns]
        redirects = [Redirect(r.op, r.fd, resolve(r.target, env)) for r in simple.redirects]
        cmd = Cmd(
            argv,
            program(argv[0]) if argv else "",
            assigns,
            redirects,
            via,
            depth,
            simple.text[:300],
            upstream=list(upstream),
            subs=subs,
            guessed=guessed,
        )
        cmd.stdin = next((r.target for r in redirects if r.op in ("<<", "<<-", "<<<")), None)
        self.prog.commands.append(cmd)
        return cmd

    def child(
        self,
        cmd: Cmd,
        argv: list[str],
        label: str,
        env: dict[str, str],
        stage: list[Cmd],
        assigns: list[tuple[str, str]] | None = None,
    ) -> None:
        if cmd.depth + 1 > MAX_DEPTH or not self.prog.budget.take():
            self.prog.budget.problem("commands nested too deep")
            return
        inner = Cmd(
            argv,
            program(argv[0]) if argv else "",
            (assigns or []) + cmd.assigns,
            cmd.redirects,
            (*cmd.via, label),
            cmd.depth + 1,
            cmd.text,
            upstream=cmd.upstream,
            stdin=cmd.stdin,
            background=cmd.background,
            guessed=cmd.guessed,
            owner=cmd.owner,
        )
        self.prog.commands.append(inner)
        stage.append(inner)
        self.expand(inner, env, stage)

    def nested(
        self,
        cmd: Cmd,
        text: str,
        label: str,
        env: dict[str, str],
        stage: list[Cmd],
        guessed: bool = False,
    ) -> None:
        stage.extend(
            self.text(
                text, cmd.depth + 1, (*cmd.via, label), env, cmd.upstream, guessed or cmd.guessed
            )
        )

    def code(self, cmd: Cmd, code: str, label: str, env: dict[str, str], stage: list[Cmd]) -> None:
        self.prog.scans += 1
        if self.prog.scans > _MAX_SCANS:
            return
        scan = scan_code(code, env)
        self.prog.code.append((cmd, scan))
        for text in scan.commands:
            self.nested(cmd, text, label, env, stage, guessed=True)
        shells, codes = escape_lines(code)
        typed = f"{label} escape" if label.endswith(" input") else label
        primitive = label if label.endswith((" option", " escape")) else f"{label} escape"
        for text, how in [*((t, typed) for t in shells), *((t, primitive) for t in scan.escapes)]:
            self.nested(cmd, text, how, env, stage, guessed=True)
        for more in codes[:4]:
            self.code(cmd, more, label, env, stage)

    def called(self, cmd: Cmd, env: dict[str, str], stage: list[Cmd]) -> None:
        label = f"function {cmd.name}"
        if label in cmd.via:  # a function calling itself: its body is read once
            return
        if cmd.depth + 1 > MAX_DEPTH or not self.prog.budget.take():
            self.prog.budget.problem("commands nested too deep")
            return
        args = {str(i): w for i, w in enumerate(cmd.argv[1:10], 1)}
        args["@"] = args["*"] = " ".join(cmd.argv[1:64])
        body = self.prog.functions[cmd.name]
        via = (*cmd.via, label)
        depth, upstream = cmd.depth + 1, cmd.upstream
        stage.extend(self.script(body, depth, via, {**env, **args}, upstream, cmd.guessed))

    def written_files(self, env: dict[str, str]) -> None:
        """Read the files this command line writes and then uses (``echo 'exec sh' > $TF;
        nmap --script=$TF``)."""
        for path, content in list(self.prog.writes.items())[:16]:
            base = path.rsplit("/", 1)[-1].lower()
            doc = path.lower().endswith(_DOCS) and base not in _BUILD_FILES
            if not path or doc or path.startswith("/dev/"):
                continue
            holder = Cmd(["<file>", path], "<file>", [], [], ("written file",), 1, path)
            stage: list[Cmd] = []
            texts = json_strings(content)
            for text in texts if texts is not None else [content]:
                self.nested(holder, text, f"file {path}", env, stage, guessed=True)
                self.code(holder, text, f"file {path}", env, stage)

    def typed_input(self, text: str, env: dict[str, str]) -> None:
        """Lines typed into an interactive program named on an earlier line (``irb`` then
        ``exec '/bin/sh'``; ``cpan`` then ``! use Socket; …``; ``ncdu`` then ``b``): its
        single-key commands (``TYPED_KEYS``) and the code or commands it is given."""
        lines = text.splitlines()[:400]
        coded = False
        for i, line in enumerate(lines[:-1]):
            words = _started(line.rsplit("|", 1)[-1].split())
            name = program(words[0]) if words else ""
            if name in TYPED_KEYS:
                self.keys(name, lines[i + 1 : i + 24], env)
            if coded or name not in TYPED_INTO:
                continue
            coded = True
            holder = Cmd(words, name, [], [], (), 1, line[:300])
            label = f"keys typed into {name}" if repl_line(words) else f"lines after {name}"
            self.code(holder, "\n".join(lines[i + 1 :]), label, env, [])

    def keys(self, name: str, lines: list[str], env: dict[str, str]) -> None:
        """The commands single keys typed into ``name`` amount to, read as shell commands."""
        holder = Cmd([name], name, [], [], (), 1, name)
        for command in typed_keys(TYPED_KEYS[name], lines):
            self.nested(holder, command, f"keys typed into {name}", env, [], guessed=True)


def _started(words: list[str]) -> list[str]:
    """The words of the program a line starts, past assignments and launchers (``TERM=x
    sudo -u root ncdu`` → ``ncdu``)."""
    for _ in range(8):
        while len(words) > 1 and _ASSIGNMENT.match(words[0]):
            words = words[1:]
        inner = launcher_inner(program(words[0]), words) if words else None
        if inner is None or not inner.argv:
            break
        words = inner.argv
    return words


CACHED_CHARS = 4_096
"""Texts up to this long are read once and remembered (a call's policy rules and its local
checks read the same command); a longer one is read each time, so the cache stays small."""


@remembered(max_chars=CACHED_CHARS, maxsize=512)
def unwrap(text: str) -> Program:
    """Every command ``text`` runs. Pure and bounded; never raises on any text. The result is
    shared between callers: read it, never change it."""
    return _read(text)


def _read(text: str) -> Program:
    prog = Program(source=text[:MAX_TEXT])
    walker = _Unwrapper(prog)
    env: dict[str, str] = {}
    if "\n" in text and ">" in text:
        text = _PROMPT.sub("", text)
    walker.script(walker.parse(text, 0, False), 0, (), env, [], False)  # keeps assignments
    walker.written_files(env)
    if "\n" in text.strip():
        walker.typed_input(text, env)
    return prog
