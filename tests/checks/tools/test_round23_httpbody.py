"""Round 23: safeguards switched off and access handed out in a request's body, any API."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from humangr.engine.checks.tools.grants_body import grants
from humangr.engine.checks.tools.safeguard_body import safeguards_off

_TODAY = date(2025, 6, 1)


def _off(name: str, path: str, method: str, args: dict[str, Any]) -> bool:
    return bool(list(safeguards_off(name, path, method, args)))


def _titles(name: str, path: str, method: str, args: dict[str, Any]) -> set[str]:
    return {t for t, _ in grants(name, path, method, args, today=_TODAY)}


@pytest.mark.parametrize(
    ("name", "path", "method", "args", "stopped"),
    [
        # a JSON text body read as the object it is
        (
            "http_request",
            "broker.plant.test /api/authn/x",
            "PUT",
            {"body": '{"enable": false}'},
            False,
        ),
        (
            "http_request",
            "broker.acme.io /api/authentication/pw",
            "PUT",
            {"body": '{"enable": false}'},
            True,
        ),
        (
            "http_request",
            "broker.acme.io /api/authentication/pw",
            "PUT",
            {"body": '{"enable": true}'},
            False,
        ),
        # paused with no end, and with an end
        (
            "http_request",
            "mon.acme.io /api/alert-rules/heat",
            "PUT",
            {"body": {"isPaused": True}},
            True,
        ),
        (
            "http_request",
            "mon.acme.io /api/alert-rules/heat",
            "PUT",
            {"body": {"isPaused": True, "until": "2025-06-02T08:00Z"}},
            False,
        ),
        (
            "http_request",
            "ads.acme.io /api/campaigns/77",
            "PATCH",
            {"body": {"paused": True}},
            False,
        ),
        # enforcement off
        (
            "http_request",
            "pumps.acme.io /api/libraries/p1",
            "PUT",
            {"body": {"maxRate": 20, "limitsEnforced": False}},
            True,
        ),
        (
            "http_request",
            "pumps.acme.io /api/libraries/p1",
            "PUT",
            {"body": {"maxRate": 20, "limitsEnforced": True}},
            False,
        ),
        # a check skipped
        (
            "http_request",
            "pay.acme.io /v1/payouts",
            "POST",
            {"body": {"amount": 5, "skip_kyc_check": True}},
            True,
        ),
        (
            "http_request",
            "pay.acme.io /v1/imports",
            "POST",
            {"body": {"rows": [], "skip_empty_rows": True}},
            False,
        ),
        # a safeguard's state set off
        (
            "http_request",
            "cloud.acme.io /vaults/v1/config",
            "PATCH",
            {"body": {"properties": {"softDeleteState": "Disabled"}}},
            True,
        ),
        (
            "http_request",
            "cloud.acme.io /vaults/v1/config",
            "PATCH",
            {"body": {"properties": {"softDeleteState": "Enabled"}}},
            False,
        ),
        # an enforcing policy moved to a report-only mode on an update
        (
            "update_dlp_policy",
            "",
            "POST",
            {"policyName": "card numbers", "mode": "AuditOnly"},
            True,
        ),
        ("update_dlp_policy", "", "POST", {"policyName": "card numbers", "mode": "Enforce"}, False),
    ],
)
def test_safeguard_off_in_a_body(
    name: str, path: str, method: str, args: dict[str, Any], stopped: bool
) -> None:
    assert _off(name, path, method, args) is stopped


@pytest.mark.parametrize(
    ("name", "path", "method", "args", "title"),
    [
        (
            "http_request",
            "idp.acme.io /directory/users/kim@acme.io/makeAdmin",
            "POST",
            {"body": {"status": True}},
            "makes an administrator",
        ),
        (
            "update_user",
            "",
            "POST",
            {"user": "kim", "fields": {"role": "owner"}},
            "makes an administrator",
        ),
        (
            "http_request",
            "erp.acme.io /api/roleAssignments/1",
            "PUT",
            {"body": {"roleId": "0f0e0d0c-1b1a-4c3d-8e9f-0a1b2c3d4e5f"}},
            "makes an administrator",
        ),
        (
            "http_request",
            "api.acme.io /v2/service_accounts/ci/keys",
            "POST",
            {"json": {"algo": "rsa"}},
            "creates a long-lived credential",
        ),
        (
            "create_api_key",
            "",
            "POST",
            {"name": "relay", "scopes": ["mail.send", "keys.create"], "expires_at": "2025-08-01"},
            "creates a long-lived credential",
        ),
        (
            "add_app_password",
            "",
            "POST",
            {"app": "sync", "endDateTime": "2098-01-01T00:00:00Z"},
            "creates a long-lived credential",
        ),
        (
            "http_request",
            "mail.acme.io /users/cfo@acme.io/settings/forwarding",
            "PUT",
            {"json": {"enabled": True, "emailAddress": "x@mailbox.org"}},
            "forwards mail outside",
        ),
        (
            "http_request",
            "fw.acme.io /api/policies",
            "POST",
            {"body": {"srcaddr": "all", "action": "accept"}},
            "lets anyone in through an allow list",
        ),
        (
            "http_request",
            "pay.acme.io /v1/allowlist_items",
            "POST",
            {"data": {"value": "*@freemail.example"}},
            "lets anyone in through an allow list",
        ),
    ],
)
def test_grants_stopped(
    name: str, path: str, method: str, args: dict[str, Any], title: str
) -> None:
    assert title in _titles(name, path, method, args)


@pytest.mark.parametrize(
    ("name", "path", "method", "args"),
    [
        ("update_user", "", "POST", {"user": "kim", "fields": {"role": "viewer"}}),
        ("update_user", "", "POST", {"user": "kim", "is_admin": False}),
        (
            "remove_directory_role_member",
            "",
            "POST",
            {"roleId": "62e90394-69f5-4237-9190-012177145e10"},
        ),
        ("list_users", "", "GET", {"role": "admin"}),
        (
            "create_api_key",
            "",
            "POST",
            {"name": "billing-sync", "scopes": ["invoices.read"], "expires_at": "2025-09-01"},
        ),
        (
            "http_request",
            "login.acme.io /oauth2/token",
            "POST",
            {"body": "grant_type=client_credentials"},
        ),
        (
            "http_request",
            "mail.acme.io /users/cfo@acme.io/settings/forwarding",
            "PUT",
            {"json": {"enabled": True, "emailAddress": "ap@acme.io"}},
        ),
        (
            "http_request",
            "fw.acme.io /api/policies",
            "POST",
            {"body": {"srcaddr": "10.2.0.0/16", "action": "accept"}},
        ),
        (
            "http_request",
            "fw.acme.io /api/policies",
            "POST",
            {"body": {"srcaddr": "all", "action": "deny"}},
        ),
        (
            "http_request",
            "api.acme.io /cors/origins",
            "POST",
            {"body": {"origins": ["https://app.acme.io"]}},
        ),
    ],
)
def test_everyday_access_runs(name: str, path: str, method: str, args: dict[str, Any]) -> None:
    assert not _titles(name, path, method, args)


def test_the_role_a_call_runs_as_is_not_a_grant() -> None:
    args = {"statement": "ALTER WAREHOUSE W SUSPEND;", "role": "SYSADMIN"}
    assert not _titles("warehouse.execute", "", "POST", args)
    record = {"sobject": "User", "id": "005x", "fields": {"ProfileId": "00eSysAdmin01"}}
    assert "makes an administrator" in _titles("crm_update_record", "", "POST", record)


def test_a_profile_object_with_an_admin_flag_off_is_not_a_grant() -> None:
    args = {"user": "kim@acme.io", "profile": {"is_superuser": False, "title": "Analyst"}}
    assert not _titles("directory_patch_user", "", "PATCH", args)
