"""The seven reviewer layers (docs/design.md#the-seven-layers) and the review thresholds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from humangr.contracts import LayerID, VetoLevel
from humangr.contracts.review import LINE_BUCKET, GateSettings

__all__ = ["DEFAULT_SETTINGS", "LAYERS", "LINE_BUCKET", "GateSettings", "LayerSpec"]


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


DEFAULT_SETTINGS = GateSettings()
