"""ReviewConfig refuses settings weaker than the design floor unless the unsafe switch is set."""

from __future__ import annotations

from typing import Any

import pytest

from humangr.contracts import GateSettings, LayerID, VetoLevel
from humangr.contracts.types import MAX_DIFF_BYTES
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError


@pytest.mark.parametrize(
    ("gate", "extra", "named"),
    [
        ({"runs_per_layer": 1, "min_valid_runs": 1}, {}, "min_valid_runs=1"),
        ({"runs_per_layer": 1}, {}, "runs_per_layer=1"),
        ({"dissent_floor": VetoLevel.WEAK}, {}, "dissent_floor=weak"),
        ({"rejecting_mediums": 3}, {}, "rejecting_mediums=3"),
        ({}, {"max_repairs": 5}, "max_repairs=5"),
    ],
)
def test_weaker_than_the_design_is_refused_unless_unsafe(
    gate: dict[str, Any], extra: dict[str, Any], named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        ReviewConfig(gate=GateSettings(**gate), **extra)
    unsafe = ReviewConfig(gate=GateSettings(**gate), unsafe_policy=True, **extra)
    assert any(
        note.startswith("unsafe policy: ") and named in note for note in unsafe.policy_notes()
    )


def test_the_default_policy_has_no_notes_and_a_partial_one_says_so() -> None:
    assert ReviewConfig().policy_notes() == []
    partial = ReviewConfig(layers=(LayerID.HL4, LayerID.HL6), partial=True)
    assert partial.policy_notes() == ["partial review: HL4, HL6"]


def test_the_diff_limit_can_be_lowered_not_raised() -> None:
    assert ReviewConfig(max_diff_bytes=10).max_diff_bytes == 10
    with pytest.raises(ConfigError, match="max_diff_bytes"):
        ReviewConfig(max_diff_bytes=MAX_DIFF_BYTES + 1)
