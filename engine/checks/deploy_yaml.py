"""How ``deploy_files`` reads a deployment file's YAML: its documents read into trees by
``ci_yaml`` (``windows``: the whole file, or each hunk of an edit), template text
(``{{ … }}``, ``{% … %}``) taken out first — a line of template directives alone is left
blank, and an expression inside a value stands as an unknown shell variable
(``$TPL_Values_image``) — and flow mappings on one line (``{ path: / }``) read as the
entries they hold; then the values of nodes as the program reads them (``scalar``,
``items``: quotes, folding, flow sequences). Pure, linear, never raises."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

from humangr.contracts import Severity

from .ci_yaml import MAX_CHARS, MAX_LINES, Node, Tree, read_tree
from .diff import FileDiff

__all__ = [
    "Command",
    "Finding",
    "Window",
    "falsy",
    "items",
    "nodes",
    "scalar",
    "shell_join",
    "truthy",
    "value",
    "windows",
]

_MAX_DOCUMENTS = 500
_MAX_ITEMS = 64
_MAX_SCALAR = 8_000
_MAX_FLOW_ENTRIES = 10_000
_SPAN = re.compile(r"\{\{|\{%")
_MARK = re.compile("\ue000([^\ue001]*)\ue001")
_TRUE = frozenset({"true", "yes", "on", "y", "1"})
_FALSE = frozenset({"false", "no", "off", "n", "0"})
_FOLDED = re.compile(r"(?:^|[\s:-])>[1-9+-]{0,2}[ \t]*(?:#.*)?$")


@dataclass(frozen=True, slots=True)
class Finding:
    """What a rule of ``deploy_files`` found, at a line of the file."""

    severity: Severity
    title: str
    why: str
    line: int


@dataclass(frozen=True, slots=True)
class Command:
    """A command the file makes run, as the shell would see it; ``host``: on the managed hosts
    (Ansible), in ``folder``, else inside a container."""

    line: int
    last: int
    """The line number of its last line (its first is ``line``)."""
    text: str
    where: str
    host: bool = False
    folder: str | None = None


class Window:
    """One document of the file (or of a hunk): its tree, and which of its lines the change
    adds (``touched`` answers for a node in constant time)."""

    def __init__(self, tree: Tree, added: frozenset[int]) -> None:
        self.tree = tree
        self._before = [0]
        for number in tree.numbers:
            self._before.append(self._before[-1] + (number in added))

    def last(self, *found: Node | None) -> int:
        """The line number of the last line of ``found``."""
        return max((self.tree.numbers[n.last] for n in found if n is not None), default=0)

    def touched(self, node: Node) -> bool:
        """Whether the change adds one of ``node``'s lines."""
        return self._before[node.last + 1] > self._before[node.first]


def windows(file: FileDiff) -> list[Window] | str:
    """The documents of ``file``'s new side (the whole file, or each hunk of an edit), or why
    they cannot be read: too large, or not YAML these readers follow."""
    whole = file.new_file or all(h.old_start == 0 for h in file.hunks)
    added = frozenset(ln.number for ln in file.added)
    runs = [
        [(ln.new, ln.text) for ln in h.lines if ln.kind != "-" and ln.new is not None]
        for h in file.hunks
    ] or [[(ln.number, ln.text) for ln in file.added]]
    if sum(len(run) for run in runs) > MAX_LINES:
        return f"more than {MAX_LINES} lines"
    if sum(len(t) + 1 for run in runs for _, t in run) > MAX_CHARS:
        return f"more than {MAX_CHARS} characters"
    out: list[Window] = []
    for run in runs[:1] if whole else runs:
        for document in _documents(_untemplated(run)):
            if not any(t.strip() for _, t in document):
                continue
            tree = read_tree(document, fragment=not whole)
            if isinstance(tree, str):
                if whole:
                    return tree
                continue  # a hunk cut where it cannot be read alone: its lines stay unread
            _expand(tree)
            out.append(Window(tree, added))
            if len(out) >= _MAX_DOCUMENTS:
                return out
    return out


def _documents(run: list[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
    """The documents of ``run``, cut at its ``---`` / ``...`` lines."""
    current: list[tuple[int, str]] = []
    for number, text in run:
        if text.startswith(("---", "...")) and text[3:4] in ("", " ", "\t", "\r"):
            yield current
            current = []
        else:
            current.append((number, text))
    yield current


def _untemplated(run: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``run`` without its template text: a line of directives alone is blank, and each
    other ``{{ … }}`` / ``{% … %}`` is an unknown shell variable named after what it reads.
    An action left open is left as it is (linear: each closer is looked for once)."""
    text = "\n".join(t for _, t in run)
    if "{{" not in text and "{%" not in text:
        return run
    parts: list[str] = []
    pos = 0
    while (m := _SPAN.search(text, pos)) is not None:
        end = text.find("}}" if m.group(0) == "{{" else "%}", m.end())
        if end < 0:
            break
        inner = text[m.end() : end]
        name = "_".join(re.findall(r"[A-Za-z]\w*", inner[:400]))[:40]
        parts += [text[pos : m.start()], f"\ue000{name}\ue001", "\n" * inner.count("\n")]
        pos = end + 2
    parts.append(text[pos:])
    lines = "".join(parts).split("\n")
    out: list[tuple[int, str]] = []
    for (number, _), line in zip(run, lines, strict=False):
        if "\ue000" in line and not _MARK.sub("", line).strip():
            line = ""
        out.append((number, _MARK.sub(lambda v: "$TPL_" + (v.group(1) or "value"), line)))
    return out


def nodes(tree: Tree) -> Iterator[tuple[Node, tuple[Node, ...]]]:
    """Every node of ``tree`` once, with its ancestors (an alias's shared content is not
    read again)."""
    seen: set[int] = set()
    todo: list[tuple[Node, tuple[Node, ...]]] = [(n, ()) for n in reversed(tree.roots)]
    while todo:
        node, above = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node, above
        if len(above) < 64:
            todo.extend((c, (*above, node)) for c in reversed(node.children))


def scalar(tree: Tree, node: Node) -> str | None:
    """The text of a scalar node as its program reads it (quotes taken off, a plain or quoted
    scalar over several lines folded, a ``>`` block folded); None for a collection."""
    if node.children:
        return None
    if node.block:
        value = node.value
        if _FOLDED.search(tree.texts[node.first]):
            value = re.sub(r"(?<=\S)\n(?=[^\s\n])", " ", value)
        return value[:_MAX_SCALAR]
    value = node.value
    if node.last > node.first:  # continued on the lines below (or begun there: ``key:``)
        head = tree.texts[node.first]
        head = head.split(":", 1)[-1] if node.key is not None else head
        start = node.first + 1 if value[:40] in head else node.first + 2
        rest = (t.strip() for t in tree.texts[start : node.last + 1])
        value = " ".join([value, *rest])
    return _unquoted(value[:_MAX_SCALAR])


def value(tree: Tree, node: Node | None, key: str) -> str:
    """The scalar text of ``node``'s entry ``key``, stripped; empty when there is none."""
    child = node.get(key) if node is not None else None
    found = scalar(tree, child) if child is not None else None
    return (found or "").strip()


def _unquoted(value: str) -> str:
    """A scalar's text: a quoted one's content (a comment after it cut), a plain one's text
    up to its comment."""
    v = value.strip()
    if v[:1] == "'":
        end = re.match(r"'((?:[^']|'')*)'", v)
        return end.group(1).replace("''", "'") if end else v[1:]
    if v[:1] == '"':
        end = re.match(r'"((?:[^"\\]|\\.)*)"', v, re.DOTALL)
        if end is None:
            return v[1:]
        try:
            loaded = json.loads(end.group(0))
        except ValueError:
            return end.group(1)
        return loaded if isinstance(loaded, str) else end.group(1)
    comment = re.search(r"[ \t]#", v)
    return v if comment is None else v[: comment.start()].rstrip()


def items(tree: Tree, node: Node | None) -> list[str] | None:
    """A sequence's items (a block list, or a flow ``[…]``), or a scalar as its one item;
    None for a mapping or nothing."""
    if node is None:
        return None
    if node.children:
        if any(c.key is not None for c in node.children):
            return None
        out = [scalar(tree, c) for c in node.children[:_MAX_ITEMS]]
        return [s for s in out if s is not None]
    value = scalar(tree, node)
    if value is None or not value.strip():
        return None
    raw = node.value.lstrip()
    if not node.block and raw.startswith("[") and value.rstrip().endswith("]"):
        return _flow(value.strip())
    return [value]


def _flow(text: str) -> list[str]:
    """A flow sequence's items: JSON when it is JSON, else its pieces unquoted."""
    try:
        loaded = json.loads(text)
    except ValueError:
        loaded = None
    if isinstance(loaded, list):
        return [str(x) for x in loaded[:_MAX_ITEMS] if isinstance(x, str | int | float)]
    return [_unquoted(piece) for piece in _pieces(text)]


def _pieces(text: str) -> list[str]:
    """The entries of a flow collection's text (``[…]`` or ``{…}``), split at its own commas
    (not those inside quotes or a nested collection), as written."""
    out: list[str] = []
    start, depth, quote = 1, 0, ""
    for i, c in enumerate(text[1:-1], 1):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
            if len(out) >= _MAX_ITEMS:
                return out
    last = text[start:-1].strip()
    return [*out, last] if last else out


_FLOW_KEY = re.compile(r"^(\"[^\"]*\"|'[^']*'|[^\s:\"'][^:]{0,200}?)\s*:(?:\s+(.*))?$", re.DOTALL)


def _expand(tree: Tree) -> None:
    """Read each flow mapping (``{ name: x, path: / }``) as the entries it holds, so the
    rules see them as they see a block mapping's; at most ``_MAX_FLOW_ENTRIES`` in all."""
    todo = [n for n, _ in nodes(tree)]
    budget = _MAX_FLOW_ENTRIES
    while todo and budget > 0:
        node = todo.pop()
        if node.children or node.block or not node.value.startswith("{"):
            continue
        text = (scalar(tree, node) or "").strip()
        found = [_FLOW_KEY.match(p) for p in _pieces(text)] if text.endswith("}") else []
        entries = [m for m in found if m is not None]
        if not entries or len(entries) < len(found):
            continue  # not a mapping of ``key: value`` entries
        for m in entries[:budget]:
            value = (m.group(2) or "").strip()
            child = Node(
                _unquoted(m.group(1)), value, node.line, node.col + 2, node.first, node.first
            )
            node.children.append(child)
            todo.append(child)
        budget -= len(entries)
        node.value = ""


def shell_join(words: list[str]) -> str:
    """An argument list written as a shell command line; a word holding template text keeps
    its stand-in (``$TPL_…``) an unknown variable, in double quotes."""
    return " ".join(
        '"' + re.sub(r'(["\\`])', r"\\\1", w) + '"' if "$TPL_" in w else shlex.quote(w)
        for w in words
    )


def truthy(value: str | None) -> bool:
    """A YAML 1.1 / Ansible true (``true``, ``yes``, ``on``…)."""
    return value is not None and value.strip().strip("'\"").lower() in _TRUE


def falsy(value: str | None) -> bool:
    """A YAML 1.1 / Ansible false (``false``, ``no``, ``off``…)."""
    return value is not None and value.strip().strip("'\"").lower() in _FALSE
