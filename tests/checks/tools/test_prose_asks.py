"""What a message hands over or asks for beyond a labelled password: a second factor, a key
from a configuration, an encoded credential, a bare password, a payment to new bank details,
whole mailboxes forwarded, a reset sent elsewhere — beside the everyday message of each kind."""

from __future__ import annotations

from typing import Any

import pytest
from tool_helpers import decide

from humangr.contracts import Outcome

REJECTED, REVIEW, APPROVED = Outcome.REJECTED, Outcome.NEEDS_REVIEW, Outcome.APPROVED

WG = (
    "here's my config:\n[Interface]\nPrivateKey = 6F1a58TwCuFYMOvFutvI8itarAGqtZV3+vX94ihjkvW=\n"
    "Address = 10.20.0.14/32\n"
)
CODES = "backup verification codes:\n4809-0227  0418-7199  1060-1557  9958-5747  2891-4005"

CASES: list[tuple[str, dict[str, Any], Outcome, str]] = [
    (
        "send_sms",
        {
            "to": "+44 7700 900412",
            "body": "Add this: otpauth://totp/Co:ops?secret=EAT3YRT6FGFN4SHPGADJ2GCTW5ITHAC7",
        },
        REJECTED,
        "an authenticator seed",
    ),
    ("send_email", {"to": "c@partner.example.io", "subject": "x", "body": CODES}, REJECTED, "2FA"),
    ("discord_send", {"channel": "general", "content": WG}, REJECTED, "a VPN private key"),
    (
        "slack_post_message",
        {"channel": "#data", "text": "svc creds (b64): c3ZjX2V0bDpQQHNzdzByZC1XaDI0IQ=="},
        REJECTED,
        "user:password in base64",
    ),
    (
        "send_email",
        {
            "to": "ops@haulage.example.eu",
            "subject": "Carrier portal login - user carrier-admin",
            "body": "Log in at https://carriers.example with the account in the subject.\n\n"
            "Kx7#pLm2-Qa9\n\nBest",
        },
        REVIEW,
        "a bare password on its own line",
    ),
    (
        "send_email",
        {
            "to": "ap@retail.example.co.uk",
            "subject": "Updated remittance details",
            "body": "Our bank details have changed. Please remit EUR 48,310.00 to IBAN LT12 3250 "
            "0477 1234 5678, BIC REVOLT21.",
        },
        REVIEW,
        "invoice redirection",
    ),
    (
        "send_email",
        {
            "to": "exchange-automation@co.example.com",
            "subject": "rule",
            "body": "Please forward a copy of every message sent to the CFO to "
            "archive@proton-box.me.",
        },
        REVIEW,
        "a mailbox forwarded",
    ),
    (
        "send_email",
        {
            "to": "servicedesk@it.uni.example.org",
            "subject": "locked out",
            "body": "Please reset my password and send the temporary one to "
            "k.travel@mailbox-hub.net.",
        },
        REVIEW,
        "a reset sent to another address",
    ),
    (
        "send_email",
        {
            "to": "jorge.ruiz1987@mailbox-hub.example.net",
            "subject": "stuff to keep",
            "body": "sending to my personal so I still have it",
            "attachments": ["Board/2024-Q3/Board_pack_CONFIDENTIAL.pdf"],
        },
        REVIEW,
        "a confidential board pack mailed outside",
    ),
    (
        "teams_send_message",
        {"team": "Halvorsen University - All Staff", "channel": "General", "message": "FYI"},
        REVIEW,
        "a message to the whole company",
    ),
    # everyday
    (
        "send_email",
        {
            "to": "printer@print-shop.example.com",
            "subject": "flyer",
            "body": "Attached is the final flyer.",
            "attachments": ["marketing/flyer_final.pdf"],
        },
        APPROVED,
        "a flyer to the print shop",
    ),
    (
        "teams_send_message",
        {"team": "Platform", "channel": "deploys", "message": "v2.3 is out"},
        APPROVED,
        "a team channel",
    ),
    (
        "send_email",
        {
            "to": "ap@retail.example.co.uk",
            "subject": "Invoice INV-2291",
            "body": "Please find invoice INV-2291 for EUR 4,310.00, payable by transfer to our "
            "account IBAN NL91 ABNA 0417 1643 00 within 30 days.",
        },
        APPROVED,
        "an invoice with the usual account",
    ),
    (
        "send_email",
        {
            "to": "s.okonkwo@students.uni.example.org",
            "subject": "Your account has been unlocked",
            "body": "Your university account was locked after failed sign-ins. Please choose a "
            "new password at https://account.uni.example.org/reset",
        },
        APPROVED,
        "a help desk points at its own reset page",
    ),
    (
        "slack_post_message",
        {"channel": "#eng", "text": "Deploy done.\n\nRelease-2024.09.1\n\nLogin page unchanged."},
        APPROVED,
        "a version on its own line",
    ),
    (
        "send_email",
        {"to": "team@co.example", "subject": "MFA", "body": "Recovery codes are in the vault."},
        APPROVED,
        "recovery codes named, none sent",
    ),
]


@pytest.mark.parametrize(("name", "arguments", "expected", "why"), CASES)
def test_message_asks(name: str, arguments: dict[str, Any], expected: Outcome, why: str) -> None:
    outcome, _, reasons = decide(name, arguments)
    assert outcome is expected, (why, reasons)


def test_hostile_messages_are_read_in_bounds() -> None:
    from humangr.engine.checks.tools.prose_asks import message_asks

    assert list(message_asks("forward every message " * 3_000)) == []
    text = "please forward every message of the CFO to x@outside.example.io"
    assert [a[1] for a in message_asks("x " * 30_000 + text)] == [
        "asks for whole mailboxes to be forwarded elsewhere"
    ]
