"""Prompt assets shipped as package data: the layer templates and the agents' prompts.

Agent assets live in ``agents/<agent>/<variant>/`` (``SYSTEM_PROMPT.md`` and ``skills.md``),
next to the shared ``agents/AGENT_PROTOCOL.md``. Variant resolution: a variant must exist for
at least one agent (otherwise ``ConfigError``, so a typo never passes silently); an agent that
has no folder for a known variant uses its ``generic`` folder (a ``python`` project still gets
the generic CTO). ``AgentAssets.variant`` names the folder actually used.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from humangr.contracts.errors import ConfigError

__all__ = [
    "AGENT_PROTOCOL_PATH",
    "ASSETS_DIR",
    "GENERIC",
    "LAYERS_DIR",
    "PROMPT_AGENTS",
    "AgentAssets",
    "GoldenExample",
    "agent_variants",
    "known_variants",
    "load_agent_assets",
]

ASSETS_DIR: Final = Path(__file__).resolve().parent
"""The directory of the prompt assets (this package)."""

LAYERS_DIR: Final = ASSETS_DIR / "layers"
"""The jinja2 templates of the seven reviewer layers and their shared protocol."""

AGENT_PROTOCOL_PATH: Final = ASSETS_DIR / "AGENT_PROTOCOL.md"
"""The protocol every pipeline agent shares (first part of every agent prompt)."""

PROMPT_AGENTS: Final = ("cto", "engineer", "pm", "dev", "qa")
"""The LLM agents with prompt assets (the Monitor is code and has none)."""

GENERIC: Final = "generic"

_FILES = ("SYSTEM_PROMPT.md", "skills.md")
_GOLDEN = re.compile(
    r"^## Golden example\s*$.*?"
    r"^```json\n(?P<request>.*?)^```\s*$.*?"
    r"^```json\n(?P<response>.*?)^```",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class GoldenExample:
    """The example request (a ``MessageEnvelope``) and reply (a ``ResponseEnvelope``) as JSON."""

    request: str
    response: str


@dataclass(frozen=True, slots=True)
class AgentAssets:
    """The full text of one agent's prompt parts, in bundle order."""

    agent: str
    variant: str
    requested_variant: str
    protocol: str
    system_prompt: str
    skills: str

    @property
    def digest(self) -> str:
        """sha256 of the three texts: changes whenever the prompt does."""
        h = hashlib.sha256()
        for part in (self.protocol, self.system_prompt, self.skills):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        return h.hexdigest()

    def golden_example(self) -> GoldenExample:
        """The golden request/response of ``SYSTEM_PROMPT.md`` (``## Golden example`` section)."""
        match = _GOLDEN.search(self.system_prompt)
        if match is None:
            raise ConfigError(
                f"agents/{self.agent}/{self.variant}/SYSTEM_PROMPT.md has no '## Golden example' "
                "section with a ```json request and a ```json response"
            )
        return GoldenExample(request=match["request"], response=match["response"])


def _check_agent(agent: str) -> str:
    name = str(agent)
    if name not in PROMPT_AGENTS:
        raise ConfigError(
            f"no prompt assets for agent {name!r}; agents with prompts: {', '.join(PROMPT_AGENTS)}"
        )
    return name


@cache
def agent_variants(agent: str) -> tuple[str, ...]:
    """The variant folders of ``agent`` that hold both prompt files, sorted."""
    folder = ASSETS_DIR / _check_agent(agent)
    if not folder.is_dir():
        return ()
    return tuple(sorted(d.name for d in folder.iterdir() if all((d / f).is_file() for f in _FILES)))


@cache
def known_variants() -> tuple[str, ...]:
    """Every variant that exists for at least one agent."""
    return tuple(sorted({v for a in PROMPT_AGENTS for v in agent_variants(a)}))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read prompt asset {path}: {exc.strerror or exc}") from None


@cache
def load_agent_assets(agent: str, variant: str = GENERIC) -> AgentAssets:
    """The protocol, system prompt and skills of ``agent`` in ``variant`` (see the module doc).

    Raises ``ConfigError`` for an agent without prompts, an unknown variant, or missing files.
    """
    name = _check_agent(agent)
    requested = str(variant)
    if requested not in known_variants():
        raise ConfigError(
            f"unknown prompt variant {requested!r}; known variants: "
            f"{', '.join(known_variants()) or 'none'}"
        )
    used = requested if requested in agent_variants(name) else GENERIC
    if used not in agent_variants(name):
        raise ConfigError(f"agents/{name}/{GENERIC}/ is missing SYSTEM_PROMPT.md or skills.md")
    folder = ASSETS_DIR / name / used
    return AgentAssets(
        agent=name,
        variant=used,
        requested_variant=requested,
        protocol=_read(AGENT_PROTOCOL_PATH),
        system_prompt=_read(folder / "SYSTEM_PROMPT.md"),
        skills=_read(folder / "skills.md"),
    )
