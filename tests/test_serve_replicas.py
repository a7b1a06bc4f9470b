"""``serve --replicas`` and the config file's ``[nats] replicas``: which count a process holds
the streams to, and what it refuses."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from humangr.cli.failure import UsageError
from humangr.cli.main import build_parser
from humangr.cli.serve import serve_replicas
from humangr.engine.bus.jetstream import JetStreamConfig
from humangr.engine.config_file import load_nats_replicas, load_review_config
from humangr.engine.errors import ConfigError


def _args(*argv: str) -> argparse.Namespace:
    return build_parser(["serve"]).parse_args(["serve", "--nats", "nats://127.0.0.1:4222", *argv])


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "humangr.toml"
    path.write_text(text)
    return str(path)


def test_the_default_is_one_replica_and_no_update() -> None:
    args = _args()
    assert serve_replicas(args) == 1
    assert args.update_streams is False
    assert JetStreamConfig().update_streams is False


def test_the_flag_wins_over_the_file_which_wins_over_the_default(tmp_path: Path) -> None:
    config = _file(tmp_path, "layer_deadline_s = 90\n\n[nats]\nreplicas = 3\n")
    assert serve_replicas(_args("--config", config)) == 3
    assert serve_replicas(_args("--config", config, "--replicas", "1")) == 1
    assert load_review_config(config).layer_deadline_s == 90  # the table is no review setting
    assert load_nats_replicas(_file(tmp_path, "layer_deadline_s = 90\n")) is None


@pytest.mark.parametrize("value", ["0", "6", "-1", "three", "1.5"])
def test_a_bad_replica_count_is_refused(value: str) -> None:
    with pytest.raises(UsageError, match="is not a replica count from 1 to 5"):
        _args("--replicas", value)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("[nats]\nreplicas = 0\n", "replicas"), ("[nats]\nreplica = 3\n", "replica")],
)
def test_a_bad_nats_table_names_the_setting(tmp_path: Path, text: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        load_nats_replicas(_file(tmp_path, text))
