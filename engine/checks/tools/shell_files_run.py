"""Files that make commands run without being scripts, cut into units for the shell rules:
``package.json`` scripts, pip requirements' option lines (the ``pip install`` they become),
configuration values that may be command lines (judged for what is surely hostile), and the
literal commands Python code starts through ``os``/``subprocess``."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterator

from .cmake_commands import cmake_commands
from .shell_code import python_commands
from .shell_file_units import MAX_UNITS, Line, Unit, unit
from .source_commands import code_commands

__all__ = [
    "cmake_calls",
    "code_calls",
    "config_values",
    "jenkins_calls",
    "npm_scripts",
    "python_calls",
    "requirements",
]


def npm_scripts(runs: list[list[Line]]) -> list[Unit | None]:
    """Each added ``"name": "command"`` line of a ``package.json``'s ``scripts``: npm runs
    them (``postinstall`` on every install). Other string fields are not commands, but a
    line's value is read only when the ``scripts`` object encloses it."""
    whole = _npm_whole(runs)
    if whole is not None:
        return whole
    units: list[Unit | None] = []
    for run in runs:
        depth = 0
        inside = False
        for n, text, added in run:
            stripped = text.strip()
            if re.match(r'^"scripts"\s*:\s*\{', stripped):
                inside, depth = True, 0
            if inside:
                depth += stripped.count("{") - stripped.count("}")
                entry = _NPM_ENTRY.match(stripped)
                if entry is not None and added:
                    units.append(unit([(n, text, added)], _json_string(entry.group(2))))
                if depth <= 0 and "}" in stripped:
                    inside = False
    return units


def _npm_whole(runs: list[list[Line]]) -> list[Unit | None] | None:
    """A whole ``package.json`` (one run from line 1 that parses, as a written file is): its
    scripts, each at the first added line that holds it; ``None`` when it is not whole."""
    if len(runs) != 1 or runs[0][0][0] != 1:
        return None
    run = runs[0]
    try:
        data = json.loads("\n".join(text for _, text, _ in run))
    except ValueError:
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return []
    units: list[Unit | None] = []
    for name, command in list(scripts.items())[:MAX_UNITS]:
        if not isinstance(command, str):
            continue
        key = json.dumps(str(name))
        line = next((item for item in run if key in item[1]), None)
        line = line or next((item for item in run if item[2]), run[0])
        units.append(unit([line], command))
    return units


_NPM_ENTRY = re.compile(r'^"([^"]{1,200})"\s*:\s*("(?:[^"\\]|\\.){0,4000}")')


def _json_string(literal: str) -> str:
    try:
        value = json.loads(literal)
    except ValueError:
        return literal.strip('"')
    return value if isinstance(value, str) else ""


_TEMPLATE = re.compile(r"\{\{.{0,300}?\}\}|\{%.{0,300}?%\}")
"""A Jinja, Helm or Ansible expression: text filled in later, not a command's words."""
_SETTING = re.compile(r"^\s*[\w.\-\[\]\\]{1,120}\s*[=:]\s*(.{6,2000})$")


def _strings(text: str) -> Iterator[str]:
    """The double-quoted strings of ``text`` (6 to 2,000 characters inside), read once from
    left to right: an unclosed one ends the reading (a regex retried it from every quote)."""
    i = text.find('"')
    while i != -1:
        j = i + 1
        while j < len(text) and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        if j >= len(text):
            return
        if 6 <= j - i - 1 <= 2_000:
            yield text[i + 1 : j]
        i = text.find('"', j + 1)


def config_values(runs: list[list[Line]]) -> list[Unit | None]:
    """The values on the added lines of a configuration file (JSON strings, or what follows
    ``key =`` / ``key:``) that could be command lines: editors, launchers and services run
    some of them (``.vscode`` terminal arguments, ``Exec=``, ``ExecStart=``)."""
    units: list[Unit | None] = []
    for run in runs:
        for n, text, added in run:
            if not added or len(units) >= MAX_UNITS:
                continue
            values = [_json_string(f'"{inner}"') for inner in _strings(text)]
            if not values and (setting := _SETTING.match(text)) is not None:
                values = [setting.group(1).strip().strip("'\"")]
            for value in values[:8]:
                if " " in value.strip():
                    plain = _TEMPLATE.sub("TEMPLATE_EXPR", value)
                    units.append(Unit(plain, n, False, critical_only=True))
    return units


def requirements(runs: list[list[Line]]) -> list[Unit | None]:
    """A pip requirements file's added option and URL lines, read as the ``pip install`` they
    become (``--extra-index-url http://…``, a package from a raw address)."""
    units: list[Unit | None] = []
    for run in runs:
        for n, text, added in run:
            line = text.split(" #", 1)[0].strip()
            if added and line.startswith(("-", "http:", "https:", "ftp:")):
                units.append(Unit(f"pip install {line}", n, False))
    return units


def python_calls(runs: list[list[Line]]) -> list[Unit | None]:
    """The literal commands an added line of Python code starts, at that line."""
    return _calls(runs, python_commands)


def code_calls(runs: list[list[Line]], *, backticks: bool = False) -> list[Unit | None]:
    """The literal commands an added line of a source file in another language starts (and
    its file deletes and credential files, as commands), at about that line."""
    return _calls(runs, lambda code: code_commands(code, backticks=backticks))


_JENKINS_STEP = re.compile(
    r"\b(?:sh|bat|powershell|pwsh)\s*\(?\s*(?:script\s*:\s*)?"
    r"(\'\'\'|\"\"\"|'|\")(.{0,20000}?)\1",
    re.DOTALL,
)
"""A Jenkins pipeline's shell step: ``sh 'make'``, ``sh(script: "…")``, ``sh \'\'\'…\'\'\'``."""


def jenkins_commands(code: str) -> list[tuple[int, str]]:
    """The commands of a Jenkins pipeline's ``sh``, ``bat`` and ``powershell`` steps, with
    their offsets (Groovy's ``${…}`` left as the shell's own expansion)."""
    return [(m.start(), m.group(2)) for m in _JENKINS_STEP.finditer(code[:200_000])][:200]


def jenkins_calls(runs: list[list[Line]]) -> list[Unit | None]:
    """The commands a Jenkins pipeline's steps run, at about their line."""
    return _calls(runs, jenkins_commands)


def cmake_calls(runs: list[list[Line]]) -> list[Unit | None]:
    """The commands a CMake file runs at configure or build time, at about their line."""
    return _calls(runs, cmake_commands)


def _calls(
    runs: list[list[Line]], commands: Callable[[str], list[tuple[int, str]]]
) -> list[Unit | None]:
    units: list[Unit | None] = []
    for run in runs:
        code = "\n".join(text for _, text, _ in run)
        starts = [0]
        for _, text, _ in run[:-1]:
            starts.append(starts[-1] + len(text) + 1)
        for offset, command in commands(code):
            index = max(0, bisect.bisect_right(starts, offset) - 1)
            n, text, added = run[index]
            if added:
                units.append(unit([(n, text, added)], command, problems=False))
    return units
