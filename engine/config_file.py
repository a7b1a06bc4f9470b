"""Review settings from a TOML file (``humangr serve --config FILE``).

Every ``ReviewConfig`` setting may be given at the top level, the gate thresholds in a
``[gate]`` table; a key the engine does not know is an error naming it, never ignored::

    layers = ["HL1", "HL2", "HL3", "HL4", "HL5", "HL6", "HL7"]
    layer_deadline_s = 120
    review_deadline_s = 86400
    max_diff_bytes = 1000000
    adaptive_redundancy = false
    report_retention_s = 2592000
    allowed_hosts = ["api.example.com", "*.internal.example.com"]   # tool calls may send data
    allowed_email_domains = ["example.com"]
    policy = "policy.toml"          # a policy file, relative to this file (README, Policies)
    resemblance_model = "model.json"  # humangr checks-train --out, relative to this file

    [gate]
    runs_per_layer = 3
    rejecting_mediums = 2

    [prices."claude-sonnet-4-5"]   # USD per million tokens (merged over the defaults)
    input = 3.0
    output = 15.0
    cache_read = 0.3
    cache_write = 3.75

    [nats]
    replicas = 3     # of the JetStream streams and KV buckets (serve --replicas wins)
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import msgspec

from humangr.contracts import GateSettings, LayerID
from humangr.engine.errors import ConfigError

from .config import ReviewConfig
from .review.cost import DEFAULT_PRICES, ModelPrice

__all__ = ["load_nats_replicas", "load_review_config", "review_config"]


class _Price(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    input: Annotated[float, msgspec.Meta(ge=0)]
    output: Annotated[float, msgspec.Meta(ge=0)]
    cache_read: Annotated[float, msgspec.Meta(ge=0)]
    cache_write: Annotated[float, msgspec.Meta(ge=0)]


class _Nats(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    replicas: Annotated[int, msgspec.Meta(ge=1, le=5)] | None = None


class _File(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    layers: list[LayerID] | None = None
    gate: GateSettings | None = None
    layer_deadline_s: float | None = None
    review_deadline_s: float | None = None
    max_diff_bytes: int | None = None
    early_exit: bool | None = None
    adaptive_redundancy: bool | None = None
    max_repairs: int | None = None
    report_retention_s: float | None = None
    lease_s: float | None = None
    prices: dict[str, _Price] | None = None
    allow_layer_selection: bool | None = None
    unsafe_policy: bool | None = None
    allowed_hosts: list[str] | None = None
    allowed_email_domains: list[str] | None = None
    nats: _Nats | None = None
    policy: str | None = None
    resemblance_model: str | None = None


def review_config(base: ReviewConfig | None = None, **settings: Any) -> ReviewConfig:
    """``base`` (the defaults) with ``settings`` that are not ``None`` applied on top."""
    chosen = {name: value for name, value in settings.items() if value is not None}
    for name in ("layers", "allowed_hosts", "allowed_email_domains"):
        if name in chosen:
            chosen[name] = tuple(chosen[name])
    return dataclasses.replace(base or ReviewConfig(), **chosen)


def load_review_config(path: Path | str) -> ReviewConfig:
    """The ``ReviewConfig`` a TOML file describes (defaults for what it leaves out)."""
    path = Path(path)
    found = _load(path)
    values = {f: getattr(found, f) for f in found.__struct_fields__ if f not in ("nats", "policy")}
    if found.resemblance_model is not None:
        values["resemblance_model"] = str(path.parent / found.resemblance_model)
    if found.policy is not None:
        from .policy import load_policy

        values["rules"] = load_policy(path.parent / found.policy)
    if found.prices is not None:
        values["prices"] = {
            **DEFAULT_PRICES,
            **{
                model: ModelPrice(p.input, p.output, p.cache_read, p.cache_write)
                for model, p in found.prices.items()
            },
        }
    try:
        return review_config(**values)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load_nats_replicas(path: Path | str) -> int | None:
    """``replicas`` of the file's ``[nats]`` table (``serve --replicas`` wins over it), if set."""
    found = _load(Path(path))
    return None if found.nats is None else found.nats.replicas


def _load(path: Path) -> _File:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    try:
        found = msgspec.toml.decode(data, type=_File)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not a valid TOML file: {exc}") from None
    return found
