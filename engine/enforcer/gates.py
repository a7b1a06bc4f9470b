"""The envelope gates (docs/design.md#the-enforcer-and-envelope-gates): what every agent reply
must satisfy, checked in code (pure).

``check_reply(request, reply)`` returns the ``Violation``s of a decoded ``ResponseEnvelope``;
an empty list means the reply passes. Gate names are stable metric labels.

Global gates: the status is one the mode allows; ``summary`` is not empty; ``OK`` carries
evidence; ``NEEDS_INFO`` asks 1–7 questions; artifacts are never empty (every mode of the
pipeline generates or validates); every artifact path passes ``engine.path_policy.check_path``,
is not under ``docs/monitor/`` (the Monitor's), lies in the agent's write set
(``engine.path_policy.WRITE_SETS``: only the Dev writes ``apps/`` and ``project/``) and appears
once. The mode's own files and content
checks apply to deliverable replies: every status except ``NEEDS_INFO`` and ``BLOCKED`` (a Dev
that must ask about the architecture cannot be made to ship code first). QA's
``validate_task`` allows only ``QA_PASS`` and ``QA_FAIL``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from humangr.contracts import AgentName, MessageEnvelope, ResponseEnvelope, ResponseStatus
from humangr.engine.errors import PathPolicyError
from humangr.engine.path_policy import check_path, write_problem
from humangr.engine.pipeline.backlog import BacklogError, parse_backlog
from humangr.engine.pipeline.context import RESERVED_PREFIX

from .parse import has_field, sections

__all__ = [
    "BACKLOG_FIELDS",
    "MAX_QUESTIONS",
    "MODES",
    "QA_REPORT_FIELDS",
    "SPEC_PATH",
    "Violation",
    "check_reply",
    "messages",
    "request_problems",
]

MAX_QUESTIONS = 7
SPEC_PATH = "docs/spec/PRODUCT_SPEC.md"
ENGINEER_DOCS = tuple(
    f"docs/engineer/engineer_{name}.md" for name in ("proposal", "architecture", "dependencies")
)
CTO_VALIDATION = {
    "validate_engineer_docs": "docs/cto/cto_engineer_validation.md",
    "validate_backlog": "docs/cto/cto_backlog_validation.md",
}
BACKLOG_FIELDS: dict[str, tuple[str, ...]] = {
    "objective": ("objective",),
    "scope": ("scope",),
    "acceptance criteria": ("acceptance criteria",),
    "expected test": ("expected test",),
    "dependencies": ("dependencies", "dependency"),
}
"""Each backlog task needs a heading or label line starting with one of these (any case)."""
QA_REPORT_FIELDS: dict[str, tuple[str, ...]] = {
    "steps": ("steps",),
    "evidence": ("evidence",),
    "severity": ("severity",),
    "recommendation": ("recommendation",),
}
"""The QA report needs these labelled fields plus at least one ``FR-``/``NFR-`` id."""
SPEC_EVIDENCE = (2, 5)
_BACKLOG_PATH = re.compile(r"^docs/pm/[^/]+/BACKLOG\.md$")
_SPEC_SECTION = re.compile(r"^([0-9])(?![0-9])")
_FR = re.compile(r"(?<![A-Za-z])FR-[A-Za-z0-9]")
_REQ_ID = re.compile(r"(?<![A-Za-z])N?FR-[A-Za-z0-9]")
_NOT_DELIVERABLE = frozenset({ResponseStatus.NEEDS_INFO, ResponseStatus.BLOCKED})


@dataclass(frozen=True, slots=True)
class Violation:
    """One failed gate: ``gate`` is a stable name, ``message`` tells the agent what to fix."""

    gate: str
    message: str

    def __str__(self) -> str:
        return f"[{self.gate}] {self.message}"


Gate = Callable[[MessageEnvelope, ResponseEnvelope], list[Violation]]


def _contents(reply: ResponseEnvelope) -> dict[str, str]:
    return {artifact.path: artifact.content for artifact in reply.artifacts}


def _require(reply: ResponseEnvelope, path: str) -> tuple[str | None, list[Violation]]:
    content = _contents(reply).get(path)
    if content is None:
        return None, [Violation("required_artifact", f"the artifact {path} is missing")]
    if not content.strip():
        return None, [Violation("required_artifact", f"the artifact {path} is empty")]
    return content, []


def _spec_intake(request: MessageEnvelope, reply: ResponseEnvelope) -> list[Violation]:
    content, found = _require(reply, SPEC_PATH)
    if content is not None:
        numbered: dict[int, str] = {}
        for section in sections(content, 2):
            match = _SPEC_SECTION.match(section.title)
            if match:
                numbered.setdefault(int(match.group(1)), section.body)
        missing = [f"## {n}" for n in range(10) if n not in numbered]
        if missing:
            found.append(
                Violation("spec_sections", f"{SPEC_PATH} lacks the section(s) {', '.join(missing)}")
            )
        empty = [f"## {n}" for n, body in sorted(numbered.items()) if not body.strip()]
        if empty:
            found.append(
                Violation(
                    "spec_sections",
                    f"{SPEC_PATH} section(s) {', '.join(empty)} are empty; write TBD or UNKNOWN "
                    "where the spec says nothing",
                )
            )
        if not _FR.search(content):
            found.append(
                Violation(
                    "spec_fr", f"{SPEC_PATH} has no functional requirement (an id like FR-01)"
                )
            )
    if "spec_raw" in request.inputs:
        refs = sum(1 for e in reply.evidence if e.ref.startswith("inputs.spec_raw"))
        low, high = SPEC_EVIDENCE
        if not low <= refs <= high:
            found.append(
                Violation(
                    "spec_evidence",
                    f"give {low} to {high} evidence items whose ref is inputs.spec_raw (or "
                    f"inputs.spec_raw#<where>); found {refs}",
                )
            )
    return found


def _engineer(_: MessageEnvelope, reply: ResponseEnvelope) -> list[Violation]:
    return [v for path in ENGINEER_DOCS for v in _require(reply, path)[1]]


def _cto_validation(request: MessageEnvelope, reply: ResponseEnvelope) -> list[Violation]:
    found = _require(reply, CTO_VALIDATION[request.mode])[1]
    if reply.status is ResponseStatus.REVISION and not [
        i for i in reply.next_actions.items if i.strip()
    ]:
        found.append(
            Violation("revision", "REVISION must list each gap to fix in next_actions.items")
        )
    return found


def _backlog(_: MessageEnvelope, reply: ResponseEnvelope) -> list[Violation]:
    backlogs = [a for a in reply.artifacts if _BACKLOG_PATH.match(a.path)]
    if not backlogs:
        return [
            Violation("required_artifact", "the artifact docs/pm/<squad>/BACKLOG.md is missing")
        ]
    found: list[Violation] = []
    for artifact in backlogs:
        try:
            tasks = parse_backlog(artifact.content)
        except BacklogError as exc:
            found.append(Violation("backlog_tasks", f"{artifact.path}: {exc}"))
            continue
        for task in tasks:
            missing = [
                name for name, labels in BACKLOG_FIELDS.items() if not has_field(task.body, labels)
            ]
            if missing:
                found.append(
                    Violation(
                        "backlog_tasks",
                        f"{artifact.path}: task {task.task_id} lacks {', '.join(missing)}",
                    )
                )
    return found


def _dev(request: MessageEnvelope, reply: ResponseEnvelope) -> list[Violation]:
    code = [a for a in reply.artifacts if a.path.startswith("apps/") and a.content.strip()]
    found = (
        []
        if code
        else [
            Violation(
                "dev_apps",
                "implement the task: at least one non-empty file under apps/ is required; "
                "an explanation alone is not an implementation",
            )
        ]
    )
    found += _require(reply, f"docs/dev/dev_implementation_{request.task_id}.md")[1]
    return found


def _qa(request: MessageEnvelope, reply: ResponseEnvelope) -> list[Violation]:
    path = f"docs/qa/QA_REPORT_{request.task_id}.md"
    content, found = _require(reply, path)
    if content is not None:
        missing = [] if _REQ_ID.search(content) else ["the FR/NFR mapping (FR-/NFR- ids)"]
        missing += [
            name for name, labels in QA_REPORT_FIELDS.items() if not has_field(content, labels)
        ]
        if missing:
            found.append(Violation("qa_report", f"{path} lacks {', '.join(missing)}"))
    return found


@dataclass(frozen=True, slots=True)
class _Mode:
    statuses: frozenset[ResponseStatus]
    gate: Gate
    needs_task: bool = False


_DELIVER = frozenset({ResponseStatus.OK, ResponseStatus.NEEDS_INFO, ResponseStatus.BLOCKED})
MODES: dict[tuple[AgentName, str], _Mode] = {
    (AgentName.CTO, "spec_intake_and_normalize"): _Mode(_DELIVER, _spec_intake),
    (AgentName.ENGINEER, "generate_engineering_docs"): _Mode(_DELIVER, _engineer),
    (AgentName.CTO, "validate_engineer_docs"): _Mode(
        _DELIVER | {ResponseStatus.REVISION}, _cto_validation
    ),
    (AgentName.CTO, "validate_backlog"): _Mode(
        _DELIVER | {ResponseStatus.REVISION}, _cto_validation
    ),
    (AgentName.PM, "generate_backlog"): _Mode(_DELIVER, _backlog),
    (AgentName.DEV, "implement_task"): _Mode(_DELIVER, _dev, needs_task=True),
    (AgentName.QA, "validate_task"): _Mode(
        frozenset({ResponseStatus.QA_PASS, ResponseStatus.QA_FAIL}), _qa, needs_task=True
    ),
}
"""Every (agent, mode) an LLM agent serves, with the statuses it may answer."""


def request_problems(request: MessageEnvelope) -> list[str]:
    """Why no reply could ever pass for ``request`` (unknown mode, missing task id)."""
    mode = MODES.get((request.agent, request.mode))
    if mode is None:
        known = sorted(m for a, m in MODES if a is request.agent)
        return [f"agent {request.agent.value} has no mode {request.mode!r}; known: {known}"]
    if mode.needs_task and request.task_id is None:
        return [f"mode {request.mode} needs a task_id in the envelope"]
    return []


def _path_problem(agent: AgentName, path: str) -> str | None:
    try:
        check_path(path)
    except PathPolicyError as exc:
        return exc.problem
    if path.startswith(RESERVED_PREFIX):
        return f"{path!r}: {RESERVED_PREFIX} is written by the Monitor only"
    return write_problem(agent, path)


def _global(agent: AgentName, mode: _Mode, reply: ResponseEnvelope) -> list[Violation]:
    found: list[Violation] = []
    if reply.status not in mode.statuses:
        allowed = ", ".join(sorted(s.value for s in mode.statuses))
        found.append(
            Violation(
                "status", f"status {reply.status.value} is not allowed here; use one of {allowed}"
            )
        )
    if not reply.summary.strip():
        found.append(Violation("summary", "summary is empty"))
    if reply.status is ResponseStatus.OK and not reply.evidence:
        found.append(Violation("evidence", "status OK needs at least one evidence item"))
    questions = [q for q in reply.next_actions.questions if q.strip()]
    if reply.status is ResponseStatus.NEEDS_INFO and not 1 <= len(questions) <= MAX_QUESTIONS:
        found.append(
            Violation(
                "questions",
                f"NEEDS_INFO needs 1 to {MAX_QUESTIONS} questions in next_actions.questions; "
                f"found {len(questions)}",
            )
        )
    if not reply.artifacts:
        found.append(Violation("artifacts", "this mode must return artifacts; none were sent"))
    seen: set[str] = set()
    for artifact in reply.artifacts:
        problem = _path_problem(agent, artifact.path)
        if problem is not None:
            found.append(Violation("path_policy", problem))
        if artifact.path in seen:
            found.append(Violation("artifacts", f"the path {artifact.path} appears twice"))
        seen.add(artifact.path)
    return found


def check_reply(request: MessageEnvelope, reply: ResponseEnvelope) -> list[Violation]:
    """Every gate ``reply`` fails as an answer to ``request``; empty when it passes."""
    problems = request_problems(request)
    if problems:
        return [Violation("mode", problem) for problem in problems]
    mode = MODES[(request.agent, request.mode)]
    found = _global(request.agent, mode, reply)
    if reply.status in _NOT_DELIVERABLE and reply.status in mode.statuses:
        return found
    return found + mode.gate(request, reply)


def messages(violations: Sequence[Violation]) -> list[str]:
    """The violations as the lines a repair prompt lists."""
    return [str(v) for v in violations]
