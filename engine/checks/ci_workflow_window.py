"""One window of a CI file as the ``ci_workflow`` rules read it (``WorkflowWindow``): its
nodes, the lines the change adds, the workflow's triggers when the window shows them, the
``env:`` names that carry outsiders' text, secrets or a pull request's head, the maker of its
findings, and the reasons it could not be read whole (``problems``, filled by the rules)."""

from __future__ import annotations

import re

from humangr.contracts import Severity

from .base import Hit
from .ci_shape import Window, expressions, triggers
from .ci_words import HEAD, PRIVILEGED, UNTRUSTED
from .ci_yaml import Node

__all__ = ["WorkflowWindow"]


class WorkflowWindow:
    """One window of a CI file and what the rules need to know about it."""

    def __init__(self, path: str, window: Window) -> None:
        self.path, self.tree = path, window.tree
        self.added, self.whole = window.added, window.whole
        self.nodes = list(self.tree.walk())
        workflow = window.whole and any(r.key == "on" for r in self.tree.roots)
        self.on = triggers(self.tree) if workflow else None  # None: not known (or an action)
        self.problems: list[str] = []
        self.env_untrusted: set[str] = set()
        self.env_secrets: set[str] = set()
        self.env_head: set[str] = set()
        for node, above in self.nodes:
            if above and above[-1].key == "env" and node.key:
                value = expressions(node.value)
                if UNTRUSTED.search(value):
                    self.env_untrusted.add(node.key.lower())
                if re.search(r"\bsecrets\b", value):
                    self.env_secrets.add(node.key)
                if HEAD.search(value):
                    self.env_head.add(node.key)

    def privileged(self) -> bool:
        """Whether a trigger that runs with the base repository's secrets starts it."""
        return bool(self.on and self.on & PRIVILEGED)

    def touched(self, node: Node) -> bool:
        """Whether the change adds one of ``node``'s lines."""
        return any(n in self.added for n, _ in self.tree.lines(node))

    def hit(self, severity: Severity, title: str, why: str, fix: str, line: int) -> Hit:
        """A finding at ``line`` of the file."""
        return Hit(severity, title, f"{self.path}:{line}: {why}", fix, file=self.path, line=line)
