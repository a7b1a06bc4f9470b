"""``resemblance``: a tool call whose words resemble labelled dangerous calls.

The text rules see what they were written for; a call from a new industry, worded as nobody
wrote a rule for, often passes them. This check weighs the call's words against a linear model
trained on HUMANGR's labelled calls (``tests/checks/tool_calls/``: the corpus and the outside
sets' calls the rules decide otherwise than labelled), and asks for a person when the score
passes the model's threshold. It only ever adds a high finding (needs_review): it never
rejects, and never clears what another check found.

The features are the words of the tool's name, the argument names and the values (lower-cased,
single words and pairs of neighbours, each number followed by a word for its length), each
counted once; the score is the model's weights of
the known features over the square root of their number, plus its bias — logistic regression
on L2-normalised binary features, which ``humangr checks-train`` fits with scikit-learn using
``features`` below, so training and scoring read a call alike. Work is bounded: the first
``MAX_VALUE`` characters of at most ``MAX_VALUES`` values are read.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import re
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

from humangr.contracts import Severity
from humangr.engine.errors import ConfigError

from ..base import CheckInput, Hit

__all__ = [
    "MAX_VALUE",
    "MAX_VALUES",
    "MIN_KNOWN",
    "Model",
    "dump_model",
    "features",
    "judge",
    "load_model",
    "model_digest",
    "resembles",
    "score",
]

MAX_VALUE = 4_000
"""Characters read of each argument value."""
MAX_VALUES = 512
"""Scalar values read of one call (nested objects and lists included)."""
_WORD = re.compile(r"[a-z_][a-z0-9_]+|\d+")
_DIGITS = re.compile(r"\d+")
"""A run of digits is followed by a word for its length (``numlen6``): an amount, a limit or a
count is read by its size as well as by its value."""
_MODEL_FILE = "resemblance_model.json"
MIN_KNOWN = 8
"""Features of a call the model must know before it speaks: on a call of a few words
(``echo("still here")``) one heavy word decides the score alone, which is no resemblance. Calls
the model flagged in training nearly all have ten or more; on left-out sets this bound cost
one dangerous call in 720 and no everyday one."""


class Model(msgspec.Struct, frozen=True):
    """A trained model: ``weights`` of features, ``bias``, and the ``threshold`` on the
    probability from which a call needs a person. ``trained`` says on what (for the record)."""

    weights: dict[str, float]
    bias: float
    threshold: float
    trained: dict[str, Any] = {}


def _values(value: object, key: str, out: list[tuple[str, str]]) -> None:
    if len(out) >= MAX_VALUES:
        return
    if isinstance(value, dict):
        for k, item in value.items():
            _values(item, str(k), out)
    elif isinstance(value, list | tuple):
        for item in value:
            _values(item, key, out)
    else:
        out.append((key, str(value)[:MAX_VALUE]))


def _sized(number: re.Match[str]) -> str:
    return f"{number.group(0)} numlen{min(len(number.group(0)), 9)}"


def _text(name: str, arguments: Mapping[str, object]) -> str:
    pairs: list[tuple[str, str]] = []
    _values(dict(arguments), "", pairs)
    return " \n ".join([f"TOOL {name}", *(f"KEY_{k} {_DIGITS.sub(_sized, v)}" for k, v in pairs)])


def features(call: tuple[str, Mapping[str, object]]) -> list[str]:
    """The features of a call ``(tool name, arguments)``: its words and pairs of neighbouring
    words, lower-cased, in order (repeats kept; the model counts each once)."""
    words = _WORD.findall(_text(*call).lower())
    return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]


def score(model: Model, found: list[str]) -> float:
    """The model's probability that a call with the features ``found`` is dangerous."""
    weights = model.weights
    known = {f: weights[f] for f in set(found) if f in weights}
    # fsum: the same total whatever order the set gives (hash seeds differ between processes)
    total = model.bias + (math.fsum(known.values()) / math.sqrt(len(known)) if known else 0.0)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, total))))


def load_model(path: str | None = None) -> Model:
    """The model in the file ``path`` (read once), or the one shipped with HUMANGR. Raises
    ``ConfigError`` naming the file when it cannot be read or is not a model."""
    return _read(path)[0]


def model_digest(path: str) -> str:
    """sha256 (hex) of the model file ``path``, of the very bytes ``load_model`` read."""
    return _read(path)[1]


@functools.lru_cache(maxsize=8)
def _read(path: str | None) -> tuple[Model, str]:
    try:
        data = (
            Path(path).read_bytes()
            if path is not None
            else resources.files(__package__).joinpath(_MODEL_FILE).read_bytes()
        )
    except OSError as exc:
        raise ConfigError(f"cannot read the resemblance model {path}: {exc.strerror}") from None
    try:
        model = msgspec.json.decode(data, type=Model)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ConfigError(f"{path or _MODEL_FILE} is not a resemblance model: {exc}") from None
    if not 0 < model.threshold < 1 or not all(map(math.isfinite, model.weights.values())):
        raise ConfigError(f"{path or _MODEL_FILE}: threshold must be within (0, 1), weights finite")
    return model, hashlib.sha256(data).hexdigest()


def _heaviest(model: Model, found: list[str], limit: int = 5) -> list[str]:
    weights = model.weights
    known = sorted({f for f in found if weights.get(f, 0.0) > 0}, key=lambda f: (-weights[f], f))
    return known[:limit]


def _argument(model: Model, name: str, arguments: Mapping[str, object]) -> str | None:
    """The argument whose own words weigh most towards danger."""
    best, most = None, 0.0
    for key, value in list(arguments.items())[:64]:
        weight = math.fsum(model.weights.get(f, 0.0) for f in set(features((name, {key: value}))))
        if weight > most:
            best, most = key, weight
    return best


def resembles(ctx: CheckInput) -> Iterator[Hit]:
    """A high finding when the call resembles labelled dangerous calls past the threshold."""
    if ctx.tool is not None:
        model = load_model(ctx.options.resemblance_model)
        hit = judge(model, ctx.tool.name, ctx.tool.call.arguments)
        if hit is not None:
            yield hit


def judge(model: Model, name: str, arguments: Mapping[str, object]) -> Hit | None:
    """``model``'s finding on the call ``name(arguments)``, or ``None`` below its threshold."""
    found = features((name, arguments))
    weights = model.weights
    if sum(1 for f in set(found) if f in weights) < MIN_KNOWN:
        return None  # too little of the call is known to the model to judge it
    probability = score(model, found)
    if probability < model.threshold:
        return None
    words = ", ".join(f"`{w}`" for w in _heaviest(model, found)) or "its words as a whole"
    return Hit(
        Severity.HIGH,
        "resembles calls that need a person",
        f"{name}'s call scores {probability:.2f} (threshold {model.threshold:.2f}) on a model "
        f"trained on labelled dangerous and everyday tool calls; the words that weigh most: "
        f"{words}. No rule names a harm here: this is a resemblance, not a finding of one.",
        "Let a person read the call. Where such calls are routine, a policy `[[suppress]]` "
        'with `check = "resemblance"` (and a `match`) keeps it from asking.',
        argument=_argument(model, name, arguments),
    )


def dump_model(model: Model) -> bytes:
    """``model`` as the JSON file HUMANGR ships (keys sorted, one weight per line)."""
    return json.dumps(msgspec.to_builtins(model), indent=0, sort_keys=True).encode() + b"\n"
