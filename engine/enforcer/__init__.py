"""The enforcer of agent replies: prompt bundle, strict parse, gates, repairs, circuit breakers."""

from .breaker import BreakerKey, BreakerState, BreakerStore, CircuitBreaker
from .bundle import PromptAssets, build_request, excerpts, split_artifacts
from .enforcer import Enforcer, EnforcerOutcome
from .gates import MODES, Violation, check_reply, request_problems
from .parse import reply_problems
from .strict import StrictLLM

__all__ = [
    "MODES",
    "BreakerKey",
    "BreakerState",
    "BreakerStore",
    "CircuitBreaker",
    "Enforcer",
    "EnforcerOutcome",
    "PromptAssets",
    "StrictLLM",
    "Violation",
    "build_request",
    "check_reply",
    "excerpts",
    "reply_problems",
    "request_problems",
    "split_artifacts",
]
