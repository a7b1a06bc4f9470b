"""The shell rules' common ground: what a rule returns (``Flag``), what it knows besides the
command (``Context``), small readers of a command's words, and the registries every rule family
adds itself to (``rule``, ``program_rule``); ``shell_rules.evaluate`` runs them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from humangr.contracts import Severity

from .shell_model import Cmd, Program

__all__ = [
    "PROGRAM_RULES",
    "RULES",
    "Context",
    "Flag",
    "ProgramRule",
    "Rule",
    "critical",
    "high",
    "operands",
    "piped",
    "program_rule",
    "rule",
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
    """What the rules know besides the commands: the workspace, the hosts data may go to, the
    folder earlier ``cd`` commands moved to (None: the workspace or unknown) and the remote
    host the tool runs the command on."""

    workspace: str | None = None
    allowed_hosts: frozenset[str] = frozenset()
    cwd: str | None = None
    host: str | None = None
    """The remote host a tool runs its command on (an ``ssh_exec`` tool's ``host``), if any."""
    workspace_chosen: str = ""
    """The Terraform workspace an earlier ``terraform workspace select NAME`` chose."""
    folder_named: str = ""
    """The folder an earlier ``cd`` named as written, relative ones too (``cd infra/prod``)."""


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

RULES: list[Rule] = []
"""Every per-command rule, in the order the families registered them."""
PROGRAM_RULES: list[ProgramRule] = []
"""Every rule over a whole program."""


def rule(fn: Rule) -> Rule:
    """Register a per-command rule."""
    RULES.append(fn)
    return fn


def program_rule(fn: ProgramRule) -> ProgramRule:
    """Register a rule over a whole program."""
    PROGRAM_RULES.append(fn)
    return fn
