"""``humangr hook claude-code``: Claude Code's ``PreToolUse`` hook. It reads the hook's JSON on
stdin, reviews the tool call on the embedded engine (``--policy``, ``--state``) or a served one
(``--nats URL`` with its public key), and prints one JSON answer: approved → ``allow``,
rejected → ``deny`` with the reasons for the agent, needs_review → ``ask`` (or, with
``--wait-human``, the human's decision).

It fails closed: a wrong command line, unreadable or oversized input, an engine that cannot be
reached, any error and the ``--timeout`` all answer ``deny`` — as JSON, exit 0, one line on
stderr and never a traceback (Claude Code lets a tool run when a hook exits with an error).
A timer answers ``deny`` and ends the process if anything hangs past the timeout.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import shlex
import sys
import threading
import time
from typing import IO, TYPE_CHECKING, Any, NoReturn

from humangr.adapters.json_keys import key_given_twice

if TYPE_CHECKING:
    from collections.abc import Sequence

    from humangr.adapters.claude_code import Permission

__all__ = ["DEFAULT_TIMEOUT", "MAX_INPUT_BYTES", "add_parsers", "claude_code_command"]

MAX_INPUT_BYTES = 8 * 1024 * 1024
"""Bytes of hook input read at most; more is refused unread."""
DEFAULT_TIMEOUT = 20.0
_MARGIN = 0.5
"""Seconds before ``--timeout`` at which the timer answers ``deny`` whatever is under way."""
_AGENT = "claude-code"


class _Usage(Exception):
    """A wrong command line of the hook (answered ``deny``, not exit 3)."""


class _HookParser(argparse.ArgumentParser):
    """The hook's parser: a usage error becomes the hook's ``deny`` answer, since Claude Code
    runs the tool when a hook exits with an error."""

    def error(self, message: str) -> NoReturn:
        raise _Usage(message)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        namespace = namespace if namespace is not None else argparse.Namespace()
        try:
            parsed, extra = super().parse_known_args(args, namespace)
        except _Usage as exc:
            parsed, extra = namespace, []
            parsed.hook_problem = str(exc)
        if extra:
            parsed.hook_problem = f"unrecognized arguments: {' '.join(extra)[:200]}"
        parsed.func = claude_code_command
        return parsed, []


class _Answer:
    """Writes the hook's one JSON answer, once, whoever answers first (the timer or the run)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._lock = threading.Lock()
        self.given: str | None = None

    def give(self, permission: Permission, reason: str) -> bool:
        from humangr.adapters.claude_code import answer

        with self._lock:
            if self.given is not None:
                return False
            self.out.write(json.dumps(answer(permission, reason)) + "\n")
            self.out.flush()
            self.given = permission
            return True


class _OneLine(logging.Filter):
    """Log records as one line each: a traceback becomes its exception's message."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            record.msg = f"{record.getMessage()}: {record.exc_info[1]!r}"[:2_000]
            record.args = None
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


def _quiet_tracebacks() -> None:
    for handler in logging.getLogger().handlers:
        handler.addFilter(_OneLine())


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0.5 <= value <= 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds in 0.5..86400")
    return value


def _read_input(stream: IO[bytes]) -> object:
    """The hook's JSON input, at most ``MAX_INPUT_BYTES``; ``HookInputError`` otherwise."""
    import msgspec

    from humangr.adapters.claude_code import HookInputError

    if stream.isatty():
        raise HookInputError(
            "no input: Claude Code writes the tool call as JSON on stdin (to install the hook: "
            "humangr hook claude-code --print-settings)"
        )
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise HookInputError(f"the hook input is larger than {MAX_INPUT_BYTES:,} bytes")
    if not data.strip():
        raise HookInputError("the hook input is empty (Claude Code writes JSON on stdin)")
    try:
        value = msgspec.json.decode(data)
        twice = key_given_twice(data)  # a key given twice: refused, not guessed
    except RecursionError:
        raise HookInputError("the hook input is nested too deeply") from None
    except msgspec.DecodeError as exc:
        raise HookInputError(f"the hook input is not JSON ({str(exc)[:120]})") from None
    except ValueError as exc:  # read by msgspec, refused by json: not one reading of it
        raise HookInputError(f"the hook input is not JSON ({str(exc)[:120]})") from None
    if twice is not None:
        raise HookInputError(
            f"the hook input gives the key {twice[:80]!r} twice in one object: which one "
            "Claude Code uses cannot be told, so the call is not reviewed"
        )
    return value


async def _review(args: argparse.Namespace, data: object, deadline: float) -> tuple[str, str]:
    import anyio

    import humangr
    from humangr.adapters import claude_code as cc
    from humangr.adapters.claude_code_paths import linked_paths
    from humangr.client.human_route import route_of

    hook = cc.hook_input(data)
    call, links = linked_paths(cc.tool_call_of(hook))
    diff, problem = cc.edit_diff(call)
    action = cc.action_of(
        hook, call, agent_id=args.agent_id, diff=diff, diff_problem=problem, notes=links
    )
    options: dict[str, Any] = {"agent_id": args.agent_id, "prefix": args.prefix}
    if args.nats:
        url: str | None = args.nats
        options["public_key"] = args.public_key or None
    else:
        url = None
        if args.policy:
            options["policy"] = args.policy
        if args.state:
            options["state"] = args.state
    if args.wait_human and not (args.nats or args.state):
        raise cc.HookInputError(
            "--wait-human needs a human route: --state PATH (resolved with `humangr resolve "
            "--state PATH`) or --nats URL"
        )
    if "public_key" in options and options["public_key"] is None:
        del options["public_key"]  # $HUMANGR_PUBLIC_KEY, else connect refuses: no key
    with anyio.fail_after(max(0.1, deadline - time.monotonic())):
        async with humangr.connect(url, **options) as hg:
            left = max(0.1, deadline - time.monotonic() - 0.1)
            try:
                report = await hg.review(action, final=args.wait_human, timeout=left)
            except humangr.ReviewTimeout as exc:
                return "deny", f"HUMANGR: {exc}; the call was not run"
            hint = ""
            route = route_of(hg.settings)
            if route.reachable:
                hint = f"(`humangr show {report.action_id} {route.where}`)"
            return cc.answer_of(report, call.name, resolve_hint=hint, diff_problem=problem)


def _backstop(answer: _Answer, timeout: float) -> None:
    if answer.give(
        "deny",
        f"HUMANGR did not decide within the hook's {timeout:g}s (--timeout); the call was not run",
    ):
        os._exit(0)


def _one_line(exc: BaseException) -> str:
    leaves: list[BaseException] = [exc]
    while isinstance(leaves[0], BaseExceptionGroup) and leaves[0].exceptions:
        leaves = list(leaves[0].exceptions)
    first = leaves[0]
    text = str(first).strip().splitlines()
    return (text[0] if text else type(first).__name__)[:1_000]


def claude_code_command(args: argparse.Namespace) -> int:
    """Answer one ``PreToolUse`` call (or print the settings snippet); always exit 0."""
    if getattr(args, "print_settings", False) and not getattr(args, "hook_problem", None):
        print(json.dumps(settings_snippet(args), indent=2))
        return 0
    started = time.monotonic()
    timeout = getattr(args, "timeout", DEFAULT_TIMEOUT) or DEFAULT_TIMEOUT
    answer = _Answer(sys.stdout)
    _quiet_tracebacks()
    timer = threading.Timer(max(0.2, timeout - _MARGIN), _backstop, (answer, timeout))
    timer.daemon = True
    timer.start()
    try:
        problem = getattr(args, "hook_problem", None)
        if problem:
            raise _Usage(f"the hook's command line is wrong: {problem}")
        data = _read_input(sys.stdin.buffer)
        import anyio

        deadline = started + timeout - _MARGIN - 0.2
        permission, reason = anyio.run(_review, args, data, deadline)
    except TimeoutError:
        permission = "deny"
        reason = f"HUMANGR did not decide within {timeout:g}s (--timeout); the call was not run"
    except (Exception, BaseExceptionGroup) as exc:
        permission = "deny"
        reason = f"HUMANGR could not review this call, so it was not run: {_one_line(exc)}"
    finally:
        timer.cancel()
    given = answer.give(permission, reason)  # type: ignore[arg-type]
    if given and permission == "deny" and reason.startswith("HUMANGR could not"):
        print(f"humangr hook claude-code: {reason}", file=sys.stderr)
    return 0


def settings_snippet(args: argparse.Namespace) -> dict[str, Any]:
    """The ``.claude/settings.json`` entry that installs this hook with these options."""
    from humangr.client.human_route import bare_urls

    words = ["humangr", "hook", "claude-code"]
    if args.nats:
        shown = bare_urls(args.nats)
        if shown != args.nats.replace(", ", ",").strip():
            print(
                "humangr hook: the URL's credentials are left out of the snippet; give them "
                "with HUMANGR_NATS_USER / HUMANGR_NATS_PASSWORD (or HUMANGR_NATS_CREDS)",
                file=sys.stderr,
            )
        words += ["--nats", shown]
        for key in args.public_key:
            words += ["--public-key", key]
    if args.state:
        words += ["--state", args.state]
    if args.policy:
        words += ["--policy", args.policy]
    if args.prefix != "hl":
        words += ["--prefix", args.prefix]
    if args.agent_id != _AGENT:
        words += ["--agent-id", args.agent_id]
    if args.timeout != DEFAULT_TIMEOUT:
        words += ["--timeout", f"{args.timeout:g}"]
    if args.wait_human:
        words.append("--wait-human")
    hook = {
        "type": "command",
        "command": shlex.join(words),
        "timeout": math.ceil(args.timeout) + 10,
    }
    return {"hooks": {"PreToolUse": [{"matcher": args.matcher, "hooks": [hook]}]}}


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    hook = sub.add_parser(
        "hook", help="Claude Code's PreToolUse hook: review each tool call before it runs"
    )
    agents = hook.add_subparsers(
        dest="hook_agent", required=True, metavar="AGENT", parser_class=_HookParser
    )
    claude = agents.add_parser(
        "claude-code",
        help="Claude Code's PreToolUse hook: JSON on stdin, allow / deny / ask on stdout",
        description="Review a Claude Code tool call (the PreToolUse hook's JSON on stdin) and "
        "print the hook's answer. Any error or timeout answers deny (exit 0). Install it with "
        "--print-settings.",
    )
    target = claude.add_mutually_exclusive_group()
    target.add_argument(
        "--state",
        metavar="PATH",
        help="the embedded engine keeps its reviews in this SQLite file, where `humangr "
        "reviews|show|resolve --state PATH` and `humangr inbox --state PATH` reach them",
    )
    target.add_argument(
        "--nats",
        metavar="URL",
        help="review on the engine served there (`humangr serve`) instead of in this process",
    )
    claude.add_argument(
        "--policy", metavar="FILE", help="policy file of the embedded engine (TOML)"
    )
    claude.add_argument(
        "--public-key",
        action="append",
        default=[],
        metavar="PUBLIC",
        help="with --nats: the key the engine signs with (`humangr key`; repeatable; default "
        "$HUMANGR_PUBLIC_KEY)",
    )
    claude.add_argument("--prefix", default="hl", help="subject prefix (default %(default)s)")
    claude.add_argument(
        "--agent-id", default=_AGENT, help="the agent id reviews show (default %(default)s)"
    )
    claude.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        help="seconds the hook takes at most; then it answers deny (default %(default)g)",
    )
    claude.add_argument(
        "--wait-human",
        action="store_true",
        help="on needs_review, wait (within --timeout) for a human's decision instead of "
        "answering ask; needs --state or --nats",
    )
    claude.add_argument(
        "--print-settings",
        action="store_true",
        help="print the .claude/settings.json entry that installs this hook, and exit",
    )
    claude.add_argument(
        "--matcher",
        default="*",
        help="with --print-settings: the tools the hook sees (default %(default)s: all)",
    )
    claude.set_defaults(func=claude_code_command)
