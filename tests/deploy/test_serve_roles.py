"""``humangr serve``: which actors each ``--role`` runs, and its errors."""

from __future__ import annotations

import socket

import pytest

from humangr.cli.main import main
from humangr.cli.serve import resolve_roles
from humangr.engine.errors import ConfigError

MISSING = {"agents": "humangr.actors.no_such_module", "monitor": "humangr.actors.no_such_monitor"}


def test_review_roles_need_no_pipeline() -> None:
    assert resolve_roles("supervisor", MISSING) == (("supervisor",), {})
    assert resolve_roles("layers", MISSING) == (("layers",), {})


def test_a_pipeline_role_this_build_lacks_is_refused_clearly() -> None:
    with pytest.raises(ConfigError, match=r"role 'agents' is not available yet.*no_such_module"):
        resolve_roles("agents", MISSING)
    with pytest.raises(ConfigError, match=r"role 'monitor' is not available yet.*serve_actors"):
        resolve_roles("monitor", {"monitor": "humangr.actors.review.layer"})


def test_all_is_the_review_plus_the_pipeline_roles_that_exist() -> None:
    assert resolve_roles("all", MISSING) == (("supervisor", "layers"), {})
    roles, factories = resolve_roles(
        "all", {**MISSING, "monitor": "humangr.actors.pipeline.supervisor"}
    )
    assert roles == ("supervisor", "layers", "monitor")
    assert set(factories) == {"monitor"}
    with pytest.raises(ConfigError, match="unknown role"):
        resolve_roles("janitor", MISSING)


def test_a_taken_metrics_port_is_a_plain_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(
            [
                "serve",
                "--role",
                "supervisor",
                "--nats",
                "nats://127.0.0.1:1",
                "--metrics-port",
                str(port),
            ]
        )
    err = capsys.readouterr().err
    assert code == 3
    assert f"cannot serve /metrics on 127.0.0.1:{port}" in err
    assert "Traceback" not in err


def test_an_error_while_serving_is_a_plain_error(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "serve",
            "--role",
            "supervisor",
            "--nats",
            nats_url,
            "--prefix",
            "bad..prefix",
            "--metrics-port",
            "0",
        ]
    )
    captured = capsys.readouterr()
    assert code == 3
    assert "subject prefix 'bad..prefix'" in captured.err
    assert "Traceback" not in captured.err
    assert "humangr metrics on http://127.0.0.1:" in captured.out
