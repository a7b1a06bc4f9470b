"""Evaluating a policy on one action: the rules in file order, the first that matches decides.

A rule matches when every filter it has matches (``agents``, ``tools``, ``kinds``,
``action_types``) and every key of its ``[rule.match]`` does. How a value matches depends on
the rule's effect, so that a rule never allows more than it names:

* ``allow`` — every part must match: each simple command of a shell command (read by the shell
  checks' reader, never split by a regex; a command it cannot read fully never matches), each
  element of a list, each kind the call could be (as declared and as inferred);
* ``deny`` / ``ask`` / ``review`` — any part may match: a simple command, the whole command
  text, an element, a kind.

A path argument (``path``, ``file_path``… or a JSON pointer ending in one) is normalised against
the call's workspace first (``..``, ``~``, repeated slashes) and matches in its absolute
spelling, its workspace-relative one, and as ``~/…`` in a home (any home for ``deny``/``ask``,
the workspace's own for ``allow``). A missing argument does not match. Pure: no I/O.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import msgspec

from humangr.contracts import ActionContext, ToolCall, ToolKind
from humangr.engine.checks.tools.paths_norm import Place, as_written, inside, resolve, spellings
from humangr.engine.checks.tools.shell_model import MAX_TEXT
from humangr.engine.checks.tools.shell_unwrap import unwrap
from humangr.engine.checks.tools.view import infer_kind

from .match import any_match
from .model import Effect, MatchKey, Policy, PolicyDecision, Rule

__all__ = ["COMMAND_ARGUMENTS", "PATH_ARGUMENTS", "decide"]

COMMAND_ARGUMENTS = frozenset(
    {"command", "cmd", "shell_command", "script", "commands", "argv", "args", "shell"}
)
"""Arguments read as shell commands (whatever kind the call claims)."""
PATH_ARGUMENTS = frozenset(
    {
        "path",
        "file_path",
        "filepath",
        "filename",
        "file",
        "notebook_path",
        "target_file",
        "source",
        "destination",
        "dest",
        "src",
        "dst",
        "target",
        "directory",
        "dir",
        "cwd",
        "old_path",
        "new_path",
    }
)
"""Arguments read as file paths (normalised against the workspace before matching)."""
_MAX_UNITS = 512


def decide(policy: Policy, action: ActionContext) -> PolicyDecision:
    """The effect of ``policy`` on ``action``: the first matching rule's, else the default."""
    facts = _Facts(action)
    call = facts.call
    for rule in policy.rules_for(call.name if call is not None else None):
        if _rule_matches(rule, facts):
            return PolicyDecision(rule.effect, rule.id, rule.reason)
    return PolicyDecision(policy.default)


class _Facts:
    """What the rules read of one action, computed once."""

    def __init__(self, action: ActionContext) -> None:
        self.action = action
        self.call: ToolCall | None = action.tool_call
        self._kinds: frozenset[ToolKind] | None = None
        self.units: dict[tuple[str, bool], list[list[str]]] = {}
        """The units of each match key, by key and mode (a shell command is read once)."""

    @property
    def kinds(self) -> frozenset[ToolKind]:
        """The kinds the call could be: as declared and as inferred from its name and
        arguments (computed on first use)."""
        if self._kinds is None:
            kinds: set[ToolKind] = set()
            if self.call is not None:
                kinds.add(infer_kind(self.call)[0])
                kinds.add(infer_kind(msgspec.structs.replace(self.call, kind=None))[0])
            self._kinds = frozenset(kinds)
        return self._kinds


def _rule_matches(rule: Rule, facts: _Facts) -> bool:
    call = facts.call
    if rule.tool_names is not None and (call is None or call.name not in rule.tool_names):
        return False
    every = rule.effect is Effect.ALLOW
    action = facts.action
    if rule.agents and not any_match(rule.agents, action.agent_id):
        return False
    if rule.action_types and not any_match(rule.action_types, action.action_type):
        return False
    needs_call = bool(rule.tools or rule.kinds or rule.match)
    if call is None:
        return not needs_call
    if rule.tools and not any_match(rule.tools, call.name):
        return False
    if rule.kinds:
        hits = [kind in rule.kinds for kind in facts.kinds]
        if not (all(hits) if every else any(hits)):
            return False
    if every and not _covers(rule, call):
        return False
    return all(_key_matches(key, call, facts, every=every) for key in rule.match)


def _sensitive(name: str) -> bool:
    """An argument that says what runs or which file is touched."""
    lowered = name.lower()
    return (
        lowered in COMMAND_ARGUMENTS
        or lowered in PATH_ARGUMENTS
        or lowered.endswith(("_path", "_file"))
    )


def _covers(rule: Rule, call: ToolCall) -> bool:
    """An ``allow`` rule that names a command or path argument must name every command or
    path argument the call carries (``{"command": "pytest", "script": "curl … | sh"}`` is not
    allowed by a rule on ``command`` alone)."""
    named = {(key.pointer or (key.key,))[0] for key in rule.match}
    if not any(_sensitive(name) for name in named):
        return True
    return all(name in named for name in call.arguments if _sensitive(name))


def _lookup(key: MatchKey, call: ToolCall) -> tuple[str, Any] | None:
    """The argument's name (the last token of a pointer) and its value, or ``None``."""
    tokens = key.pointer
    if tokens is None:
        return (key.key, call.arguments[key.key]) if key.key in call.arguments else None
    value: Any = call.arguments
    for token in tokens:
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return (tokens[-1] if tokens else "", value)


def _units(key: MatchKey, call: ToolCall, *, every: bool) -> list[list[str]] | None:
    found = _lookup(key, call)
    if found is None:
        return None
    name, value = found
    top = (key.pointer or (key.key,))[0].lower()
    lowered = name.lower()
    if top in COMMAND_ARGUMENTS or lowered in COMMAND_ARGUMENTS:
        return _command_units(value, call.workspace, every=every)
    if lowered in PATH_ARGUMENTS or lowered.endswith(("_path", "_file")):
        return _path_units(value, call.workspace, every=every)
    return _scalars(value)


def _key_matches(key: MatchKey, call: ToolCall, facts: _Facts, *, every: bool) -> bool:
    cached = (key.key, every)
    if cached not in facts.units:
        facts.units[cached] = _units(key, call, every=every) or []
    units = facts.units[cached]
    if not units:
        return False
    if every:
        return all(any(any_match(key.globs, s) for s in unit) for unit in units)
    return any(any_match(key.globs, s) for unit in units for s in unit)


def _scalars(value: Any) -> list[list[str]]:
    """One unit per text a value matches as: a string itself, each element of a list, JSON
    otherwise. A list too long to read adds a unit that matches nothing (so no allow)."""
    items = value if isinstance(value, list) else [value]
    units = [
        [item if isinstance(item, str) else json.dumps(item, sort_keys=True, ensure_ascii=False)]
        for item in items[:_MAX_UNITS]
    ]
    if len(items) > _MAX_UNITS:
        units.append([])
    return units


def _command_texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return [shlex.join(str(v) for v in value)]
    if isinstance(value, list):
        return [t for item in value for t in _command_texts(item)]
    return [json.dumps(value, sort_keys=True)]


def _command_units(value: Any, workspace: str | None, *, every: bool) -> list[list[str]]:
    """One unit per simple command that runs (each with its spellings); a text the reader
    cannot read fully, or (for an ``allow``) a command that redirects its output to a file
    outside the workspace, is one unit that matches nothing when every part must match."""
    units: list[list[str]] = []
    for text in _command_texts(value):
        if not every:
            units.append([text])
        program = unwrap(text)
        if len(text) > MAX_TEXT or program.budget.problems or not program.commands:
            units.append([])
            continue
        for cmd in program.commands[:_MAX_UNITS]:
            assigns = [f"{k}={v}" for k, v in cmd.assigns]
            redirects = [f"{r.op} {r.target}" for r in cmd.redirects]
            full = " ".join([*assigns, *cmd.argv, *redirects])
            if every and any(_writes_outside(r.op, r.target, workspace) for r in cmd.redirects):
                units.append([])
                continue
            units.append([full] if every else [full, " ".join(cmd.argv), cmd.text])
        if len(program.commands) > _MAX_UNITS:
            units.append([])
    return units


_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_STREAMS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def _writes_outside(op: str, target: str, workspace: str | None) -> bool:
    """Whether a redirection writes a file outside the workspace (``pytest > ~/.bashrc``);
    with no workspace, any file but a relative one that stays below where it starts."""
    if op == ">&" and (target.isdigit() or target == "-"):
        return False
    if op not in _WRITES and op != ">&":
        return False
    if target in _STREAMS:
        return False
    place = resolve(target, workspace)
    if workspace:
        return not inside(place, resolve(workspace))
    return bool(place.root) or place.escapes > 0


def _path_units(value: Any, workspace: str | None, *, every: bool) -> list[list[str]]:
    """One unit per reading of each path (as the system reads it, and with look-alike letters
    folded), matching as its absolute or its workspace-relative form; a path with a NUL or a
    hidden character matches no ``allow``."""
    base = resolve(workspace) if workspace else None
    units: list[list[str]] = []
    for unit in _scalars(value):
        if not unit:
            units.append([])
            continue
        readings, problems = spellings(unit[0])
        if every and problems:
            units.append([])
        for reading in readings:
            place = resolve(reading.text, workspace)
            forms = [place.show(), as_written(reading.text, workspace)]
            if place.root not in ("~", "") and _own_home(place, base, every=every):
                forms.append("/".join(["~", *place.parts]))
            if base is not None and inside(place, base):
                forms.append("/".join(place.parts[len(base.parts) :]) or ".")
            units.append(list(dict.fromkeys(forms)))
    return units


def _own_home(place: Place, base: Place | None, *, every: bool) -> bool:
    """Whether a path in a named home (``/home/ann/…``) also matches as ``~/…``: for an
    ``allow`` only in the workspace's own home, for the other effects in any home."""
    if not place.home:
        return False
    return not every or (base is not None and base.root == place.root)
