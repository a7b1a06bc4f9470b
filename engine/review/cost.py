"""What a review costs: LLM calls made, planned and saved, and an estimated price.

Prices are per million tokens, per model, matched on the longest prefix of the model name (so
``claude-sonnet-4-5-20250929`` takes the ``claude-sonnet-4-5`` price). The table is a default
that the configuration replaces (``[prices."<model>"]`` in the TOML file): check it against the
provider's current price list. A model without a price adds nothing to the estimate and is
named in ``ReviewCost.unpriced_models``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from humangr.contracts import LayerRunResult, ReviewCost, Usage

__all__ = ["DEFAULT_PRICES", "ModelPrice", "estimate_usd", "price_for", "review_cost"]


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens of each kind (cache writes at the 5-minute rate)."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    def usd(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * self.cache_read
            + usage.cache_write_tokens * self.cache_write
        ) / 1_000_000


DEFAULT_PRICES: Mapping[str, ModelPrice] = MappingProxyType(
    {
        "claude-opus-4-8": ModelPrice(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4-7": ModelPrice(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4-6": ModelPrice(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4-5": ModelPrice(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4": ModelPrice(15.0, 75.0, 1.50, 18.75),
        "claude-sonnet-4": ModelPrice(3.0, 15.0, 0.30, 3.75),
        "claude-3-7-sonnet": ModelPrice(3.0, 15.0, 0.30, 3.75),
        "claude-haiku-4-5": ModelPrice(1.0, 5.0, 0.10, 1.25),
        "claude-3-5-haiku": ModelPrice(0.80, 4.0, 0.08, 1.0),
    }
)


def price_for(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    """The price of ``model``: the entry whose name is its longest prefix, if any."""
    best = max((name for name in prices if model.startswith(name)), key=len, default=None)
    return None if best is None else prices[best]


def estimate_usd(
    runs: Iterable[LayerRunResult], prices: Mapping[str, ModelPrice]
) -> tuple[float, list[str]]:
    """The estimated price of ``runs`` and the models that have no price."""
    total, unpriced = 0.0, set()
    for run in runs:
        if not run.model:
            continue
        price = price_for(run.model, prices)
        if price is None:
            unpriced.add(run.model)
        else:
            total += price.usd(run.usage)
    return total, sorted(unpriced)[:16]


def review_cost(
    runs: Iterable[LayerRunResult],
    prices: Mapping[str, ModelPrice],
    *,
    calls_planned: int,
    saved_by_rules: int = 0,
    saved_by_adaptive: int = 0,
    saved_by_early_exit: int = 0,
) -> ReviewCost:
    """The ``ReviewCost`` of a review whose reported runs are ``runs``."""
    runs = list(runs)
    usd, unpriced = estimate_usd(runs, prices)
    return ReviewCost(
        estimated_usd=round(usd, 6),
        unpriced_models=unpriced,
        calls=sum(run.usage.calls for run in runs),
        calls_planned=calls_planned,
        saved_by_rules=saved_by_rules,
        saved_by_adaptive=saved_by_adaptive,
        saved_by_early_exit=saved_by_early_exit,
    )
