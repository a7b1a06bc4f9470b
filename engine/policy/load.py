"""Reading a policy file (TOML) strictly: anything the engine would not understand is refused.

An unknown key, a bad effect, a bad glob, a duplicate id, a value of the wrong type, a file
over ``MAX_POLICY_BYTES``, more than ``MAX_RULES`` rules or nesting deeper than the schema:
each is one ``ConfigError`` naming the file, the line and the key. ``tomllib`` gives no
positions, so the line is found by locating the ``[[rule]]`` / ``[[suppress]]`` header and the
key below it.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from humangr.contracts import ToolKind
from humangr.contracts.errors import ConfigError

from .match import Glob
from .model import Effect, MatchKey, Policy, Rule, Suppression

__all__ = ["MAX_POLICY_BYTES", "MAX_RULES", "load_policy", "parse_policy"]

MAX_POLICY_BYTES = 1_048_576
MAX_RULES = 10_000
MAX_SUPPRESSIONS = 1_000
MAX_GLOBS = 256
MAX_MATCH_KEYS = 32
MAX_REASON = 2_000
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
_TOP = frozenset({"version", "default", "rule", "suppress"})
_RULE = frozenset({"id", "effect", "agents", "tools", "kinds", "action_types", "reason", "match"})
_SUPPRESS = frozenset({"id", "check", "match", "paths", "reason"})


class _Where:
    """Finds the line of a table or a key in the file's text, for messages."""

    def __init__(self, source: str, text: str) -> None:
        self.source = source
        self.lines = text.splitlines()
        self.headers: dict[str, list[int]] = {"rule": [], "suppress": []}
        for n, line in enumerate(self.lines, start=1):
            m = re.match(r"^\s*\[\[\s*(rule|suppress)\s*\]\]", line)
            if m:
                self.headers[m.group(1)].append(n)

    def line(self, table: str | None, index: int, key: str | None) -> int:
        starts = self.headers.get(table or "", [])
        start = starts[index] if table and index < len(starts) else 1
        nexts = [n for ns in self.headers.values() for n in ns if n > start]
        end = min(nexts, default=len(self.lines) + 1)
        if key is not None:
            head = key.split(".")[0]
            pattern = re.compile(rf"^\s*(?:\[\s*\w+\.)?[\"']?{re.escape(head)}[\"']?\s*[=\]]")
            for n in range(start, end):
                if pattern.match(self.lines[n - 1]):
                    return n
        return start

    def error(
        self, what: str, *, table: str | None = None, index: int = 0, key: str = ""
    ) -> ConfigError:
        line = self.line(table, index, key or None)
        named = f" (key `{key}`)" if key else ""
        return ConfigError(f"policy {self.source}:{line}: {what}{named}")


def load_policy(path: str | Path) -> Policy:
    """Read and check the policy file at ``path``; a ``ConfigError`` says what is wrong."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_POLICY_BYTES:
            raise ConfigError(
                f"policy {file}: {size:,} bytes; the limit is {MAX_POLICY_BYTES:,}: "
                "split it or remove rules"
            )
        data = file.read_bytes()[: MAX_POLICY_BYTES + 1]
    except OSError as exc:
        raise ConfigError(
            f"policy {file}: cannot read it ({exc.strerror}); check the path"
        ) from None
    return parse_policy(data, source=str(file))


def parse_policy(data: bytes, *, source: str = "<policy>") -> Policy:
    """The ``Policy`` in ``data`` (the file's bytes), checked; ``source`` names it in errors."""
    if len(data) > MAX_POLICY_BYTES:
        raise ConfigError(
            f"policy {source}: {len(data):,} bytes; the limit is {MAX_POLICY_BYTES:,}: "
            "split it or remove rules"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"policy {source}: not UTF-8 text; save it as UTF-8") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"policy {source}: not valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError(f"policy {source}: nested too deeply to read") from None
    where = _Where(source, text)
    unknown = sorted(set(raw) - _TOP)
    if unknown:
        raise where.error(f"unknown key; a policy has {', '.join(sorted(_TOP))}", key=unknown[0])
    version = raw.get("version", 1)
    if version != 1 or isinstance(version, bool):
        raise where.error(f"version {version!r} is not supported; write version = 1", key="version")
    default = _effect(raw.get("default", "review"), where, None, 0)
    rules = _list_of_tables(raw.get("rule", []), "rule", MAX_RULES, where)
    suppress = _list_of_tables(raw.get("suppress", []), "suppress", MAX_SUPPRESSIONS, where)
    seen: set[str] = set()
    parsed_rules = tuple(_rule(r, i, where, seen) for i, r in enumerate(rules))
    parsed_suppress = tuple(_suppression(s, i, where, seen) for i, s in enumerate(suppress))
    return Policy(
        default=default,
        rules=parsed_rules,
        suppressions=parsed_suppress,
        source=source,
        digest=hashlib.sha256(data).hexdigest(),
        version=1,
    )


def _list_of_tables(value: Any, name: str, limit: int, where: _Where) -> list[Mapping[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise where.error(f"write each entry as a [[{name}]] table", key=name)
    if len(value) > limit:
        raise where.error(f"{len(value):,} entries; the limit is {limit:,}", key=name)
    return value


def _effect(value: Any, where: _Where, table: str | None, index: int) -> Effect:
    key = "effect" if table else "default"
    try:
        return Effect(value)
    except ValueError:
        raise where.error(
            f"{value!r} is not an effect; use allow, review, ask or deny",
            table=table,
            index=index,
            key=key,
        ) from None


def _ident(entry: Mapping[str, Any], table: str, index: int, where: _Where, seen: set[str]) -> str:
    ident = entry.get("id")
    if not isinstance(ident, str) or not _ID.match(ident):
        raise where.error(
            "every entry needs an id of 1-64 letters, digits, _ . : or -",
            table=table,
            index=index,
            key="id",
        )
    if ident in seen:
        raise where.error(
            f"duplicate id {ident!r}; ids must be unique", table=table, index=index, key="id"
        )
    seen.add(ident)
    return ident


def _text(entry: Mapping[str, Any], key: str, table: str, index: int, where: _Where) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str) or len(value) > MAX_REASON:
        raise where.error(
            f"write a string of at most {MAX_REASON} characters", table=table, index=index, key=key
        )
    return value


def _globs(value: Any, key: str, table: str, index: int, where: _Where) -> tuple[Glob, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(v, str) for v in items):
        raise where.error(
            "write a non-empty list of glob strings", table=table, index=index, key=key
        )
    if len(items) > MAX_GLOBS:
        raise where.error(
            f"{len(items)} globs; the limit is {MAX_GLOBS}", table=table, index=index, key=key
        )
    out = []
    for item in items:
        try:
            out.append(Glob(item))
        except ValueError as exc:
            raise where.error(f"bad glob: {exc}", table=table, index=index, key=key) from None
    return tuple(out)


def _rule(entry: Mapping[str, Any], index: int, where: _Where, seen: set[str]) -> Rule:
    unknown = sorted(set(entry) - _RULE)
    if unknown:
        raise where.error(
            f"unknown key in a rule; a rule has {', '.join(sorted(_RULE))}",
            table="rule",
            index=index,
            key=unknown[0],
        )
    ident = _ident(entry, "rule", index, where, seen)
    if "effect" not in entry:
        raise where.error("every rule needs an effect", table="rule", index=index, key="effect")
    effect = _effect(entry["effect"], where, "rule", index)
    kinds: set[ToolKind] = set()
    listed: Any = entry.get("kinds", [])
    for kind in listed if isinstance(listed, list) else [listed]:
        try:
            kinds.add(ToolKind(str(kind)) if isinstance(kind, str) else ToolKind(""))
        except ValueError:
            allowed = ", ".join(k.value for k in ToolKind)
            raise where.error(
                f"{kind!r} is not a tool kind; use {allowed}",
                table="rule",
                index=index,
                key="kinds",
            ) from None
    match = entry.get("match", {})
    if not isinstance(match, dict) or len(match) > MAX_MATCH_KEYS:
        raise where.error(
            f"write [rule.match] as a table of at most {MAX_MATCH_KEYS} keys",
            table="rule",
            index=index,
            key="match",
        )
    keys = []
    for name, value in match.items():
        if not name or len(name) > 256:
            raise where.error(
                "a match key is 1-256 characters", table="rule", index=index, key="match"
            )
        keys.append(MatchKey(name, _globs(value, f"match.{name}", "rule", index, where)))

    def optional(key: str) -> tuple[Glob, ...]:
        return _globs(entry[key], key, "rule", index, where) if key in entry else ()

    return Rule(
        id=ident,
        effect=effect,
        agents=optional("agents"),
        tools=optional("tools"),
        kinds=frozenset(kinds),
        action_types=optional("action_types"),
        match=tuple(keys),
        reason=_text(entry, "reason", "rule", index, where),
        line=where.line("rule", index, None),
    )


def _suppression(
    entry: Mapping[str, Any], index: int, where: _Where, seen: set[str]
) -> Suppression:
    unknown = sorted(set(entry) - _SUPPRESS)
    if unknown:
        raise where.error(
            f"unknown key in a suppression; it has {', '.join(sorted(_SUPPRESS))}",
            table="suppress",
            index=index,
            key=unknown[0],
        )
    ident = _ident(entry, "suppress", index, where, seen)
    if "check" not in entry or not isinstance(entry["check"], str):
        raise where.error(
            "name the check id (`secret`…)", table="suppress", index=index, key="check"
        )
    (check,) = _globs(entry["check"], "check", "suppress", index, where)
    match = None
    if "match" in entry:
        if not isinstance(entry["match"], str):
            raise where.error("write one glob string", table="suppress", index=index, key="match")
        (match,) = _globs(entry["match"], "match", "suppress", index, where)
    paths = _globs(entry["paths"], "paths", "suppress", index, where) if "paths" in entry else ()
    reason = _text(entry, "reason", "suppress", index, where)
    if not reason.strip():
        raise where.error(
            "say why the finding is not a problem (it is shown in every report)",
            table="suppress",
            index=index,
            key="reason",
        )
    return Suppression(
        id=ident,
        check=check,
        match=match,
        paths=paths,
        reason=reason,
        line=where.line("suppress", index, None),
    )
