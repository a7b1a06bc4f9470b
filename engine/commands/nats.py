"""Client commands against a running engine on NATS: ``submit``, ``watch``, ``report``.

Light on purpose (they start in a fraction of a second): nothing of the engine itself is
imported here — ``serve`` is in ``commands.serve``."""

from __future__ import annotations

import argparse
import logging

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.commands.common import connect_nats, load_actions, nats_options, runner
from humangr.engine.commands.failure import UsageError
from humangr.engine.commands.render import EXIT_CODES, render
from humangr.engine.errors import BusTimeoutError, ContractError, EngineError
from humangr.engine.redact import redact_url
from humangr.engine.review import action_hash
from humangr.engine.signing import trusted_keys
from humangr.engine.submission import fetch_report, new_action_id, submit_and_wait

__all__ = ["add_parsers"]

log = logging.getLogger("humangr.client")


async def _submit(args: argparse.Namespace) -> int:
    if args.final and not args.wait:
        raise UsageError("humangr submit", "--final waits past needs_review: give it with --wait")
    actions = load_actions(args.sources)
    bus = await connect_nats(args.nats)
    try:
        subjects = Subjects(args.prefix)
        worst = 0
        for name, action in actions:
            if not args.wait:
                submitted = ActionSubmitted(
                    action_id=new_action_id(), action=action, action_hash=action_hash(action)
                )
                await bus.publish(subjects.action_submit, encode(submitted))
                print(f"{name}: submitted as {submitted.action_id}")
                continue
            report = await _wait(bus, subjects, name, action, args)
            if report.action_hash != action_hash(action):
                raise EngineError(
                    f"{name}: the decision {report.report_id} is for another action (hash "
                    f"{report.action_hash[:16]}…, not {action_hash(action)[:16]}…); not trusted"
                )
            print(render(args.format, name, report, f"via {redact_url(args.nats)}", action))
            worst = max(worst, EXIT_CODES[report.outcome])
        await bus.flush()
        return worst
    finally:
        await bus.close()


async def _wait(
    bus: Bus, subjects: Subjects, name: str, action: ActionContext, args: argparse.Namespace
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
            trusted_keys=trusted_keys(args.key),
        )
    except BusTimeoutError:
        if not args.final:
            raise
        raise EngineError(
            f"{name}: no final decision on {action_id} within {args.timeout:g}s; if it needs "
            f"review, `humangr show {action_id}` and `humangr resolve {action_id}` decide it "
            "(--timeout waits longer)"
        ) from None


async def _watch(args: argparse.Namespace) -> int:
    bus = await connect_nats(args.nats)
    subjects = Subjects(args.prefix)
    try:
        async with bus.subscribe(subjects.decisions) as decisions:
            async for msg in decisions:
                try:
                    report = decode(msg.data, HumanLayerReport)
                except ContractError as exc:
                    log.warning("skipped a message on %s: %s", msg.subject, exc)
                    continue
                print(render(args.format, report.action_id, report, msg.subject), flush=True)
    finally:
        await bus.close()
    return 0


async def _report(args: argparse.Namespace) -> int:
    bus = await connect_nats(args.nats)
    try:
        report = await fetch_report(bus, Subjects(args.prefix), args.id, timeout=args.timeout)
    finally:
        await bus.close()
    print(render(args.format, report.action_id, report, f"via {redact_url(args.nats)}"))
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    submit = sub.add_parser("submit", help="publish actions for review")
    nats_options(submit)
    submit.add_argument("sources", nargs="+", help="FILE.json (ActionContext), FILE.diff or -")
    submit.add_argument("--wait", action="store_true", help="wait for and print the decision")
    submit.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="PUBLIC",
        help="with --wait: accept only decisions signed by this public key (`humangr key`; "
        "repeatable; default: $HUMANGR_PUBLIC_KEY, comma-separated)",
    )
    submit.add_argument(
        "--final",
        action="store_true",
        help="with --wait: wait past needs_review for the human's resolution (or the review "
        "deadline); give a --timeout long enough for a person",
    )
    submit.add_argument("--timeout", type=float, default=300.0)
    submit.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    submit.set_defaults(func=runner(_submit))

    watch = sub.add_parser("watch", help="stream decisions")
    nats_options(watch)
    watch.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    watch.set_defaults(func=runner(_watch))

    report = sub.add_parser("report", help="print a stored report by report or action id")
    nats_options(report)
    report.add_argument("id")
    report.add_argument("--timeout", type=float, default=5.0)
    report.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    report.set_defaults(func=runner(_report))
