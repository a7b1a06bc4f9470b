"""State keys: 1–255 of ``A-Z a-z 0-9 - _ = . /``, no leading, trailing or doubled dot (the keys
JetStream KV accepts). ``check_key`` runs on every state operation, so it reads a key without a
regular expression; it must accept and refuse exactly what the pattern it replaced does."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humangr.engine.errors import StateError
from humangr.engine.state.base import check_key

_PATTERN = re.compile(r"[-/_=.A-Za-z0-9]{1,255}")


def _valid(key: str) -> bool:
    return (
        _PATTERN.fullmatch(key) is not None
        and not key.startswith(".")
        and not key.endswith(".")
        and ".." not in key
    )


def _accepted(key: str) -> bool:
    try:
        return check_key(key) == key
    except StateError:
        return False


@settings(max_examples=2_000)
@given(
    st.one_of(
        st.text(alphabet="-/_=.aZ09", max_size=12),
        st.text(alphabet="-/_=.aZ09$ é\n\x00:*>", max_size=12),
        st.text(max_size=20),
        st.text(alphabet="ab", min_size=250, max_size=260),
    )
)
def test_a_key_is_accepted_exactly_when_the_pattern_says_so(key: str) -> None:
    assert _accepted(key) == _valid(key)


@pytest.mark.parametrize(
    "key",
    ["", ".a", "a.", "a..b", "a b", "a\nb", "a*b", "a>b", "é", "x" * 256, "a:b", "\x00"],
)
def test_keys_outside_the_set_are_refused(key: str) -> None:
    with pytest.raises(StateError, match="invalid state key"):
        check_key(key)


def test_keys_of_every_allowed_character_pass() -> None:
    for key in ["a", "A-Z_a=z.0/9", "x" * 255, "decisions/act-1.final", "h" + "0" * 48]:
        assert check_key(key) == key
