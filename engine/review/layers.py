"""The seven reviewer layers (DESIGN.md section 4) and the review thresholds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from humangr.contracts import LayerID, VetoLevel
from humangr.engine.errors import ConfigError

__all__ = ["DEFAULT_SETTINGS", "LAYERS", "LINE_BUCKET", "GateSettings", "LayerSpec"]

LINE_BUCKET = 10
"""Findings whose lines fall in the same bucket of this many lines are the same finding."""


@dataclass(frozen=True, slots=True)
class LayerSpec:
    """One reviewer layer: its id, a short machine name, a display title, its focus and power."""

    id: LayerID
    name: str
    title: str
    focus: str
    veto_power: VetoLevel

    @property
    def label(self) -> str:
        """``HL4 security``: how reasons and logs name the layer."""
        title = self.title if self.title.isupper() else self.title.lower()
        return f"{self.id.value} {title}"


def _spec(lid: LayerID, name: str, title: str, focus: str, power: VetoLevel) -> LayerSpec:
    return LayerSpec(id=lid, name=name, title=title, focus=focus, veto_power=power)


LAYERS: Mapping[LayerID, LayerSpec] = MappingProxyType(
    {
        spec.id: spec
        for spec in (
            _spec(LayerID.HL1, "ux", "UX", "UX and usability", VetoLevel.WEAK),
            _spec(
                LayerID.HL2,
                "functionality",
                "Functionality",
                "functionality: correctness, completeness, error handling",
                VetoLevel.MEDIUM,
            ),
            _spec(
                LayerID.HL3,
                "edge_cases",
                "Edge cases",
                "edge cases: boundaries, nulls, concurrency, resources, time, unicode",
                VetoLevel.MEDIUM,
            ),
            _spec(
                LayerID.HL4,
                "security",
                "Security",
                "security: OWASP top 10, injection, secrets, authn/z, prompt injection",
                VetoLevel.STRONG,
            ),
            _spec(
                LayerID.HL5,
                "performance",
                "Performance",
                "performance: complexity, I/O in loops, blocking calls, memory",
                VetoLevel.MEDIUM,
            ),
            _spec(
                LayerID.HL6,
                "compliance",
                "Compliance",
                "compliance: PII, licences, audit, regulated data",
                VetoLevel.STRONG,
            ),
            _spec(
                LayerID.HL7,
                "final_review",
                "Final review",
                "final review: the whole action plus HL1-HL6's merged findings",
                VetoLevel.STRONG,
            ),
        )
    }
)


@dataclass(frozen=True, slots=True)
class GateSettings:
    """The review thresholds. They are part of ``policy_version``; change them deliberately."""

    runs_per_layer: int = 3
    """LLM runs planned per layer when an LLM is configured."""
    min_valid_runs: int = 2
    """A layer with fewer valid runs than this (capped at the runs planned) is ``error``."""
    confirm_votes: int = 2
    """An LLM finding reported by this many runs is confirmed."""
    rejecting_mediums: int = 2
    """This many ``medium`` layer vetoes reject the action; fewer (but one) need a human."""
    dissent_floor: VetoLevel = VetoLevel.MEDIUM
    """A lone ``strong`` run overruled by the majority still raises the layer to this level."""

    def __post_init__(self) -> None:
        checks = (
            ("runs_per_layer", self.runs_per_layer, 0, 16),
            ("min_valid_runs", self.min_valid_runs, 1, 16),
            ("confirm_votes", self.confirm_votes, 1, 16),
            ("rejecting_mediums", self.rejecting_mediums, 1, 7),
        )
        for name, value, low, high in checks:
            if not low <= value <= high:
                raise ConfigError(
                    f"review setting {name}={value} is out of range; use {low}..{high}"
                )
        if self.dissent_floor is VetoLevel.NONE:
            raise ConfigError(
                "review setting dissent_floor=none would let a lone strong veto vanish; "
                "use weak, medium or strong"
            )

    def thresholds(self) -> Mapping[str, Any]:
        """The settings as a plain mapping, for ``policy_version`` and for display."""
        return {
            "runs_per_layer": self.runs_per_layer,
            "min_valid_runs": self.min_valid_runs,
            "confirm_votes": self.confirm_votes,
            "rejecting_mediums": self.rejecting_mediums,
            "dissent_floor": self.dissent_floor.value,
            "line_bucket": LINE_BUCKET,
        }


DEFAULT_SETTINGS = GateSettings()
