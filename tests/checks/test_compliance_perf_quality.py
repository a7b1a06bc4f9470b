"""HL6, HL5, HL3 and HL2 local checks: positive and negative cases, exact file and line."""

from __future__ import annotations

import pytest
from checks_helpers import modify, new_file, rule, where

from humangr.contracts import LayerID, Severity
from humangr.engine.checks.compliance import cpf_valid, luhn_valid, ssn_valid

S = Severity
HL2, HL3, HL5, HL6 = LayerID.HL2, LayerID.HL3, LayerID.HL5, LayerID.HL6


# --- HL6 ---------------------------------------------------------------------------------------


def test_luhn_ssn_cpf_validators() -> None:
    assert luhn_valid("4539578763621486")
    assert not luhn_valid("4539578763621487")
    assert ssn_valid("536", "22", "1234")
    assert not ssn_valid("000", "22", "1234")
    assert not ssn_valid("666", "22", "1234")
    assert not ssn_valid("912", "22", "1234")
    assert not ssn_valid("536", "00", "1234")
    assert not ssn_valid("536", "22", "0000")
    assert not ssn_valid("123", "45", "6789")
    assert cpf_valid("52998224725")
    assert not cpf_valid("52998224724")
    assert not cpf_valid("11111111111")


def test_card_numbers() -> None:
    diff = new_file(
        "tests/fixtures/payments.json",
        """
        {"card": "4539 5787 6362 1486",
         "amex": "3714-496353-98431",
         "stripe_test": "4242424242424242",
         "bad_luhn": "4539 5787 6362 1487",
         "order_id": 4539578763621486000,
         "ts": 1700000000000}
        """,
    )
    found = rule(diff, HL6, "card-number")
    assert where(found) == [("tests/fixtures/payments.json", 1)]
    assert found[0].severity is S.HIGH
    assert "4539" not in found[0].description
    plain = new_file("app/card.py", "CARD = '4539578763621486'\nTOTAL = 4539578763621487")
    assert where(rule(plain, HL6, "card-number")) == [("app/card.py", 1)]


def test_national_ids() -> None:
    diff = new_file(
        "data/customers.csv",
        """
        name,ssn,cpf
        Ana,536-22-1234,
        Bob,123-45-6789,
        Caio,,529.982.247-25
        Dan,666-12-3456,529.982.247-24
        date,2024-01-15,
        """,
    )
    assert where(rule(diff, HL6, "national-id")) == [
        ("data/customers.csv", 2),
        ("data/customers.csv", 4),
    ]


def test_emails_only_in_fixtures_and_data_files() -> None:
    fixture_diff = new_file(
        "tests/fixtures/users.json",
        """
        [{"email": "maria.silva@gmail.com"},
         {"email": "bob@example.com"},
         {"email": "qa@staging.test"},
         {"email": "noreply@company.io"}]
        """,
    )
    found = rule(fixture_diff, HL6, "email-in-fixture")
    assert where(found) == [("tests/fixtures/users.json", 1)]
    assert found[0].severity is S.MEDIUM
    code = new_file("app/mail.py", 'SUPPORT = "support@company.io"')
    assert rule(code, HL6, "email-in-fixture") == []


def test_copyleft_header_in_new_files_only() -> None:
    gpl = new_file(
        "vendor/lib.py",
        """
        # Copyright (C) 2020 Someone
        # SPDX-License-Identifier: GPL-3.0-or-later
        x = 1
        """,
    )
    found = rule(gpl, HL6, "copyleft-licence")
    assert where(found) == [("vendor/lib.py", 2)]
    assert found[0].severity is S.MEDIUM
    mit = new_file("vendor/ok.py", "# SPDX-License-Identifier: MIT\nx = 1")
    assert rule(mit, HL6, "copyleft-licence") == []
    edit = modify("vendor/old.py", "+# GNU General Public License v3", start=1)
    assert rule(edit, HL6, "copyleft-licence") == []


# --- HL5 ---------------------------------------------------------------------------------------


def test_blocking_calls_in_async_code() -> None:
    diff = new_file(
        "app/worker.py",
        """
        import time, requests, anyio
        async def handler(url):
            time.sleep(1)
            r = requests.get(url, timeout=5)
            await anyio.to_thread.run_sync(lambda: requests.get(url, timeout=5))
            with open("small.txt") as fh:
                return fh.read()
        def sync_handler(url):
            time.sleep(1)
            return requests.get(url, timeout=5)
        """,
    )
    found = rule(diff, HL5, "blocking-in-async")
    assert [(f.file, f.line, f.severity) for f in found] == [
        ("app/worker.py", 3, S.HIGH),
        ("app/worker.py", 4, S.HIGH),
        ("app/worker.py", 6, S.LOW),
    ]


def test_blocking_call_in_async_def_outside_the_hunk() -> None:
    diff = modify(
        "app/worker.py",
        """
                 data = await fetch()
        +        time.sleep(0.5)
                 return data
        """,
        start=20,
        heading="async def poll(self):",
    )
    assert where(rule(diff, HL5, "blocking-in-async")) == [("app/worker.py", 21)]
    sync = modify(
        "app/worker.py",
        "         data = fetch()\n+        time.sleep(0.5)\n",
        start=20,
        heading="def poll(self):",
    )
    assert rule(sync, HL5, "blocking-in-async") == []


def test_io_and_queries_inside_loops() -> None:
    diff = new_file(
        "app/report.py",
        """
        def report(cur, ids, urls):
            for i in ids:
                cur.execute("SELECT * FROM t WHERE id = %s", (i,))
            pages = [requests.get(u, timeout=5) for u in urls]
            rows = cur.execute("SELECT * FROM t WHERE id IN %s", (tuple(ids),))
            while rows:
                def later():
                    return open("x")
                rows = rows[1:]
            return pages
        """,
    )
    found = rule(diff, HL5, "io-in-loop")
    assert where(found) == [("app/report.py", 3), ("app/report.py", 4)]
    assert {f.severity for f in found} == {S.MEDIUM}


# --- HL3 ---------------------------------------------------------------------------------------


def test_swallowed_and_bare_excepts() -> None:
    diff = new_file(
        "app/jobs.py",
        """
        def run(job):
            try:
                job()
            except:
                pass
            try:
                job()
            except Exception:
                ...
            try:
                job()
            except:
                log.exception("failed")
            try:
                job()
            except:
                cleanup()
                raise
            try:
                job()
            except KeyError:
                pass
            try:
                job()
            except Exception as exc:
                log.warning("job failed: %s", exc)
        """,
    )
    found = rule(diff, HL3, "swallowed-exception")
    assert [(f.file, f.line, f.severity) for f in found] == [
        ("app/jobs.py", 4, S.HIGH),
        ("app/jobs.py", 8, S.MEDIUM),
        ("app/jobs.py", 12, S.MEDIUM),
    ]


def test_except_pass_added_in_a_hunk_that_does_not_parse() -> None:
    diff = modify(
        "app/jobs.py",
        """
             value = compute(
        +    )
        +    except:
        +        pass
        """,
        start=7,
    )
    found = rule(diff, HL3, "swallowed-exception")
    assert [(f.line, f.severity) for f in found] == [(9, S.HIGH)]


# --- HL2 ---------------------------------------------------------------------------------------


def test_todo_markers() -> None:
    diff = new_file(
        "app/x.py",
        """
        # TODO: handle retries
        x = 1  # FIXME later
        y = "XXX-XX-XXXX"
        todo_list = []
        """,
    )
    found = rule(diff, HL2, "todo")
    assert where(found) == [("app/x.py", 1), ("app/x.py", 2)]
    assert {f.severity for f in found} == {S.LOW}


def test_not_implemented_outside_abstract_methods() -> None:
    diff = new_file(
        "app/shapes.py",
        """
        import abc
        class Shape(abc.ABC):
            @abc.abstractmethod
            def area(self) -> float:
                raise NotImplementedError
        class Square:
            def area(self) -> float:
                raise NotImplementedError("later")
        """,
    )
    found = rule(diff, HL2, "not-implemented")
    assert [(f.file, f.line, f.severity) for f in found] == [("app/shapes.py", 8, S.MEDIUM)]


def test_deleted_test_file_and_removed_test_functions() -> None:
    deleted = (
        "diff --git a/tests/test_auth.py b/tests/test_auth.py\ndeleted file mode 100644\n"
        "--- a/tests/test_auth.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n"
        "-def test_login():\n-    assert login()\n"
    )
    found = rule(deleted, HL2, "deleted-test")
    assert [(f.file, f.line, f.severity) for f in found] == [("tests/test_auth.py", None, S.HIGH)]

    removed = modify(
        "tests/test_math.py",
        """
         def test_add():
             assert add(1, 2) == 3
        -
        -
        -def test_div_by_zero():
        -    with pytest.raises(ZeroDivisionError):
        -        div(1, 0)
        """,
        start=10,
    )
    found = rule(removed, HL2, "deleted-test")
    assert where(found) == [("tests/test_math.py", 14)]


@pytest.mark.parametrize(
    "hunk",
    [
        "-def test_old_name():\n+def test_new_name():\n     assert f()",
        "-def test_same():\n-    assert f()\n+def test_same():\n+    assert f() is True",
    ],
)
def test_renamed_or_rewritten_tests_are_not_deletions(hunk: str) -> None:
    assert rule(modify("tests/test_f.py", hunk, start=3), HL2, "deleted-test") == []
