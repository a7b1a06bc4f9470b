"""Every error HUMANGR raises on purpose, in one tree. Catch ``HumangrError`` to catch them all;
each message says what was wrong and what to do.

::

    HumangrError
    ├── ConfigError (ValueError)           a setting cannot work; the message names it
    │   ├── ReplicaMismatch                a stream or bucket has another replica count
    │   └── ScriptError                    a ScriptedLLM script line is malformed
    ├── ContractError (ValueError)         a payload does not match its contract (.path)
    │   └── ArgumentError                  a guarded call's argument cannot be reviewed faithfully
    ├── BusError                           a bus operation failed
    │   ├── BusClosedError                 the bus was used after close()
    │   ├── BusTimeoutError (TimeoutError) a request got no reply in time
    │   ├── NoRespondersError              nobody listens on the subject
    │   └── SlowConsumerError              a subscriber fell behind and lost messages
    ├── StateError                         the state store cannot do what was asked
    │   ├── StateConflict                  a compare-and-set lost
    │   └── DamagedEntry                   a stored decision is damaged (quarantined)
    ├── StateFileError                     a state file the engine loads is unreadable
    ├── LLMError                           an LLM call failed after its retries
    │   ├── LLMTransportError              HTTP status, timeout, connection, malformed body
    │   ├── LLMReplyInvalid                the answer does not match the requested schema
    │   └── NoScriptMatch                  a ScriptedLLM has no line for the request
    ├── ReviewError (ValueError)           the review logic got inputs that do not belong together
    ├── GateError                          a pipeline agent's reply failed a gate
    │   └── PathPolicyError                an artifact path is refused
    ├── Refused                            the engine refused a message you sent: no effect
    │   └── SubmissionRefused              it refused a submitted action: never decided
    ├── DecisionMismatch                   a decision names another action hash: it does not apply
    ├── SignatureError                     a decision is unsigned, from another key, or changed
    │   └── DecisionReused                 an approval was presented again: it authorises one act
    ├── ReviewTimeout (TimeoutError)       no decision in time: do not act
    ├── Rejected                           a guarded call was not approved and did not run
    ├── CommandRefused                     a pipeline command does not apply to the project
    │   └── TransitionRefused              a task's transition the state machine does not allow
    └── BacklogError                       a backlog cannot be turned into tasks

Errors of optional parts live with them: ``humangr.mcp.ReportNotFound``, and the testing kit's
``humangr.testing.KitError`` / ``KitTimeout``.

Not errors: ``HandlerSignal`` and its ``MessageRefused`` are what an actor's message handler
raises to refuse a message (it becomes a dead letter); they never reach a user.
"""

from __future__ import annotations

from humangr.client.tool_call import ArgumentError
from humangr.contracts.errors import ConfigError, ContractError, HumangrError
from humangr.engine.errors import (
    BusClosedError,
    BusError,
    BusTimeoutError,
    DecisionMismatch,
    EngineError,
    GateError,
    HandlerSignal,
    LLMError,
    MessageRefused,
    NoRespondersError,
    PathPolicyError,
    Refused,
    Rejected,
    ReplicaMismatch,
    ReviewTimeout,
    SignatureError,
    SlowConsumerError,
    StateConflict,
    StateError,
    StateFileError,
    SubmissionRefused,
)
from humangr.engine.llm.errors import LLMReplyInvalid, LLMTransportError, NoScriptMatch, ScriptError
from humangr.engine.pipeline.backlog import BacklogError
from humangr.engine.pipeline.errors import CommandRefused
from humangr.engine.pipeline.states import TransitionRefused
from humangr.engine.review.errors import ReviewError
from humangr.engine.state.records import DamagedEntry
from humangr.verifying import DecisionReused

__all__ = [
    "ArgumentError",
    "BacklogError",
    "BusClosedError",
    "BusError",
    "BusTimeoutError",
    "CommandRefused",
    "ConfigError",
    "ContractError",
    "DamagedEntry",
    "DecisionMismatch",
    "DecisionReused",
    "EngineError",
    "GateError",
    "HandlerSignal",
    "HumangrError",
    "LLMError",
    "LLMReplyInvalid",
    "LLMTransportError",
    "MessageRefused",
    "NoRespondersError",
    "NoScriptMatch",
    "PathPolicyError",
    "Refused",
    "Rejected",
    "ReplicaMismatch",
    "ReviewError",
    "ReviewTimeout",
    "ScriptError",
    "SignatureError",
    "SlowConsumerError",
    "StateConflict",
    "StateError",
    "StateFileError",
    "SubmissionRefused",
    "TransitionRefused",
]
