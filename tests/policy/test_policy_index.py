"""The rules a call's tool name can meet are worked out once per name: the first match still
decides, in file order, whatever the tool names an agent sends."""

from __future__ import annotations

from policy_helpers import bash, call, policy

from humangr.contracts import ActionContext
from humangr.engine.policy import decide
from humangr.engine.policy.model import MAX_INDEXED_TOOLS

MIXED = """
[[rule]]
id = "other-tool"
effect = "allow"
tools = ["read_file"]

[[rule]]
id = "any-shell"
effect = "ask"
tools = ["ba*"]
match.command = ["git push*"]

[[rule]]
id = "bash-deny"
effect = "deny"
tools = ["bash", "sh"]
match.command = ["git push*", "rm *"]

[[rule]]
id = "everyone"
effect = "allow"
match.command = ["ls*"]
"""


def test_rules_naming_only_other_tools_are_left_out_and_the_order_kept() -> None:
    rules = policy(MIXED)
    assert [r.id for r in rules.rules_for("bash")] == ["any-shell", "bash-deny", "everyone"]
    # a rule whose tools are globs stays a candidate: its globs are matched when it is tried
    assert [r.id for r in rules.rules_for("sh")] == ["any-shell", "bash-deny", "everyone"]
    assert [r.id for r in rules.rules_for("read_file")] == ["other-tool", "any-shell", "everyone"]
    assert [r.id for r in rules.rules_for(None)] == []  # every rule here asks for a call
    every = policy('[[rule]]\nid = "all"\neffect = "deny"\n')
    assert [r.id for r in every.rules_for(None)] == ["all"]


def test_the_first_match_still_decides_across_glob_and_literal_tools() -> None:
    rules = policy(MIXED)
    assert decide(rules, bash("git push --force")).rule_id == "any-shell"  # a glob comes first
    assert decide(rules, call("sh", command="git push")).rule_id == "bash-deny"
    assert decide(rules, call("sh", command="rm -rf build")).rule_id == "bash-deny"
    assert decide(rules, call("read_file", path="a.txt")).rule_id == "other-tool"
    assert decide(rules, call("zsh", command="rm -rf build")).rule_id == ""  # the default
    description = ActionContext(agent_id="coder", action_type="note", action_description="x")
    assert decide(rules, description).rule_id == ""


def test_a_flood_of_tool_names_keeps_the_index_bounded_and_the_answers_right() -> None:
    rules = policy(MIXED)
    for i in range(MAX_INDEXED_TOOLS + 50):
        assert decide(rules, call(f"tool-{i}", command="ls -la")).rule_id == "everyone"
    assert len(rules._by_tool) <= MAX_INDEXED_TOOLS
    assert decide(rules, bash("rm -rf /")).rule_id == "bash-deny"  # named after the flood too
