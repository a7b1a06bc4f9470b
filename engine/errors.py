"""The core's errors, rooted at ``HumangrError`` (``humangr.contracts.errors``; the whole tree is
documented in ``humangr.errors``). Every error says what was wrong and what to do about it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from humangr.contracts.errors import ConfigError, ContractError, HumangrError

if TYPE_CHECKING:
    from humangr.contracts import HumanLayerReport

__all__ = [
    "BusClosedError",
    "BusError",
    "BusTimeoutError",
    "ConfigError",
    "ContractError",
    "DecisionMismatch",
    "EngineError",
    "GateError",
    "HandlerSignal",
    "HumangrError",
    "LLMError",
    "MessageRefused",
    "NoRespondersError",
    "PathPolicyError",
    "Refused",
    "Rejected",
    "ReplicaMismatch",
    "ReviewTimeout",
    "SignatureError",
    "SlowConsumerError",
    "StateConflict",
    "StateError",
    "StateFileError",
    "SubmissionRefused",
    "sole_exception",
]


EngineError = HumangrError
"""The former name of ``HumangrError``, the root of the tree (``humangr.errors``)."""


class BusError(EngineError):
    """A bus operation failed."""


class ReplicaMismatch(ConfigError):
    """An existing JetStream stream or KV bucket has another replica count than this process's
    setting; it was left as it is."""

    def __init__(self, what: str, theirs: int, ours: int) -> None:
        super().__init__(
            f"{what} has {theirs} replica(s), but this process is set to {ours}; it was not "
            f"changed. Start with --replicas {theirs} (the cluster's setting), or, as the "
            f"operator, run `humangr serve --replicas {ours} --update-streams` once to change it"
        )
        self.what = what
        self.theirs = theirs
        self.ours = ours


class BusClosedError(BusError):
    """The bus was used after ``close()``."""


class BusTimeoutError(BusError, TimeoutError):
    """A request got no reply within its timeout."""

    def __init__(self, subject: str, timeout: float) -> None:
        super().__init__(f"no reply on {subject!r} within {timeout:g}s; is a responder running?")
        self.subject = subject
        self.timeout = timeout


class NoRespondersError(BusError):
    """A request was sent to a subject that nobody listens on."""

    def __init__(self, subject: str) -> None:
        super().__init__(f"no responders on {subject!r}; start the actor that serves it")
        self.subject = subject


class SlowConsumerError(BusError):
    """A subscriber fell behind: its bounded buffer was full and messages were dropped."""

    def __init__(self, subject: str, dropped: int, capacity: int, *, waited: float = 0.0) -> None:
        full = (
            f"buffer of {capacity} stayed full for the {waited:g}s publishers wait"
            if waited > 0
            else f"buffer of {capacity} was full"
        )
        super().__init__(
            f"slow consumer on {subject!r}: {dropped} message(s) dropped, {full}; "
            "consume faster, raise max_pending or add queue-group members"
        )
        self.subject = subject
        self.dropped = dropped
        self.capacity = capacity
        self.waited = waited


class HandlerSignal(Exception):
    """What a message handler raises to tell the actor system how a message ends. Not part of
    the error tree: it never reaches a user."""


class MessageRefused(HandlerSignal):
    """Raised by a handler to refuse a well-formed but unacceptable message.

    The actor system sends the message to the dead-letter subject with ``reason`` and the
    actor keeps serving; it is not a crash and the message is not retried.
    """

    def __init__(self, reason: str, *, correlation_id: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.correlation_id = correlation_id
        """The action id (or request id) the refused message was about, if it could be read."""


class GateError(EngineError):
    """An agent reply failed a gate of the enforcer."""

    def __init__(self, gate: str, problem: str) -> None:
        super().__init__(f"gate {gate!r} failed: {problem}")
        self.gate = gate
        self.problem = problem


class PathPolicyError(GateError):
    """An artifact path is refused by the path policy."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__("path_policy", f"{path!r}: {problem}")
        self.path = path


class LLMError(EngineError):
    """An LLM call failed after its retries."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class Refused(EngineError):
    """The engine refused a message you sent (a DeadLetter names it, with ``reason``): it has no
    effect. ``SubmissionRefused`` is the one for a submitted action."""

    def __init__(self, reason: str, message: str | None = None) -> None:
        super().__init__(message or f"the engine refused the message: {reason}")
        self.reason = reason


class SubmissionRefused(Refused):
    """The engine refused a submitted action (a DeadLetter naming it): it will not be decided."""

    def __init__(self, action_id: str, reason: str) -> None:
        reason = reason.removeprefix(f"action {action_id}: ")
        super().__init__(reason, f"the engine refused action {action_id}: {reason}")
        self.action_id = action_id


class DecisionMismatch(EngineError):
    """A decision names another action hash than the action submitted: it does not apply."""

    def __init__(self, action_id: str, expected: str, got: str) -> None:
        super().__init__(
            f"the decision on {action_id} is for action hash {got[:12]}…, but the action "
            f"submitted hashes to {expected[:12]}…; it does not apply to this action (a stale "
            "or forged decision): do not act on it"
        )
        self.action_id = action_id
        self.expected = expected
        self.got = got


class StateError(EngineError):
    """The state store cannot do what was asked: a bad key, or its storage failed."""


class StateConflict(StateError):
    """A compare-and-set lost: the entry exists already, or is no longer at the revision named.
    Another process changed it first; read it again and decide anew."""


class StateFileError(EngineError):
    """A state file the engine loads (a project's ``TASK_STATE.json``, the breaker file) is
    damaged or unreadable; the message names the file and what to do."""

    def __init__(self, path: str, problem: str, remedy: str) -> None:
        super().__init__(f"{path}: {problem}; {remedy}")
        self.path = path
        self.problem = problem
        self.remedy = remedy


class SignatureError(EngineError):
    """A decision's signature is missing, malformed, from another key, or does not match the
    decision: do not act on it."""


class ReviewTimeout(EngineError, TimeoutError):
    """No decision on a submitted action within the time the client waits: do not act."""

    def __init__(
        self, action_id: str, timeout: float, *, final: bool = False, hint: str | None = None
    ) -> None:
        what = "final decision" if final else "decision"
        if hint is None:  # ``hint``: what can reach this engine, said by whoever knows it
            hint = (
                f"if a human must decide, `humangr show {action_id}` and `humangr resolve "
                f"{action_id}` do it, or wait longer (timeout=)"
                if final
                else "is the engine running (`humangr serve`), on the same subject prefix?"
            )
        super().__init__(f"no {what} on {action_id} within {timeout:g}s; {hint}")
        self.final = final
        self.action_id = action_id
        self.timeout = timeout


class Rejected(EngineError):
    """A guarded call was not approved, so it did not run; ``report`` is the decision."""

    def __init__(self, report: HumanLayerReport, call: str = "", *, hint: str = "") -> None:
        reasons = "; ".join(report.blocking_reasons[:5]) or "no reason given"
        more = len(report.blocking_reasons) - 5
        if more > 0:
            reasons += f"; and {more} more"
        what = f"{call} was not run: " if call else ""
        then = f"; {hint}" if hint else ""  # ``hint``: what to do, said by whoever knows it
        super().__init__(
            f"{what}the decision on {report.action_id} is {report.outcome.value} ({reasons})" + then
        )
        self.report = report
        self.call = call


def sole_exception(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    """The one exception a (nested) group holds, if it holds exactly one: what a context
    manager built on a task group re-raises as itself, so ``except ReviewTimeout`` catches it."""
    inner: BaseException = group
    while isinstance(inner, BaseExceptionGroup):
        if len(inner.exceptions) != 1:
            return None
        inner = inner.exceptions[0]
    return inner
