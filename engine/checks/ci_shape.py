"""What ``ci_workflow`` reads a CI file as: which files it reads (GitHub Actions workflows and
composite actions, GitLab CI files), the windows of a change (the whole file when it is new,
else each hunk's new side), whether a whole GitHub file is a workflow or an action (its keys
are GitHub's, every job and step has what it needs), the workflow's triggers, the scripts of
its steps, which lines of a hunk depend on what it does not show, and which lines hold a
throwaway service's credentials. The words it reads them with are ``ci_words``.

Why a file cannot be read is a string (``coverage`` reports it); nothing here raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .ci_words import (
    ACTION_KEYS,
    ACTION_REF,
    GITHUB,
    GITHUB_FILE,
    GITLAB,
    GITLAB_FILE,
    JOB_KEYS,
    KNOWN,
    LOCAL_CREDENTIALS,
    PRIVILEGED_WORD,
    REUSABLE,
    SAFE_PLACES,
    SERVICE_PASSWORD,
    STEP_KEYS,
    UNTRUSTED,
    WORKFLOW_KEYS,
)
from .ci_yaml import Node, Tree, plain, read_tree
from .diff import FileDiff

__all__ = [
    "Window",
    "ci_test_lines",
    "expressions",
    "kind_of",
    "normal",
    "script_of",
    "triggers",
    "unplaced",
    "windows",
]


@dataclass(frozen=True, slots=True)
class Window:
    """A readable part of a CI file: the whole file, or one hunk's new side."""

    tree: Tree
    added: frozenset[int]
    whole: bool


def kind_of(path: str) -> str | None:
    """``GITHUB`` or ``GITLAB`` for the CI files read here; None for the others."""
    path = path.replace("\\", "/")
    return GITHUB if GITHUB_FILE.search(path) else GITLAB if GITLAB_FILE.search(path) else None


def normal(text: str) -> str:
    """An expression's text in lower case, ``['x']`` read as ``.x`` and ``[0]`` as ``.*``."""
    text = re.sub(r"\[\s{0,9}['\"]([\w-]{1,100})['\"]\s{0,9}\]", r".\1", text.lower())
    return re.sub(r"\s{1,20}", "", re.sub(r"\[\s{0,9}(?:\*|\d{1,9})\s{0,9}\]", ".*", text))


def expressions(text: str) -> str:
    """What follows the first ``${{`` of a line, read as an expression (empty: none)."""
    at = text.find("${{")
    return normal(text[at:]) if at != -1 else ""


def script_of(tree: Tree, node: Node, above: tuple[Node, ...]) -> str | None:
    """The script of a ``run:`` step or of ``actions/github-script`` (``with: script:``)."""
    if node.children or not (
        node.key == "run" or (node.key == "script" and above and above[-1].key == "with")
    ):
        return None
    if node.block:
        return node.value
    rest = [t.strip() for _, t in list(tree.lines(node))[1:]]
    return plain(" ".join([node.value, *rest]))


def triggers(tree: Tree) -> frozenset[str]:
    """The events of a whole workflow's ``on`` (empty for an action or a GitLab file)."""
    found: set[str] = set()
    for root in tree.roots:
        if root.key != "on":
            continue
        on = tree.resolve(root)
        if not on.children:
            found.update(re.split(r"[\s,\[\]{}:]+", plain(on.value)))
        for child in on.children:
            item = tree.resolve(child)
            found.add(child.key if child.key is not None else plain(item.value))
    return frozenset(w.strip().lower() for w in found if w.strip())


def _steps_problem(tree: Tree, steps: Node | None) -> str | None:
    if steps is None or not steps.children or any(s.key is not None for s in steps.children):
        return "its `steps` are not a list"
    for step in (tree.resolve(s) for s in steps.children):
        keys = [c.key for c in step.children]
        if not keys or None in keys:
            return f"the step on line {step.line} is not a mapping"
        unknown = [k for k in keys if k not in STEP_KEYS]
        if unknown:
            return f"`{unknown[0]}` on line {step.line} is no step key"
        if ("uses" in keys) == ("run" in keys):
            return f"the step on line {step.line} needs one of `uses` and `run`"
        uses = step.get("uses")
        if uses is not None and not ACTION_REF.match(plain(uses.value)):
            return f"`uses` on line {uses.line} names no action (owner/repo@ref, ./path)"
    return None


def _job_problem(tree: Tree, job: Node) -> str | None:
    keys = [c.key for c in job.children]
    if not keys or None in keys:
        return "it is not a mapping"
    unknown = [k for k in keys if k not in JOB_KEYS]
    if unknown:
        return f"`{unknown[0]}` is no job key"
    uses = job.get("uses")
    if uses is not None:
        ok = REUSABLE.match(plain(uses.value)) and "steps" not in keys
        return None if ok else f"`uses` on line {uses.line} names no reusable workflow"
    if "runs-on" not in keys:
        return "it has neither `runs-on` nor `uses`"
    return _steps_problem(tree, job.get("steps"))


def _github_problem(tree: Tree, path: str) -> str | None:
    """Why a whole GitHub file is not a workflow (or, named action.yml, an action)."""
    roots = tree.roots
    if tree.documents > 1 or not roots or any(r.key is None for r in roots):
        return "it is not one mapping"
    keys = [r.key or "" for r in roots]
    action = path.lower().endswith(("/action.yml", "/action.yaml"))
    unknown = [k for k in keys if k not in (ACTION_KEYS if action else WORKFLOW_KEYS)]
    if unknown:
        return f"`{unknown[0]}` is no {'action' if action else 'workflow'} key"
    if action:
        runs = next((r for r in roots if r.key == "runs"), None)
        using = runs.get("using") if runs is not None else None
        if using is None:
            return "an action needs `runs: using:`"
        composite = plain(using.value).lower() == "composite"
        return _steps_problem(tree, runs.get("steps")) if composite and runs else None
    if "on" not in keys or "jobs" not in keys:
        return "a workflow needs `on` and `jobs`"
    for jobs in (r for r in roots if r.key == "jobs"):
        if not jobs.children or any(j.key is None for j in jobs.children):
            return "`jobs` is not a mapping"
        for job in jobs.children:
            problem = _job_problem(tree, tree.resolve(job))
            if problem is not None:
                return f"job `{job.key}`: {problem}"
    return None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _fragment(lines: list[tuple[int, str]], added: frozenset[int]) -> Tree | str:
    """A hunk's structure. A hunk may start inside a block scalar whose key it does not show
    (a long script): those first lines, when none of them is added, are left out."""
    tree = read_tree(lines, fragment=True)
    texts = [(n, t) for n, t in lines if t.strip()]
    if not isinstance(tree, str) or not texts:
        return tree
    top = _indent(texts[0][1])
    cut = next((i for i, (_, t) in enumerate(lines) if t.strip() and _indent(t) < top), None)
    if cut is None or any(n in added for n, _ in lines[:cut]):
        return tree
    rest = read_tree(lines[cut:], fragment=True)
    return tree if isinstance(rest, str) else rest


def windows(file: FileDiff, kind: str) -> list[Window] | str:
    """The readable windows of ``file``, or why it cannot be read."""
    whole = file.new_file or all(h.old_start == 0 for h in file.hunks)
    added = frozenset(ln.number for ln in file.added)
    out: list[Window] = []
    for hunk in file.hunks[:1] if whole else file.hunks:
        lines = [(ln.new, ln.text) for ln in hunk.lines if ln.kind != "-" and ln.new is not None]
        tree = read_tree(lines) if whole else _fragment(lines, added)
        if isinstance(tree, str):
            return tree
        if whole and kind == GITHUB:
            problem = _github_problem(tree, (file.path or "").replace("\\", "/"))
            if problem is not None:
                return problem
        if whole and (not tree.roots or any(r.key is None for r in tree.roots)):
            return "its top level is not a mapping"
        out.append(Window(tree, added, whole))
    return out


def unplaced(window: Window, kind: str) -> list[str]:
    """In a hunk, added lines whose meaning depends on what the hunk does not show: a line
    under no key the CI system knows nor the file's top level (it may be a script whose key
    is above the hunk),
    outsiders' text neither in a script nor in data (``env:``, ``with:``, ``if:``), and a
    privileged trigger (which makes every step of the workflow privileged)."""
    owner: dict[int, tuple[Node, ...]] = {}
    for node, above in window.tree.walk():
        chain = (*above, node)
        for number, _ in window.tree.lines(node):
            owner[number] = chain
    tree = window.tree
    shared = [n.line for n in tree.aliases] + [n.line for n in tree.anchors.values()]
    out = [
        f"line {line} shares content through an anchor the change may not show whole"
        for line in sorted(set(shared))
        if line in window.added
    ]
    for number, text in zip(tree.numbers, tree.texts, strict=True):
        if number not in window.added or not text.strip() or text.lstrip().startswith("#"):
            continue
        chain = owner.get(number, ())
        keys = {n.key for n in chain}
        placed = bool(keys & SAFE_PLACES) or bool(keys & {"run", "script"})
        if not (keys & KNOWN[kind] or (chain and chain[0].col == 0)):
            out.append(f"line {number} is in a part of the file the change does not show")
        elif UNTRUSTED.search(expressions(text)) and not placed:
            out.append(
                f"line {number} uses text outsiders write in a place the change does not show"
            )
        elif PRIVILEGED_WORD.search(text) and ("on" in keys or not placed):
            out.append(
                f"line {number} adds a privileged trigger to a workflow the change does "
                "not show whole"
            )
    return out


def ci_test_lines(file: FileDiff) -> frozenset[int]:
    """Lines of a CI file that hold a throwaway service's credentials: the ``services:`` of a
    job, a service image's password variable beside them, credentials of a URL to
    ``localhost`` or a service name. Their passwords are test passwords."""
    kind = kind_of(file.path or "")
    if kind is None or file.deleted or not file.added:
        return frozenset()
    found = windows(file, kind)
    if isinstance(found, str):
        return frozenset()
    out: set[int] = set()
    for window in found:
        services = [n for n, _ in window.tree.walk() if n.key == "services"]
        for node in services:
            out.update(n for n, _ in window.tree.lines(node))
        for number, text in zip(window.tree.numbers, window.tree.texts, strict=True):
            if LOCAL_CREDENTIALS.search(text) or (services and SERVICE_PASSWORD.match(text)):
                out.add(number)
    return frozenset(out)
