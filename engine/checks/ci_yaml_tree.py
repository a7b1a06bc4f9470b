"""The tree ``ci_yaml`` reads a CI file's YAML into: ``Node``s (mapping entries and sequence
items, with their lines) under a ``Tree`` that knows the file's line numbers and texts, its
anchors and the aliases that stand for them; ``plain`` gives a scalar's text, and
``expansion_problem`` says when what the aliases add up to cannot be read (more than
``MAX_EXPANDED`` entries, or an alias inside its own anchor). Pure, linear, never raises."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["MAX_EXPANDED", "Node", "Tree", "expansion_problem", "plain"]

MAX_EXPANDED = 50_000
"""How many entries a text may hold once each alias stands for its anchor's content."""


@dataclass(slots=True, eq=False)
class Node:
    """A mapping entry (``key``) or a sequence item (``key`` None); ``value`` is the scalar
    on its line (without anchor and tag), or the text of its block scalar."""

    key: str | None
    value: str
    line: int
    """The line number in the file."""
    col: int
    first: int
    """The index of its first line in ``Tree.texts``."""
    last: int
    """The index of its last line (children, continued scalars and block text included)."""
    children: list[Node] = field(default_factory=list)
    block: bool = False

    def get(self, key: str) -> Node | None:
        """The child mapping entry named ``key``."""
        return next((c for c in self.children if c.key == key), None)

    def descendants(self) -> Iterator[Node]:
        """Every node below this one, in file order."""
        todo = list(reversed(self.children))
        while todo:
            node = todo.pop()
            yield node
            todo.extend(reversed(node.children))


@dataclass(slots=True)
class Tree:
    """The nodes of a text (``roots``), with the file's line ``numbers`` and ``texts``."""

    roots: list[Node]
    numbers: list[int]
    texts: list[str]
    anchors: dict[str, Node] = field(default_factory=dict)
    aliases: list[Node] = field(default_factory=list)
    """The nodes written as an alias (``*name``); each stands for its anchor's content."""
    documents: int = 1

    def lines(self, node: Node) -> Iterator[tuple[int, str]]:
        """The file's line numbers and texts of ``node`` (its key line first)."""
        for i in range(node.first, node.last + 1):
            yield self.numbers[i], self.texts[i]

    def text(self, node: Node) -> str:
        """The text of ``node``'s lines."""
        return "\n".join(self.texts[node.first : node.last + 1])

    def resolve(self, node: Node) -> Node:
        """The node an alias (``*name``) stands for; ``node`` itself otherwise."""
        for _ in range(8):
            if node.children or not node.value.startswith("*"):
                return node
            target = self.anchors.get(node.value[1:].strip())
            if target is None or target is node:
                return node
            node = target
        return node

    def walk(self) -> Iterator[tuple[Node, tuple[Node, ...]]]:
        """Every node with its ancestors, in file order."""
        todo: list[tuple[Node, tuple[Node, ...]]] = [(n, ()) for n in reversed(self.roots)]
        while todo:
            node, above = todo.pop()
            yield node, above
            todo.extend((c, (*above, node)) for c in reversed(node.children))


def plain(value: str) -> str:
    """A scalar's text: quotes removed, a trailing comment cut."""
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    comment = min((i for i in (v.find(" #"), v.find("\t#")) if i != -1), default=-1)
    return v[:comment].rstrip() if comment != -1 else v


def expansion_problem(roots: list[Node]) -> str | None:
    """Why the entries under ``roots``, aliases standing for their anchors, cannot be read:
    more than ``MAX_EXPANDED`` of them, or an alias inside its own anchor. Each node is
    counted once (linear time)."""
    size: dict[int, int] = {}
    started: set[int] = set()
    total = 0
    for root in roots:
        todo: list[tuple[Node, bool]] = [(root, False)]
        while todo:
            node, done = todo.pop()
            key = id(node)
            if done:
                size[key] = 1 + sum(size[id(c)] for c in node.children)
                if size[key] > MAX_EXPANDED:
                    return f"its aliases expand to more than {MAX_EXPANDED} entries"
            elif key not in size:
                if key in started:
                    return f"the alias on line {node.line} is inside its own anchor"
                started.add(key)
                todo.append((node, True))
                todo.extend((c, False) for c in node.children if id(c) not in size)
        total += size[id(root)]
        if total > MAX_EXPANDED:
            return f"its aliases expand to more than {MAX_EXPANDED} entries"
    return None
