"""Short lines found clean are remembered (agents send the same texts again and again); a line
with a secret is never kept, and what is kept stays bounded."""

from __future__ import annotations

from humangr.engine.checks import secrets
from humangr.engine.checks.secrets import CLEAN_LINES, scan_secrets

GH_TOKEN = "ghp_" + "1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"  # fake, split for secret scanners


def test_a_remembered_clean_line_is_still_clean_and_a_secret_is_found_every_time() -> None:
    assert scan_secrets(None, "git status", test_file=False) is None
    assert (None, "git status", False) in secrets._clean
    assert scan_secrets(None, "git status", test_file=False) is None
    line = f"curl -H 'Authorization: token {GH_TOKEN}' https://api.github.com"
    for _ in range(3):
        hit = scan_secrets(None, line, test_file=False)
        assert hit is not None
        assert hit.kind == "GitHub token"
    assert not any(GH_TOKEN in kept for _, kept, _ in secrets._clean)


def test_the_same_line_in_a_test_file_and_elsewhere_is_judged_apart() -> None:
    line = f'token = "{GH_TOKEN}"'
    real = scan_secrets("app/settings.py", line, test_file=False)
    test = scan_secrets("tests/test_settings.py", line, test_file=True)
    assert real is not None
    assert test is not None
    assert (real.severity, test.severity) == ("critical", "high")


def test_what_is_remembered_stays_bounded() -> None:
    for n in range(CLEAN_LINES * 2 + 10):
        assert scan_secrets(None, f"echo line {n}", test_file=False) is None
    assert 0 < len(secrets._clean) <= CLEAN_LINES
    long_line = "echo " + "a b " * 1_000
    scan_secrets(None, long_line, test_file=False)
    assert not any(kept == long_line for _, kept, _ in secrets._clean)
