"""Policies as code before review: allow / ask / deny / review rules and suppressions.

``load_policy(path)`` reads a policy file strictly; ``decide(policy, action)`` says which rule
decides an action (the first that matches, else the default); ``suppress(policy, action,
findings)`` marks the local-check findings the policy suppresses. Pure: no I/O but reading the
file. A standing approval (a grant) is one more rule source, evaluated before the file's rules.
"""

from .evaluate import decide
from .load import MAX_POLICY_BYTES, MAX_RULES, load_policy, parse_policy
from .match import Glob
from .model import Effect, MatchKey, Policy, PolicyDecision, Rule, Suppression
from .suppress import check_id, suppress
from .verdict import LOCAL_CHECKS, policy_report

__all__ = [
    "LOCAL_CHECKS",
    "MAX_POLICY_BYTES",
    "MAX_RULES",
    "Effect",
    "Glob",
    "MatchKey",
    "Policy",
    "PolicyDecision",
    "Rule",
    "Suppression",
    "check_id",
    "decide",
    "load_policy",
    "parse_policy",
    "policy_report",
    "suppress",
]
