"""The settings a GraphQL mutation sends, read as a REST body's keys and values.

A REST call says ``PUT …/protection {"allow_force_pushes": true}``; the same change through
GraphQL is ``mutation { updateBranchProtectionRule(input: {allowsForcePushes: true}) }`` or
the same input passed in ``variables``. The business readers know the REST spelling; this
hands them the mutation's literal arguments (``true``, ``false``, ``null``, numbers, strings,
enum values) and its variables under snake-case keys (``allowsForcePushes`` →
``allows_force_pushes``, ``PUBLIC`` → ``public``), so both spellings are read alike.

A mutation field that itself names the role it gives (``addEnterpriseAdmin``,
``promoteToOwner``) is read as that role granted (``role: admin``): the REST form names it in
its body (``{"role": "admin"}``).

Bounded: the first 16,384 characters of a mutation, at most 200 pairs, variables walked to
depth 6 and 200 items a level.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["mutation_inputs", "with_mutation_inputs"]

Pair = tuple[str, Any]

_MUTATION = re.compile(r"^\s*mutation\b")
_QUERY_KEYS = ("query", "mutation", "graphql", "document")
_ARGUMENT = re.compile(
    r"(?<![$\w])([A-Za-z_][A-Za-z0-9_]{0,60})[ \t\r\n]{0,8}:[ \t\r\n]{0,8}"
    r'(true|false|null|-?\d{1,18}(?:\.\d{1,12})?|"(?:[^"\\\n]|\\.){0,400}"|[A-Z][A-Z0-9_]{0,40}\b)'
)
"""``name: literal`` inside a mutation's arguments; a variable's type (``$id: ID!``) is not
one (preceded by ``$``), nor an alias (``x: deleteRepository``: not a literal)."""
_BOUND = re.compile(
    r"(?<![$\w])([A-Za-z_][A-Za-z0-9_]{0,60})[ \t\r\n]{0,8}:[ \t\r\n]{0,8}\$(\w{1,60})"
)
"""``name: $variable``: the variable's value is the argument's."""
_ROLE_FIELD = re.compile(
    r"\b((?:add|grant|promote|invite|make|assign)[A-Za-z]{0,40}?"
    r"(Admin|Administrator|Owner|SuperUser|Superuser)s?)\s*\("
)
_SETTING_FIELD = re.compile(
    r"\bupdate[A-Z][A-Za-z]{0,100}Setting\s*\([^()]{0,400}?\bsettingValue\s*:\s*([A-Z_]{2,20})\b"
)
"""GitHub's ``update…Setting(input: {settingValue: DISABLED})``: the setting's own state."""
_STATES = {"DISABLED": False, "NO_POLICY": False, "ENABLED": True}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_LIMIT = 200


def _snake(key: str) -> str:
    return _CAMEL.sub("_", key).lower()


def _literal(text: str) -> Any:
    if text == "true":
        return True
    if text == "false":
        return False
    if text == "null":
        return None
    if text.startswith('"'):
        return text[1:-1]
    if text[0] == "-" or text[0].isdigit():
        return float(text) if "." in text else int(text)
    return text.lower()  # an enum value: ``PUBLIC``, ``DISABLED``


def _walk(value: Any, depth: int = 0) -> Iterator[Pair]:
    if depth > 6:
        return
    if isinstance(value, dict):
        for key, item in list(value.items())[:_LIMIT]:
            yield _snake(str(key)[:80]), item
            yield from _walk(item, depth + 1)
    elif isinstance(value, list):
        for item in value[:_LIMIT]:
            yield from _walk(item, depth + 1)


def mutation_inputs(body: Any) -> list[Pair]:
    """The literal arguments and variables of a GraphQL mutation in ``body`` (a request's
    JSON body or a tool's arguments: ``{"query": "mutation …", "variables": {…}}``) as
    snake-case (key, value) pairs; empty when it holds no mutation."""
    if not isinstance(body, dict):
        return []
    text = next(
        (v for k in _QUERY_KEYS if isinstance(v := body.get(k), str) and _MUTATION.match(v)),
        None,
    )
    if text is None:
        return []
    text = text[:16384]
    out: list[Pair] = []
    for match in _ARGUMENT.finditer(text):
        out.append((_snake(match.group(1)), _literal(match.group(2))))
        if len(out) >= _LIMIT:
            return out
    variables = body.get("variables")
    if isinstance(variables, dict):  # ``requiresStatusChecks: $off`` with ``{"off": false}``
        for match in _BOUND.finditer(text):
            if (value := variables.get(match.group(2))) is not None or match.group(2) in variables:
                out.append((_snake(match.group(1)), value))
                if len(out) >= _LIMIT:
                    return out
    for match in _SETTING_FIELD.finditer(text):  # ``settingValue: NO_POLICY``: the state
        state = _STATES.get(match.group(1))
        if state is not None:
            out.append(("enabled", state))
    for match in _ROLE_FIELD.finditer(text):
        out.append(("role", match.group(2).lower()))
        if len(out) >= _LIMIT:
            return out
    for key in ("variables", "input"):
        for pair in _walk(body.get(key)):
            out.append(pair)
            if len(out) >= _LIMIT:
                return out
    return out


_BODY_KEYS = ("json", "body", "data", "payload", "json_body", "request_body")


def _body(arguments: dict[str, Any]) -> Any:
    """The GraphQL request in a tool's arguments: the arguments themselves, or the request
    body they carry (an object or JSON text)."""
    if any(isinstance(arguments.get(k), str) for k in _QUERY_KEYS):
        return arguments
    for key in _BODY_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and "mutation" in value[:256] and len(value) < 1_000_000:
            try:
                value = json.loads(value)
            except ValueError:
                continue
        if isinstance(value, dict):
            return value
    return None


def with_mutation_inputs(arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool's arguments with a GraphQL mutation's inputs added under ``graphql_input``
    (snake-case keys), for the readers that walk arguments; the same arguments when the call
    sends no mutation."""
    found = mutation_inputs(_body(arguments))
    if not found:
        return arguments
    return {**arguments, "graphql_input": dict(found)}
