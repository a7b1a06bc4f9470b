"""Rules about git: force pushes and deletes of shared branches, hard resets to remote
branches, ``git clean``, history rewrites, patches applied outside the repository, and
settings that make git run a command later (``git config core.pager 'sh -c …'``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_catalogue import INTERPRETERS, SHELLS, program, words
from .shell_model import Cmd, Program
from .shell_options import git_args, git_config_setting, runs_value
from .shell_rule_kit import (
    Context,
    Flag,
    critical,
    high,
    operands,
    program_rule,
    rule,
    short,
    short_flags,
)
from .shell_rules_net import allowed as allowed_host
from .shell_scratch import throwaway

__all__: list[str] = []

_MAIN_LINE = re.compile(
    r"(?i)^(?:main|master|trunk|develop|development|dev|release\S*|prod\S*|production|staging|stable|HEAD)$"
)
"""Branches a team shares (a reset to them discards local work that may be needed)."""


_PROTECTED = re.compile(
    r"^(?:main|master|trunk|develop|release(?:[/_-].*)?|prod|production|"
    r"stable|live|gh-pages)$"
)


def _branch(ref: str) -> str:
    ref = ref.lstrip("+")
    dst = ref.split(":", 1)[-1]
    return dst.removeprefix("refs/heads/")


@rule
def git(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Force pushes, hard resets to remote branches, ``git clean -x``, history rewrites."""
    if cmd.name != "git":
        return
    args = git_args(cmd.argv)
    if not args:
        return
    verb, rest = args[0], args[1:]
    flags = short_flags(["git", *rest])
    if verb == "push":
        refs = operands(
            ["push", *rest], frozenset({"-o", "--push-option", "--repo", "--receive-pack"})
        )[1:]
        branches = [_branch(r) for r in refs]
        plus = any(r.startswith("+") for r in refs)
        forced = bool(flags & {"-f", "--force"}) or plus
        lease = bool(flags & {"--force-with-lease", "--force-if-includes"})
        deleted = [b for r, b in zip(refs, branches, strict=True) if r.startswith(":")]
        if flags & {"--delete", "-d"}:
            deleted = branches
        if "--mirror" in flags:
            yield critical(
                "git push --mirror",
                cmd.text,
                "it overwrites and deletes every branch and tag of the remote.",
                "Push the one branch needed.",
            )
        elif any(_PROTECTED.match(b) for b in deleted):
            yield critical(
                "deletes a shared branch",
                cmd.text,
                "a main or release branch is removed from the remote.",
                "Never delete shared branches.",
            )
        elif any(r.startswith(":refs/tags/") for r in refs) or (
            deleted and any(r.startswith("refs/tags/") for r in refs)
        ):
            yield high(
                "deletes a published tag",
                cmd.text,
                "a release tag others fetch and build from is removed from the remote.",
                "Publish a new tag rather than remove one.",
            )
        elif forced or lease:
            shared = [b for b in branches if _PROTECTED.match(b)]
            if shared or (forced and not branches):
                target = shared[0] if shared else "the current branch (none named)"
                yield critical(
                    "force push to a shared branch",
                    cmd.text,
                    f"it rewrites {target} on the remote; others' work is lost.",
                    "Never force-push shared branches; open a pull request.",
                )
            else:
                yield high(
                    "force push",
                    cmd.text,
                    "it rewrites the branch's history on the remote.",
                    "Make sure nobody else uses the branch.",
                )
        elif "--no-verify" in flags and any(_PROTECTED.match(b) for b in branches):
            yield high(
                "pushes to a shared branch without its hooks",
                cmd.text,
                "--no-verify skips the checks the repository runs before a push to "
                f"{next(b for b in branches if _PROTECTED.match(b))}.",
                "Push without --no-verify, or through a pull request.",
            )
    elif verb in ("reset", "clean") and throwaway(ctx.cwd):
        return  # a CI job's checkout or a scratch clone: nothing kept there is lost
    elif verb == "reset" and "--hard" in rest:
        target = next((w for w in rest if not w.startswith("-")), "HEAD")
        if re.match(r"^(?:origin|upstream)/", target) and not _MAIN_LINE.match(
            target.split("/", 1)[1]
        ):
            return  # a topic branch made equal to its pushed copy: the agent's own branch
        if re.match(r"^(?:origin|upstream)/|@\{u", target):
            yield critical(
                "git reset --hard to a remote branch",
                cmd.text,
                f"it throws away every local commit and change not in {target}.",
                "Stash or branch first; reset only what you mean to lose.",
            )
        else:
            yield high(
                "git reset --hard",
                cmd.text,
                "uncommitted work is lost for good.",
                "Stash first (git stash), or reset softly.",
            )
    elif (
        verb == "clean"
        and flags & {"-f", "--force"}
        and not flags & {"-n", "--dry-run"}
        and not ("-X" in flags and "-x" not in flags)  # -X: ignored build files only
    ):
        yield high(
            "git clean deletes untracked files",
            cmd.text,
            "untracked (and with -x ignored: .env, local settings) files are deleted for good.",
            "Run git clean -n first and delete only what it lists.",
        )
    elif verb == "apply" and "--unsafe-paths" in rest:
        yield high(
            "git apply outside the repository",
            cmd.text,
            "--unsafe-paths lets a patch write anywhere.",
            "Apply patches inside the repository only.",
        )
    elif verb in ("filter-branch", "filter-repo") or (verb == "update-ref" and "-d" in rest):
        yield high(
            "rewrites git history",
            cmd.text,
            "every commit is rewritten.",
            "Rewrite history only with the team's agreement.",
        )
    elif verb == "branch" and flags & {"-D"} and any(_PROTECTED.match(w) for w in rest):
        yield high(
            "deletes a main branch",
            cmd.text,
            "a main or release branch is deleted locally.",
            "Keep shared branches.",
        )


_RUNS_ANYTHING = SHELLS | INTERPRETERS | words("nc ncat netcat socat curl wget busybox env xargs")
_HOOK_KEYS = frozenset({"core.hookspath", "core.fsmonitor"})
_METACHARACTERS = frozenset("|;&$`<>(){}\n")


def _runs_anything(value: str) -> bool:
    """Whether a command-valued setting's value is more than one plain program: a shell, an
    interpreter or a network tool, or a command line with shell syntax in it."""
    text = value.strip().removeprefix("!").strip()
    first = text.split(maxsplit=1)[0] if text else ""
    return bool(_METACHARACTERS & set(text)) or program(first) in _RUNS_ANYTHING


@rule
def git_config(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A setting that makes git run a command on later, ordinary git commands: hooks moved
    elsewhere, or a pager, editor, ssh command, alias or credential helper that is a shell or
    a command line (the value itself is read as a command by the reader too)."""
    if cmd.name != "git":
        return
    written = git_config_setting(cmd.argv)
    if written is None:
        return
    key, value = written
    if runs_value(key, value) and (key.lower() in _HOOK_KEYS or _runs_anything(value)):
        yield high(
            "git setting runs a command later",
            cmd.text,
            f"`{key}` makes every later git command that uses it run `{short(value, 60)}`: "
            "a way to keep code running after this call was reviewed.",
            "Run the command itself (it is reviewed); leave git's command settings alone.",
        )


_URL_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", re.I)


def _remote_host(url: str) -> str:
    found = re.match(r"^(?:[a-z][a-z0-9+.-]*://)?(?:[^@/]*@)?([^/:]+)", url, re.I)
    return found.group(1).lower() if found else ""


@program_rule
def push_elsewhere(prog: Program, ctx: Context) -> Iterator[Flag]:
    """The repository pushed to an address named on the command line (``git push
    https://…``, or a remote added just before and pushed to): its whole history leaves for a
    host nobody configured."""
    added: dict[str, str] = {}
    for cmd in prog.commands:
        if cmd.name != "git":
            continue
        args = git_args(cmd.argv)
        if args[:2] == ["remote", "add"]:
            named = [w for w in args[2:] if not w.startswith("-")]
            if len(named) >= 2:
                added[named[0]] = named[1]
            continue
        if not args or args[0] != "push":
            continue
        targets = [w for w in args[1:] if not w.startswith("-")]
        url = targets[0] if targets else ""
        url = added.get(url, url) if not _URL_REMOTE.match(url) else url
        if not _URL_REMOTE.match(url):
            continue
        host = _remote_host(url)
        if allowed_host(host, ctx):
            continue
        yield high(
            "pushes the repository to another address",
            cmd.text,
            f"its history goes to {host or url[:60]}, not to a remote the repository has.",
            "Push to the repository's own remote, or add the host to allowed_hosts.",
        )
        return
