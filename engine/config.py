"""Engine settings: which layers run, deadlines and limits. Defaults are sane for one process."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from humangr.contracts import LayerID, VetoLevel
from humangr.contracts.types import MAX_DIFF_BYTES
from humangr.engine.checks.options import CheckOptions
from humangr.engine.errors import ConfigError
from humangr.engine.review import DEFAULT_SETTINGS, GateSettings
from humangr.engine.review.cost import DEFAULT_PRICES, ModelPrice

if TYPE_CHECKING:
    from humangr.engine.policy import Policy

__all__ = [
    "ALL_LAYERS",
    "MAX_REPAIRS",
    "STRONG_LAYERS",
    "ReviewConfig",
    "below_design_floor",
    "weaker_settings",
]

ALL_LAYERS: tuple[LayerID, ...] = tuple(LayerID)
_HOST = re.compile(r"^(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63}){0,20}$")
MAX_REPAIRS = 2
"""The repair budget of one LLM reply (docs/design.md#structured-replies-and-repairs)."""


STRONG_LAYERS: tuple[LayerID, ...] = (LayerID.HL4, LayerID.HL6, LayerID.HL7)
"""The layers with a strong veto: a configuration without one of them reviews less than the
design (security, compliance, the final review)."""


def below_design_floor(gate: GateSettings, max_repairs: int) -> list[str]:
    """Every threshold weaker than the design (docs/design.md#config-floors), as a sentence
    naming it."""
    weak = []
    if gate.runs_per_layer == 0:
        weak.append(
            "runs_per_layer=0 (no LLM run at all, even with an LLM configured: local checks "
            "only; the floor is 2 runs)"
        )
    if gate.min_valid_runs < 2:
        weak.append(f"min_valid_runs={gate.min_valid_runs} (the floor is 2 valid runs)")
    if 0 < gate.runs_per_layer < 2:
        weak.append(f"runs_per_layer={gate.runs_per_layer} (2 valid runs need at least 2 runs)")
    if gate.confirm_votes > 2:
        weak.append(
            f"confirm_votes={gate.confirm_votes} (two runs confirm a finding; more lowers the "
            "severity of what the runs found)"
        )
    if gate.dissent_floor < VetoLevel.MEDIUM:
        weak.append(f"dissent_floor={gate.dissent_floor.value} (the floor is medium)")
    if gate.rejecting_mediums > 2:
        weak.append(f"rejecting_mediums={gate.rejecting_mediums} (two mediums must reject)")
    if max_repairs > MAX_REPAIRS:
        weak.append(f"max_repairs={max_repairs} (at most {MAX_REPAIRS} repairs of a reply)")
    return weak


def _wide_wildcards(name: str, entries: tuple[str, ...]) -> list[str]:
    """Allow-list entries that cover a whole top-level domain (``*.com``): every host there."""
    wide = [e for e in entries if e.startswith("*.") and "." not in e[2:].rstrip(".")]
    if not wide:
        return []
    return [
        f"{name} {', '.join(wide)} (a wildcard over a whole top-level domain lets data go to "
        "anyone's host there; name your own domain, e.g. *.example.com)"
    ]


def weaker_settings(config: ReviewConfig) -> list[str]:
    """Every setting of ``config`` that reviews less than the design, as a sentence naming
    it: the thresholds (``below_design_floor``), a layer list without HL4, HL6 or HL7 (unless
    an operator chose a partial review), submissions allowed to choose their layers, and
    allow-list wildcards over a top-level domain."""
    weak = below_design_floor(config.gate, config.max_repairs)
    left_out = [lid.value for lid in STRONG_LAYERS if lid not in config.layers]
    if left_out and not config.partial:
        weak.append(
            f"layers without {', '.join(left_out)} (the strong-veto layers HL4, HL6 and HL7 "
            "review every action)"
        )
    if config.allow_layer_selection:
        weak.append(
            "allow_layer_selection (a submission, so the agent under review, may choose the "
            "layers that review it)"
        )
    weak += _wide_wildcards("allowed_hosts", config.allowed_hosts)
    weak += _wide_wildcards("allowed_email_domains", config.allowed_email_domains)
    return weak


@dataclass(frozen=True, slots=True)
class ReviewConfig:
    """How reviews run. ``gate`` holds the thresholds that are part of the policy version."""

    layers: tuple[LayerID, ...] = ALL_LAYERS
    gate: GateSettings = field(default_factory=lambda: DEFAULT_SETTINGS)
    layer_deadline_s: float = 120.0
    """Time one layer gets for all its runs; a layer past it counts as missing."""
    review_deadline_s: float = 24 * 3600.0
    """Time a human gets to resolve a ``needs_review``; then the action is rejected."""
    max_diff_bytes: int = MAX_DIFF_BYTES
    """Larger diffs are refused (dead-lettered) before any token is spent; at most
    ``MAX_DIFF_BYTES``, the limit the schema, the CLI and MCP share."""
    early_exit: bool = True
    """Publish as soon as the outcome cannot change and cancel the remaining work."""
    adaptive_redundancy: bool = True
    """Skip the third run when the first two agree on status and veto — on layers below strong
    power only (HL1, HL2, HL3, HL5), where it cannot change the outcome; HL4, HL6 and HL7
    always run three."""
    max_repairs: int = MAX_REPAIRS
    report_retention_s: float = 30 * 24 * 3600.0
    """How long decisions and reports stay in the state store for ``humangr report``."""
    prices: Mapping[str, ModelPrice] = field(default_factory=lambda: DEFAULT_PRICES)
    """USD per million tokens by model-name prefix, for the cost estimate in every report."""
    lease_s: float = 10.0
    """How long a Supervisor's claim on shared work (a review in flight, a decision on its way
    out, a review being resolved) holds without renewal; after it, another Supervisor takes
    the work over."""
    allow_layer_selection: bool = False
    """Let a bus submission name the layers to run (``ActionSubmitted.layers``); off, such a
    submission is refused: the Supervisor alone decides what is reviewed. On, the agent under
    review may leave out HL4: below the design floor, so it needs ``unsafe_policy``."""
    unsafe_policy: bool = False
    """Accept settings weaker than the design floor; every report then names them."""
    partial: bool = False
    """An operator chose a subset of the layers for this run (``humangr review --layers``,
    ``humangr mcp --layers``); every report says "partial review" and the chosen layers are
    part of the policy version. Without it (a config file cannot set it), a layer list that
    leaves out HL4, HL6 or HL7 is below the design floor and needs ``unsafe_policy``."""
    allowed_hosts: tuple[str, ...] = ()
    """Hosts tool calls may send data to (``api.example.com``, ``*.example.com``); empty: every
    host is outside, so secrets or personal data sent anywhere are reported."""
    allowed_email_domains: tuple[str, ...] = ()
    """Domains e-mail may carry personal data to; empty: every domain is outside."""
    resemblance_model: str | None = None
    """A model file for the ``resemblance`` check, fitted on your own labelled calls
    (``humangr checks-train``); ``None``: the one shipped. Its sha256 is part of the policy
    version."""
    rules: Policy | None = None
    """The policy file's rules and suppressions (``--policy FILE``; ``load_policy``), applied
    before any layer runs; its sha256 is part of the policy version. ``None``: every action is
    reviewed by the layers."""
    shadow: Policy | None = None
    """A second policy evaluated beside ``rules`` on every action (``serve --shadow-policy``):
    it never affects the decision; each disagreement is counted and logged."""

    def __post_init__(self) -> None:
        if not self.layers:
            raise ConfigError("no review layers configured; enable at least one of HL1..HL7")
        if len(set(self.layers)) != len(self.layers):
            raise ConfigError(f"layers listed twice: {', '.join(map(str, self.layers))}")
        for name in ("layer_deadline_s", "review_deadline_s", "report_retention_s", "lease_s"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name} must be positive")
        if not 1 <= self.max_diff_bytes <= MAX_DIFF_BYTES:
            raise ConfigError(f"max_diff_bytes must be within 1..{MAX_DIFF_BYTES}")
        if not 0 <= self.max_repairs <= 5:
            raise ConfigError("max_repairs must be within 0..5")
        for name in ("allowed_hosts", "allowed_email_domains"):
            for entry in getattr(self, name):
                if not isinstance(entry, str) or not _HOST.match(entry):
                    raise ConfigError(
                        f"{name}: {entry!r} is not a host name (letters, digits, '-' and '.', "
                        "optionally starting with '*.')"
                    )
        if self.resemblance_model is not None:
            from .checks.tools.resemblance import load_model

            load_model(self.resemblance_model)  # a bad file is a ConfigError now, not per call
        weak = weaker_settings(self)
        if weak and not self.unsafe_policy:
            raise ConfigError(
                f"review settings weaker than the design floor: {'; '.join(weak)}; raise them, "
                "or set unsafe_policy (every report will name them)"
            )

    def check_options(self) -> CheckOptions:
        """What the local checks of tool calls trust (part of the policy version)."""
        return CheckOptions(
            allowed_hosts=frozenset(h.lower() for h in self.allowed_hosts),
            allowed_email_domains=frozenset(d.lower() for d in self.allowed_email_domains),
            resemblance_model=self.resemblance_model,
        )

    def policy_notes(self) -> list[str]:
        """What every report of this configuration must say about its policy."""
        notes = []
        if self.partial or self.layers != ALL_LAYERS:
            notes.append(f"partial review: {', '.join(lid.value for lid in self.layers)}")
        notes += [f"unsafe policy: {weak}" for weak in weaker_settings(self)]
        if self.rules is not None:
            name = self.rules.source.rsplit("/", 1)[-1][:60]
            notes.append(f"policy file {name} ({self.rules.digest[:12]})")
        return notes

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
