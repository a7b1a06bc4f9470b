"""``humangr replay --state PATH|--nats URL --policy NEW.toml [--since 7d] [--format table|json]``.

Reads every stored decision (with its action) from a SQLite state file, opened read-only, or
from a served engine's Supervisor (``--nats``: ``hl.history.query`` page by page, reviewers
only, which reads its state and writes nothing), re-decides each under the new policy with the
local checks (``engine.policy.replay``: the recorded LLM layer results are reused, no LLM is
called), and prints what would change, grouped by the rule of the new policy that matched.
Publishes nothing and writes nothing. A damaged stored entry is reported and skipped. Both
sources read each entry alike (``engine.policy.history``) and the decisions are replayed newest
first, so the same decisions print the same.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import anyio

from humangr.cli.common import engine_where
from humangr.contracts.errors import ConfigError
from humangr.contracts.history import MAX_HISTORY_PAGE, HistoryPage, HistoryQuery, StoredDecision
from humangr.contracts.types import utc_now
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import EngineError, StateError
from humangr.engine.policy import Policy, load_policy
from humangr.engine.policy.history import stored_decision
from humangr.engine.policy.replay import Redecision, redecide
from humangr.granting import ask
from humangr.reviewing import Channel, open_channel

__all__ = ["Replayed", "add_parsers", "fetch_decisions", "read_decisions", "replay_command"]

MAX_ENTRIES = 100_000
"""Stored decisions read at most (the newest first)."""
_SINCE = re.compile(r"^(\d{1,6})([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800}


@dataclass(frozen=True, slots=True)
class Replayed:
    """One stored decision and what the new policy would decide."""

    action_id: str
    before: str
    after: Redecision


def parse_since(text: str) -> float:
    """``7d``, ``12h``, ``30m``… as seconds; ``ConfigError`` otherwise."""
    found = _SINCE.match(text.strip())
    if found is None:
        raise ConfigError(f"--since {text!r}: write a number and a unit, e.g. 7d, 12h, 30m")
    return int(found.group(1)) * _UNITS[found.group(2)]


def _open_read_only(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise StateError(f"{path}: no such state file; give the --state PATH of an engine's state")
    # No engine has the file open (no write-ahead log beside it): read it as immutable, so
    # that not even SQLite's shared-memory files are created. Otherwise read-only beside it.
    live = path.with_name(path.name + "-wal").exists()
    try:
        uri = f"file:{quote(str(path.resolve()))}?{'mode=ro' if live else 'immutable=1'}"
        db = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None)
        db.execute("SELECT 1 FROM entries LIMIT 1")
    except sqlite3.Error as exc:
        raise StateError(
            f"{path}: not a readable humangr state file ({exc}); give the --state PATH of an "
            "engine's state"
        ) from None
    return db


def read_decisions(
    path: Path, *, since_s: float | None = None
) -> tuple[list[StoredDecision], list[str]]:
    """The first decision of each action stored in the state file at ``path`` (opened
    read-only), and one line per damaged entry (skipped)."""
    db = _open_read_only(path)
    try:
        cutoff = time.time() - since_s if since_s is not None else 0.0
        rows = db.execute(
            "SELECT key, value FROM entries WHERE bucket = 'decisions' AND written >= ? "
            "ORDER BY written DESC LIMIT ?",
            (cutoff, MAX_ENTRIES),
        ).fetchall()
    except sqlite3.Error as exc:
        raise StateError(f"{path}: cannot read the stored decisions ({exc})") from None
    finally:
        db.close()
    records: list[StoredDecision] = []
    damaged: list[str] = []
    for key, value in rows:
        raw = value if isinstance(value, bytes) else str(value).encode("utf-8", "replace")
        found = stored_decision(str(key), raw)
        if isinstance(found, str):
            damaged.append(found)
        elif found is not None:
            records.append(found)
    return records, damaged


async def fetch_decisions(
    channel: Channel, *, since_s: float | None = None
) -> tuple[list[StoredDecision], list[str]]:
    """The first decision of each action a served engine's Supervisor keeps (asked a page at
    a time on ``hl.history.query``; at most ``MAX_ENTRIES``), and one line per entry it could
    not read (skipped)."""
    since = utc_now() - timedelta(seconds=since_s) if since_s is not None else None
    records: list[StoredDecision] = []
    damaged: list[str] = []
    after: str | None = None
    while len(records) + len(damaged) < MAX_ENTRIES:
        query = HistoryQuery(after=after, limit=MAX_HISTORY_PAGE, since=since)
        page = await ask(channel, channel.subjects.history_query, query, HistoryPage)
        if page.error is not None:
            raise EngineError(f"the Supervisor could not list its decisions: {page.error}")
        if any(after is not None and d.key <= after for d in page.decisions):
            raise EngineError("the Supervisor answered with decisions out of order; not trusted")
        records.extend(page.decisions)
        damaged.extend(page.skipped)
        if page.next is None:
            break
        if (after is not None and page.next <= after) or not (page.decisions or page.skipped):
            raise EngineError("the Supervisor's next page does not move on; not trusted")
        after = page.next
    return records[:MAX_ENTRIES], damaged


def replay(
    records: list[StoredDecision], policy: Policy, config: ReviewConfig
) -> tuple[list[Replayed], list[str]]:
    """Each record re-decided under ``policy``, newest first; one line per record that could
    not be. A report that planned no LLM call came from an engine without LLM layers: its local
    checks were the whole review, and are again."""
    out: list[Replayed] = []
    failed: list[str] = []
    ordered = sorted(records, key=lambda r: (-r.report.decided_at.timestamp(), r.key))
    for record in ordered:
        local_only = record.report.cost.calls_planned == 0 or config.gate.runs_per_layer == 0
        try:
            after = redecide(
                record.report,
                record.action,
                policy,
                settings=config.gate,
                options=config.check_options(),
                layers=tuple(record.report.layer_results) or config.layers,
                local_only=local_only,
            )
        except Exception as exc:  # a stored action the checks cannot read: reported, skipped
            name = record.key[:80]
            failed.append(f"{name}: could not be re-decided ({type(exc).__name__}); skipped")
            continue
        out.append(Replayed(record.report.action_id, record.report.outcome.value, after))
    return out, failed


def _after(item: Replayed) -> str:
    return item.after.outcome.value if item.after.outcome is not None else "needs the layers"


async def _served_decisions(
    args: argparse.Namespace, since_s: float | None
) -> tuple[list[StoredDecision], list[str]]:
    where = argparse.Namespace(
        nats=args.nats,
        state=None,
        prefix=args.prefix,
        timeout=args.timeout,
        public_key=[],
        insecure_unsigned=True,  # no report is shown: each is only re-decided
    )
    async with open_channel(where) as channel:
        return await fetch_decisions(channel, since_s=since_s)


def replay_command(args: argparse.Namespace) -> int:
    """Re-decide the stored decisions under ``--policy`` and print what would change."""
    policy = load_policy(args.policy)
    since = parse_since(args.since) if args.since else None
    if args.nats is not None:
        records, damaged = anyio.run(_served_decisions, args, since)
    else:
        records, damaged = read_decisions(Path(args.state), since_s=since)
    damaged.sort()
    results, failed = replay(records, policy, ReviewConfig())
    changed = [r for r in results if _after(r) != r.before]
    if args.format == "json":
        payload = {
            "policy": args.policy,
            "replayed": len(results),
            "changed": [
                {
                    "action_id": r.action_id,
                    "before": r.before,
                    "after": _after(r),
                    "rule": r.after.rule,
                    "decided_by": r.after.decided_by,
                }
                for r in changed
            ],
            "skipped": [*damaged, *failed],
        }
        print(json.dumps(payload, indent=2, sort_keys=True))
        return 0
    print(f"{len(results)} decision(s) replayed under {args.policy}; {len(changed)} would change")
    groups = Counter((r.after.rule, r.before, _after(r)) for r in changed)
    for (rule, before, after), count in sorted(groups.items()):
        print(f"  rule {rule}: {before} → {after}: {count}")
        for r in changed:
            if (r.after.rule, r.before, _after(r)) == (rule, before, after):
                print(f"    {r.action_id} ({r.after.decided_by})")
    for line in [*damaged, *failed]:
        print(f"skipped: {line}")
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``replay``."""
    parser = sub.add_parser(
        "replay", help="re-decide stored decisions under a new policy; print what would change"
    )
    engine_where(
        parser,
        state_help="the SQLite state file (read-only)",
        nats_help="NATS URL of a served engine: its Supervisor lists the stored decisions "
        "(the reviewer user, HUMANGR_NATS_USER); a cluster's URLs comma-separated",
        timeout_help="with --nats: seconds to wait for each page (default 10)",
    )
    parser.add_argument("--policy", required=True, metavar="FILE", help="the new policy (TOML)")
    parser.add_argument(
        "--since",
        metavar="AGE",
        help="only decisions younger than AGE (7d, 12h): with --state, written within AGE; "
        "with --nats, decided within AGE",
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.set_defaults(func=replay_command)
