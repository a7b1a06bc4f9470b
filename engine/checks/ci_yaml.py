"""A bounded reader of the block structure of CI files' YAML, without a YAML library.

It reads what CI definitions are written in — block mappings and sequences (also a sequence
at its key's column), plain and quoted scalars (also over several lines), block scalars
(``|``, ``>``), flow collections (kept as text), comments, anchors, tags and ``---``
documents — into ``Node``s with their line numbers, and says why when a text is not that:
tabs or control characters, a line that is neither ``key: value`` nor a list item,
indentation that does not line up, nesting deeper than ``MAX_DEPTH``, more than ``MAX_LINES``
lines or ``MAX_CHARS`` characters. Every step is linear in the text. An alias stands for its
anchor's content, shared and never copied; what the aliases add up to is counted once per
node and may not pass ``MAX_EXPANDED`` entries (no "billion laughs"), nor may an alias sit
inside its own anchor. The tree it reads into is ``ci_yaml_tree``'s.

A ``fragment`` (a diff hunk: a window of a file) may start at any indentation: its top-level
lines need not line up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .ci_yaml_tree import MAX_EXPANDED, Node, Tree, expansion_problem, plain

__all__ = [
    "MAX_CHARS",
    "MAX_DEPTH",
    "MAX_EXPANDED",
    "MAX_LINES",
    "Node",
    "Tree",
    "plain",
    "read_tree",
]

MAX_LINES = 5_000
MAX_CHARS = 200_000
MAX_DEPTH = 40
"""How deep mappings and sequences may nest (CI files use fewer than ten levels)."""
_MAX_ANCHORS = 500
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BLOCK = re.compile(r"^[|>][1-9+-]{0,2}[ \t]*(?:#.*)?$")
_PROPERTY = re.compile(r"^([&!])(\S*)(?:[ \t]+|$)")


def _key(rest: str) -> tuple[str, str] | None:
    """``key: value`` split, or None when ``rest`` is a scalar (linear time)."""
    if rest[0] in "\"'":
        quote, i = rest[0], 1
        while i < len(rest) and rest[i] != quote:
            i += 2 if quote == '"' and rest[i] == "\\" else 1
        after = rest[i + 1 :].lstrip(" ")
        if i >= len(rest) or after[:1] != ":" or after[1:2] not in ("", " ", "\t"):
            return None
        return rest[1:i], after[1:].strip()
    if rest[0] in "#[]{},&*!|>%@`?":
        return None
    i = rest.find(":")
    while i != -1 and i + 1 < len(rest) and rest[i + 1] not in " \t":
        i = rest.find(":", i + 1)
    if i <= 0 or rest.find(" #", 0, i) != -1:
        return None
    return rest[:i].rstrip(), rest[i + 1 :].strip()


class _Reader:
    def __init__(self, lines: Sequence[tuple[int, str]], fragment: bool) -> None:
        self.tree = Tree([], [n for n, _ in lines], [t.rstrip("\r") for _, t in lines])
        if self.tree.texts:
            self.tree.texts[0] = self.tree.texts[0].removeprefix("\ufeff")
        self.fragment = fragment
        self.stack: list[Node] = []

    def properties(self, node: Node, value: str) -> str:
        """``value`` without its anchor (remembered) and tag."""
        m = _PROPERTY.match(value)
        while m is not None:
            if m.group(1) == "&" and len(self.tree.anchors) < _MAX_ANCHORS:
                self.tree.anchors[m.group(2)] = node
            value = value[m.end() :]
            m = _PROPERTY.match(value)
        return value.strip()

    def attach(self, node: Node) -> str | None:
        stack = self.stack
        while stack:
            top = stack[-1]
            if top.col < node.col:
                break
            if top.col == node.col and node.key is None and top.key is not None:
                first = top.children[0] if top.children else None
                if not top.value and (
                    first is None or (first.key is None and first.col == top.col)
                ):
                    break  # a sequence written at its key's column
            stack.pop()
        parent = stack[-1] if stack else None
        siblings = parent.children if parent is not None else self.tree.roots
        if parent is not None and parent.value:
            return f"line {node.line} is indented under a key that already has a value"
        if siblings and not (self.fragment and parent is None):
            if (siblings[0].key is None) != (node.key is None):
                return f"line {node.line} mixes list items and keys"
            if siblings[0].col != node.col:
                return f"line {node.line} is indented unlike the entries beside it"
        if len(stack) >= MAX_DEPTH:
            return f"line {node.line} is nested deeper than {MAX_DEPTH} levels"
        siblings.append(node)
        stack.append(node)
        return None

    def entries(self, body: str, col: int, index: int) -> str | None:
        """The items and the entry one line opens (``- - key: value``)."""
        number = self.tree.numbers[index]
        rest, made = body.rstrip(), False
        while rest == "-" or rest.startswith(("- ", "-\t")):
            problem = self.attach(Node(None, "", number, col, index, index))
            if problem is not None:
                return problem
            after = rest[1:]
            col += 1 + len(after) - len(after.lstrip(" \t"))
            rest, made = after.lstrip(" \t"), True
            if not rest:
                return None
        pair = _key(rest)
        if pair is None:
            if not made:
                return f"line {number} is neither `key: value` nor a list item"
            item = self.stack[-1]
            item.value = self.properties(item, rest)
            return None
        node = Node(pair[0], "", number, col, index, index)
        problem = self.attach(node)
        if problem is None:
            node.value = self.properties(node, pair[1])
        return problem

    def block(self, node: Node, index: int) -> int:
        """Take the lines of ``node``'s block scalar; the index after them."""
        texts, j = self.tree.texts, index + 1
        while j < len(texts) and (
            not texts[j].strip() or len(texts[j]) - len(texts[j].lstrip(" ")) > node.col
        ):
            j += 1
        while j - 1 > index and not texts[j - 1].strip():
            j -= 1
        node.block, node.last = True, j - 1
        content = texts[index + 1 : j]
        margin = min((len(t) - len(t.lstrip(" ")) for t in content if t.strip()), default=0)
        node.value = "\n".join(t[margin:] for t in content)
        return j

    def read(self) -> str | None:
        texts, i = self.tree.texts, 0
        while i < len(texts):
            text, number = texts[i], self.tree.numbers[i]
            if _CONTROL.search(text):
                return f"line {number} holds control characters"
            body = text.lstrip(" ")
            col = len(text) - len(body)
            if not body.strip() or body.startswith("#"):
                i += 1
                continue
            if body[0] == "\t":
                return f"line {number} is indented with a tab"
            if col == 0 and (body.rstrip() in ("---", "...") or body.startswith("--- ")):
                if body.startswith("---") and self.tree.roots:
                    self.tree.documents += 1
                self.stack.clear()
                i += 1
                continue
            top = self.stack[-1] if self.stack else None
            if top is not None and col > top.col and not top.block and not top.children:
                scalar = _key(body.strip()) is None and not re.match(r"-(?:[ \t]|$)", body)
                if top.value and not scalar and top.value[0] not in "\"'[{":
                    return f"line {number} continues a value but reads as a key"
                if top.value or scalar:  # a scalar continued, or ``key:`` with its scalar below
                    top.value = top.value or body.strip()
                    top.last = i
                    i += 1
                    continue
            problem = self.entries(body, col, i)
            if problem is not None:
                return problem
            if _BLOCK.match(self.stack[-1].value):
                i = self.block(self.stack[-1], i)
                continue
            i += 1
        for root in self.tree.roots:
            _close(root)
        return self.link()

    def link(self) -> str | None:
        """Make each alias stand for its anchor's content — the same children, value and
        lines, shared, never copied — and check what that adds up to."""
        tree = self.tree
        tree.aliases = [n for n, _ in tree.walk() if not n.children and n.value.startswith("*")]
        for alias in tree.aliases:
            target = tree.resolve(alias)
            if target is alias:
                if not self.fragment:
                    return f"the alias on line {alias.line} has no anchor"
                continue
            alias.children, alias.value, alias.block = target.children, target.value, target.block
            alias.first, alias.last = target.first, target.last
        return expansion_problem(tree.roots) if tree.aliases else None


def _close(node: Node) -> int:
    for child in node.children:
        node.last = max(node.last, _close(child))
    return node.last


def read_tree(lines: Sequence[tuple[int, str]], *, fragment: bool = False) -> Tree | str:
    """The structure of ``lines`` (file line numbers and texts), or why it cannot be read."""
    if len(lines) > MAX_LINES:
        return f"more than {MAX_LINES} lines"
    if sum(len(t) for _, t in lines) > MAX_CHARS:
        return f"more than {MAX_CHARS} characters"
    reader = _Reader(lines, fragment)
    problem = reader.read()
    return reader.tree if problem is None else problem
