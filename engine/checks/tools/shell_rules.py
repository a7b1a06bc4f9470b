"""The shell rules' common ground: what a rule returns (``Flag``), what it knows besides the
command (``Context``), small readers of a command's words, and ``evaluate``, which runs every
rule family over every command of a program."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from humangr.contracts import Severity

from .shell_model import Cmd, Program

__all__ = [
    "Context",
    "Flag",
    "critical",
    "evaluate",
    "high",
    "operands",
    "piped",
    "short",
    "short_flags",
]


@dataclass(frozen=True, slots=True)
class Flag:
    """One finding of the shell rules, before it is bound to an argument or a file line."""

    severity: Severity
    title: str
    detail: str
    fix: str


@dataclass(slots=True)
class Context:
    """What the rules know besides the commands: the workspace, the hosts data may go to, and
    the folder earlier ``cd`` commands moved to (None: the workspace or unknown)."""

    workspace: str | None = None
    allowed_hosts: frozenset[str] = frozenset()
    cwd: str | None = None
    seen: set[str] = field(default_factory=set)


def short(text: str, limit: int = 120) -> str:
    """A fragment shortened for a description."""
    s = " ".join(text.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def critical(title: str, fragment: str, why: str, fix: str) -> Flag:
    return Flag(Severity.CRITICAL, title, f"`{short(fragment)}`: {why}", fix)


def high(title: str, fragment: str, why: str, fix: str) -> Flag:
    return Flag(Severity.HIGH, title, f"`{short(fragment)}`: {why}", fix)


def piped(cmd: Cmd) -> str:
    """The pipeline a command sits in, as written: ``curl … | sh``."""
    parts = [c.text for c in cmd.upstream if not c.via or c.via == cmd.via][-3:]
    return " | ".join([*parts, cmd.text]) if parts else cmd.text


def short_flags(argv: list[str]) -> set[str]:
    """Every option of ``argv``: long ones whole (``--force``), short ones letter by letter
    (``-rf`` → ``-r``, ``-f``)."""
    out: set[str] = set()
    for word in argv[1:]:
        if word == "--":
            break
        if word.startswith("--"):
            out.add(word.split("=", 1)[0])
        elif word.startswith("-") and len(word) > 1:
            out.update(f"-{c}" for c in word[1:] if c.isalnum())
    return out


def operands(argv: list[str], valued: frozenset[str] = frozenset()) -> list[str]:
    """The words of ``argv`` that are not options (options in ``valued`` take the next word)."""
    out: list[str] = []
    skip = False
    ended = False
    for word in argv[1:]:
        if skip:
            skip = False
        elif ended or not word.startswith("-") or word == "-":
            out.append(word)
        elif word == "--":
            ended = True
        elif word in valued:
            skip = True
    return out


Rule = Callable[[Cmd, Context], Iterator[Flag]]
ProgramRule = Callable[[Program, Context], Iterator[Flag]]

_RULES: list[Rule] = []
_PROGRAM_RULES: list[ProgramRule] = []


def rule(fn: Rule) -> Rule:
    """Register a per-command rule."""
    _RULES.append(fn)
    return fn


def program_rule(fn: ProgramRule) -> ProgramRule:
    """Register a rule over a whole program."""
    _PROGRAM_RULES.append(fn)
    return fn


def _problems(prog: Program) -> Iterator[Flag]:
    problems = prog.budget.problems
    if not problems:
        return
    limit = any(p.startswith(("more than", "longer than", "commands nested")) for p in problems)
    yield Flag(
        Severity.HIGH,
        "could not read this command fully" if limit else "could not read this command",
        "The shell reader stopped: " + "; ".join(problems) + ". What it could not read was "
        "not checked, and a shell may run it.",
        "Split the command into smaller, plainly quoted commands a reviewer can read.",
    )


def evaluate(prog: Program, ctx: Context) -> list[Flag]:
    """Every flag of every rule over ``prog``, most severe first, each title once."""
    from . import (  # noqa: F401 - the rule modules register themselves on import
        shell_rules_disk,
        shell_rules_escape,
        shell_rules_fs,
        shell_rules_git,
        shell_rules_host,
        shell_rules_interactive,
        shell_rules_net,
        shell_rules_ops,
        shell_rules_secrets,
        shell_rules_transfer,
    )

    found: list[Flag] = list(_problems(prog))
    for fn in _PROGRAM_RULES:
        found.extend(fn(prog, ctx))
    for cmd in prog.commands:
        if cmd.name == "cd" and not cmd.guessed:
            target = next((w for w in cmd.argv[1:] if not w.startswith("-")), "~")
            if target.startswith(("/", "~", "$HOME")):
                ctx.cwd = target
        for check in _RULES:
            found.extend(check(cmd, ctx))
    unique: dict[str, Flag] = {}
    for flag in sorted(found, key=lambda f: -_RANK[f.severity]):
        unique.setdefault(flag.title, flag)
    return list(unique.values())


_RANK = {s: i for i, s in enumerate(Severity)}
