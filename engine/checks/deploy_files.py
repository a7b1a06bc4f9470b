"""Deployment files, read by ``source_code``: compose files, Kubernetes manifests and Helm
templates, Ansible playbooks and roles — what they make run and what they give away.

Public API (pure: no I/O, never raises):

- ``deploy_path(path) -> bool``: a file read here by its path alone (a compose file, a Helm
  template, ``*.tpl`` under ``templates/``, a YAML file of an Ansible layout); any other
  ``.yaml``/``.yml`` file is read too when what it holds is one of these.
- ``deploy_hits(file, path, *, allowed_hosts=frozenset()) -> list[Hit]``: the findings of
  one file of a change, each bound to its line; ``MAX_HITS`` at most.

The commands (``deploy_commands``, ``deploy_ansible``) are judged by the shell rules exactly
as the other readers do: a container's as a Dockerfile's ``CMD`` (inside its image: the
image's own accounts and system files are its business), an Ansible task's as a systemd
unit's or crontab's (``config_hosts``: on the host, the folder it works in standing for the
workspace). What the shell checks' reading of configuration values (``tools.shell_files``)
reports on a command's lines is not reported again; the SQL a database client is given runs
when the job does, so what would be critical when run needs a human, as ``source_code`` has
it for the SQL in the file's strings. What the files give away is ``deploy_containers``' and
``deploy_ansible``'s; how their YAML and template text are read, ``deploy_yaml``'s. A file
too large for the reader, or not YAML it follows, is a finding of its own when its path
makes it a deployment file.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .autoexec import is_ci_file
from .base import Hit
from .config_hosts import MAX_COMMANDS, flags_hit, host_flags
from .deploy_ansible import ansible_commands, ansible_findings
from .deploy_commands import compose_commands, kube_commands
from .deploy_containers import compose_findings, kube_findings
from .deploy_yaml import Command, Finding, Window, windows
from .diff import FileDiff
from .tools.shell import HOST_ONLY, judge
from .tools.shell_files_run import config_values
from .tools.shell_rules import Context, Flag
from .tools.shell_rules_sql import client_sql
from .tools.shell_unwrap import unwrap

__all__ = ["MAX_HITS", "deploy_hits", "deploy_path"]

MAX_HITS = 50
"""Hits of one file at most (the most severe are kept)."""
_MAX_COMMAND = 8_000
_MAX_LINE = 4_000
"""Longer lines are not looked for in the shell checks' findings (their reading of values is
slow on them; a command on one may be reported twice)."""
_SUGGESTION = "Remove it, or have a human confirm that the deployment must do it."
_COMPOSE_NAME = re.compile(r"^(?:docker-compose[\w.-]*|compose(?:\.[\w.-]+)?)\.ya?ml$")
_COMPOSE_FOLDERS = frozenset({"compose", "docker-compose"})
_KUBE_FOLDERS = frozenset({"templates", "k8s", "kubernetes", "kube", "manifests", "charts"})
_ANSIBLE_FOLDERS = frozenset({"roles", "playbooks", "tasks", "handlers"})
_ANSIBLE_NAME = re.compile(r"^(?:playbook[\w.-]*|site)\.ya?ml$")


def deploy_path(path: str) -> bool:
    """A file ``deploy_files`` reads by its path alone: a compose file, a Helm template
    (``templates/*.yaml``, ``*.tpl``), or a YAML file of an Ansible layout."""
    low = path.replace("\\", "/").lower()
    name = posixpath.basename(low)
    folders = low.split("/")[:-1]
    if name.endswith(".tpl"):
        return "templates" in folders
    return name.endswith((".yaml", ".yml")) and _path_kind(name, folders) is not None


def _path_kind(name: str, folders: list[str]) -> str | None:
    if _COMPOSE_NAME.match(name) or _COMPOSE_FOLDERS.intersection(folders):
        return "compose"
    if _KUBE_FOLDERS.intersection(folders):
        return "kubernetes"
    if _ANSIBLE_FOLDERS.intersection(folders) or _ANSIBLE_NAME.match(name):
        return "ansible"
    return None


def deploy_kind(path: str, found: list[Window]) -> str | None:
    """``compose``, ``kubernetes`` or ``ansible``: by its name, its folders, or what its
    documents hold (a root with ``apiVersion`` and ``kind``, top-level ``services`` of
    images, plays with ``hosts``); None for any other YAML, and for CI files (the CI checks
    read those)."""
    low = path.replace("\\", "/").lower()
    if is_ci_file(low):
        return None
    name = posixpath.basename(low)
    if _COMPOSE_NAME.match(name):
        return "compose"
    for w in found:
        keys = {r.key for r in w.tree.roots}
        if {"apiVersion", "kind"} <= keys:
            return "kubernetes"
    by_path = _path_kind(name, low.split("/")[:-1])
    if by_path is not None or not found:
        return by_path
    for w in found:
        roots = w.tree.roots
        services = next((r for r in roots if r.key == "services"), None)
        if services is not None and any(
            s.get("image") or s.get("build") for s in services.children
        ):
            return "compose"
        if roots and all(r.key is not None and (r.get("image") or r.get("build")) for r in roots):
            return "compose"  # an edit of services, their `services:` line not shown
        if roots and all(r.key is None for r in roots) and any(r.get("hosts") for r in roots):
            return "ansible"
    return None


def deploy_hits(
    file: FileDiff, path: str, *, allowed_hosts: frozenset[str] = frozenset()
) -> list[Hit]:
    """The findings of one deployment file of a change (see the module's docstring)."""
    if file.binary or file.deleted or not file.added:
        return []
    try:
        hits = _read(file, path, allowed_hosts)
    except Exception as exc:  # a reader's bug must not pass the file as reviewed
        hits = [_unread(path, file, f"the reader failed ({type(exc).__name__})")]
    kept = sorted(hits, key=lambda h: h.severity, reverse=True)[:MAX_HITS]
    return sorted(kept, key=lambda h: h.line or 0)


def _unread(path: str, file: FileDiff, why: str) -> Hit:
    return Hit(
        Severity.HIGH,
        "could not read this deployment file",
        f"The file was not read ({why}): what it runs and what it gives its containers or "
        "hosts were not checked.",
        "Split it, or have a human review it.",
        file=path,
        line=file.added[0].number,
    )


def _read(file: FileDiff, path: str, allowed_hosts: frozenset[str]) -> list[Hit]:
    found = windows(file)
    if isinstance(found, str):
        return [_unread(path, file, found)] if deploy_kind(path, []) is not None else []
    kind = deploy_kind(path, found)
    if kind is None:
        return []
    findings: list[Finding] = []
    commands: list[Command] = []
    for w in found:
        findings.extend(_findings(kind, w))
        commands.extend(_commands(kind, w))
    hits = [Hit(f.severity, f.title, f.why, _SUGGESTION, file=path, line=f.line) for f in findings]
    return hits + _judged(file, path, commands, allowed_hosts)


def _findings(kind: str, w: Window) -> Iterator[Finding]:
    if kind == "compose":
        return compose_findings(w)
    if kind == "kubernetes":
        return kube_findings(w)
    return ansible_findings(w)


def _commands(kind: str, w: Window) -> Iterator[Command]:
    if kind == "compose":
        return compose_commands(w)
    if kind == "kubernetes":
        return kube_commands(w)
    return ansible_commands(w)


def _judged(
    file: FileDiff, path: str, commands: list[Command], allowed_hosts: frozenset[str]
) -> list[Hit]:
    """Each command's flags, but those the shell checks report for its lines already."""
    hits: list[Hit] = []
    added = {ln.number: ln.text for ln in file.added}
    config = path.lower().endswith((".yaml", ".yml"))  # the shell checks read their values
    for n, command in enumerate(commands):
        if n >= MAX_COMMANDS:
            hits.append(
                Hit(
                    Severity.HIGH,
                    "too many commands to read",
                    f"More than {MAX_COMMANDS} commands: the rest were not checked.",
                    "Split the file, or have a human review it.",
                    file=path,
                    line=command.line,
                )
            )
            break
        flags = _flags(command, allowed_hosts)
        if flags and config:
            reported = _shell_titles(command, added, allowed_hosts)
            flags = [f for f in flags if f.title not in reported]
        if flags:
            hits.append(flags_hit(flags, path, command.line, command.where))
    return hits


def _flags(command: Command, allowed_hosts: frozenset[str]) -> list[Flag]:
    text = command.text[:_MAX_COMMAND]
    if command.host:
        flags = host_flags(text, allowed_hosts, command.folder)
    else:
        flags = [f for f in judge(text, Context("/", allowed_hosts)) if f.title not in HOST_ONLY]
    return _deferred_sql(text, flags) if flags else flags


def _deferred_sql(text: str, flags: list[Flag]) -> list[Flag]:
    """The SQL a database client of the command is given runs when the job does: what would
    be critical when run needs a human (high), as ``source_code`` has it for the SQL in a
    deployment file's strings, and titled as it titles it (the same line keeps one)."""
    clients = [client_sql(cmd) for cmd in unwrap(text).commands[:64]]
    sql = [(dialect, t) for dialect, texts in clients for t in texts]
    if not sql:
        return flags
    from .tools.sql import review_sql  # sqlglot is loaded only when a client carries SQL

    titles = {i.title for dialect, t in sql for i in review_sql(t, dialect)[:3]}
    return [
        Flag(Severity.HIGH, f"runs SQL that {f.title}", f.detail, f.fix)
        if f.title in titles and f.severity is Severity.CRITICAL
        else f
        for f in flags
    ]


def _shell_titles(
    command: Command, added: dict[int, str], allowed_hosts: frozenset[str]
) -> set[str]:
    """What ``shell_scripts`` reports on the command's lines: the critical flags of the
    values it reads there (``config_values``)."""
    lines = range(command.line, max(command.line, command.last) + 1)
    run = [(n, added[n], True) for n in lines if n in added and len(added[n]) <= _MAX_LINE]
    return {
        flag.title
        for unit in config_values([run])
        if unit is not None
        for flag in judge(unit.text, Context(None, allowed_hosts))
        if flag.severity is Severity.CRITICAL
    }
