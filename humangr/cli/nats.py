"""Client commands against a running engine on NATS: ``submit``, ``watch``, ``report``.

Light on purpose (they start in a fraction of a second): nothing of the engine itself is
imported here — ``serve`` is in ``commands.serve``."""

from __future__ import annotations

import argparse
import logging
import os

import msgspec

from humangr.cli.common import connect_nats, load_actions, nats_options, runner
from humangr.cli.failure import UsageError
from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Subjects,
    decode,
    encode,
)
from humangr.contracts.types import is_token
from humangr.engine.bus import Bus
from humangr.engine.errors import ContractError, EngineError, ReviewTimeout, SignatureError
from humangr.engine.redact import redact_seed_urls
from humangr.engine.review import action_hash
from humangr.engine.submission import fetch_report, new_action_id, submit_and_wait
from humangr.engine.trust import Trust, client_trust
from humangr.render.text import EXIT_CODES, render

__all__ = ["add_parsers"]

log = logging.getLogger("humangr.client")


def _trust(args: argparse.Namespace) -> Trust:
    """The keys of ``--public-key``/``--key`` (else ``$HUMANGR_PUBLIC_KEY``); none only with
    ``--insecure-unsigned`` — checked before anything is sent."""
    return client_trust(
        args.key,
        insecure=args.insecure_unsigned,
        who="",
        key_option="--public-key",
        insecure_option="--insecure-unsigned",
    )


async def _submit(args: argparse.Namespace) -> int:
    if args.final and not args.wait:
        raise UsageError("humangr submit", "--final waits past needs_review: give it with --wait")
    trust = _trust(args) if args.wait else Trust((), insecure=True)
    actions = load_actions(args.sources)
    if _agent_id("humangr submit", args.agent_id):  # its NATS user reads only its own
        actions = [(n, msgspec.structs.replace(a, agent_id=args.agent_id)) for n, a in actions]
    bus = await connect_nats(args.nats)
    try:
        subjects = Subjects(args.prefix)
        worst = 0
        for name, action in actions:
            if not args.wait:
                submitted = ActionSubmitted(
                    action_id=new_action_id(), action=action, action_hash=action_hash(action)
                )
                await bus.publish(subjects.agent_submit(action.agent_id), encode(submitted))
                print(f"{name}: submitted as {submitted.action_id}")
                continue
            report = trust.shown(await _wait(bus, subjects, name, action, args, trust))
            if report.action_hash != action_hash(action):
                raise EngineError(
                    f"{name}: the decision {report.report_id} is for another action (hash "
                    f"{report.action_hash[:16]}…, not {action_hash(action)[:16]}…); not trusted"
                )
            print(render(args.format, name, report, f"via {redact_seed_urls(args.nats)}", action))
            worst = max(worst, EXIT_CODES[report.outcome])
        await bus.flush()
        return worst
    finally:
        await bus.close()


async def _wait(
    bus: Bus,
    subjects: Subjects,
    name: str,
    action: ActionContext,
    args: argparse.Namespace,
    trust: Trust,
) -> HumanLayerReport:
    action_id = new_action_id()
    try:
        return await submit_and_wait(
            bus,
            subjects,
            action,
            action_id=action_id,
            timeout=args.timeout,
            final=args.final,
            trusted_keys=trust.keys,
        )
    except ReviewTimeout:
        if not args.final:
            raise
        raise EngineError(
            f"{name}: no final decision on {action_id} within {args.timeout:g}s; if it needs "
            f"review, `humangr show {action_id}` and `humangr resolve {action_id}` decide it "
            "(--timeout waits longer)"
        ) from None


def _verified(report: HumanLayerReport, trust: Trust) -> HumanLayerReport:
    """``report`` as shown: verified against the trusted keys (``SignatureError`` if not
    signed by one), or marked "unsigned: not verified" without keys."""
    if trust.keys:
        from humangr.engine.signing import verify_decision

        verify_decision(report, trust.keys)
    return trust.shown(report)


async def _watch(args: argparse.Namespace) -> int:
    trust = _trust(args)
    bus = await connect_nats(args.nats)
    subjects = Subjects(args.prefix)
    try:
        async with bus.subscribe(subjects.decisions) as decisions:
            async for msg in decisions:
                try:
                    report = _verified(decode(msg.data, HumanLayerReport), trust)
                except ContractError as exc:
                    log.warning("skipped a message on %s: %s", msg.subject, exc)
                    continue
                except SignatureError as exc:
                    log.warning("skipped a decision on %s, not trusted: %s", msg.subject, exc)
                    continue
                print(render(args.format, report.action_id, report, msg.subject), flush=True)
    finally:
        await bus.close()
    return 0


def _agent_id(command: str, value: str | None) -> str | None:
    """``--agent-id`` checked (1-64 letters, digits, _ or -), before anything is sent."""
    if value and not is_token(value):
        raise UsageError(command, "--agent-id is 1-64 letters, digits, _ or -")
    return value or None


async def _report(args: argparse.Namespace) -> int:
    trust = _trust(args)
    agent = _agent_id("humangr report", args.agent_id)
    bus = await connect_nats(args.nats)
    try:
        found = await fetch_report(
            bus, Subjects(args.prefix), args.id, timeout=args.timeout, agent_id=agent
        )
    finally:
        await bus.close()
    report = _verified(found, trust)
    print(render(args.format, report.action_id, report, f"via {redact_seed_urls(args.nats)}"))
    return 0


def _key_options(parser: argparse.ArgumentParser, when: str = "") -> None:
    parser.add_argument(
        "--public-key",
        "--key",
        dest="key",
        action="append",
        default=[],
        metavar="PUBLIC",
        help=f"{when}accept only decisions signed by this public key (`humangr key` prints it "
        "where the engine runs; repeatable; default: $HUMANGR_PUBLIC_KEY, comma-separated); "
        "without one the command refuses to start",
    )
    parser.add_argument(
        "--insecure-unsigned",
        action="store_true",
        help=f"{when}accept decisions without checking any signature (no public key); every "
        'result then says "unsigned: not verified"',
    )


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    submit = sub.add_parser("submit", help="publish actions for review")
    nats_options(submit)
    submit.add_argument("sources", nargs="+", help="FILE.json (ActionContext), FILE.diff or -")
    submit.add_argument("--wait", action="store_true", help="wait for and print the decision")
    _key_options(submit, "with --wait: ")
    submit.add_argument(
        "--final",
        action="store_true",
        help="with --wait: wait past needs_review for the human's resolution (or the review "
        "deadline); give a --timeout long enough for a person",
    )
    submit.add_argument("--timeout", type=float, default=300.0)
    submit.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    submit.add_argument(
        "--agent-id",
        default=os.environ.get("HUMANGR_AGENT_ID"),
        help="submit as this agent (default: $HUMANGR_AGENT_ID, else the file's, `cli` for a "
        "diff); on deploy/nats-server.conf, the id your NATS user may read decisions of",
    )
    submit.set_defaults(func=runner(_submit))

    watch = sub.add_parser("watch", help="stream decisions")
    nats_options(watch)
    watch.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    _key_options(watch)
    watch.set_defaults(func=runner(_watch))

    report = sub.add_parser("report", help="print a stored report by report or action id")
    nats_options(report)
    report.add_argument("id")
    report.add_argument("--timeout", type=float, default=5.0)
    report.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    report.add_argument(
        "--agent-id",
        default=os.environ.get("HUMANGR_AGENT_ID"),
        help="ask as this agent, for its own reports only (default: $HUMANGR_AGENT_ID); on "
        "deploy/nats-server.conf an agent's NATS user may ask only this way, reviewers without",
    )
    _key_options(report)
    report.set_defaults(func=runner(_report))
