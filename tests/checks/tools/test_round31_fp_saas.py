"""Round 31, SQL and SaaS tools: everyday work that was stopped and now runs, each beside the
nearest dangerous call that must still stop."""

from __future__ import annotations

from typing import Any

import pytest
from tool_helpers import decide

from humangr.contracts import Outcome

STOPPED = (Outcome.REJECTED, Outcome.NEEDS_REVIEW)
APPROVED = (Outcome.APPROVED,)
LIVE = {"database": "shop_prod"}

CASES: list[tuple[str, dict[str, Any], tuple[Outcome, ...], str]] = [
    # one database session ended by its id, not sessions picked by a query
    ("run_sql", {**LIVE, "sql": "KILL 40511;"}, APPROVED, "one mysql session"),
    ("run_sql", {**LIVE, "sql": "KILL CONNECTION 17"}, APPROVED, "one connection"),
    ("run_sql", {**LIVE, "sql": "SELECT pg_terminate_backend(90210);"}, APPROVED, "one pid"),
    (
        "run_sql",
        {"sql": "ALTER SYSTEM KILL SESSION '77,4410' IMMEDIATE"},
        APPROVED,
        "one oracle session",
    ),
    (
        "run_sql",
        {
            **LIVE,
            "sql": "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'app';",
        },
        STOPPED,
        "every session of a user",
    ),
    ("run_sql", {"sql": "ALTER SYSTEM SET max_connections = 5"}, STOPPED, "server setting"),
    # any structure change on a live table waits for a person, however additive: on a large
    # table an ADD COLUMN can copy or lock it (MySQL before 8, a volatile default)
    (
        "run_sql",
        {**LIVE, "sql": "ALTER TABLE refunds ADD COLUMN agent_comment VARCHAR(500) NULL;"},
        STOPPED,
        "nullable column added",
    ),
    (
        "run_sql",
        {**LIVE, "sql": "ALTER TABLE refunds ADD COLUMN region TEXT NOT NULL;"},
        STOPPED,
        "not null with no default",
    ),
    (
        "run_sql",
        {**LIVE, "sql": "ALTER TABLE refunds ADD COLUMN note TEXT, DROP COLUMN amount;"},
        STOPPED,
        "an add beside a drop",
    ),
    # a change previewed in a transaction that is rolled back
    (
        "run_sql",
        {
            **LIVE,
            "sql": "BEGIN; UPDATE tickets SET priority = 2 WHERE priority = 3 "
            "RETURNING id; ROLLBACK;",
        },
        APPROVED,
        "rolled-back preview",
    ),
    (
        "run_sql",
        {
            **LIVE,
            "sql": "BEGIN; UPDATE tickets SET priority = 2 WHERE priority = 3 "
            "RETURNING id; COMMIT;",
        },
        STOPPED,
        "the same change committed",
    ),
    # scratch and load-test tables
    (
        "run_sql",
        {**LIVE, "sql": "DROP TABLE IF EXISTS tmp_invoice_match_20250102;"},
        APPROVED,
        "a job's dated scratch table",
    ),
    ("run_sql", {**LIVE, "sql": "DROP TABLE invoice_match;"}, STOPPED, "a real table"),
    ("run_sql", {"sql": "TRUNCATE TABLE perftest.carts;"}, APPROVED, "a load-test schema"),
    ("run_sql", {"sql": "TRUNCATE TABLE sales.carts;"}, STOPPED, "a real schema"),
    # one target named as sandbox or test
    (
        "cloud.resourceGroups.delete",
        {"resourceGroupName": "rg-sandbox-mlee-trial-7"},
        APPROVED,
        "a sandbox project",
    ),
    (
        "directory.users.delete",
        {"userKey": "svc-test-loader02@corp.example"},
        APPROVED,
        "a test account",
    ),
    (
        "directory.users.delete",
        {"userKey": "r.okafor@corp.example", "reason": "test account cleanup"},
        STOPPED,
        "a person, whatever the reason says",
    ),
    (
        "cloud.resourceGroups.delete",
        {"resourceGroupName": "rg-billing-prod-sandbox"},
        STOPPED,
        "a production name",
    ),
    (
        "directory.users.delete",
        {"userKeys": ["test-a@corp.example", "test-b@corp.example"]},
        STOPPED,
        "several accounts",
    ),
    # a campaign triggered for the recipients it lists
    (
        "crm.campaigns.trigger.send",
        {"campaignId": 4412, "recipients": ["seed1@corp.example", "seed2@corp.example"]},
        APPROVED,
        "listed seed recipients",
    ),
    (
        "crm.campaigns.trigger.send",
        {"campaignId": 4412, "recipients": ["seed1@corp.example"], "segment": "everyone"},
        STOPPED,
        "a segment beside the list",
    ),
    ("crm.campaigns.trigger.send", {"campaignId": 4412, "broadcast": True}, STOPPED, "broadcast"),
    (
        "crm.campaigns.trigger.send",
        {"campaignId": 4412, "recipients": [{"email": "list:all_customers_2291"}]},
        STOPPED,
        "a listed entry that is a whole list",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "expected", "why"), CASES)
def test_round31_fp_saas(
    tool: str, arguments: dict[str, Any], expected: tuple[Outcome, ...], why: str
) -> None:
    outcome, findings, _ = decide(tool, arguments)
    assert outcome in expected, (why, [f.title for f in findings])
