"""Engine settings: which layers run, deadlines and limits. Defaults are sane for one process."""

from __future__ import annotations

from dataclasses import dataclass, field

from humangr.contracts import LayerID
from humangr.engine.errors import ConfigError
from humangr.engine.review import DEFAULT_SETTINGS, GateSettings

__all__ = ["ALL_LAYERS", "ReviewConfig"]

ALL_LAYERS: tuple[LayerID, ...] = tuple(LayerID)


@dataclass(frozen=True, slots=True)
class ReviewConfig:
    """How reviews run. ``gate`` holds the thresholds that are part of the policy version."""

    layers: tuple[LayerID, ...] = ALL_LAYERS
    gate: GateSettings = field(default_factory=lambda: DEFAULT_SETTINGS)
    layer_deadline_s: float = 120.0
    """Time one layer gets for all its runs; a layer past it counts as missing."""
    review_deadline_s: float = 24 * 3600.0
    """Time a human gets to resolve a ``needs_review``; then the action is rejected."""
    max_diff_bytes: int = 1_000_000
    """Larger diffs are refused (dead-lettered) before any token is spent."""
    early_exit: bool = True
    """Publish as soon as the outcome cannot change and cancel the remaining work."""
    adaptive_redundancy: bool = False
    """Skip the third run when the first two agree on status and veto."""
    max_repairs: int = 2
    report_cache: int = 10_000
    """Decisions kept in memory for ``humangr report`` lookups."""

    def __post_init__(self) -> None:
        if not self.layers:
            raise ConfigError("no review layers configured; enable at least one of HL1..HL7")
        if len(set(self.layers)) != len(self.layers):
            raise ConfigError(f"layers listed twice: {', '.join(map(str, self.layers))}")
        for name in ("layer_deadline_s", "review_deadline_s"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name} must be positive")
        if self.max_diff_bytes < 1:
            raise ConfigError("max_diff_bytes must be positive")
        if not 0 <= self.max_repairs <= 5:
            raise ConfigError("max_repairs must be within 0..5")

    @staticmethod
    def parse_layers(text: str) -> tuple[LayerID, ...]:
        """``"HL4,HL6"`` → the layer ids; a clear error names an unknown one."""
        layers: list[LayerID] = []
        for part in text.split(","):
            name = part.strip().upper()
            if not name:
                continue
            try:
                layers.append(LayerID(name))
            except ValueError:
                raise ConfigError(f"unknown layer {part.strip()!r}; use HL1..HL7") from None
        return tuple(dict.fromkeys(layers))
