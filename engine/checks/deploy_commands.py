"""The commands containers run, read by ``deploy_files`` for the shell rules: a compose
service's ``entrypoint`` + ``command`` (a string as it is, a list as its words) and its
healthcheck's ``test`` (``CMD``, ``CMD-SHELL``); a Kubernetes container's ``command`` +
``args`` (``args`` alone starting with ``-c`` run by ``sh``) — Jobs, CronJobs and hook pods
included — and its probes' and lifecycle hooks' ``exec``. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .ci_yaml import Node, Tree
from .deploy_yaml import Command, Window, items, nodes, shell_join, value

__all__ = ["compose_commands", "kube_commands", "service_label"]

_SHELL_FLAG = re.compile(r"^-[a-z]*c$")
_CONTAINERS = frozenset({"containers", "initContainers", "ephemeralContainers"})


def service_label(above: tuple[Node, ...]) -> str:
    """Which compose service ``above`` (a node's ancestors) is in, for a description."""
    names = [a.key for a in above[1:2] if above[0].key == "services" and a.key]
    return f"the compose service `{names[0]}`" if names else "a compose service"


def _argv(tree: Tree, node: Node | None) -> str:
    """A command as the shell would see it: one string as it is (compose splits it as a
    shell would), a list as its words."""
    if node is None:
        return ""
    argv = items(tree, node) or []
    one = not node.children and len(argv) == 1
    return argv[0] if one and not node.value.lstrip().startswith("[") else shell_join(argv)


def _health(argv: list[str]) -> str:
    """A healthcheck's ``test``: ``CMD-SHELL`` runs a shell, ``CMD`` its words, ``NONE``
    nothing; a string runs in a shell."""
    head = argv[0].upper() if argv else ""
    if head == "CMD-SHELL":
        return " ".join(argv[1:])
    if head == "CMD":
        return shell_join(argv[1:])
    return argv[0] if len(argv) == 1 and head != "NONE" else ""


def compose_commands(w: Window) -> Iterator[Command]:
    """The commands of a compose file's services: ``entrypoint`` + ``command``, and each
    healthcheck's ``test``."""
    tree = w.tree
    for node, above in nodes(tree):
        if not above or not w.touched(above[-1]):
            continue
        if node.key == "test" and above[-1].key == "healthcheck" and w.touched(node):
            text = _health(items(tree, node) or [])
            if text.strip():
                where = f"Run as the healthcheck of {service_label(above[:-1])}"
                yield Command(node.line, w.last(node), text, where)
        elif node.key in ("command", "entrypoint"):
            entry, command = above[-1].get("entrypoint"), above[-1].get("command")
            if node is (entry or command) and any(w.touched(n) for n in (entry, command) if n):
                text = f"{_argv(tree, entry)} {_argv(tree, command)}".strip()
                if text:
                    last = w.last(entry, command)
                    yield Command(node.line, last, text, f"Run in {service_label(above)}")


def kube_commands(w: Window) -> Iterator[Command]:
    """The commands of a manifest's containers (``command`` + ``args``) and of their probes'
    and lifecycle hooks' ``exec``."""
    tree = w.tree
    for node, above in nodes(tree):
        if node.key == "exec" and (cmd := node.get("command")) is not None and w.touched(cmd):
            text = shell_join(items(tree, cmd) or [])
            yield Command(cmd.line, w.last(cmd), text, "Run by a probe or hook")
        if (
            node.key not in ("command", "args")
            or len(above) < 2
            or above[-2].key not in _CONTAINERS
        ):
            continue
        owner = above[-1]
        command, args = owner.get("command"), owner.get("args")
        if node is not (command or args) or not any(w.touched(n) for n in (command, args) if n):
            continue
        argv = (items(tree, command) or []) + (items(tree, args) or [])
        if command is None and argv and _SHELL_FLAG.match(argv[0]):
            argv = ["sh", *argv]
        name = value(tree, owner, "name")
        if argv:
            where = f"Run in the container `{name or '?'}`"
            yield Command(node.line, w.last(command, args), shell_join(argv), where)
