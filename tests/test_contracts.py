"""Contracts: ordering of enums, bounds, decode errors with JSON paths, schema export, subjects."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from humangr.cli.main import main
from humangr.contracts import (
    MESSAGES,
    ActionContext,
    ActionSubmitted,
    AgentName,
    DeadLetter,
    Handoff,
    LayerTask,
    ResponseStatus,
    ReviewResolution,
    Severity,
    Subjects,
    VetoLevel,
    action_problem,
    decode,
    encode,
    schema_of,
)
from humangr.contracts.types import MAX_DIFF_BYTES
from humangr.engine.errors import ConfigError, ContractError
from humangr.engine.letters import dead_letter


def test_veto_levels_order_by_rank_not_by_string() -> None:
    assert VetoLevel.NONE < VetoLevel.WEAK < VetoLevel.MEDIUM < VetoLevel.STRONG
    assert max([VetoLevel.WEAK, VetoLevel.STRONG, VetoLevel.MEDIUM]) is VetoLevel.STRONG
    assert VetoLevel.MEDIUM >= VetoLevel.MEDIUM
    # as strings "medium" < "none" < "strong" < "weak"; the enum must not use that
    assert VetoLevel.WEAK < VetoLevel.MEDIUM
    assert sorted(Severity) == [
        Severity.INFO,
        Severity.LOW,
        Severity.MEDIUM,
        Severity.HIGH,
        Severity.CRITICAL,
    ]
    assert Severity.HIGH > Severity.MEDIUM


def test_ordered_enums_refuse_comparison_across_types() -> None:
    with pytest.raises(TypeError):
        _ = VetoLevel.WEAK < Severity.HIGH
    with pytest.raises(TypeError):
        _ = VetoLevel.WEAK < "strong"


def test_round_trip_of_a_submission() -> None:
    action = ActionContext(
        agent_id="agent-1",
        action_type="code_diff",
        action_description="add a helper",
        code_diff="+x = 1\n",
        affected_files=["app/x.py"],
    )
    submitted = ActionSubmitted(action_id="a-1", action=action)
    assert decode(encode(submitted), ActionSubmitted) == submitted


@pytest.mark.parametrize(
    ("payload", "path", "problem"),
    [
        (b'{"action_id": "a b", "action": {}}', "$.action_id", "matching regex"),
        (
            b'{"action_id": "a", "action": {"agent_id": "x", "action_type": 1,'
            b' "action_description": ""}}',
            "$.action.action_type",
            "Expected `str`, got `int`",
        ),
        (b'{"action_id": "a"}', "$", "missing required field `action`"),
        (b"\xff\xfe", "", "not valid JSON"),
        (b"[1, 2]", "$", "Expected `object`"),
    ],
)
def test_decode_errors_name_the_json_path(payload: bytes, path: str, problem: str) -> None:
    with pytest.raises(ContractError) as info:
        decode(payload, ActionSubmitted)
    assert info.value.path == path
    assert problem in str(info.value)
    assert info.value.type_name == "ActionSubmitted"


def test_bounds_are_enforced() -> None:
    long_title = "x" * 5000
    with pytest.raises(ContractError, match="length"):
        decode(
            json.dumps(
                {
                    "agent_id": "x",
                    "action_type": "t",
                    "action_description": "d" * 30_000,
                }
            ).encode(),
            ActionContext,
        )
    resolution = {
        "action_id": "a",
        "action_hash": "0" * 64,
        "verdict": "approve",
        "reviewer": "r",
        "reason": "too short",
    }
    with pytest.raises(ContractError, match=r"\$\.reason"):
        decode(json.dumps(resolution).encode(), ReviewResolution)
    with pytest.raises(ContractError, match=r"\$\.verdict"):
        decode(
            json.dumps({**resolution, "verdict": "maybe", "reason": long_title[:30]}).encode(),
            ReviewResolution,
        )


def test_messages_are_frozen() -> None:
    action = ActionContext(agent_id="a", action_type="t", action_description="d")
    with pytest.raises(AttributeError):
        action.agent_id = "b"  # type: ignore[misc]


def test_handoff_uses_from_on_the_wire() -> None:
    handoff = Handoff(
        project_id="p",
        order_id="o",
        from_=AgentName.DEV,
        to=AgentName.QA,
        status=ResponseStatus.OK,
        code_refs=["apps/x.py"],
    )
    wire = msgspec.json.decode(encode(handoff))
    assert wire["from"] == "dev"
    assert decode(encode(handoff), Handoff) == handoff


def test_dead_letter_truncates_and_records_size() -> None:
    letter = dead_letter("hl.x", "bad" * 2000, b"y" * 10_000, actor="a")
    assert len(letter.raw) == 4096
    assert letter.raw_size == 10_000
    assert len(letter.error) <= 2000
    assert decode(encode(letter), DeadLetter) == letter


@pytest.mark.parametrize("name", list(MESSAGES))
def test_every_message_exports_a_json_schema(name: str) -> None:
    schema = schema_of(name)
    assert "$defs" in schema or "properties" in schema
    json.dumps(schema)


def test_schema_cli_prints_one_or_all(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "ActionSubmitted"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert "ActionSubmitted" in one["$defs"]
    assert main(["schema"]) == 0
    every = json.loads(capsys.readouterr().out)
    assert set(every) == set(MESSAGES)
    assert main(["schema", "Nope"]) == 3
    assert "unknown message" in capsys.readouterr().err


def test_subjects_follow_the_design_with_a_configurable_prefix() -> None:
    s = Subjects()
    assert s.action_submit == "hl.actions.submit"
    assert s.layer_task("HL4") == "hl.layers.HL4.task"
    assert s.decision("agent-7") == "hl.decisions.agent-7"
    assert s.review_resolve("a1") == "hl.reviews.a1.resolve"
    assert s.action_cancel("a1") == "hl.actions.a1.cancel"
    assert s.dlq == "hl.dlq"
    custom = Subjects(prefix="acme.hl")
    assert custom.decisions == "acme.hl.decisions.>"
    assert custom.last_token(custom.action_cancel("x9"), 1) == "x9"
    with pytest.raises(ValueError, match="subject token"):
        s.decision("a.b")
    with pytest.raises(ConfigError):
        Subjects(prefix="bad prefix")


@pytest.mark.parametrize(
    ("type_", "payload", "path"),
    [
        (
            ActionContext,
            {"agent_id": "a", "action_type": "code_diff", "action_description": "d", "diff": "+x"},
            "$",
        ),
        (
            ActionSubmitted,
            {
                "action_id": "a1",
                "action": {
                    "agent_id": "a",
                    "action_type": "t",
                    "action_description": "d",
                    "code_dif": "+x",
                },
            },
            "$.action",
        ),
        (
            ReviewResolution,
            {
                "action_id": "a",
                "action_hash": "0" * 64,
                "verdict": "approve",
                "reviewer": "r",
                "reason": "a reason long enough to pass",
                "approved": True,
            },
            "$",
        ),
        (LayerTask, {"action_id": "a", "layer_id": "HL4", "bogus": 1}, "$"),
    ],
)
def test_unknown_fields_are_refused_with_their_path(
    type_: type[Any], payload: dict[str, Any], path: str
) -> None:
    with pytest.raises(ContractError, match="unknown field") as caught:
        decode(json.dumps(payload).encode(), type_)
    assert caught.value.path == path


def test_gate_settings_out_of_range_in_a_message_are_a_contract_error() -> None:
    task = {
        "action_id": "a",
        "layer_id": "HL4",
        "action": {"agent_id": "a", "action_type": "t", "action_description": "d"},
        "action_hash": "0" * 64,
        "settings": {"dissent_floor": "none"},
    }
    with pytest.raises(ContractError, match="dissent_floor"):
        decode(json.dumps(task).encode(), LayerTask)


def _action(**fields: Any) -> ActionContext:
    base: dict[str, Any] = {"agent_id": "a", "action_type": "file_write", "action_description": ""}
    return ActionContext(**{**base, **fields})


@pytest.mark.parametrize(
    ("action", "problem"),
    [
        (_action(), "nothing to review"),
        (_action(code_diff="  \n\n\t"), "nothing to review"),
        (_action(action_type="code_diff", action_description="add x"), "code_diff is empty"),
        (_action(action_type="code_diff", code_diff="\n \n"), "code_diff is empty"),
        (_action(code_diff="é" * 600_000), "1,200,000 bytes; the limit is 1,000,000"),
    ],
)
def test_actions_with_nothing_to_review_or_too_large_are_refused(
    action: ActionContext, problem: str
) -> None:
    found = action_problem(action)
    assert found is not None
    assert problem in found


def test_reviewable_actions_pass_and_a_lower_limit_applies() -> None:
    assert action_problem(_action(action_description="DELETE /users/7")) is None
    assert action_problem(_action(action_type="code_diff", code_diff="+x = 1\n")) is None
    assert "limit is 3" in (action_problem(_action(code_diff="+abcd"), max_diff_bytes=3) or "")
    assert action_problem(_action(code_diff="x" * MAX_DIFF_BYTES)) is None


class _Picky(msgspec.Struct, frozen=True):
    """A contract whose own check fails with something msgspec does not wrap."""

    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise KeyError("negative")


DEEP = b'{"a":' * 1_000 + b"1" + b"}" * 1_000


@pytest.mark.parametrize(
    ("payload", "type_", "path", "problem"),
    [
        (b'{"action_id":"\xff\xfe"}', ReviewResolution, "$.action_id", "not valid UTF-8 (byte 14)"),
        (
            b'{"action_id":"a","action_hash":"\xc3","verdict":"approve","reviewer":"r"}',
            ReviewResolution,
            "$.action_hash",
            "not valid UTF-8",
        ),
        (b'{"\xff":1}', ReviewResolution, "", "not valid UTF-8 (byte 2)"),
        ('{"action_id":"\udcff"}', ReviewResolution, "$.action_id", "not valid Unicode"),
        (DEEP, ReviewResolution, "$", "unknown field `a`"),
        (DEEP, dict, "", "nested too deeply"),
        (b"[" * 100_000 + b"]" * 100_000, list, "", "nested too deeply"),
        (b'{"value": -1}', _Picky, "", "cannot be decoded (KeyError)"),
        (b"", ReviewResolution, "", "not valid JSON"),
        (b"\x00\xff", ReviewResolution, "", "not valid JSON"),
        (b'"text"', ReviewResolution, "$", "Expected `object`, got `str`"),
    ],
)
def test_every_decode_failure_is_a_contract_error(
    payload: bytes | str, type_: type[Any], path: str, problem: str
) -> None:
    with pytest.raises(ContractError) as caught:
        decode(payload, type_)
    if path:
        assert caught.value.path == path
    assert problem in caught.value.problem


def test_dead_letter_redacts_secrets_from_raw_bytes_and_error() -> None:
    raw = (
        b'{"action_id":"\xff","key":"AKIAIOSFODNN7EXAMPLE",'
        b'"url":"nats://admin:hunter22@nats:4222","password":"correct-horse"}'
    )
    letter = dead_letter("hl.x", "failed on nats://admin:hunter22@nats:4222", raw)
    for secret in (b"AKIAIOSFODNN7EXAMPLE", b"hunter22", b"correct-horse"):
        assert secret not in letter.raw
        assert secret.decode() not in letter.error
    assert b'"action_id":"\xff"' in letter.raw, "bytes that are not UTF-8 are kept as they are"
    assert letter.raw_size == len(raw)


def test_dead_letter_redacts_a_secret_that_crosses_the_cut() -> None:
    raw = b"x" * 4_090 + b" AKIAIOSFODNN7EXAMPLE"
    letter = dead_letter("hl.x", "bad", raw)
    assert letter.raw.endswith(b" ***")
    assert b"AKIA" not in letter.raw


def test_convert_names_the_json_path_as_decode_does() -> None:
    """Plain Python values are checked the way JSON is: one reading of msgspec's error, so a
    wrong field is named by its path in both."""
    from humangr.contracts import ActionContext, convert, decode

    bad = {"agent_id": "a", "action_type": "x", "action_description": "d", "tool_call": {"name": 3}}
    with pytest.raises(ContractError) as converted:
        convert(bad, ActionContext)
    with pytest.raises(ContractError) as decoded:
        decode(json.dumps(bad), ActionContext)
    assert converted.value.path == decoded.value.path == "$.tool_call.name"
