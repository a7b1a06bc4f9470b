"""The commands Terraform runs (``config_terraform``): those of ``local-exec`` and
``remote-exec`` provisioners and of ``external`` data sources, in HCL and JSON, judged by the
shell rules (``${…}`` read as an unknown shell variable). ``remote-exec`` runs on the new
machine, where running as root and enabling a service at boot are what provisioning does."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from itertools import islice

from .base import Hit
from .config_hosts import flags_hit, host_flags
from .config_terraform_file import MAX_MATCHES, TerraformFile
from .config_text import enclosing
from .tools.shell import judge
from .tools.shell_rules import Context

__all__ = ["command_hits"]

_EXEC_HEADER = re.compile(r"(?i)local-exec|remote-exec|\bdata\s+\"external\"|^\"?external\"?")
_COMMAND = re.compile(
    r"(?s)\bcommand\"?\s*[=:]\s*(?:<<-?\s*\"?(\w{1,40})\"?\n(.{0,20000}?)\n[ \t]*\1\b|"
    r"\"((?:[^\"\\]|\\.){0,8000})\")"
)
_LISTED = re.compile(
    r"\b(inline|program|interpreter)\"?\s*[=:]\s*\[\s*+"
    r"((?:\"[^\"\\]*+(?:\\.[^\"\\]*+)*+\"\s*+,?\s*+)*+)\]"
)
"""A list of strings (possessive: a list left open fails at once, not after retries)."""
_HCL_STRING = re.compile(r"\"([^\"\\]*+(?:\\.[^\"\\]*+)*+)\"")
_INTERPOLATION = re.compile(r"(?<!\$)\$\{([^{}]{0,200})\}|%\{[^{}]{0,200}\}")
_VM = frozenset({"runs as root (sudo)", "enables a service at boot"})
"""Flags that are what provisioning a new machine does (``remote-exec``)."""


def command_hits(f: TerraformFile) -> Iterator[Hit]:
    """The flags of the commands of each added provisioner or external data source."""
    text = f.t.text
    runners = (b for b in f.blocks if _EXEC_HEADER.search(b.header))
    for block in islice(runners, MAX_MATCHES):
        if not f.t.any_added(block.open, block.close):
            continue
        if any(_EXEC_HEADER.search(b.header) for b in enclosing(f.blocks, block.open)):
            continue  # read with the block around it
        body = block.body(text)
        remote = "remote-exec" in block.header
        for offset, command in _block_commands(body)[:16]:
            at = block.open + 1 + offset
            if remote:
                flags = [x for x in host_flags(command, f.allowed) if x.title not in _VM]
            else:
                flags = judge(command, Context(None, f.allowed))
            if flags:
                where = "Run on the new machine (remote-exec)" if remote else "Run by terraform"
                yield flags_hit(flags, f.path, f.t.number(at), where)


def _block_commands(body: str) -> list[tuple[int, str]]:
    """The commands of a provisioner's or external data source's block, with their offsets."""
    out: list[tuple[int, str]] = []
    interpreter: list[str] = []
    lists: list[tuple[int, str, list[str]]] = []
    for m in _LISTED.finditer(body):
        items = [_unescape(s) for s in _HCL_STRING.findall(m.group(2))][:64]
        if m.group(1) == "interpreter":
            interpreter = items
        else:
            lists.append((m.start(), m.group(1), items))
    for m in _COMMAND.finditer(body):
        command = _unescape(m.group(2) if m.group(1) else m.group(3) or "")
        if interpreter:
            command = shlex.join([*interpreter, command])
        out.append((m.start(), command))
    for at, kind, items in lists:
        if kind == "program":
            out.append((at, shlex.join(items)))
        else:
            out.extend((at, item) for item in items)
    return [(at, c) for at, c in out if c.strip()]


def _unescape(text: str) -> str:
    """An HCL or JSON string's value as the shell gets it: escapes resolved, ``${expr}`` as
    an unknown shell variable named after it, template directives left out."""
    text = _INTERPOLATION.sub(
        lambda m: "$TF_" + re.sub(r"\W+", "_", m.group(1))[:40].strip("_") if m.group(1) else "",
        text,
    )
    text = text.replace("$${", "${").replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t")
    return text.replace("\\\\", "\\")
