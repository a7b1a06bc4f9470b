"""The layer prompts: jinja2 templates in ``agents/layers/``, built once into one Environment.

A layer request has the prompt-caching layout of docs/design.md#prompt-layout-and-caching: the
shared prefix (reviewer protocol, then the fenced action, ending in the cache breakpoint) is
identical for every layer of one action, so the calls of a review share one cached prefix; the
layer's instructions (and HL7's prior findings) come after it, then the layer's findings of the
local checks, if any. The protocol ends in a breakpoint of its own: it is the same for every
action, so the first call of a new action reads it from the cache while it writes only the
action.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jinja2
import msgspec

from humangr.agents import LAYERS_DIR
from humangr.contracts import ActionContext, Finding, LayerID, LayerVerdict
from humangr.engine.errors import ConfigError

from .base import LLMRequest, Message, SystemBlock
from .fence import fence
from .schema import schema_name, tool_name_for

__all__ = [
    "PROMPT_FORMAT_VERSION",
    "environment",
    "layer_template_name",
    "prompts_digest",
    "render_layer_request",
]

PROMPT_FORMAT_VERSION = "2"
"""Bumped when the way templates are rendered changes (part of ``prompts_digest``)."""
MAX_FINDINGS = 50
MAX_RULE_FINDINGS_SHOWN = 50
"""The local checks' findings shown to a layer: the most severe first, the rest counted."""
MAX_RULE_DESCRIPTION = 1_000
_PROTOCOL = "reviewer_protocol.md.j2"
_ACTION = "action.md.j2"
_TASK = "task.md.j2"
_RULES = "rules.md.j2"


def layer_template_name(layer_id: LayerID) -> str:
    return f"{layer_id.value}.md.j2"


@cache
def environment() -> jinja2.Environment:
    """The one jinja2 Environment of the layer templates (StrictUndefined, no autoescape)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(LAYERS_DIR),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["fence"] = fence
    missing = [
        name
        for name in (_PROTOCOL, _ACTION, _TASK, _RULES, *map(layer_template_name, LayerID))
        if not (LAYERS_DIR / name).is_file()
    ]
    if missing:
        raise ConfigError(f"prompt templates missing from {LAYERS_DIR}: {', '.join(missing)}")
    return env


def _render(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context).strip() + "\n"


@lru_cache(maxsize=64)
def _protocol_block(tool: str, name: str) -> str:
    return _render(_PROTOCOL, tool_name=tool, schema_name=name, max_findings=MAX_FINDINGS)


@lru_cache(maxsize=256)
def _layer_block(layer_id: LayerID, prior: str) -> str:
    return _render(layer_template_name(layer_id), prior_findings=prior)


@lru_cache(maxsize=64)
def _task_block(layer_id: LayerID, tool: str) -> str:
    return _render(_TASK, layer_id=layer_id.value, tool_name=tool)


_ACTION_CACHE: OrderedDict[bytes, str] = OrderedDict()
_ACTION_CACHE_SIZE = 128


def _action_block(action: ActionContext) -> str:
    """The fenced action, rendered once per distinct action (all runs of all layers share it)."""
    key = msgspec.json.encode(action)
    shown = _ACTION_CACHE.get(key)
    if shown is None:
        call, note = _tool_call(action)
        shown = _render(
            _ACTION, action=action, metadata=_metadata(action), tool_call=call, kind_note=note
        )
        _ACTION_CACHE[key] = shown
        if len(_ACTION_CACHE) > _ACTION_CACHE_SIZE:
            _ACTION_CACHE.popitem(last=False)
    return shown


def _metadata(action: ActionContext) -> str:
    data = {
        "agent_id": action.agent_id,
        "action_type": action.action_type,
        "affected_files": action.affected_files,
        "environment": action.environment,
    }
    return msgspec.json.format(msgspec.json.encode(data), indent=2).decode()


def _tool_call(action: ActionContext) -> tuple[str, str]:
    """The tool call as indented JSON with its kind (given or inferred), and how the kind was
    found; empty when the action is not a tool call."""
    if action.tool_call is None:
        return "", ""
    from humangr.engine.checks.tools.view import tool_view

    view = tool_view(action.tool_call)
    call = action.tool_call
    data: dict[str, Any] = {"name": call.name, "kind": view.kind.value}
    if call.workspace:
        data["workspace"] = call.workspace
    data["arguments"] = call.arguments
    if call.truncated:
        data["not_fully_reviewed"] = call.truncated
    note = "; ".join(view.notes) + "."
    return msgspec.json.format(msgspec.json.encode(data), indent=2).decode(), note


def _findings_lines(findings: Iterable[Finding]) -> str:
    lines = []
    for f in findings:
        item = {
            "layer": f.layer_id.value,
            "severity": f.severity.value,
            "title": f.title,
            "description": f.description,
            "suggestion": f.suggestion,
            "file": f.file,
            "line": f.line,
            "argument": f.argument,
            "source": f.source.value,
            "votes": f.votes,
        }
        lines.append(msgspec.json.encode(item).decode())
    return "\n".join(lines)


def _rules_block(findings: Iterable[Finding]) -> str:
    """The layer's local-check findings as fenced data: distinct, most severe first, capped."""
    items: dict[str, dict[str, Any]] = {}
    for f in sorted(findings, key=lambda f: (-f.severity.rank, f.file or "", f.line or 0)):
        description = f.description
        if len(description) > MAX_RULE_DESCRIPTION:
            description = description[:MAX_RULE_DESCRIPTION] + " (truncated)"
        item = {
            "severity": f.severity.value,
            "title": f.title,
            "description": description,
            "file": f.file,
            "line": f.line,
            **({"argument": f.argument} if f.argument else {}),
        }
        items.setdefault(msgspec.json.encode(item).decode(), item)
    if not items:
        return ""
    lines = list(items)
    shown = "\n".join(lines[:MAX_RULE_FINDINGS_SHOWN])
    omitted = max(len(lines) - MAX_RULE_FINDINGS_SHOWN, 0)
    return _render(_RULES, findings=shown, omitted=omitted)


def render_layer_request(
    layer_id: LayerID,
    action: ActionContext,
    *,
    prior_findings: Iterable[Finding] = (),
    rule_findings: Iterable[Finding] = (),
    schema: type[Any] = LayerVerdict,
    tags: Mapping[str, str] | None = None,
    max_tokens: int = 4096,
    temperature: float | None = None,
) -> LLMRequest:
    """The request of one run of ``layer_id`` on ``action``.

    ``prior_findings`` (HL1–HL6's merged findings) are shown to HL7 only. ``rule_findings``
    (the layer's findings of the local checks) are shown as already found, after the layer's
    instructions: in the call-specific part, never in the shared prefix. ``tags`` (e.g.
    ``action_id``, ``run``) are added to ``{"layer": layer_id}``.
    """
    tool, name = tool_name_for(schema), schema_name(schema)
    protocol = _protocol_block(tool, name)
    shown = _action_block(action)
    prior = _findings_lines(prior_findings) if layer_id is LayerID.HL7 else ""
    layer = _layer_block(layer_id, prior)
    task = _task_block(layer_id, tool)
    rules = _rules_block(rule_findings)
    return LLMRequest(
        system=(
            SystemBlock(protocol, cache=True),
            SystemBlock(shown, cache=True),
            SystemBlock(layer),
            *((SystemBlock(rules),) if rules else ()),
        ),
        messages=(Message("user", task),),
        schema=schema,
        max_tokens=max_tokens,
        temperature=temperature,
        tags={**(tags or {}), "layer": layer_id.value},
    )


def prompts_digest(directory: Path | None = None) -> str:
    """sha256 over every layer template's name and source (part of the policy version).

    The digest of the shipped templates (``directory=None``) is computed once per process.
    """
    return _digest(LAYERS_DIR) if directory is None else _digest.__wrapped__(directory)


@cache
def _digest(directory: Path) -> str:
    digest = hashlib.sha256(f"format:{PROMPT_FORMAT_VERSION}\0".encode())
    for path in sorted(directory.glob("*.j2")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
