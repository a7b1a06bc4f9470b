"""The delivery pipeline's pure logic: task states, project flow, backlog, status rendering."""

from .backlog import BacklogError, BacklogTask, order_tasks, parse_backlog
from .commands import apply_command, human_inputs
from .errors import CommandRefused
from .flow import Step, block, on_handoff, start_project
from .orders import DEV_MODE, QA_MODE, STAGE_STEPS, events_since, render_findings
from .project import (
    STAGES,
    CommandRecord,
    ProjectState,
    Resume,
    Stage,
    decode_state,
    encode_state,
)
from .states import ALLOWED, TERMINAL, TransitionRefused, can_transition, transition
from .status import (
    STATUS_PATH,
    TASK_STATE_PATH,
    next_step,
    pipeline_status,
    render_status,
    render_task_state,
)

__all__ = [
    "ALLOWED",
    "DEV_MODE",
    "QA_MODE",
    "STAGES",
    "STAGE_STEPS",
    "STATUS_PATH",
    "TASK_STATE_PATH",
    "TERMINAL",
    "BacklogError",
    "BacklogTask",
    "CommandRecord",
    "CommandRefused",
    "ProjectState",
    "Resume",
    "Stage",
    "Step",
    "TransitionRefused",
    "apply_command",
    "block",
    "can_transition",
    "decode_state",
    "encode_state",
    "events_since",
    "human_inputs",
    "next_step",
    "on_handoff",
    "order_tasks",
    "parse_backlog",
    "pipeline_status",
    "render_findings",
    "render_status",
    "render_task_state",
    "start_project",
    "transition",
]
