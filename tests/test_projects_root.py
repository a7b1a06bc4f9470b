"""One environment variable per setting: the pipeline's projects root is ``--root``, else
``$HUMANGR_PROJECTS_ROOT``, else ``./projects``, for ``humangr pipeline`` and ``humangr serve``
alike; the former ``$HUMANGR_PROJECT_ROOT`` is refused by name, never silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from humangr.cli.common import projects_root
from humangr.cli.main import build_parser
from humangr.engine.errors import ConfigError


def test_the_option_wins_then_the_variable_then_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HUMANGR_PROJECTS_ROOT", raising=False)
    monkeypatch.delenv("HUMANGR_PROJECT_ROOT", raising=False)
    assert projects_root(None) == Path("projects")
    monkeypatch.setenv("HUMANGR_PROJECTS_ROOT", "/srv/projects")
    assert projects_root(None) == Path("/srv/projects")
    assert projects_root("here") == Path("here")


def test_serve_and_pipeline_leave_the_root_to_the_same_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HUMANGR_PROJECTS_ROOT", "/srv/projects")
    serve = build_parser(["serve"]).parse_args(["serve", "--nats", "nats://127.0.0.1:4222"])
    run = build_parser(["pipeline"]).parse_args(
        ["pipeline", "run", "--spec-file", "spec.md", "--project", "demo"]
    )
    assert projects_root(serve.root) == projects_root(run.root) == Path("/srv/projects")


def test_the_former_name_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HUMANGR_PROJECTS_ROOT", raising=False)
    monkeypatch.setenv("HUMANGR_PROJECT_ROOT", "/old")
    with pytest.raises(ConfigError, match=r"HUMANGR_PROJECT_ROOT was renamed .*PROJECTS_ROOT"):
        projects_root(None)
