"""Review settings from a TOML file: every setting, unknown keys refused, the floor enforced."""

from __future__ import annotations

from pathlib import Path

import pytest

from humangr.cli.main import main
from humangr.contracts import LayerID, VetoLevel
from humangr.engine.config_file import load_review_config
from humangr.engine.errors import ConfigError
from humangr.engine.review.cost import DEFAULT_PRICES


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "humangr.toml"
    path.write_text(text)
    return path


def test_every_setting_is_read(tmp_path: Path) -> None:
    config = load_review_config(
        write(
            tmp_path,
            """
layers = ["HL4", "HL6"]
layer_deadline_s = 30
review_deadline_s = 600
max_diff_bytes = 50000
early_exit = false
adaptive_redundancy = false
max_repairs = 1
report_retention_s = 3600
allow_layer_selection = true
unsafe_policy = true
lease_s = 5

[gate]
rejecting_mediums = 1
dissent_floor = "strong"

[prices."claude-sonnet-4-5"]
input = 2.0
output = 10.0
cache_read = 0.2
cache_write = 2.5
""",
        )
    )
    assert config.layers == (LayerID.HL4, LayerID.HL6)
    assert (config.layer_deadline_s, config.review_deadline_s) == (30, 600)
    assert (config.max_diff_bytes, config.early_exit, config.adaptive_redundancy) == (
        50000,
        False,
        False,
    )
    assert (config.max_repairs, config.report_retention_s, config.lease_s) == (1, 3600, 5)
    assert config.allow_layer_selection
    assert config.unsafe_policy, "HL7 left out and layer selection need the unsafe switch"
    assert config.gate.rejecting_mediums == 1
    assert config.gate.dissent_floor is VetoLevel.STRONG
    assert config.prices["claude-sonnet-4-5"].input == 2.0
    assert config.prices["claude-opus-4"] == DEFAULT_PRICES["claude-opus-4"], "merged"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("revew_deadline_s = 5\n", "unknown field `revew_deadline_s`"),
        ("[gate]\nrejecting_medium = 1\n", "unknown field `rejecting_medium`"),
        ("[gate]\nrejecting_mediums = 3\n", "weaker than the design floor"),
        ("layers = ['HL9']\n", "HL9"),
        ("review_deadline_s = 'soon'\n", "Expected `float"),
        ("[prices.m]\ninput = -1\noutput = 1\ncache_read = 1\ncache_write = 1\n", ">= 0"),
        ("layers = [\n", "not a valid TOML file"),
    ],
)
def test_a_bad_file_is_an_error_naming_what(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=str(path)) as caught:
        load_review_config(path)
    assert problem in str(caught.value)


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_review_config(tmp_path / "nope.toml")


def test_serve_refuses_a_bad_config_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "bogus = 1\n")
    code = main(["serve", "--nats", "nats://127.0.0.1:1", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 3
    assert "unknown field `bogus`" in err
    assert "cannot connect" not in err
