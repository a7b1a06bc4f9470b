"""Context rules: what test folders lower, and tests a diff moves, splits or retires."""

from __future__ import annotations

import pytest
from checks_helpers import modify, new_file, rule

from humangr.contracts import LayerID, Severity

HL2, HL4 = LayerID.HL2, LayerID.HL4
S = Severity

PEM = "-----BEGIN RSA " + "PRIVATE KEY-----"
GH_TOKEN = "ghp_" + "1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"


def severities(diff: str, layer: LayerID, check: str, **kw: object) -> list[Severity]:
    return [f.severity for f in rule(diff, layer, check, **kw)]


# --- test folders -----------------------------------------------------------------------------


def test_a_test_certificate_key_is_low_under_tests_and_critical_in_the_app() -> None:
    body = f"{PEM}\nVEVTVCBLRVk=\n-----END RSA PRIVATE KEY-----"
    assert severities(new_file("tests/certs/server.key", body), HL4, "secret") == [S.LOW]
    assert severities(new_file("deploy/server.key", body), HL4, "secret") == [S.CRITICAL]


def test_provider_keys_in_tests_are_low_when_fake_and_high_when_live_looking() -> None:
    fake = 'KEY = "AKIAIOSFODNN7EXAMPLE"\n'
    assert severities(new_file("tests/test_s3.py", fake), HL4, "secret") == [S.LOW]
    live = f'TOKEN = "{GH_TOKEN}"\n'
    assert severities(new_file("tests/test_gh.py", live), HL4, "secret") == [S.HIGH]
    assert severities(new_file("app/gh.py", live), HL4, "secret") == [S.CRITICAL]


def test_literal_signing_keys_and_jwt_secrets_in_tests_are_low() -> None:
    source = "import jwt\nSECRET_KEY = 'test-key'\ntok = jwt.encode({}, 'test-secret')\n"
    assert severities(new_file("tests/test_auth.py", source), HL4, "secret") == [S.LOW, S.LOW]
    assert severities(new_file("app/auth.py", source), HL4, "secret") == [S.HIGH, S.HIGH]


def test_verify_false_in_a_test_is_low_and_high_in_the_app() -> None:
    source = "import requests\ndef test_x(url):\n    requests.get(url, verify=False)\n"
    assert severities(new_file("tests/test_tls.py", source), HL4, "tls-verification") == [S.LOW]
    app = source.replace("def test_x", "def fetch")
    assert severities(new_file("app/tls.py", app), HL4, "tls-verification") == [S.HIGH]


def test_pickle_round_trip_in_a_test_does_not_block() -> None:
    source = (
        "import pickle\n\ndef test_round_trip(tmp_path):\n    obj = {'a': 1}\n"
        "    assert pickle.loads(pickle.dumps(obj)) == obj\n"
        "    p = tmp_path / 'x.pkl'\n    p.write_bytes(pickle.dumps(obj))\n"
        "    with p.open('rb') as fh:\n        assert pickle.load(fh) == obj\n"
    )
    assert severities(new_file("tests/test_pickle.py", source), HL4, "deserialization") == [
        S.MEDIUM
    ]
    app = source.replace("def test_round_trip", "def restore")
    assert severities(new_file("app/store.py", app), HL4, "deserialization") == [S.HIGH]


def test_request_input_keeps_its_severity_in_test_folders() -> None:
    source = "import os\nfrom flask import request\ndef v():\n    os.system(request.args['c'])\n"
    assert severities(new_file("tests/app.py", source), HL4, "shell-injection") == [S.CRITICAL]


# --- deleted tests ----------------------------------------------------------------------------


def _deleted(path: str, *tests: str) -> str:
    body = "".join(f"-def {t}():\n-    assert True\n" for t in tests)
    n = 2 * len(tests)
    return (
        f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
        f"@@ -1,{n} +0,0 @@\n{body}"
    )


def _added(path: str, *tests: str, indent: str = "") -> str:
    lines = [f"{indent}def {t}(self):\n{indent}    assert True" for t in tests]
    if indent:
        lines.insert(0, "class TestGroup:")
    return new_file(path, "\n".join(lines))


def test_a_deleted_test_file_is_high() -> None:
    assert severities(_deleted("tests/test_auth.py", "test_login"), HL2, "deleted-test") == [S.HIGH]


@pytest.mark.parametrize(
    "diff",
    [
        _deleted("tests/test_api.py", "test_a", "test_b")
        + _added("tests/unit/test_api.py", "test_a", "test_b"),
        _deleted("tests/test_api.py", "test_a", "test_b")
        + _added("tests/test_users.py", "test_a")
        + _added("tests/test_items.py", "test_b"),
        _deleted("tests/test_api.py", "test_login", "test_logout")
        + _added("tests/test_session.py", "test_in", "test_out", indent="    "),
    ],
    ids=["moved", "split", "split into a class with new names"],
)
def test_moved_or_split_test_files_are_not_deletions(diff: str) -> None:
    assert rule(diff, HL2, "deleted-test") == []


def test_deleted_files_without_tests_under_tests_are_not_deletions() -> None:
    diff = (
        "diff --git a/tests/__init__.py b/tests/__init__.py\ndeleted file mode 100644\n"
        "index e69de29..0000000\n"
        + "diff --git a/tests/helpers.py b/tests/helpers.py\ndeleted file mode 100644\n"
        "--- a/tests/helpers.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def make():\n-    return 1\n"
    )
    assert rule(diff, HL2, "deleted-test") == []


REMOVED = """
 def test_keep():
     assert True
-
-
-def test_old_behaviour():
-    assert legacy_export() == 1
"""


def test_an_unexplained_removal_is_high() -> None:
    diff = modify("tests/test_x.py", REMOVED, start=3)
    assert severities(diff, HL2, "deleted-test") == [S.HIGH]


def test_a_removal_the_action_explains_is_medium() -> None:
    diff = modify("tests/test_x.py", REMOVED, start=3)
    why = "Remove the obsolete legacy tests; the export was rewritten."
    assert severities(diff, HL2, "deleted-test", description=why) == [S.MEDIUM]


def test_a_test_removed_with_the_code_it_tests_is_low() -> None:
    code = modify("app/export.py", " import csv\n-def legacy_export():\n-    return 1", start=1)
    diff = modify("tests/test_x.py", REMOVED, start=3) + code
    assert severities(diff, HL2, "deleted-test") == [S.LOW]


def test_tests_turned_into_one_parametrized_test_are_not_deletions() -> None:
    hunk = """
    -def test_small():
    -    assert add(1, 2) == 3
    -def test_large():
    -    assert add(9, 1) == 10
    +@pytest.mark.parametrize(("a", "b", "c"), [(1, 2, 3), (9, 1, 10)])
    +def test_add(a, b, c):
    +    assert add(a, b) == c
    """
    assert rule(modify("tests/test_math.py", hunk, start=5), HL2, "deleted-test") == []


def test_a_test_moved_to_another_existing_file_is_not_a_deletion() -> None:
    diff = modify("tests/test_a.py", " x = 1\n-def test_moved():\n-    assert f()", start=1)
    diff += modify("tests/test_b.py", " y = 2\n+def test_moved():\n+    assert f()", start=1)
    assert rule(diff, HL2, "deleted-test") == []
