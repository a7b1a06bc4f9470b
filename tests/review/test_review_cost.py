"""The cost of a review: prices by the longest model-name prefix, calls made and saved."""

from __future__ import annotations

import msgspec

from humangr.contracts import LayerID, Usage
from humangr.engine.review import make_run
from humangr.engine.review.cost import DEFAULT_PRICES, ModelPrice, price_for, review_cost


def run(model: str, **tokens: int) -> object:
    usage = Usage(calls=1, **tokens)
    return msgspec.structs.replace(make_run(LayerID.HL2, 1, []), usage=usage, model=model)


def test_the_longest_prefix_of_the_model_name_gives_its_price() -> None:
    assert (
        price_for("claude-opus-4-5-20251101", DEFAULT_PRICES) == DEFAULT_PRICES["claude-opus-4-5"]
    )
    assert price_for("claude-opus-4-1-20250805", DEFAULT_PRICES) == DEFAULT_PRICES["claude-opus-4"]
    assert price_for("gpt-something", DEFAULT_PRICES) is None


def test_every_kind_of_token_is_priced_and_unknown_models_are_named() -> None:
    prices = {"m": ModelPrice(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)}
    runs = [
        run("m-1", input_tokens=1_000_000),
        run("m-1", output_tokens=1_000_000, cache_read_tokens=1_000_000),
        run("m-2", cache_write_tokens=2_000_000),
        run("other", input_tokens=5_000_000),
        run(""),
    ]
    cost = review_cost(runs, prices, calls_planned=21, saved_by_adaptive=4)  # type: ignore[arg-type]
    assert cost.estimated_usd == 3.0 + 15.0 + 0.3 + 2 * 3.75
    assert cost.unpriced_models == ["other"]
    assert cost.calls == 5
    assert (cost.calls_planned, cost.saved_by_adaptive) == (21, 4)
