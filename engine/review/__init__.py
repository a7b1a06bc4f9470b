"""The review logic: one layer run, a layer's consensus, the veto gate, the final report.

Pure functions over ``contracts`` with no I/O (docs/design.md#review-semantics).
"""

from .consensus import MAX_MERGED_FINDINGS, VOTING_STATUSES, consensus, is_confirmed, status_rank
from .errors import ReviewError
from .gate import MISSING_REASON, blocking_reasons, gate, is_settled, max_veto
from .layers import DEFAULT_SETTINGS, LAYERS, LINE_BUCKET, GateSettings, LayerSpec
from .local import local_outcome
from .recompute import adaptive_applies, late_result, layer_result, reconcile_runs, rescore_run
from .report import action_hash, build_report, policy_version
from .run import MAX_RUN_FINDINGS, error_run, fingerprint, make_run, run_status, run_veto

__all__ = [
    "DEFAULT_SETTINGS",
    "LAYERS",
    "LINE_BUCKET",
    "MAX_MERGED_FINDINGS",
    "MAX_RUN_FINDINGS",
    "MISSING_REASON",
    "VOTING_STATUSES",
    "GateSettings",
    "LayerSpec",
    "ReviewError",
    "action_hash",
    "adaptive_applies",
    "blocking_reasons",
    "build_report",
    "consensus",
    "error_run",
    "fingerprint",
    "gate",
    "is_confirmed",
    "is_settled",
    "late_result",
    "layer_result",
    "local_outcome",
    "make_run",
    "max_veto",
    "policy_version",
    "reconcile_runs",
    "rescore_run",
    "run_status",
    "run_veto",
    "status_rank",
]
