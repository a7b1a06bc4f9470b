"""An identifier is the identifier and nothing more: ``$`` in a Python (and so msgspec) pattern
also accepts a final newline, which would carry an id like ``"bob\\n"`` into a NATS subject."""

from __future__ import annotations

import re

import msgspec
import pytest

from humangr.contracts import ActionContext, Subjects
from humangr.contracts.review import TOOL_NAME_PATTERN, ToolCall
from humangr.contracts.types import END, TOKEN_PATTERN, Hash, Token, is_token
from humangr.engine.errors import ConfigError

TRAILING = ["bob\n", "bob\r\n", "bob ", " bob", "bo\nb", ""]


class _Holder(msgspec.Struct):
    token: Token
    digest: Hash


@pytest.mark.parametrize("value", TRAILING)
def test_a_token_field_refuses_anything_around_the_id(value: str) -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(msgspec.json.encode({"token": value, "digest": "0" * 64}), type=_Holder)
    assert not is_token(value)


def test_a_hash_field_refuses_a_final_newline() -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(
            msgspec.json.encode({"token": "bob", "digest": "0" * 64 + "\n"}), type=_Holder
        )
    assert (
        msgspec.json.decode(
            msgspec.json.encode({"token": "bob", "digest": "a" * 64}), type=_Holder
        ).token
        == "bob"
    )


def test_an_action_from_an_agent_with_a_newline_in_its_id_does_not_decode() -> None:
    raw = msgspec.json.encode(
        {"agent_id": "bob\n", "action_type": "shell", "action_description": "ls"}
    )
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw, type=ActionContext)


@pytest.mark.parametrize("value", ["bob\n", "bo.b", "bob*", "bob>", ""])
def test_subjects_refuse_what_is_not_one_token(value: str) -> None:
    with pytest.raises(ValueError, match="not a valid subject token"):
        Subjects().decision(value)
    with pytest.raises(ValueError, match="not a valid subject token"):
        Subjects().agent_submit(value)
    with pytest.raises(ConfigError):
        Subjects(prefix="hl\n")


def test_a_tool_name_with_a_final_newline_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"name": "bash\n", "arguments": {}}, type=ToolCall)
    assert re.match(TOOL_NAME_PATTERN, "mcp__github__create_issue")


def test_the_end_anchor_is_valid_in_json_schema_regexes_too() -> None:
    # ECMA-262 (JSON Schema) and Python read `(?![\s\S])` alike: at the end of the text only.
    assert END == r"(?![\s\S])"
    assert re.fullmatch(TOKEN_PATTERN, "agent-7_x")
    assert not re.search(f"^{TOKEN_PATTERN}{END}", "agent\n")
