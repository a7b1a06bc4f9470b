"""What the shell reader produces: scripts of pipelines of simple commands, with their
redirections and the command and process substitutions inside their words.

Both readers (bashlex, and the small fallback lexer for what bashlex cannot read) build these
same structures, so the rules never know which one read a command.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .shell_code import CodeScan

__all__ = [
    "MAX_COMMANDS",
    "MAX_DEPTH",
    "MAX_TEXT",
    "Budget",
    "Cmd",
    "Pipeline",
    "Program",
    "Redirect",
    "Script",
    "Simple",
    "Sub",
]

MAX_DEPTH = 8
"""How deep commands nest (``$(…)``, ``sh -c``, ``sudo``, interpreters' code) before the
reader stops and says the command could not be read fully."""
MAX_COMMANDS = 2000
"""How many simple commands one argument may hold before the reader stops."""
MAX_TEXT = 262_144
"""How many characters of one argument are read; the rest is reported as not read."""


@dataclass(frozen=True, slots=True)
class Redirect:
    """``op`` is ``>``, ``>>``, ``<``, ``<>``, ``>&``, ``<&``, ``&>``, ``<<`` (heredoc),
    ``<<<`` (here-string); ``target`` is the file word, the fd, or the heredoc's text."""

    op: str
    fd: int | None
    target: str


@dataclass(slots=True)
class Sub:
    """A command or process substitution: ``$(…)``/backticks (``kind`` ``$``), ``<(…)``,
    ``>(…)``; ``word`` is the index of the word holding it (-1: a redirection or assignment)."""

    kind: str
    word: int
    script: Script


@dataclass(slots=True)
class Simple:
    """One simple command as written: its words (quotes removed), leading assignments,
    redirections and the substitutions inside them."""

    words: list[str] = field(default_factory=list)
    assigns: list[tuple[str, str]] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    subs: list[Sub] = field(default_factory=list)
    text: str = ""


@dataclass(slots=True)
class Pipeline:
    """Commands joined by ``|``; ``background`` when it ends with ``&``."""

    commands: list[Simple] = field(default_factory=list)
    background: bool = False


@dataclass(slots=True)
class Script:
    """The pipelines of a command line in order; ``functions`` maps a defined function's name
    to the script of its body."""

    pipelines: list[Pipeline] = field(default_factory=list)
    functions: dict[str, Script] = field(default_factory=dict)


@dataclass(slots=True)
class Budget:
    """The work left for one argument, shared by every nested read, and what could not be
    read. Hostile inputs end here, never in an exception."""

    commands: int = 0
    problems: list[str] = field(default_factory=list)

    def take(self) -> bool:
        """Count one more simple command; False once past ``MAX_COMMANDS``."""
        self.commands += 1
        if self.commands == MAX_COMMANDS + 1:
            self.problem(f"more than {MAX_COMMANDS} commands")
        return self.commands <= MAX_COMMANDS

    @property
    def exhausted(self) -> bool:
        return self.commands > MAX_COMMANDS

    def problem(self, text: str) -> None:
        if text not in self.problems and len(self.problems) < 8:
            self.problems.append(text)


@dataclass(slots=True, eq=False)
class Cmd:
    """One command that runs, with where it sits: ``via`` lists what it was reached through
    (``sudo``, ``sh -c``, ``find -exec``, ``python code``), ``upstream`` the commands whose
    output it reads, ``stdin`` literal text it is fed (heredoc, here-string, ``echo … |``)."""

    argv: list[str]
    name: str
    assigns: list[tuple[str, str]]
    redirects: list[Redirect]
    via: tuple[str, ...]
    depth: int
    text: str
    upstream: list[Cmd] = field(default_factory=list)
    downstream: list[Cmd] = field(default_factory=list)
    stdin: str | None = None
    subs: list[tuple[str, int, list[Cmd]]] = field(default_factory=list)
    background: bool = False
    shell_when_empty: bool = False
    guessed: bool = False
    """Read from text that may not be shell (an option's value, code, typed keystrokes)."""
    owner: str = ""
    """For a command inside ``$(…)``: the command whose words hold it (``=`` for an
    assignment), so ``export $(cat .env | xargs)`` is known to load, not show, a file."""


@dataclass(slots=True)
class Program:
    """Every command of one argument, in the order they run, and what could not be read."""

    commands: list[Cmd] = field(default_factory=list)
    budget: Budget = field(default_factory=Budget)
    functions: dict[str, Script] = field(default_factory=dict)
    writes: dict[str, str] = field(default_factory=dict)
    code: list[tuple[Cmd, CodeScan]] = field(default_factory=list)
    scans: int = 0
    secret_vars: set[str] = field(default_factory=set)
    """Variables loaded from a credential (``k=$(cat ~/.ssh/id_rsa)``)."""
    source: str = ""
    """The text read (at most ``MAX_TEXT`` characters)."""
