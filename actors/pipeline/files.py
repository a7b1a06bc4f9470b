"""The pipeline Supervisor's side of the project files: the envelope an agent gets, what an
agent may not write, the current contents a Dev diff is made against, and the one guarded
write."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import msgspec

from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import AgentResult, Artifact, MessageEnvelope, WorkOrder
from humangr.engine.errors import PathPolicyError, StateFileError
from humangr.engine.pipeline import TASK_STATE_PATH, ProjectState, decode_state
from humangr.engine.pipeline.context import RESERVED_PREFIX, build_envelope, relevant_paths

__all__ = [
    "RESERVED_PREFIX",
    "STATE_REMEDY",
    "current",
    "envelope_for",
    "load_project",
    "mismatch",
    "order_is_live",
    "refused",
    "write_if_live",
]

log = logging.getLogger("humangr.pipeline")


def refused(store: ProjectStore, artifacts: Sequence[Artifact]) -> list[str]:
    """Why each refused artifact path cannot be written (empty: all may be)."""
    problems = []
    for artifact in artifacts:
        if artifact.path.startswith(RESERVED_PREFIX):
            problems.append(f"{artifact.path!r}: {RESERVED_PREFIX} is written by the Monitor only")
            continue
        try:
            store.resolve(artifact.path)
        except PathPolicyError as exc:
            problems.append(str(exc))
    return problems


def current(store: ProjectStore, paths: Sequence[str]) -> dict[str, str]:
    """The current text of those ``paths`` that exist."""
    found = {}
    for path in paths:
        if store.exists(path):
            try:
                found[path] = store.read(path)
            except UnicodeDecodeError:
                found[path] = "(binary file)"
    return found


def order_is_live(store: ProjectStore, order: WorkOrder) -> bool:
    """Whether the project still waits for ``order``: its persisted state is running with
    this order pending. A project without a state (no Monitor drives it) takes any order; a
    damaged state raises ``StateFileError``."""
    project = load_project(store)
    if project is None:
        return True
    pending = project.pending
    return project.state == "running" and pending is not None and pending.order_id == order.order_id


def write_if_live(
    store: ProjectStore, order: WorkOrder, artifacts: Sequence[Artifact]
) -> list[str] | None:
    """Under the project's lock: ``None`` (nothing written) when the project no longer waits
    for ``order``; else the artifacts written in one batch — unless every one is on disk with
    this content already (a write that a crash interrupted after it was done)."""
    with store.lock():
        if not order_is_live(store, order):
            return None
        if all(_same(store, a) for a in artifacts):
            return [a.path for a in artifacts]
        return store.write_many(artifacts)


def _same(store: ProjectStore, artifact: Artifact) -> bool:
    try:
        return store.exists(artifact.path) and store.read(artifact.path) == artifact.content
    except (OSError, UnicodeDecodeError):
        return False


def envelope_for(
    store: ProjectStore, order: WorkOrder, request_id: str, extra: dict[str, str]
) -> MessageEnvelope:
    """The agent's envelope for ``order``, with excerpts of the project's relevant files."""
    files: dict[str, str] = {}
    for path in store.list():
        if path.startswith(RESERVED_PREFIX):
            continue
        try:
            files[path] = store.read(path)
        except (OSError, UnicodeDecodeError, PathPolicyError) as exc:
            log.warning("%s: %s not given to the agent: %s", store.project_id, path, exc)
    return build_envelope(
        order,
        request_id=request_id,
        files=files,
        relevant=relevant_paths(order, list(files)),
        extra=extra,
    )


def mismatch(order: WorkOrder, result: AgentResult) -> str:
    """Why ``result`` is not an answer to ``order`` (empty when it is)."""
    asked = (order.project_id, order.agent, order.mode, order.task_id)
    answered = (result.project_id, result.agent, result.mode, result.task_id)
    if asked == answered:
        return ""
    return f"it answers {answered} but the request was {asked}"


STATE_REMEDY = (
    "restore the file from a backup, or move the project folder away and start the project "
    "again; the Monitor will not resume from a guess"
)


def load_project(store: ProjectStore) -> ProjectState | None:
    """The persisted state of ``store``'s project, or ``None`` if it has none.

    A state file that cannot be read or decoded, or that belongs to another project, raises
    ``StateFileError`` naming the file: resuming from a guess is not allowed.
    """
    path = str(store.dir / TASK_STATE_PATH)
    try:
        state = decode_state(store.read(TASK_STATE_PATH))
    except FileNotFoundError:
        return None
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        problem = f"the project state is damaged ({str(exc)[:300]})"
    except UnicodeDecodeError:
        problem = "the project state is not UTF-8 text"
    except (PathPolicyError, OSError) as exc:
        problem = f"the project state cannot be read ({str(exc)[:300]})"
    else:
        if state.project_id == store.project_id:
            return state
        problem = f"the project state belongs to project {state.project_id!r}"
    raise StateFileError(path, problem, STATE_REMEDY)
