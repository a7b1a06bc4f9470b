"""Tool-call cases of a labelled corpus: one agent tool call, its label and the outcome the gate
must give it with the local checks alone (the format is in ``corpus``'s docstring)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from humangr.contracts import ActionContext, Outcome, ToolCall, ToolKind
from humangr.contracts.codec import canonical_json, decode
from humangr.contracts.review import tool_call_problem
from humangr.engine.errors import ConfigError, ContractError

from .base import CheckOptions

__all__ = [
    "DANGEROUS",
    "EVERYDAY",
    "TOOL_FIELDS",
    "ToolCase",
    "label_error",
    "optional_text",
    "tool_case",
]

DANGEROUS = "dangerous"
EVERYDAY = "everyday"
TOOL_FIELDS = ("tool", "label", "expect", "category", "why", "options", "description", "note")
_REQUIRED = ("tool", "label", "expect", "category", "why")
_CATEGORY = re.compile(r"^([a-z_]+)/([a-z0-9][a-z0-9-]{0,63})$")
_KINDS = {k.value: k for k in ToolKind}
_OUTCOMES = {o.value: o for o in Outcome}
_OPTION_KEYS = ("allowed_hosts", "allowed_email_domains")
_MAX_WHY = 300
_MAX_OPTION_VALUES = 64
_NO_TRUST = CheckOptions()
"""Judged as the default deployment judges: no host or domain is allowed."""


@dataclass(frozen=True, slots=True)
class ToolCase:
    """One labelled tool call: what the agent calls, whether it is dangerous or everyday, and
    the outcome the gate must give it with the local checks only."""

    line: int
    """Its line in ``labels.jsonl``."""
    call: ToolCall
    label: str
    expect: Outcome
    category: str
    """``<kind>/<topic>``, e.g. ``shell/reverse-shell``; the kind is a ``ToolKind`` value."""
    why: str
    options: CheckOptions = field(default=_NO_TRUST, compare=False)
    action: ActionContext | None = field(default=None, compare=False, repr=False)

    @property
    def dangerous(self) -> bool:
        return self.label == DANGEROUS

    @property
    def kind(self) -> ToolKind:
        """The kind the corpus files the case under (the first part of its category)."""
        return _KINDS[self.category.split("/", 1)[0]]

    def identity(self) -> bytes:
        """What makes two cases the same case: the call and the options it is judged under."""
        return canonical_json(
            {
                "call": self.call,
                "hosts": sorted(self.options.allowed_hosts),
                "domains": sorted(self.options.allowed_email_domains),
            }
        )


def label_error(where: str, problem: str) -> ConfigError:
    """The error of a bad line of a labels file: where, then what is wrong."""
    return ConfigError(f"{where}: {problem}")


def optional_text(obj: dict[str, object], key: str, where: str, limit: int) -> str | None:
    """``obj[key]``: absent, or a string of at most ``limit`` characters (else an error)."""
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise label_error(where, f"'{key}' must be a string of at most {limit} characters")
    return value


def _call(value: object, where: str) -> ToolCall:
    if not isinstance(value, dict):
        raise label_error(
            where, "'tool' must be an object: name, arguments, and optionally kind, workspace"
        )
    try:
        call = decode(json.dumps(value), ToolCall)
    except ContractError as exc:
        raise label_error(where, f"'tool' is not a valid tool call: {exc}") from None
    problem = tool_call_problem(call)
    if problem is not None:
        raise label_error(where, f"'tool' cannot be reviewed: {problem}")
    return call


def _options(value: object, where: str) -> CheckOptions:
    if value is None:
        return _NO_TRUST
    if not isinstance(value, dict) or set(value) - set(_OPTION_KEYS):
        raise label_error(
            where, f"'options' must be an object with {' and/or '.join(_OPTION_KEYS)}"
        )
    out: dict[str, frozenset[str]] = {}
    for key in _OPTION_KEYS:
        items = value.get(key, [])
        ok = isinstance(items, list) and len(items) <= _MAX_OPTION_VALUES
        if not ok or not all(isinstance(x, str) and 0 < len(x) <= 253 for x in items):
            raise label_error(where, f"'options.{key}' must be a list of host or domain names")
        out[key] = frozenset(items)
    return CheckOptions(
        allowed_hosts=out["allowed_hosts"], allowed_email_domains=out["allowed_email_domains"]
    )


def _category(value: object, call: ToolCall, where: str) -> str:
    match = _CATEGORY.match(value) if isinstance(value, str) else None
    if match is None or match.group(1) not in _KINDS:
        kinds = ", ".join(_KINDS)
        raise label_error(where, f"'category' must be '<kind>/<topic>' with a kind among {kinds}")
    if call.kind is not None and call.kind.value != match.group(1):
        raise label_error(
            where,
            f"'category' files the case under {match.group(1)!r} but the call "
            f"says kind {call.kind.value!r}",
        )
    return match.group(0)


def _why(value: object, where: str) -> str:
    ok = isinstance(value, str) and value.strip() and "\n" not in value
    if not ok or len(str(value)) > _MAX_WHY:
        raise label_error(
            where, f"'why' must be one non-empty line of at most {_MAX_WHY} characters"
        )
    return str(value).strip()


def _label_and_expect(obj: dict[str, object], where: str) -> tuple[str, Outcome]:
    label, expect = obj["label"], obj["expect"]
    if label not in (DANGEROUS, EVERYDAY):
        raise label_error(where, f"a tool call's 'label' must be {DANGEROUS!r} or {EVERYDAY!r}")
    outcome = _OUTCOMES.get(expect) if isinstance(expect, str) else None
    if outcome is None:
        raise label_error(where, f"'expect' must be one of {', '.join(_OUTCOMES)}")
    if label == EVERYDAY and outcome is not Outcome.APPROVED:
        raise label_error(where, "an everyday call must be expected 'approved'")
    if label == DANGEROUS and outcome is Outcome.APPROVED:
        raise label_error(where, "a dangerous call must be expected 'rejected' or 'needs_review'")
    return str(label), outcome


def tool_case(obj: dict[str, object], where: str, line: int) -> ToolCase:
    """The tool-call case of one parsed line of ``labels.jsonl``; ``ConfigError`` names the
    first problem, prefixed with ``where``."""
    unknown = sorted(set(obj) - set(TOOL_FIELDS))
    if unknown:
        raise label_error(
            where, f"unknown field {unknown[0]!r} (a tool-call case has: {', '.join(TOOL_FIELDS)})"
        )
    for key in _REQUIRED:
        if key not in obj:
            raise label_error(where, f"missing field {key!r}")
    call = _call(obj["tool"], where)
    label, expect = _label_and_expect(obj, where)
    category = _category(obj["category"], call, where)
    why = _why(obj["why"], where)
    options = _options(obj.get("options"), where)
    desc = optional_text(obj, "description", where, 2_000) or f"Call the tool {call.name}."
    optional_text(obj, "note", where, 4_000)
    action = ActionContext(
        agent_id="checks-eval",
        action_type="tool_call",
        action_description=desc,
        tool_call=call,
    )
    return ToolCase(line, call, label, expect, category, why, options, action)
