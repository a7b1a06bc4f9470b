"""The read-only JSON resources under ``human_layer://``."""

from __future__ import annotations

from typing import Any

from humangr.actors.roles import current_policy_version
from humangr.contracts import LayerID
from humangr.engine.config import ReviewConfig
from humangr.engine.review import LAYERS

from .schemas import LayerInfo, LayersResult

__all__ = [
    "LAYERS_URI",
    "LAYER_TEMPLATE",
    "STATS_URI",
    "THRESHOLDS_URI",
    "layer_info",
    "layers_result",
    "parse_layer_uri",
    "thresholds_document",
]

SCHEME = "human_layer://"
LAYERS_URI = f"{SCHEME}layers"
LAYER_TEMPLATE = f"{SCHEME}layers/{{id}}"
THRESHOLDS_URI = f"{SCHEME}config/thresholds"
STATS_URI = f"{SCHEME}stats/summary"


def layer_info(layer_id: LayerID) -> LayerInfo:
    spec = LAYERS[layer_id]
    return LayerInfo(
        id=spec.id, name=spec.name, title=spec.title, focus=spec.focus, veto_power=spec.veto_power
    )


def layers_result() -> LayersResult:
    return LayersResult(layers=[layer_info(lid) for lid in LayerID])


def parse_layer_uri(uri: str) -> LayerID | None:
    """The layer of ``human_layer://layers/<id>`` (case-insensitive), ``None`` if ``uri`` is
    not of that form; ``ValueError`` naming the id if the layer does not exist."""
    prefix = LAYERS_URI + "/"
    if not uri.startswith(prefix):
        return None
    name = uri.removeprefix(prefix)
    try:
        return LayerID(name.upper())
    except ValueError:
        raise ValueError(f"unknown layer {name!r}; use HL1..HL7") from None


GATE_RULES = (
    "any layer with a strong veto -> rejected",
    "{rejecting_mediums} or more layers with a medium veto -> rejected",
    "any expected layer in error, missing or past its deadline -> needs_review",
    "one medium veto (fewer than {rejecting_mediums}) -> needs_review",
    "otherwise -> approved",
)


def thresholds_document(
    config: ReviewConfig, mode: str, *, llm_review: bool = True
) -> dict[str, Any]:
    """The gate rules, consensus settings and review limits in force, with the policy version
    (``llm_review``: whether the layers run LLM runs, which the policy version includes)."""
    thresholds = dict(config.gate.thresholds())
    local = mode == "in-process"
    return {
        "policy_version": current_policy_version(config, llm_review=llm_review),
        "mode": mode,
        "applies_to": (
            "the engine inside this server"
            if local
            else "this server's defaults; the remote engine applies its own settings and "
            "each report carries the policy_version it was decided under"
        ),
        "gate": {
            "rules": [rule.format(**thresholds) for rule in GATE_RULES],
            "rejecting_mediums": thresholds["rejecting_mediums"],
        },
        "consensus": thresholds,
        "review": {
            "layers": [lid.value for lid in config.layers],
            "layer_deadline_s": config.layer_deadline_s,
            "review_deadline_s": config.review_deadline_s,
            "max_diff_bytes": config.max_diff_bytes,
            "early_exit": config.early_exit,
            "adaptive_redundancy": config.adaptive_redundancy,
            "max_repairs": config.max_repairs,
        },
        "veto_powers": {lid.value: spec.veto_power.value for lid, spec in LAYERS.items()},
    }
