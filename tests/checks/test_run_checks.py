"""run_checks as a whole: acceptance diffs, layers, multi-file mapping, failures, robustness."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from checks_helpers import action, all_findings, fixture, modify, new_file, run, where
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humangr.contracts import Finding, LayerID, Severity, decode, encode
from humangr.engine.checks import CHECKS, Check, CheckInput, Hit, checks_markdown, run_checks

HL4 = LayerID.HL4


def _valid(findings: list[Finding]) -> None:
    for f in findings:
        assert decode(encode(f), Finding) == f


@pytest.mark.parametrize(
    "key_id",
    # fake keys, split so that secret scanners of this repository do not trip on them
    ["AKIAIOSFODNN7EXAMPLE", "AKIA" + "2E0A8F3B244C9986", "ASIA" + "Y34FZKBOKMUTVV7A"],
)
def test_acceptance_aws_key_and_shell_true_are_named_by_line(key_id: str) -> None:
    diff = fixture("aws_shell.diff").replace("AKIAIOSFODNN7EXAMPLE", key_id)
    result = run(diff)
    hl4 = result[HL4]
    assert [(f.id, f.file, f.line, f.severity) for f in hl4] == [
        ("HL4-R-secret-1", "app/deploy.py", 3, Severity.CRITICAL),
        ("HL4-R-secret-2", "app/deploy.py", 4, Severity.CRITICAL),
        ("HL4-R-shell-injection-1", "app/deploy.py", 9, Severity.HIGH),
    ]
    assert "app/deploy.py:9" in hl4[2].description
    assert "shell=True" in hl4[2].description
    assert all(result[lid] == [] for lid in LayerID if lid is not HL4)
    _valid(hl4)


def test_acceptance_clean_refactor_has_no_findings_in_any_layer() -> None:
    result = run(fixture("clean_refactor.diff"))
    assert set(result) == set(LayerID)
    assert all_findings(result) == []


def test_multi_file_diff_maps_each_finding_to_its_file_and_line() -> None:
    diff = (
        modify(
            "svc/a.py",
            """
             def handler(request):
                 expr = request.args["q"]
            -    return safe(expr)
            +    return eval(expr)
            """,
            start=120,
        )
        + new_file("svc/b.py", "import pickle\n\n\ndef load(b):\n    return pickle.loads(b)")
        + modify("svc/c.py", " x = 1\n+y = 2\n+# TODO: remove", start=7)
    )
    result = run(diff)
    assert where(result[HL4]) == [("svc/b.py", 5), ("svc/a.py", 122)]
    assert [f.id for f in result[HL4]] == ["HL4-R-deserialization-1", "HL4-R-eval-exec-1"]
    assert where(result[LayerID.HL2]) == [("svc/c.py", 9)]


def test_plain_content_is_checked_with_or_without_a_path() -> None:
    content = "import subprocess\n\n\ndef go(cmd):\n    subprocess.run(cmd, shell=True)\n"
    named = run(content, [HL4], files=["tools/go.py"])[HL4]
    assert where(named) == [("tools/go.py", 5)]
    unnamed = run(content, [HL4])[HL4]
    assert where(unnamed) == [(None, 5)]
    assert "<content>:5" in unnamed[0].description


def test_every_requested_layer_is_a_key_and_only_those() -> None:
    diff = fixture("aws_shell.diff")
    only = run_checks(action(diff), [LayerID.HL1, LayerID.HL7])
    assert only == {LayerID.HL1: [], LayerID.HL7: []}
    assert set(run_checks(action(diff), [])) == set()
    assert set(run_checks(action(None))) == set(LayerID)
    assert all_findings(run_checks(action(None))) == []


def test_results_are_deterministic() -> None:
    diff = fixture("aws_shell.diff") + fixture("multi_file.diff")
    assert run(diff) == run(diff)


def _boom(ctx: CheckInput) -> Iterator[Hit]:
    raise RuntimeError("rule exploded")
    yield  # pragma: no cover


def test_a_crashing_check_is_logged_and_reported_not_silent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    crashing = Check(LayerID.HL5, "boom", "always fails", ("humangr",), "n/a", _boom)
    checks = [crashing, *CHECKS]
    with caplog.at_level(logging.ERROR, logger="humangr.engine.checks"):
        result = run_checks(action(fixture("aws_shell.diff")), checks=checks)
    (failed,) = result[LayerID.HL5]
    assert failed.id == "HL5-R-boom-1"
    assert failed.severity is Severity.HIGH
    assert failed.title == "Local check boom failed"
    assert "rule exploded" in failed.description
    assert len(result[HL4]) == 3  # the other checks still ran
    assert any("boom" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)


def test_findings_respect_contract_limits() -> None:
    long_path = "d/" * 400 + "x.py"
    diff = new_file(long_path, "x = eval(data)  # " + "A" * 5000)
    (f,) = run(diff, [HL4])[HL4]
    assert f.file is not None
    assert len(f.file) <= 512
    assert f.file.endswith("x.py")
    _valid([f])


def test_registry_describes_every_check() -> None:
    ids = [(c.layer, c.id) for c in CHECKS]
    assert len(ids) == len(set(ids))
    assert {c.layer for c in CHECKS} == {
        LayerID.HL2,
        LayerID.HL3,
        LayerID.HL4,
        LayerID.HL5,
        LayerID.HL6,
    }
    assert all(set(c.sources) <= {"bandit", "detect-secrets", "humangr"} for c in CHECKS)
    assert {"bandit", "detect-secrets"} <= {s for c in CHECKS for s in c.sources}
    table = checks_markdown()
    assert all(f"`{c.id}`" in table for c in CHECKS)


_diffish = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "diff --git a/x.py b/x.py",
                "--- a/x.py",
                "+++ b/x.py",
                "--- /dev/null",
                "+++ /dev/null",
                "@@ -1,3 +1,4 @@",
                "@@ -0,0 +1 @@ async def f():",
                "+    time.sleep(1)",
                "+except:",
                "+    pass",
                "+eval(request.args['x'])",
                "+for x in y:",
                "+    cur.execute(f'SELECT {x} FROM t')",
                "-def test_a():",
                " if x:",
                "+\tsubprocess.run(c, shell=True",
                "+'''",
                "+)",
                "\\ No newline at end of file",
            ]
        ),
        st.text(max_size=40).map(lambda s: s.replace("\n", " ")),
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_diffish, st.text(max_size=60))
def test_run_checks_never_fails_on_arbitrary_input(lines: list[str], desc: str) -> None:
    result = run_checks(action("\n".join(lines), description=desc, files=["x.py"]))
    assert set(result) == set(LayerID)
    found = all_findings(result)
    assert not [f for f in found if f.title.startswith("Local check")]
    _valid(found)


_pyish = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "async def f(x):",
                "    time.sleep(1)",
                "    for i in x:",
                "        db.execute(i)",
                "try:",
                "except:",
                "    pass",
                "\tif x:\x0c",
                "    eval(request.args['q'])  # \u2028 TODO",
                "s = '''\r'''",
                'password = "Zq3vT8xYp2\x00"',
            ]
        ),
        st.text(max_size=30).map(lambda s: s.replace("\n", " ")),
    ),
    max_size=25,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pyish, st.sampled_from([None, "a.py", "tests/data/x.json"]))
def test_run_checks_never_fails_on_arbitrary_content(lines: list[str], path: str | None) -> None:
    result = run_checks(action("\n".join(lines), files=[path] if path else None))
    found = all_findings(result)
    assert not [f for f in found if f.title.startswith("Local check")]
    _valid(found)
    # Content is numbered as Python reads it: a lone carriage return ends a line too.
    count = len("\n".join(lines).replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    for f in found:
        assert f.line is None or 1 <= f.line <= max(1, count)
