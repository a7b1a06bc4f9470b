"""What the Supervisor admits for review: a submission is refused when it comes on a subject
that does not name its agent, or from another agent than the action's, names the layers to run
(unless layer selection is allowed), carries an action that cannot be reviewed, or a hash that
is not the action's. The Supervisor alone decides what reviews an action."""

from __future__ import annotations

from collections.abc import Callable

from humangr.contracts import ActionSubmitted, LayerID, action_problem
from humangr.contracts.subjects import Subjects
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import MessageRefused
from humangr.engine.review import action_hash

__all__ = [
    "bare_submit_refusal",
    "check_submitter",
    "checked_hash",
    "refuser",
    "requested_layers",
]


def check_submitter(subjects: Subjects, message: ActionSubmitted, subject: str) -> None:
    """Refuse a submission whose subject names another agent than the action's: an agent
    submits its own actions only."""
    submitter = subjects.submitter(subject)
    if submitter != message.action.agent_id:
        raise MessageRefused(
            f"action {message.action_id}: submitted on {subject} by agent "
            f"{submitter!r}, but the action claims agent_id {message.action.agent_id!r}: "
            "an agent submits its own actions only, on "
            f"{subjects.agent_submits.removesuffix('*')}<its agent id>",
            correlation_id=message.action_id,
        )


def bare_submit_refusal(
    subjects: Subjects, message: ActionSubmitted, subject: str
) -> MessageRefused:
    """The refusal of a submission on the bare subject of older clients (it names no
    submitter)."""
    return MessageRefused(
        f"action {message.action_id}: submitted on {subject}, which does not say "
        "which agent sent it; submit on "
        f"{subjects.agent_submits.removesuffix('*')}<your agent id> "
        "(a client older than the per-agent submit subjects: upgrade it)",
        correlation_id=message.action_id,
    )


def refuser(action_id: str) -> Callable[[str], MessageRefused]:
    """How a submission of ``action_id`` is refused for a reason."""

    def refuse(reason: str) -> MessageRefused:
        return MessageRefused(f"action {action_id}: {reason}", correlation_id=action_id)

    return refuse


def checked_hash(
    message: ActionSubmitted, config: ReviewConfig, refuse: Callable[[str], MessageRefused]
) -> str:
    """The action's hash, once the submission is one that can be reviewed: it names no layers
    (unless ``allow_layer_selection``), its action is well formed, and the hash it gives, if
    any, is the action's. Anything else is refused."""
    if message.layers is not None and not config.allow_layer_selection:
        raise refuse(
            "the submission names the layers to run; the Supervisor alone decides what "
            "reviews an action (allow_layer_selection is off): leave `layers` out"
        )
    problem = action_problem(message.action, max_diff_bytes=config.max_diff_bytes)
    if problem is not None:
        raise refuse(problem)
    digest = action_hash(message.action)
    if message.action_hash and message.action_hash != digest:
        raise refuse(
            "action_hash does not match the action; compute it over the canonical JSON of "
            "the action or leave it out"
        )
    return digest


def requested_layers(
    message: ActionSubmitted,
    configured: tuple[LayerID, ...],
    refuse: Callable[[str], MessageRefused],
) -> tuple[LayerID, ...]:
    """The ``configured`` layers the submission asks for (all of them unless it names some);
    refused when it names none of them."""
    if message.layers is None:
        return configured
    expected = tuple(lid for lid in configured if lid in message.layers)
    if not expected:
        raise refuse(
            f"none of the requested layers ({', '.join(map(str, message.layers))}) is "
            "configured here"
        )
    return expected
