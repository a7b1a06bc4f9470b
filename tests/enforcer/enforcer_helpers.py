"""Builders shared by the enforcer tests: envelopes, valid replies per mode, test prompt assets."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import msgspec

from humangr.contracts import AgentName, Limits, MessageEnvelope, ResponseEnvelope

PROJECT = "demo"
TASK = "TSK-001"

SPEC = """# Product spec

## 0 Context
A todo service.

## 1 Goals
- FR-01: a user can add a todo.
- FR-02: a user can list todos.

## 2 Users
Individuals.

## 3 Functional requirements
FR-01, FR-02.

## 4 Non-functional requirements
- NFR-01: p99 < 200 ms.

## 5 Data
UNKNOWN

## 6 Interfaces
HTTP JSON.

## 7 Constraints
TBD

## 8 Risks
TBD

## 9 Open questions
UNKNOWN
"""

BACKLOG = """# Backlog (squad core)

## TSK-001 Add todo endpoint
- Objective: POST /todos stores a todo (FR-01).
- Scope: apps/api only.
- Acceptance criteria: 201 with the stored todo.
- Expected test: tests/test_todos.py::test_add
- Dependencies: none

## TSK-002 List todos
### Objective
GET /todos returns every todo (FR-02).
### Scope
apps/api only.
### Acceptance criteria
200 with a JSON list.
### Expected test
tests/test_todos.py::test_list
### Dependencies
- TSK-001
"""

QA_REPORT = """# QA report TSK-001

## FR/NFR mapping
- FR-01: POST /todos covered by test_add.

## Steps
1. Run pytest.

## Evidence
- 3 tests passed.

## Severity
none

## Recommendation
Ship it.
"""

SPEC_EVIDENCE = [
    {"type": "spec_ref", "ref": "inputs.spec_raw", "note": "a todo service"},
    {"type": "spec_ref", "ref": "inputs.spec_raw#L3", "note": "add and list"},
]
EVIDENCE = [{"type": "file_ref", "ref": "docs/spec/PRODUCT_SPEC.md", "note": "FR-01"}]

MODES: dict[tuple[str, str], dict[str, Any]] = {
    ("cto", "spec_intake_and_normalize"): {
        "status": "OK",
        "summary": "Normalised the spec.",
        "artifacts": [{"path": "docs/spec/PRODUCT_SPEC.md", "content": SPEC}],
        "evidence": SPEC_EVIDENCE,
    },
    ("engineer", "generate_engineering_docs"): {
        "status": "OK",
        "summary": "Engineering docs.",
        "artifacts": [
            {"path": f"docs/engineer/engineer_{name}.md", "content": f"# {name}\nText."}
            for name in ("proposal", "architecture", "dependencies")
        ],
        "evidence": EVIDENCE,
    },
    ("cto", "validate_engineer_docs"): {
        "status": "OK",
        "summary": "The engineering docs cover the spec.",
        "artifacts": [{"path": "docs/cto/cto_engineer_validation.md", "content": "# OK\nNo gaps."}],
        "evidence": EVIDENCE,
    },
    ("cto", "validate_backlog"): {
        "status": "OK",
        "summary": "The backlog covers the spec.",
        "artifacts": [{"path": "docs/cto/cto_backlog_validation.md", "content": "# OK\nNo gaps."}],
        "evidence": EVIDENCE,
    },
    ("pm", "generate_backlog"): {
        "status": "OK",
        "summary": "Backlog of two tasks.",
        "artifacts": [{"path": "docs/pm/core/BACKLOG.md", "content": BACKLOG}],
        "evidence": EVIDENCE,
    },
    ("dev", "implement_task"): {
        "status": "OK",
        "summary": "Implemented POST /todos.",
        "artifacts": [
            {
                "path": "apps/api/todos.py",
                "content": "def add(todo):\n    return todo\n",
                "format": "code",
            },
            {"path": f"docs/dev/dev_implementation_{TASK}.md", "content": "# Impl\nDone."},
        ],
        "evidence": EVIDENCE,
    },
    ("qa", "validate_task"): {
        "status": "QA_PASS",
        "summary": "All acceptance criteria met.",
        "artifacts": [{"path": f"docs/qa/QA_REPORT_{TASK}.md", "content": QA_REPORT}],
        "evidence": EVIDENCE,
    },
}


def envelope(agent: str, mode: str, **changes: Any) -> MessageEnvelope:
    """A request to ``agent`` in ``mode`` with what that mode needs (spec_raw, task id)."""
    fields: dict[str, Any] = {
        "request_id": f"req-{agent}-{mode}"[:64],
        "project_id": PROJECT,
        "agent": AgentName(agent),
        "mode": mode,
        "task": f"Run {mode}.",
        "limits": Limits(timeout_sec=30),
    }
    if mode == "spec_intake_and_normalize":
        fields["inputs"] = {"spec_raw": "I want a todo service to add and list todos."}
    if agent in ("dev", "qa"):
        fields["task_id"] = TASK
    fields.update(changes)
    return MessageEnvelope(**fields)


def good(agent: str, mode: str) -> dict[str, Any]:
    """A reply (as JSON data) that passes every gate of ``agent``/``mode``."""
    return copy.deepcopy(MODES[(agent, mode)])


def reply(data: dict[str, Any]) -> ResponseEnvelope:
    return msgspec.convert(data, ResponseEnvelope)


@dataclass(frozen=True, slots=True)
class Assets:
    protocol: str = "PROTOCOL: reply with one ResponseEnvelope."
    system_prompt: str = "SYSTEM: you are a test agent."
    skills: str = "SKILLS: testing."


def fake_assets(agent: str, variant: str) -> Assets:
    return Assets(
        protocol=f"PROTOCOL for everyone ({variant}).",
        system_prompt=f"SYSTEM PROMPT of {agent}.",
        skills=f"SKILLS of {agent}.",
    )
