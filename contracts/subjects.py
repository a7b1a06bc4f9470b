"""Every subject of the engine, under one configurable prefix."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ConfigError

__all__ = ["DEFAULT_PREFIX", "Subjects"]

DEFAULT_PREFIX = "hl"
_PREFIX = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]+$")
_CANCEL = "cancel"
"""Not an agent id: ``<prefix>.actions.submit.cancel`` is the cancel of action ``submit``."""


def _token(value: str, what: str) -> str:
    if not _TOKEN.fullmatch(value):
        raise ValueError(
            f"{what} {value!r} is not a valid subject token (letters, digits, _ and -)"
        )
    return value


@dataclass(frozen=True, slots=True)
class Subjects:
    """The subject names of docs/design.md#subjects under ``prefix``."""

    prefix: str = DEFAULT_PREFIX

    def __post_init__(self) -> None:
        if not _PREFIX.fullmatch(self.prefix):
            raise ConfigError(f"subject prefix {self.prefix!r} must be dot-separated tokens")

    def _s(self, *parts: str) -> str:
        return ".".join((self.prefix, *parts))

    @property
    def action_submit(self) -> str:
        """The bare submit subject of older clients: the Supervisor refuses what arrives there
        (a dead letter naming ``agent_submit``), since it says nothing of who sent it."""
        return self._s("actions", "submit")

    def agent_submit(self, agent_id: str) -> str:
        """Where agent ``agent_id`` submits its actions (``ActionSubmitted``). The Supervisor
        takes the submitter's id from this subject, never from the action (one claiming
        another id is refused), and the server's permissions let each agent's user publish
        on its own only (deploy/nats-server.conf)."""
        if agent_id == _CANCEL:
            raise ValueError(
                f"agent id {agent_id!r} is reserved: {self._s('actions', 'submit', _CANCEL)} "
                "is the cancel subject of action 'submit'; choose another agent id"
            )
        return self._s("actions", "submit", _token(agent_id, "agent id"))

    @property
    def agent_submits(self) -> str:
        """Every agent's ``agent_submit`` (what the Supervisor serves)."""
        return self._s("actions", "submit", "*")

    def submitter(self, subject: str) -> str | None:
        """The agent id of a per-agent submit subject (``agent_submit``), else ``None``."""
        head = self._s("actions", "submit") + "."
        if not subject.startswith(head):
            return None
        agent_id = subject[len(head) :]
        return agent_id if _TOKEN.fullmatch(agent_id) and agent_id != _CANCEL else None

    def is_submit(self, subject: str) -> bool:
        """Whether ``subject`` is a submit subject: an agent's own, or the bare one."""
        return subject == self.action_submit or self.submitter(subject) is not None

    def layer_task(self, layer_id: str) -> str:
        return self._s("layers", _token(str(layer_id), "layer id"), "task")

    @property
    def layer_tasks(self) -> str:
        return self._s("layers", "*", "task")

    @property
    def layer_report(self) -> str:
        return self._s("layers", "report")

    def action_cancel(self, action_id: str) -> str:
        return self._s("actions", _token(action_id, "action id"), "cancel")

    @property
    def action_cancels(self) -> str:
        return self._s("actions", "*", "cancel")

    def decision(self, agent_id: str) -> str:
        return self._s("decisions", _token(agent_id, "agent id"))

    @property
    def decisions(self) -> str:
        return self._s("decisions", ">")

    @property
    def reviews_pending(self) -> str:
        return self._s("reviews", "pending")

    def review_resolve(self, action_id: str) -> str:
        return self._s("reviews", _token(action_id, "action id"), "resolve")

    @property
    def review_resolves(self) -> str:
        return self._s("reviews", "*", "resolve")

    @property
    def review_query(self) -> str:
        """Request/reply: a ``ReviewQuery`` answered with a ``ReviewListing``."""
        return self._s("reviews", "query")

    @property
    def grant_query(self) -> str:
        """Request/reply, reviewers only: a ``GrantQuery`` answered with a ``GrantListing``."""
        return self._s("grants", "query")

    @property
    def grant_revoke(self) -> str:
        """Request/reply, reviewers only: a ``GrantRevoke`` answered with a ``GrantRevoked``."""
        return self._s("grants", "revoke")

    @property
    def history_query(self) -> str:
        """Request/reply, reviewers only: a ``HistoryQuery`` answered with a ``HistoryPage``
        (the stored decisions ``humangr replay --nats`` re-decides)."""
        return self._s("history", "query")

    @property
    def report_get(self) -> str:
        """Request/reply: a ``ReportQuery`` answered with a ``ReportReply``."""
        return self._s("reports", "get")

    def agent_report_get(self, agent_id: str) -> str:
        """Request/reply for one agent: a ``ReportQuery`` the Supervisor answers only with a
        report of ``agent_id`` (any other is "no report", as for an unknown id)."""
        return self._s("reports", "get", _token(agent_id, "agent id"))

    @property
    def agent_report_gets(self) -> str:
        """Every agent's ``agent_report_get`` (what the Supervisor answers)."""
        return self._s("reports", "get", "*")

    @property
    def work_order(self) -> str:
        return self._s("work", "order")

    def agent_request(self, agent: str) -> str:
        return self._s("agents", _token(str(agent), "agent"), "request")

    @property
    def agent_requests(self) -> str:
        return self._s("agents", "*", "request")

    @property
    def agent_result(self) -> str:
        return self._s("agents", "result")

    def handoff(self, project_id: str) -> str:
        return self._s("handoffs", _token(project_id, "project id"))

    @property
    def handoffs(self) -> str:
        return self._s("handoffs", "*")

    @property
    def pipeline_start(self) -> str:
        return self._s("pipeline", "start")

    def pipeline_status(self, project_id: str) -> str:
        return self._s("pipeline", _token(project_id, "project id"), "status")

    @property
    def pipeline_statuses(self) -> str:
        return self._s("pipeline", "*", "status")

    def pipeline_command(self, project_id: str) -> str:
        """A human's ``PipelineCommand`` (unblock or cancel) for one project."""
        return self._s("pipeline", _token(project_id, "project id"), "command")

    @property
    def pipeline_commands(self) -> str:
        return self._s("pipeline", "*", "command")

    @property
    def breaker(self) -> str:
        return self._s("breaker")

    def audit(self, project_id: str) -> str:
        return self._s("audit", _token(project_id, "project id"))

    @property
    def audits(self) -> str:
        return self._s("audit", "*")

    @property
    def dlq(self) -> str:
        """Every dead letter (operators, reviewers, the Supervisors; never an agent)."""
        return self._s("dlq")

    def agent_dlq(self, agent_id: str) -> str:
        """The dead letters of one agent's own submissions (a copy of those on ``dlq``)."""
        return self._s("dlq", "agent", _token(agent_id, "agent id"))

    @property
    def agent_dlqs(self) -> str:
        """Every agent's ``agent_dlq``."""
        return self._s("dlq", "agent", "*")

    @property
    def worker_heartbeat(self) -> str:
        """Where layer workers announce what they serve (``WorkerHeartbeat``): read by the
        Supervisors, which plan LLM runs only for layers a worker can run them on."""
        return self._s("workers", "heartbeat")

    def last_token(self, subject: str, index: int) -> str:
        """The token at ``index`` after the prefix (for example the action id of a cancel)."""
        return subject.split(".")[len(self.prefix.split(".")) + index]
