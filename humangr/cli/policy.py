"""``humangr policy check FILE`` and ``humangr policy test FILE CASES/``, and the ``--policy``
option of ``review``, ``serve`` and ``mcp``.

``check`` validates a policy file and prints its rules as the engine understands them (exit 0;
3 with a one-line error). ``test`` runs a folder of JSON cases through the policy and prints a
pass/fail table (exit 1 on any mismatch): a user's own CI test of their policy. A case is
``{"action": {…ActionContext…}, "expect": "deny"}`` or ``{"tool_call": {…ToolCall…},
"agent_id": "coder", "expect": "allow", "rule": "pytest"}`` (``rule`` optional: the rule that
must decide; ``"default"`` for none).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

import msgspec

from humangr.contracts import ActionContext, ToolCall
from humangr.contracts.errors import ConfigError
from humangr.engine.config import ReviewConfig
from humangr.engine.policy import Effect, PolicyDecision, decide, load_policy

__all__ = ["add_parsers", "add_policy_option", "with_policy"]

MAX_CASES = 10_000
MAX_CASE_BYTES = 1_048_576
EXIT_MISMATCH = 1
_CASE_KEYS = frozenset({"name", "action", "tool_call", "agent_id", "expect", "rule"})


def add_policy_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--policy FILE`` to a command that runs a Supervisor."""
    parser.add_argument(
        "--policy",
        metavar="FILE",
        help="a policy file (TOML): allow / ask / deny / review rules and suppressions, "
        "applied before any layer runs (see README, Policies; check it with humangr policy check)",
    )


def with_policy(config: ReviewConfig, path: str | None) -> ReviewConfig:
    """``config`` with the policy file at ``path`` loaded (unchanged without one)."""
    if not path:
        return config
    return dataclasses.replace(config, rules=load_policy(path))


def check_command(args: argparse.Namespace) -> int:
    """Validate the policy file; print its rules as understood."""
    policy = load_policy(args.file)
    print(f"{args.file}: valid (sha256 {policy.digest[:16]}…)")
    print(
        f"{len(policy.rules)} rule(s), {len(policy.suppressions)} suppression(s); first match wins"
    )
    for line in policy.describe():
        print(f"  {line}")
    return 0


def _case(path: Path) -> tuple[str, ActionContext, Effect, str | None]:
    size = path.stat().st_size
    if size > MAX_CASE_BYTES:
        raise ConfigError(f"case {path}: {size:,} bytes; the limit is {MAX_CASE_BYTES:,}")
    try:
        raw: Any = json.loads(path.read_bytes())
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"case {path}: not valid JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise ConfigError(
            f"case {path}: write a JSON object with `expect` and `action` or `tool_call`"
        )
    unknown = sorted(set(raw) - _CASE_KEYS)
    if unknown:
        raise ConfigError(
            f"case {path}: unknown key `{unknown[0]}`; use {', '.join(sorted(_CASE_KEYS))}"
        )
    try:
        expect = Effect(str(raw.get("expect")))
    except ValueError:
        raise ConfigError(f"case {path}: `expect` must be allow, review, ask or deny") from None
    try:
        if "action" in raw:
            action = msgspec.convert(raw["action"], ActionContext)
        elif "tool_call" in raw:
            call = msgspec.convert(raw["tool_call"], ToolCall)
            action = ActionContext(
                agent_id=str(raw.get("agent_id", "agent")),
                action_type="tool_call",
                action_description=f"tool call {call.name}",
                tool_call=call,
            )
        else:
            raise ConfigError(f"case {path}: give `action` or `tool_call`")
    except msgspec.ValidationError as exc:
        raise ConfigError(f"case {path}: {exc}") from None
    rule = raw.get("rule")
    if rule is not None and not isinstance(rule, str):
        raise ConfigError(f"case {path}: `rule` must be a rule id")
    return str(raw.get("name") or path.stem), action, expect, rule


def _passes(decision: PolicyDecision, expect: Effect, rule: str | None) -> bool:
    if decision.effect is not expect:
        return False
    return rule is None or (decision.rule_id or "default") == rule


def test_command(args: argparse.Namespace) -> int:
    """Run every case of the folder; a table, and exit 1 on any mismatch."""
    policy = load_policy(args.file)
    folder = Path(args.cases)
    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder of JSON cases")
    files = sorted(folder.glob("*.json"))
    if not files:
        raise ConfigError(f"{folder} holds no *.json case")
    if len(files) > MAX_CASES:
        raise ConfigError(f"{folder}: {len(files):,} cases; the limit is {MAX_CASES:,}")
    cases = [_case(f) for f in files]
    rows = []
    for name, action, expect, rule in cases:
        decision = decide(policy, action)
        ok = _passes(decision, expect, rule)
        wanted = expect.value + (f" ({rule})" if rule else "")
        got = f"{decision.effect.value} ({decision.rule_id or 'default'})"
        rows.append((name, "pass" if ok else "FAIL", wanted, got))
    failed = sum(1 for row in rows if row[1] == "FAIL")
    width = max(len("case"), *(len(row[0]) for row in rows))
    wide = max(len("expected"), *(len(row[2]) for row in rows))
    print(f"{'case':<{width}}  result  {'expected':<{wide}}  got")
    for name, result, wanted, got in rows:
        print(f"{name:<{width}}  {result:<6}  {wanted:<{wide}}  {got}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return EXIT_MISMATCH if failed else 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    policy = sub.add_parser("policy", help="check a policy file, or test it on a folder of cases")
    commands = policy.add_subparsers(dest="policy_command", required=True, metavar="SUBCOMMAND")
    check = commands.add_parser("check", help="validate a policy file and print its rules")
    check.add_argument("file", metavar="FILE", help="the policy file (TOML)")
    check.set_defaults(func=check_command)
    test = commands.add_parser(
        "test", help="run a folder of JSON cases through a policy; exit 1 on a mismatch"
    )
    test.add_argument("file", metavar="FILE", help="the policy file (TOML)")
    test.add_argument("cases", metavar="CASES", help="a folder of *.json cases")
    test.set_defaults(func=test_command)
