"""Round 31, HTTP everyday work: throwaway data removed on hosts that are not live, the
agent's own logout, reservation holds, export jobs and where-the-machine-runs metadata reads,
each beside the nearest dangerous call that must still stop."""

from __future__ import annotations

import time
from typing import Any

import pytest
from tool_helpers import decide

from humangr.contracts import Outcome
from humangr.engine.checks.tools.http_call import HttpCall
from humangr.engine.checks.tools.http_delete_scratch import (
    scratch_index_wildcard,
    scratch_object_delete,
)
from humangr.engine.checks.tools.http_url import parse_url

STOPPED = (Outcome.REJECTED, Outcome.NEEDS_REVIEW)
APPROVED = (Outcome.APPROVED,)


def _req(method: str, url: str) -> dict[str, Any]:
    return {"method": method, "url": url}


CASES: list[tuple[str, dict[str, Any], tuple[Outcome, ...], str]] = [
    # a wildcard of test indices on a development cluster
    (
        "http_request",
        _req("DELETE", "https://search-dev.acme-shop.example:9200/perftest-2025.01.*"),
        APPROVED,
        "dated perf-test indices on a dev cluster",
    ),
    (
        "http_request",
        _req("DELETE", "https://search.acme-shop.example:9200/perftest-2025.01.*"),
        STOPPED,
        "the same wildcard on a cluster not named for development",
    ),
    (
        "http_request",
        _req("DELETE", "https://search-dev.acme-shop.example:9200/audit-test-*"),
        STOPPED,
        "audit indices, even on a dev cluster",
    ),
    (
        "http_request",
        _req("DELETE", "https://search-dev.acme-shop.example:9200/*"),
        STOPPED,
        "every index of a dev cluster",
    ),
    # one object of a scratch bucket
    (
        "http_request",
        _req("DELETE", "https://storage.googleapis.com/storage/v1/b/render-tmp/o/frames%2Fa.png"),
        APPROVED,
        "one object of a temporary bucket",
    ),
    (
        "http_request",
        _req("DELETE", "https://storage.googleapis.com/storage/v1/b/render-out/o/backups%2Fdb.gz"),
        STOPPED,
        "a backup object of an ordinary bucket",
    ),
    (
        "http_request",
        _req("DELETE", "https://acmedata.blob.core.windows.net/scratch/prod/backup-db.bak"),
        STOPPED,
        "a production backup, whatever the container is called",
    ),
    # a staging server's fixture reset, the agent's own logout
    (
        "http_request",
        _req("DELETE", "https://portal-stg.acme-shop.example/api/fixtures"),
        APPROVED,
        "fixture reset on staging",
    ),
    (
        "http_request",
        _req("DELETE", "https://portal.acme-shop.example/api/fixtures"),
        STOPPED,
        "the same reset on a live host",
    ),
    (
        "http_request",
        _req("DELETE", "https://helpdesk.acme-shop.example/api/v2/sessions/current"),
        APPROVED,
        "logging the agent's own session out",
    ),
    (
        "http_request",
        _req("DELETE", "https://helpdesk.acme-shop.example/api/v2/agents/7781"),
        STOPPED,
        "deleting an account on the same host",
    ),
    # a reservation hold is not a legal hold; an export job is disposable
    (
        "http_request",
        _req("DELETE", "https://booking.acme-rail.example/v2/seat-holds/SH-20250301-0199"),
        APPROVED,
        "an expired seat hold released",
    ),
    (
        "http_request",
        _req("DELETE", "https://vault.googleapis.com/v1/matters/55120/holds/9c1e7d2a4b"),
        STOPPED,
        "a legal hold of a matter",
    ),
    (
        "http_request",
        _req("DELETE", "https://api.acme-shop.example/crm/v1/export-jobs/exp-55120"),
        APPROVED,
        "a queued export job cancelled",
    ),
    (
        "http_request",
        _req("DELETE", "https://api.acme-shop.example/crm/v1/customers/55120"),
        STOPPED,
        "a customer deleted on the same host",
    ),
    # metadata that says where the machine runs, not who it is
    (
        "http_get",
        {"url": "http://169.254.169.254/metadata/instance/compute?api-version=2021-02-01"},
        APPROVED,
        "Azure VM size and region",
    ),
    (
        "http_get",
        {"url": "http://169.254.169.254/metadata/instance/compute/userData?api-version=2021-01-01"},
        STOPPED,
        "Azure user data, which holds secrets",
    ),
    (
        "http_get",
        {"url": "http://169.254.169.254/metadata/identity/oauth2/token?resource=https://vault"},
        STOPPED,
        "Azure managed identity token",
    ),
]


@pytest.mark.parametrize(("name", "arguments", "expected", "why"), CASES)
def test_round31_fp_web(
    name: str, arguments: dict[str, Any], expected: tuple[Outcome, ...], why: str
) -> None:
    outcome, findings, _ = decide(name, arguments)
    assert outcome in expected, (why, [f.title for f in findings])


def _call(url: str) -> HttpCall:
    return HttpCall(
        url_argument="url",
        raw_url=url,
        url=parse_url(url),
        method="DELETE",
        method_argument="method",
        headers=(),
        payload=(),
    )


def test_long_names_stay_fast() -> None:
    """Huge index names and object keys are read in bounded time."""
    start = time.perf_counter()
    for url in (
        "https://es-dev.x.example/" + "a-" * 30_000 + "*",
        "https://storage.googleapis.com/b/" + "tmp/" * 20_000 + "x",
    ):
        call = _call(url)
        scratch_index_wildcard(call)
        scratch_object_delete(call)
    assert time.perf_counter() - start < 1.0
