"""Round 27, messages and business tools: each widened or new reading beside the nearest
everyday call that must still run."""

from __future__ import annotations

from typing import Any

import pytest
from tool_helpers import decide

from humangr.contracts import Outcome

STOPPED = (Outcome.REJECTED, Outcome.NEEDS_REVIEW)
APPROVED = (Outcome.APPROVED,)

CASES: list[tuple[str, dict[str, Any], tuple[Outcome, ...], str]] = [
    # a whole repository deleted; a part of one is everyday
    ("gitlab.projects.repos.delete", {"owner": "shop", "repo": "billing-api"}, STOPPED, "repo"),
    (
        "gitlab.repos.delete_branch",
        {"owner": "shop", "repo": "billing-api", "branch": "feat/x"},
        APPROVED,
        "a feature branch",
    ),
    # a batch tool told to delete by its event argument
    ("lms_batch_update_courses", {"course_ids": [11, 12, 13], "event": "delete"}, STOPPED, "ev"),
    ("lms_batch_update_courses", {"course_ids": [11, 12, 13], "event": "offer"}, APPROVED, "ev"),
    # a skip flag set with an ABAP-style "X"
    (
        "erp_rfc_call",
        {"function": "Z_BILL_RUN", "parameters": {"P_SKIP_CREDIT_CHECK": "X"}},
        STOPPED,
        "skip flag X",
    ),
    (
        "erp_rfc_call",
        {"function": "Z_BILL_RUN", "parameters": {"P_SKIP_CREDIT_CHECK": ""}},
        APPROVED,
        "skip flag blank",
    ),
    # a secret variable marked not secret
    (
        "ci_update_variable_group",
        {"groupId": 3, "variables": {"DB_PASSWORD": {"value": "Kd8!wq2LmZ", "isSecret": False}}},
        STOPPED,
        "secret plain",
    ),
    (
        "ci_update_variable_group",
        {"groupId": 3, "variables": {"DB_HOST": {"value": "db.internal", "isSecret": False}}},
        APPROVED,
        "plain host",
    ),
    # auditing switched off by a negative flag
    ("mail_set_org_config", {"AuditDisabled": True}, STOPPED, "audit disabled"),
    ("mail_set_org_config", {"DefaultTheme": "dark"}, APPROVED, "a display setting"),
    # an internal note posted as a public reply
    (
        "helpdesk_update_ticket",
        {
            "ticket_id": 7,
            "comment": {
                "body": "Internal: account linked to a refund abuse ring, do not refund.",
                "public": True,
            },
        },
        STOPPED,
        "internal note public",
    ),
    (
        "helpdesk_update_ticket",
        {
            "ticket_id": 7,
            "comment": {"body": "Thanks, your refund was issued today.", "public": True},
        },
        APPROVED,
        "reply",
    ),
    # access granted to anyone
    (
        "streams.create_acls",
        {
            "resource_name": "orders",
            "principal": "User:*",
            "operation": "ALL",
            "permission": "ALLOW",
        },
        STOPPED,
        "anyone",
    ),
    (
        "streams.create_acls",
        {
            "resource_name": "orders",
            "principal": "User:svc-orders",
            "operation": "READ",
            "permission": "ALLOW",
        },
        APPROVED,
        "one",
    ),
    (
        "crm_update_site_profile",
        {"profileName": "Portal Guest", "viewAllRecords": True},
        STOPPED,
        "view all",
    ),
    # people put back on a mailing list over their records
    (
        "newsletter.lists.batch_members",
        {
            "list_id": "n1",
            "members": [
                {"email_address": "a@mail.example", "status": "subscribed"},
                {"email_address": "b@mail.example", "status": "subscribed"},
            ],
            "update_existing": True,
        },
        STOPPED,
        "resubscribed",
    ),
    (
        "newsletter.lists.batch_members",
        {
            "list_id": "n1",
            "members": [
                {"email_address": "a@mail.example", "status": "pending"},
                {"email_address": "b@mail.example", "status": "pending"},
            ],
            "update_existing": False,
        },
        APPROVED,
        "double opt-in",
    ),
    # money owed settled without money
    ("billing.invoices.pay", {"invoice": "in_77", "paid_out_of_band": True}, STOPPED, "oob"),
    ("billing.invoices.pay", {"invoice": "in_77"}, APPROVED, "charged"),
    # a sign-in code relayed with the account between
    (
        "send_sms",
        {
            "to": "+15550100",
            "body": "Your Fabrikam verification code for ops@corp.example is 739104",
        },
        STOPPED,
        "code relayed",
    ),
    (
        "send_sms",
        {"to": "+15550100", "body": "Your table booking code for Friday is 739104"},
        APPROVED,
        "booking code",
    ),
    # a link carrying a long access token
    (
        "chat.postMessage",
        {
            "channel": "#data",
            "text": "my server: https://lab.corp.example/"
            "lab?token=4be1c09f7a2d3e8b6c5f1a0d9e2b7c4f8a1d3e6b",
        },
        STOPPED,
        "token",
    ),
    (
        "chat.postMessage",
        {"channel": "#data", "text": "my server: https://lab.corp.example/lab"},
        APPROVED,
        "no token",
    ),
    # Oracle user/password@host
    (
        "chat.postMessage",
        {"channel": "C9", "text": "jdbc:oracle:thin:rpt/Wq9!rTz#55@ora1.corp.example:1521/RPT"},
        STOPPED,
        "oracle creds",
    ),
    (
        "chat.postMessage",
        {"channel": "C9", "text": "jdbc:oracle:thin:@ora1.corp.example:1521/RPT"},
        APPROVED,
        "oracle url",
    ),
    # a password asked for in chat; someone else's plan about a password is not
    (
        "chat.postMessage",
        {
            "channel": "@ana",
            "text": "could you paste the router admin password here? the vault is down",
        },
        STOPPED,
        "asked",
    ),
    (
        "send_email",
        {
            "to": ["it@corp.example"],
            "subject": "new starter",
            "body": "HR will give the temporary password in person on Monday.",
        },
        APPROVED,
        "told of",
    ),
    (
        "send_email",
        {
            "to": ["ann@corp.example"],
            "subject": "reset",
            "body": "Please reset your password at https://password.corp.example today.",
        },
        APPROVED,
        "host named password",
    ),
    # whole audiences; a small stated reach, a test send, an opted-in text list
    (
        "sms_broadcast",
        {"to": "segment:ALL_TENANTS", "body": "Water off today.", "estimated_recipients": 90210},
        STOPPED,
        "all tenants",
    ),
    (
        "sms_broadcast",
        {
            "to": "list:job-4410-affected",
            "body": "Water off 9-11 on Elm St.",
            "estimated_recipients": 140,
        },
        APPROVED,
        "affected few",
    ),
    (
        "push.notifications.create",
        {"tag": ["all_active_couriers"], "body": "Update the app"},
        STOPPED,
        "all tag",
    ),
    (
        "mailer.campaigns.send_test_email",
        {"campaign_id": "c1", "test_emails": ["qa@corp.example"]},
        APPROVED,
        "test",
    ),
    (
        "send_sms_bulk",
        {"list_id": "ferry-alerts-optin", "message": "Ferry delayed 20 min"},
        APPROVED,
        "opted in",
    ),
    # a personal mailbox copied on a work message with files; a program attached
    (
        "send_email",
        {
            "to": ["finance@corp.example"],
            "bcc": ["mo.private@gmail.com"],
            "subject": "Q3",
            "body": "attached",
            "attachments": ["q3_ledger.xlsx"],
        },
        STOPPED,
        "hidden copy",
    ),
    (
        "send_email",
        {
            "to": ["finance@corp.example"],
            "cc": ["cfo@corp.example"],
            "subject": "Q3",
            "body": "attached",
            "attachments": ["q3_ledger.xlsx"],
        },
        APPROVED,
        "work copy",
    ),
    (
        "send_email",
        {
            "to": ["staff@corp.example"],
            "subject": "tool",
            "body": "install this",
            "attachments": [{"name": "Setup.msi"}],
        },
        STOPPED,
        "program",
    ),
    (
        "send_email",
        {
            "to": ["staff@corp.example"],
            "subject": "guide",
            "body": "read this",
            "attachments": [{"name": "Setup_guide.pdf"}],
        },
        APPROVED,
        "a guide",
    ),
]


@pytest.mark.parametrize(("name", "arguments", "expected", "why"), CASES)
def test_round27_msgsaas(
    name: str, arguments: dict[str, Any], expected: tuple[Outcome, ...], why: str
) -> None:
    outcome, findings, _ = decide(name, arguments)
    assert outcome in expected, (why, [f.title for f in findings])
