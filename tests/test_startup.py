"""Fast start-up: each command imports only what it uses (issue 12). Checked on the modules a
fresh interpreter has loaded after running the command, not on timings."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from humangr.cli import main as cli

HEAVY = (
    "anthropic",
    "httpx",
    "bandit",
    "detect_secrets",
    "mcp",
    "starlette",
    "uvicorn",
    "jinja2",
    "prometheus_client",
    "humangr.actors.roles",
    "humangr.engine.llm.prompts",
    "humangr.engine.checks.registry",
    "humangr.actors",
)
PROBE = """
import json, sys
from humangr.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""
UNREACHABLE = "nats://127.0.0.1:1"


def loaded(tmp_path: Path, *args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("submit", "change.diff", "--nats", UNREACHABLE),
        ("watch", "--nats", UNREACHABLE),
        ("report", "act-1", "--nats", UNREACHABLE),
        ("reviews", "--nats", UNREACHABLE),
        ("show", "act-1", "--nats", UNREACHABLE),
        (
            "resolve",
            "act-1",
            "--approve",
            "--reason",
            "read it all; it is fine",
            "--nats",
            UNREACHABLE,
        ),
    ],
    ids=lambda args: args[0],
)
def test_client_commands_load_nothing_heavy(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "change.diff").write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    modules = loaded(tmp_path, *args)
    assert not [name for name in HEAVY if name in modules]


def test_serve_without_an_llm_does_not_import_the_llm_sdk(tmp_path: Path) -> None:
    modules = loaded(tmp_path, "serve", "--llm", "none", "--nats", UNREACHABLE)
    assert "humangr.cli.serve" in modules, "the command ran"
    assert "anthropic" not in modules
    assert "httpx" not in modules


def test_the_command_table_matches_what_each_module_adds() -> None:
    """``humangr --help`` lists commands from a static table; every module must add exactly the
    commands the table gives it, with the same help."""
    parser = cli.build_parser(full=True)
    action = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(action, argparse._SubParsersAction)
    helps = {choice.dest: choice.help for choice in action._choices_actions}
    assert set(helps) == {*cli.COMMANDS, "schema"}
    for name, (_module, help_text) in cli.COMMANDS.items():
        assert helps[name] == help_text, name
