"""What several commands share: choosing the LLM, reading actions (``inputs``), connecting to
NATS."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from anyio.abc import Process

from humangr.contracts import DEFAULT_PREFIX, Subjects
from humangr.engine.bus import Bus
from humangr.engine.errors import ConfigError

if TYPE_CHECKING:
    from humangr.engine.llm import LLMClient

from .inputs import load_actions

__all__ = [
    "DEFAULT_ROOT",
    "NATS_HELP",
    "PROJECTS_ROOT_ENV",
    "connect_nats",
    "engine_where",
    "llm_description",
    "llm_spec",
    "load_actions",
    "make_llm",
    "nats_options",
    "projects_root",
    "runner",
    "seconds",
    "wait_serving",
]

DEFAULT_ROOT = "projects"
PROJECTS_ROOT_ENV = "HUMANGR_PROJECTS_ROOT"
_FORMER_ROOT_ENV = "HUMANGR_PROJECT_ROOT"


def seconds(text: str) -> float:
    """A ``--timeout``: a finite number of seconds above zero."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def engine_where(
    parser: argparse.ArgumentParser,
    *,
    state_help: str,
    nats_help: str,
    timeout_help: str | None = None,
) -> None:
    """``--nats URL`` or ``--state PATH`` (one of them) and ``--prefix``: where a reviewer's
    command finds the engine; with ``timeout_help`` also ``--timeout`` (default 10 s)."""
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--nats", metavar="URL", help=nats_help)
    target.add_argument("--state", metavar="PATH", help=state_help)
    parser.add_argument(
        "--prefix", default=DEFAULT_PREFIX, help="subject prefix (default %(default)s)"
    )
    if timeout_help is not None:
        parser.add_argument("--timeout", type=seconds, default=10.0, help=timeout_help)


def projects_root(given: str | None) -> Path:
    """The pipeline's projects root: ``--root`` as given, else ``$HUMANGR_PROJECTS_ROOT``, else
    ``./projects``; the same for ``humangr pipeline`` and ``humangr serve``."""
    if given:
        return Path(given)
    if os.environ.get(_FORMER_ROOT_ENV) and not os.environ.get(PROJECTS_ROOT_ENV):
        raise ConfigError(
            f"${_FORMER_ROOT_ENV} was renamed ${PROJECTS_ROOT_ENV}; set that one (or --root)"
        )
    return Path(os.environ.get(PROJECTS_ROOT_ENV) or DEFAULT_ROOT)


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
        from humangr.engine.llm import AnthropicLLM

        return AnthropicLLM()
    if spec.startswith("scripted:"):
        from humangr.engine.llm import ScriptedLLM

        path = Path(spec.removeprefix("scripted:"))
        try:
            return ScriptedLLM.from_file(path)
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: the LLM script is not UTF-8 text") from None
    raise ConfigError(f"unknown --llm {spec!r}; use none, anthropic or scripted:FILE")


def llm_description(llm: LLMClient | None) -> str:
    if llm is None:
        return "no LLM configured: local checks only"
    return f"LLM: {type(llm).__name__}"


async def connect_nats(
    url: str | Sequence[str],
    *,
    jetstream: bool = False,
    prefix: str = DEFAULT_PREFIX,
    ack_wait: float | None = None,
    replicas: int | None = None,
    update_streams: bool = False,
) -> Bus:
    """Connect to NATS at ``url`` (one URL or a cluster's seed URLs, comma-separated: any that
    answers) with credentials from the environment (``HUMANGR_NATS_USER``,
    ``HUMANGR_NATS_PASSWORD``, ``HUMANGR_NATS_CREDS``; replies to ``HUMANGR_INBOX_PREFIX``,
    default ``_INBOX_<user>``); ``ack_wait`` (seconds) is how long a
    durable message may stay unacknowledged before JetStream delivers it again; ``replicas``
    the streams' replica count (an existing stream with another is refused unless
    ``update_streams``)."""
    from humangr.client.connection import open_nats
    from humangr.engine.bus.nats import JetStreamConfig

    settings = JetStreamConfig(update_streams=update_streams)
    if ack_wait is not None:
        settings = dataclasses.replace(settings, ack_wait=ack_wait)
    if replicas is not None:
        settings = dataclasses.replace(settings, replicas=replicas)
    return await open_nats(
        url, subjects=Subjects(prefix), jetstream=settings if jetstream else None
    )


def nats_options(parser: argparse.ArgumentParser) -> None:
    """``--nats URL[,URL...]`` (required) and ``--prefix``."""
    parser.add_argument("--nats", required=True, help=NATS_HELP)
    parser.add_argument(
        "--prefix", default=DEFAULT_PREFIX, help="subject prefix (default %(default)s)"
    )


NATS_HELP = (
    "NATS URL, e.g. nats://127.0.0.1:4222, or a cluster's seed URLs separated by commas "
    "(nats://a:4222,nats://b:4222): any that answers is used"
)


def runner(
    func: Callable[[argparse.Namespace], Awaitable[int]],
) -> Callable[[argparse.Namespace], int]:
    """A command function that runs the async ``func`` in a new event loop."""

    def run(args: argparse.Namespace) -> int:
        return anyio.run(func, args)

    return run


async def wait_serving(process: Process, timeout: float, what: str) -> None:
    """Wait for a ``humangr serve`` process to say it serves; ``ConfigError`` with the end of
    what it printed if it does not within ``timeout`` seconds."""
    assert process.stdout is not None
    banner = b""
    with anyio.move_on_after(timeout):
        async for chunk in process.stdout:
            banner += chunk
            if b"humangr serving" in banner:
                return
    raise ConfigError(f"the bench's {what} did not start: {banner[-500:]!r}")
