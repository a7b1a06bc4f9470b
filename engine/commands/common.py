"""What several commands share: choosing the LLM, reading actions, connecting to NATS."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from humangr.contracts import ActionContext, Subjects, decode
from humangr.engine.bus import Bus
from humangr.engine.errors import ConfigError, EngineError
from humangr.engine.llm import AnthropicLLM, LLMClient, ScriptedLLM

__all__ = ["connect_nats", "llm_description", "llm_spec", "load_actions", "make_llm"]

_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.MULTILINE)


def llm_spec(spec: str | None) -> str:
    """The ``--llm`` in force: as given, else ``anthropic`` when a key is set, else ``none``."""
    if spec is None:
        return "anthropic" if os.environ.get("ANTHROPIC_API_KEY") else "none"
    return spec


def make_llm(spec: str | None) -> LLMClient | None:
    """``anthropic`` | ``scripted:FILE`` | ``none``; by default anthropic when a key is set."""
    spec = llm_spec(spec)
    if spec == "none":
        return None
    if spec == "anthropic":
        return AnthropicLLM()
    if spec.startswith("scripted:"):
        return ScriptedLLM.from_file(Path(spec.removeprefix("scripted:")))
    raise ConfigError(f"unknown --llm {spec!r}; use none, anthropic or scripted:FILE")


def llm_description(llm: LLMClient | None) -> str:
    if llm is None:
        return "no LLM configured: local checks only"
    return f"LLM: {type(llm).__name__}"


def _action_from_diff(text: str, name: str) -> ActionContext:
    files = [f for f in _DIFF_FILE.findall(text) if f != "/dev/null"]
    return ActionContext(
        agent_id="cli",
        action_type="code_diff",
        action_description=f"Apply the change in {name}.",
        code_diff=text,
        affected_files=files[:1000],
    )


def load_actions(sources: list[str]) -> list[tuple[str, ActionContext]]:
    """Actions from files (``.json`` = an ActionContext, anything else = a diff), directories
    (their files in name order) and ``-`` (a diff on standard input)."""
    actions: list[tuple[str, ActionContext]] = []
    for source in sources:
        if source == "-":
            actions.append(("<stdin>", _action_from_diff(sys.stdin.read(), "<stdin>")))
            continue
        path = Path(source)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise ConfigError(f"{source}: the directory holds no actions")
        elif path.is_file():
            files = [path]
        else:
            raise ConfigError(f"{source}: no such file or directory")
        for file in files:
            if file.suffix == ".json":
                actions.append((str(file), decode(file.read_bytes(), ActionContext)))
            else:
                actions.append((str(file), _action_from_diff(file.read_text(), file.name)))
    return actions


async def connect_nats(url: str, *, jetstream: bool = False, prefix: str = "hl") -> Bus:
    """Connect to NATS with credentials from the environment (``HUMANGR_NATS_USER``,
    ``HUMANGR_NATS_PASSWORD``, ``HUMANGR_NATS_CREDS``)."""
    from humangr.engine.bus.nats import JetStreamConfig, NatsBus

    try:
        return await NatsBus.connect(
            url,
            user=os.environ.get("HUMANGR_NATS_USER"),
            password=os.environ.get("HUMANGR_NATS_PASSWORD"),
            creds_file=os.environ.get("HUMANGR_NATS_CREDS"),
            jetstream=JetStreamConfig() if jetstream else None,
            subjects=Subjects(prefix),
        )
    except EngineError:
        raise
    except Exception as exc:
        raise EngineError(f"cannot connect to NATS at {url}: {exc}") from exc
