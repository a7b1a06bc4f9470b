"""Every setting that can review less than the design is refused at load, with what to do,
unless ``unsafe_policy`` is set; then every report names it. Hostile: a config that quietly
switches the LLM review off, drops the strong-veto layers, lets the agent pick its reviewers or
whitelists a whole top-level domain."""

from __future__ import annotations

from pathlib import Path

import pytest

from humangr.cli.main import main
from humangr.contracts import GateSettings, LayerID
from humangr.engine.config import ReviewConfig
from humangr.engine.config_file import load_review_config
from humangr.engine.errors import ConfigError
from humangr.testing import humangr

WEAK_FILES = {
    "no LLM run": ("[gate]\nruns_per_layer = 0\n", "runs_per_layer=0"),
    "one run": ("[gate]\nruns_per_layer = 1\n", "runs_per_layer=1"),
    "unconfirmable findings": ("[gate]\nconfirm_votes = 3\n", "confirm_votes=3"),
    "three mediums": ("[gate]\nrejecting_mediums = 3\n", "rejecting_mediums=3"),
    "weak dissent": ('[gate]\ndissent_floor = "weak"\n', "dissent_floor=weak"),
    "no security layer": ('layers = ["HL1", "HL2", "HL3", "HL5", "HL6", "HL7"]\n', "HL4"),
    "no final review": ('layers = ["HL4", "HL6"]\n', "without HL7"),
    "agent picks layers": ("allow_layer_selection = true\n", "allow_layer_selection"),
    "a whole TLD": ('allowed_hosts = ["*.com"]\n', "allowed_hosts *.com"),
    "a whole mail TLD": ('allowed_email_domains = ["*.org"]\n', "allowed_email_domains *.org"),
    "many repairs": ("max_repairs = 4\n", "max_repairs=4"),
}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "humangr.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", list(WEAK_FILES), ids=list(WEAK_FILES))
def test_a_weakening_config_file_is_refused_then_named_when_unsafe(
    tmp_path: Path, case: str
) -> None:
    text, named = WEAK_FILES[case]
    with pytest.raises(ConfigError) as caught:
        load_review_config(write(tmp_path, text))
    message = str(caught.value)
    assert named in message
    assert "weaker than the design floor" in message
    assert "unsafe_policy" in message, "the message says how to accept it knowingly"

    config = load_review_config(write(tmp_path, "unsafe_policy = true\n" + text))
    notes = [n for n in config.policy_notes() if n.startswith("unsafe policy: ")]
    assert any(named in note for note in notes), notes


def test_the_defaults_and_a_narrow_wildcard_are_above_the_floor(tmp_path: Path) -> None:
    config = load_review_config(
        write(tmp_path, 'allowed_hosts = ["*.example.com", "api.example.org"]\n')
    )
    assert config.policy_notes() == []
    assert ReviewConfig(gate=GateSettings(runs_per_layer=2)).policy_notes() == []


def test_an_operators_partial_review_is_not_unsafe_but_named() -> None:
    with pytest.raises(ConfigError, match="HL4, HL6, HL7"):
        ReviewConfig(layers=(LayerID.HL1,))
    partial = ReviewConfig(layers=(LayerID.HL1,), partial=True)
    assert partial.policy_notes() == ["partial review: HL1"]


def test_serve_refuses_a_config_without_llm_runs_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "[gate]\nruns_per_layer = 0\n")
    code = main(["serve", "--nats", "nats://127.0.0.1:1", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 3
    assert "runs_per_layer=0" in err
    assert "unsafe_policy" in err
    assert "cannot connect" not in err


def test_serve_refuses_layers_without_the_strong_layers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["serve", "--nats", "nats://127.0.0.1:1", "--layers", "HL1,HL2"])
    err = capsys.readouterr().err
    assert code == 3
    assert "HL4, HL6, HL7" in err
    assert "cannot connect" not in err


@pytest.mark.anyio
@pytest.mark.parametrize("where", ["memory", "nats"])
async def test_no_llm_run_accepted_as_unsafe_is_named_in_the_report(
    request: pytest.FixtureRequest, where: str
) -> None:
    """The probe: an LLM is configured but ``runs_per_layer = 0`` — the review is local checks
    only; the report must say so, not pass as a full review."""
    nats_url = None if where == "memory" else request.getfixturevalue("nats_url")
    gate = GateSettings(runs_per_layer=0)
    with pytest.raises(ConfigError, match="runs_per_layer=0"):
        async with humangr(nats_url=nats_url, llm="scripted", gate=gate):
            pass
    async with humangr(nats_url=nats_url, llm="scripted", gate=gate, unsafe_policy=True) as kit:
        report = await kit.submit(action_description="list the files in the workspace")
    assert all(r.local_only and r.executed_runs == 0 for r in report.layer_results.values())
    assert any("unsafe policy: runs_per_layer=0" in note for note in report.policy_notes)
