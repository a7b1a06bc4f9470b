"""``humangr key`` and ``humangr verify``: the decision-signing key, and offline verification."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import msgspec

from humangr.contracts import HumanLayerReport
from humangr.engine.errors import ConfigError, SignatureError
from humangr.engine.signing import load_signing_key, verify_decision, write_new_key
from humangr.engine.worker_keys import load_worker_key

__all__ = ["EXIT_ERROR", "EXIT_INVALID", "add_parsers", "key_command", "verify_command"]

EXIT_INVALID = 2
EXIT_ERROR = 3
_MAX_FILE_BYTES = 64 * 1024 * 1024
_decode_report = msgspec.json.Decoder(HumanLayerReport)


def key_command(args: argparse.Namespace) -> int:
    """Print the public key decisions are signed with (``--worker``: the layer workers' key;
    ``--generate FILE``: make a new seed)."""
    try:
        if args.generate is not None:
            key = write_new_key(Path(args.generate))
            print(f"humangr key: a new seed is in {args.generate} (mode 0600)", file=sys.stderr)
        else:
            load = load_worker_key if args.worker else load_signing_key
            key, source = load(args.signing_key)
            print(f"humangr key: from {source}", file=sys.stderr)
    except (ConfigError, OSError) as exc:
        print(f"humangr key: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(key.public_key)
    return 0


def _reports(data: bytes) -> list[HumanLayerReport]:
    """One report (``humangr report --format json``), or one per line (``watch``)."""
    try:
        return [_decode_report.decode(data)]
    except msgspec.DecodeError as whole:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) < 2:
            raise whole
        return [_decode_report.decode(line) for line in lines]


def verify_command(args: argparse.Namespace) -> int:
    """Exit 0 when every decision in the file is signed by a trusted key and unchanged, 2 when
    one is not, 3 when the file or a key cannot be read."""
    try:
        if args.report == "-":
            data = sys.stdin.buffer.read(_MAX_FILE_BYTES + 1)
        else:
            with open(args.report, "rb") as file:
                data = file.read(_MAX_FILE_BYTES + 1)
        if len(data) > _MAX_FILE_BYTES:
            raise ValueError(f"larger than {_MAX_FILE_BYTES} bytes")
        reports = _reports(data)
    except (OSError, ValueError, msgspec.DecodeError) as exc:
        print(f"humangr verify: cannot read a decision from {args.report}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    keys = [k.strip() for k in args.key if k.strip()]
    status = 0
    for report in reports:
        try:
            notice = verify_decision(report, keys, require_whole=args.strict)
        except SignatureError as exc:
            print(f"INVALID {report.action_id}: {exc}")
            status = EXIT_INVALID
            continue
        covered = "binding only" if notice else "whole report"
        print(
            f"valid {report.action_id}: {report.outcome.value}, action {report.action_hash[:16]}…, "
            f"signed by {report.signer} ({covered})"
        )
        if notice:
            print(f"humangr verify: notice: {notice} (--strict refuses it)", file=sys.stderr)
    return status


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    key = sub.add_parser(
        "key",
        help="print the public key decisions are signed with",
        description="Print the public key (N…) of the Supervisor's signing key: the same key "
        "`serve` uses (--signing-key FILE, $HUMANGR_SIGNING_SEED, $HUMANGR_SIGNING_KEY_FILE, "
        "else ~/.humangr/signing.seed, created on first use). Give it to executors: "
        "`humangr verify REPORT.json --key N…`. The seed itself is never printed.",
    )
    key.add_argument("--signing-key", metavar="FILE", help="the seed file")
    key.add_argument(
        "--worker",
        action="store_true",
        help="the layer workers' key instead ($HUMANGR_WORKER_SEED, $HUMANGR_WORKER_KEY_FILE, "
        "else ~/.humangr/worker.seed): give its public key to the Supervisor's --trust-workers",
    )
    key.add_argument(
        "--generate", metavar="FILE", help="write a new seed to FILE (never overwrites)"
    )
    key.set_defaults(func=key_command)
    verify = sub.add_parser(
        "verify",
        help="verify a decision's signature offline",
        description="Check that a decision (a report as `humangr report --format json` prints "
        "it, or one per line as `watch --format json` does; - for stdin) is signed by a trusted "
        "key and unchanged since — its binding (outcome, action hash, ids…) and the whole report "
        "(findings, layer results, reasons…), naming the part changed where it can. Exit 0: "
        "valid; 2: invalid (do not act on it); 3: an error.",
    )
    verify.add_argument("report", metavar="REPORT.json")
    verify.add_argument(
        "--strict",
        action="store_true",
        help="refuse a decision signed over its binding only (as Supervisors before the "
        "whole-report signature sign): its findings and reasons are not covered",
    )
    verify.add_argument(
        "--key",
        action="append",
        required=True,
        metavar="PUBLIC",
        help="a trusted public key (N…, from `humangr key`); repeat for several Supervisors",
    )
    verify.set_defaults(func=verify_command)
