"""The secret scan asks its token detectors one by one only about a line one combined pattern
matches: the answer for every line is the one asking them all gives (each detector's flags kept,
long lines read in the same windows)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from humangr.engine.checks import secrets
from humangr.engine.checks.secrets import SecretHit
from humangr.engine.checks.secrets_scan import OVERLAP, WINDOW

ROOT = Path(__file__).resolve().parents[2]

# One token of each detector's shape, written in pieces so secret scanners leave this file be.
TOKENS = {
    "GitHub token": "ghp" + "_" + "a1" * 18,
    "GitLab token": "glpat" + "-" + "A1b2" * 6,
    "GitLab runner": "GR1348941" + "x_y-" * 6,
    "GitLab CI job": "glcbt" + "-" + "ab_" + "Zz09" * 6,
    "GitLab incoming mail": "glimt" + "-" + "k" * 25,
    "GitLab trigger": "glptt" + "-" + "q" * 40,
    "GitLab agent": "glagent" + "-" + "w" * 50,
    "GitLab OAuth": "gloas" + "-" + "e" * 64,
    "Slack token": "xoxb" + "-123-456-abcdef",
    "Slack token, upper case": "XOXB" + "-123-456-abcdef",
    "Slack webhook": "https://hooks.slack.com/services/" + "T0001/B0002/" + "c" * 24,
    "Stripe live key": "sk" + "_live_" + "d4" * 12,
    "PyPI token": "pypi" + "-AgEIcHlwaS5vcmc" + "f" * 70,
    "SendGrid API key": "SG" + "." + "g" * 22 + "." + "h" * 43,
    "Twilio API key": "AC" + "0a" * 16,
    "Discord bot token": "M" + "j" * 24 + "." + "k" * 6 + "." + "l" * 27,
    "Azure storage key": "AccountKey" + "=" + "m" * 88,
    "Mailchimp API key": "0a" * 16 + "-us" + "12",
    "Square OAuth secret": "sq0csp" + "-" + "n" * 43,
    "Anthropic API key": "sk" + "-ant-api03-" + "o" * 24,
    "OpenAI API key": "sk" + "-proj-" + "p" * 24,
    "GitHub fine-grained token": "github" + "_pat_" + "r" * 40,
    "Google API key": "AIza" + "s" * 35,
}
EVERYDAY = [
    "git status --short",
    "def increment(value: int) -> int:",
    'headers = {"Authorization": f"Bearer {token}"}',
    "curl -fsSL https://get.example.sh/install.sh | sh",
    "ACCOUNT = 'acme'  # the account name, not a key",
    "sk = load_key(path)",
]


def unfiltered(monkeypatch: pytest.MonkeyPatch, line: str) -> SecretHit | None:
    """The answer with the combined patterns matching everything: every detector asked."""
    with monkeypatch.context() as patched:
        patched.setattr(secrets, "_ANY_TOKEN", re.compile(""))
        patched.setattr(secrets, "_ANY_OWN", re.compile(""))
        return secrets._token_hit(line, False)


@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_every_detectors_token_is_found_as_when_each_is_asked(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = f'value = "{TOKENS[kind]}"'
    expected = unfiltered(monkeypatch, line)
    assert expected is not None, f"{kind}: the sample is no token of that shape"
    assert secrets._token_hit(line, False) == expected


def test_a_token_past_the_first_window_of_a_long_line_is_found() -> None:
    token = TOKENS["Stripe live key"]
    for start in (WINDOW - OVERLAP + 5, WINDOW - 10, 3 * WINDOW):
        line = "x " * (start // 2) + token + " y" * 50
        hit = secrets._token_hit(line, False)
        assert hit is not None, start
        assert hit.kind == "Stripe live key", start


def test_every_line_of_the_corpora_gets_the_answer_of_asking_every_detector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = list(EVERYDAY)
    for folder in ("tests/checks/corpus", "tests/checks/tool_calls", "engine/checks"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".jsonl", ".diff", ".json", ".md"):
                lines.extend(path.read_text(encoding="utf-8", errors="replace").splitlines())
    assert len(lines) > 5_000
    found = 0
    for line in lines:
        expected = unfiltered(monkeypatch, line)
        assert secrets._token_hit(line, False) == expected, line[:200]
        found += expected is not None
    assert found > 0  # the corpora hold tokens: the comparison covers hits too
