"""Tasks from a PM backlog: the ``## TSK-…`` sections of ``docs/pm/<squad>/BACKLOG.md``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from humangr.engine.errors import EngineError

__all__ = ["BacklogError", "BacklogTask", "order_tasks", "parse_backlog"]

_HEADING = re.compile(r"^##\s+(TSK-[A-Za-z0-9_-]+)\b[\s:.—–-]*(.*?)\s*$")
_TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_REF = re.compile(r"\bTSK-[A-Za-z0-9_-]+")
_DEPENDENCIES = re.compile(r"^\W*dependenc(?:y|ies)\b\W*(.*)$", re.IGNORECASE)
MAX_TASKS = 200


class BacklogError(EngineError):
    """The backlog cannot be turned into tasks; the message says why."""


@dataclass(frozen=True, slots=True)
class BacklogTask:
    """One task of the backlog: its id, title, full section text and dependencies."""

    task_id: str
    title: str
    body: str
    depends_on: tuple[str, ...] = ()


def _dependencies(lines: Sequence[str], own: str) -> tuple[str, ...]:
    """Task ids named in the dependencies field (its line and the list below it)."""
    found: list[str] = []
    for index, line in enumerate(lines):
        head = _DEPENDENCIES.match(line.strip())
        if head is None:
            continue
        block = [head.group(1)]
        for follow in lines[index + 1 :]:
            stripped = follow.strip()
            if not stripped.startswith(("-", "*")) and stripped:
                break
            block.append(stripped)
        found.extend(ref for text in block for ref in _REF.findall(text) if ref != own)
    return tuple(dict.fromkeys(found))


def parse_backlog(text: str) -> list[BacklogTask]:
    """Every ``## TSK-…`` section, in order. No task, a duplicate id or an id that is not a
    valid token raise ``BacklogError``."""
    tasks: list[BacklogTask] = []
    current: tuple[str, str, list[str]] | None = None

    def close() -> None:
        if current is not None:
            task_id, title, body = current
            tasks.append(
                BacklogTask(
                    task_id=task_id,
                    title=(title or task_id)[:200],
                    body="\n".join(body).strip(),
                    depends_on=_dependencies(body, task_id),
                )
            )

    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            close()
            current = (match.group(1), match.group(2), [line])
        elif line.startswith("## ") or line.startswith("# "):
            close()
            current = None
        elif current is not None:
            current[2].append(line)
    close()
    if not tasks:
        raise BacklogError("the backlog has no tasks: expected sections '## TSK-<id> <title>'")
    seen: set[str] = set()
    for task in tasks:
        if not _TASK_ID.match(task.task_id):
            raise BacklogError(f"task id {task.task_id!r} is too long or not a valid token")
        if task.task_id in seen:
            raise BacklogError(f"task {task.task_id} appears twice in the backlog")
        seen.add(task.task_id)
    if len(tasks) > MAX_TASKS:
        raise BacklogError(f"the backlog has {len(tasks)} tasks; at most {MAX_TASKS} are allowed")
    return tasks


def order_tasks(tasks: Sequence[BacklogTask]) -> list[BacklogTask]:
    """The tasks in backlog order, each after the tasks it depends on. A dependency on an
    unknown task or a cycle raises ``BacklogError``."""
    by_id = {task.task_id: task for task in tasks}
    for task in tasks:
        missing = [dep for dep in task.depends_on if dep not in by_id]
        if missing:
            raise BacklogError(f"task {task.task_id} depends on unknown task(s) {missing}")
    ordered: list[BacklogTask] = []
    placed: set[str] = set()
    while len(ordered) < len(tasks):
        ready = [
            t for t in tasks if t.task_id not in placed and all(d in placed for d in t.depends_on)
        ]
        if not ready:
            stuck = sorted(t.task_id for t in tasks if t.task_id not in placed)
            raise BacklogError(f"the dependencies of {stuck} form a cycle")
        ordered.append(ready[0])
        placed.add(ready[0].task_id)
    return ordered
