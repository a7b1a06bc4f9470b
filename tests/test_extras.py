"""Optional parts without their extra: one clear error naming what to install, exit 3 in the
CLI — never a traceback. The absence is real for the process under test: a finder placed first
on ``sys.meta_path`` makes the extra's modules unimportable, as on an installation without them."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from humangr.extras import EXTRAS

HIDE = textwrap.dedent(
    """
    import importlib.abc, sys

    HIDDEN = {hidden!r}

    class Absent(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in HIDDEN:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None

    sys.meta_path.insert(0, Absent())
    """
)


def _run(hidden: tuple[str, ...], code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", HIDE.format(hidden=hidden) + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        (["mcp", "--llm", "none"], "mcp"),
        (["inbox", "--state", "x.sqlite", "--port", "0"], "inbox"),
    ],
)
def test_a_command_without_its_extra_says_what_to_install(command: list[str], extra: str) -> None:
    done = _run(
        EXTRAS[extra][1],
        f"""
        from humangr.cli.main import main
        raise SystemExit(main({command!r}))
        """,
    )
    assert done.returncode == 3, done.stderr
    assert f"pip install 'humangr[{extra}]'" in done.stderr
    assert "Traceback" not in done.stderr


PARTS = {
    "openai-agents": "humangr.adapters.openai_agents",
    "langchain": "humangr.adapters.langchain",
}
"""The module an extra installs the packages of, where it is not ``humangr.<extra>``."""


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_importing_a_part_without_its_extra_is_one_clear_error(extra: str) -> None:
    done = _run(
        EXTRAS[extra][1],
        f"""
        from humangr.engine.errors import ConfigError
        try:
            import {PARTS.get(extra, f"humangr.{extra}")}
        except ConfigError as exc:
            print(exc)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert f"pip install 'humangr[{extra}]'" in done.stdout


def test_import_humangr_and_connect_import_no_framework() -> None:
    done = _run(
        (),
        """
        import sys
        import anyio
        import humangr, humangr.adapters

        async def main() -> None:
            async with humangr.connect() as hg:
                await hg.review(
                    {"agent_id": "a", "action_type": "note", "action_description": "say hi"}
                )

        anyio.run(main)
        frameworks = ("agents", "langchain", "langchain_core", "langgraph", "openai")
        print(sorted(name for name in frameworks if name in sys.modules))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_with_the_extras_installed_the_parts_import() -> None:
    import humangr.adapters.langchain
    import humangr.adapters.openai_agents
    import humangr.inbox
    import humangr.mcp

    assert humangr.inbox.serve_inbox is not None
    assert humangr.mcp.HumanLayerMCP is not None
    assert humangr.adapters.openai_agents.guard_tools is not None
    assert humangr.adapters.langchain.HumangrMiddleware is not None


def test_metrics_are_served_without_the_inbox_extra() -> None:
    done = _run(
        EXTRAS["inbox"][1],
        """
        import sys, urllib.request
        import anyio
        from prometheus_client import CollectorRegistry, Counter
        from humangr.metrics_server import metrics_server

        async def main() -> None:
            registry = CollectorRegistry()
            Counter("seen", "seen", registry=registry).inc()
            async with metrics_server(registry) as port:
                url = f"http://127.0.0.1:{port}/metrics"
                body = await anyio.to_thread.run_sync(lambda: urllib.request.urlopen(url).read())
                print(body.decode())
            assert "uvicorn" not in sys.modules and "starlette" not in sys.modules

        anyio.run(main)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert "seen_total 1.0" in done.stdout
