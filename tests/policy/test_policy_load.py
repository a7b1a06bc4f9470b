"""A policy file is read strictly: what the engine would not understand is one error naming the
file, the line and the key; huge or pathological input is refused, never slow."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from policy_helpers import POLICY, policy

from humangr.engine.errors import ConfigError
from humangr.engine.policy import MAX_POLICY_BYTES, Effect, load_policy, parse_policy


def refused(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_policy(text.encode(), source="team.toml")
    return str(caught.value)


def test_the_realistic_policy_loads_with_its_rules_in_order(tmp_path: Path) -> None:
    file = tmp_path / "policy.toml"
    file.write_text(POLICY)
    loaded = load_policy(file)
    assert [r.id for r in loaded.rules] == ["no-force-push", "prod-needs-a-human", "tests", "docs"]
    assert [r.effect for r in loaded.rules] == [Effect.DENY, Effect.ASK, Effect.ALLOW, Effect.ALLOW]
    assert loaded.default is Effect.REVIEW
    assert [s.id for s in loaded.suppressions] == ["aws-doc-sample-key"]
    assert len(loaded.digest) == 64
    assert loaded.describe()[1].startswith("rule no-force-push: deny")


def test_a_changed_file_has_another_digest() -> None:
    assert policy().digest != policy(POLICY + "\n# changed\n").digest


@pytest.mark.parametrize(
    ("text", "line", "key", "what"),
    [
        ('version = 1\ndefualt = "allow"\n', 2, "defualt", "unknown key"),
        ('[[rule]]\nid = "a"\neffect = "deny"\ntool = ["bash"]\n', 4, "tool", "unknown key"),
        ('[[rule]]\nid = "a"\neffect = "permit"\n', 3, "effect", "not an effect"),
        ('default = "yes"\n', 1, "default", "not an effect"),
        ('[[rule]]\nid = "a"\neffect = "deny"\ntools = ["ba[sh"]\n', 4, "tools", "bad glob"),
        (
            '[[rule]]\nid = "a"\neffect = "deny"\n\n[[rule]]\nid = "a"\neffect = "allow"\n',
            6,
            "id",
            "duplicate id",
        ),
        (
            '[[rule]]\nid = "a"\neffect = "deny"\n[rule.match]\ncommand = []\n',
            4,
            "match.command",
            "non-empty list",
        ),
        ('[[rule]]\nid = "a"\neffect = "deny"\nkinds = ["shel"]\n', 4, "kinds", "tool kind"),
        ('[[suppress]]\nid = "s"\ncheck = "secret"\n', 1, "reason", "say why"),
        ('[[suppress]]\nid = "s"\ncheck = "secret"\nreason = "x"\nwhere = 1\n', 5, "where", ""),
    ],
)
def test_an_invalid_policy_names_the_file_the_line_and_the_key(
    text: str, line: int, key: str, what: str
) -> None:
    message = refused(text)
    assert message.startswith(f"policy team.toml:{line}: "), message
    assert f"(key `{key}`)" in message
    assert what in message


def test_a_file_over_the_limit_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    file = tmp_path / "huge.toml"
    file.write_text("# " + "x" * MAX_POLICY_BYTES + "\n")
    with pytest.raises(ConfigError, match="bytes; the limit is"):
        load_policy(file)


def test_too_many_rules_are_refused() -> None:
    text = "".join(f'[[rule]]\nid = "r{i}"\neffect = "deny"\n' for i in range(10_001))
    assert "the limit is 10,000" in refused(text)


def test_deep_nesting_is_one_clear_error() -> None:
    assert "policy team.toml" in refused("x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    message = refused('[[rule]]\nid = "a"\neffect = "deny"\n[rule.match.command]\nx = ["y"]\n')
    assert "(key `match.command`)" in message


def test_pathological_globs_are_refused_or_fast() -> None:
    assert "the limit is 1,024" in refused(
        f'[[rule]]\nid = "a"\neffect = "deny"\ntools = ["{"a" * 2_000}"]\n'
    )
    assert "wildcards" in refused(f'[[rule]]\nid = "a"\neffect = "deny"\ntools = ["{"*a" * 20}"]\n')
    worst = "*a" * 16
    text = f'[[rule]]\nid = "a"\neffect = "deny"\nmatch.text = ["{worst}b"]\n'
    from policy_helpers import call

    from humangr.engine.policy import decide

    started = time.perf_counter()
    decide(parse_policy(text.encode()), call("tool", text="a" * 200_000))
    assert time.perf_counter() - started < 1.0


def test_a_missing_file_and_bad_toml_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read it"):
        load_policy(tmp_path / "nope.toml")
    assert "not valid TOML" in refused("[[rule]\n")
