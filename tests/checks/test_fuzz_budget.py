"""Hostile diffs, generated: huge repeat counts and format widths, nested and deep expressions,
long lines, loops and call chains. Every review stays under 300 MiB and 5 s of CPU, never crashes,
and still finds the secret planted at the end of a long line.

The linear secret detectors are also checked against detect-secrets' own on short lines.
"""

from __future__ import annotations

import functools
import operator
import re
import resource
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from checks_helpers import action, new_file
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.keyword import QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP, KeywordDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from humangr.contracts import Finding
from humangr.engine.checks import run_checks
from humangr.engine.checks.interp_sizes import (
    format_size,
    method_size,
    operation_size,
    percent_size,
    spec_size,
    weight,
)
from humangr.engine.checks.secrets_scan import (
    aws_keys,
    jwt_tokens,
    keyword_regexes,
    npm_tokens,
    openai_keys,
    trimmed,
)

MB = 1024 * 1024
MAX_MB = 300
MAX_SECONDS = 5.0
AWS_ID = "AKIA" + "2E0A8F3B244C9986"  # a fake key, split for the repository's secret scanners

_COUNTS = st.sampled_from([0, 3, 64, 4096, 65_537, 10**6, 10**9, 4 * 10**9, 10**18, 2**64])
_SIMPLE = [
    "x = '%*d' % ({n}, 1)",
    "x = '%.{n}f' % 1.5",
    "x = '{{:>{n}}}'.format(1)",
    "x = '{{0:{n}}}{{0:.{n}}}'.format('ab')",
    "x = f'{{1:>{n}}}'",
    "x = f'{{2.5:.{n}f}}'",
    "x = 'ab'.ljust({n}) + 'c'.center({n}) + 'd'.zfill({n})",
    "x = '\\t'.expandtabs({n})",
    "x = 'a' * {n}",
    "x = {n} * b'a'",
    "x = ('a', 'b') * {n}",
    "x = 2 ** {n}",
    "x = 1 << {n}",
    "x = 'ab'.replace('', 'c' * {n})",
    "x = '-'.join(['a' * {n}, 'b'])",
    "x = [0] * {n}",
    "x = str({n}) * {n}",
    "x = f'{{\"a\" * {n}}}'",
]


@st.composite
def _simple(draw: st.DrawFn) -> str:
    return draw(st.sampled_from(_SIMPLE)).format(n=draw(_COUNTS))


@st.composite
def _nested(draw: st.DrawFn) -> str:
    depth = draw(st.integers(1, 120))
    kind = draw(st.sampled_from(["paren", "list", "add", "tuple", "call"]))
    if kind == "paren":
        return "x = " + "(" * depth + "'ab' * 9" + ")" * depth
    if kind == "list":
        return "x = " + "[" * depth + "1" + "]" * depth
    if kind == "add":
        return "x = " + " + ".join(["'ab' * 300"] * depth * 4)
    if kind == "tuple":
        lines = ["t0 = ('x' * 5000,)"]
        lines += [f"t{i} = (t{i - 1}, t{i - 1}, t{i - 1})" for i in range(1, min(depth, 30))]
        return "\n".join(lines) + f"\ns = '%s' % (t{min(depth, 30) - 1},)"
    return "x = " + "str(" * depth + "1" + ")" * depth


@st.composite
def _control(draw: st.DrawFn) -> str:
    depth = draw(st.integers(1, 12))
    kind = draw(st.sampled_from(["loops", "calls", "ifs"]))
    if kind == "loops":
        out = ["s = 'a'"]
        for i in range(depth):
            out.append("    " * i + f"for v{i} in range(10):")
        out.append("    " * depth + "s = s + s")
        return "\n".join(out)
    if kind == "calls":
        out = ["def f0(x):\n    return x + x"]
        out += [
            f"def f{i}(x):\n    return f{i - 1}(x) + f{i - 1}(x + 'a')" for i in range(1, depth)
        ]
        return "\n".join(out) + f"\ny = f{depth - 1}('ab' * 100)"
    return (
        "\n".join("    " * i + f"if 'a' * {10**i} == 'b':" for i in range(depth))
        + "\n"
        + "    " * depth
        + "pass"
    )


@st.composite
def _long(draw: st.DrawFn) -> str:
    size = draw(st.sampled_from([1_000, 20_001, 64_001, 150_000]))
    unit = draw(st.sampled_from(["ab", "api_key", "sk-", "eyJ", "password = ", "%s", "\\t"]))
    return "s = '" + (unit * (size // len(unit) + 1))[:size].replace("'", "") + "'"


_PIECES = st.lists(st.one_of(_simple(), _nested(), _control()), max_size=5)


@functools.cache
def _warm() -> None:
    """Import what the checks load on their first run (detect-secrets, bandit): not timed."""
    run_checks(action(new_file("app/warm.py", "import os\nos.system(input())\n")))


def _review(src: str) -> tuple[list[Finding], int, float]:
    _warm()
    tracemalloc.start()
    start = time.process_time()  # CPU time: other processes' load does not count against it
    try:
        result = run_checks(action(new_file("app/fuzz.py", src)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return [f for fs in result.values() for f in fs], peak, time.process_time() - start


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(_PIECES, st.lists(_long(), max_size=2), st.booleans())
def test_hostile_diffs_stay_within_memory_and_time(
    pieces: list[str], lines: list[str], plant: bool
) -> None:
    src = "\n".join([*pieces, *lines]) or "x = 1"
    if plant:
        src += "\nnote = '" + "ab" * 40_000 + " " + AWS_ID + "'"
    before = _rss_mb()
    found, peak, elapsed = _review(src)
    assert peak < MAX_MB * MB, f"peak {peak / MB:.0f} MiB"
    assert elapsed < MAX_SECONDS, f"{elapsed:.1f} s"
    assert _rss_mb() - before < MAX_MB
    assert not [f for f in found if f.title.startswith("Local check")]
    if plant:
        assert any(f.title == "Hard-coded secret: AWS credential" for f in found)


# --- the linear detectors agree with detect-secrets ------------------------------------------

_PARTS = st.sampled_from(
    [
        "sk-",
        "T3BlbkFJ",
        "A" * 20,
        "b1" * 10,
        "-",
        "_",
        " ",
        "//",
        "/:_authToken=",
        "npm_x",
        "0123456789abcdef0123456789abcdef0123",
        "eyJ",
        "eyJhbGciOiJIUzI1NiJ9",
        ".",
        "=",
        "+",
        "eyJzdWIiOiIxIn0",
        "aws",
        "key",
        "'",
        '"',
        "q9Tz/8vLm2Rk4Xw7Np1Bc6Hd3Jf5Gs0Ya9Ue2Wo7",
        "AKIA",
        "2E0A8F3B244C9986",
        "password",
        "api_key",
        ":",
        " = ",
        "x" * 70,
        "!=",
        "(",
    ]
)
_LINE = st.lists(_PARTS, max_size=14).map("".join)
_KEYWORD = KeywordDetector()


@settings(max_examples=300, deadline=None)
@given(_LINE)
def test_linear_detectors_agree_with_detect_secrets(line: str) -> None:
    assert bool(openai_keys(line)) == any(True for _ in OpenAIDetector().analyze_string(line))
    assert bool(npm_tokens(line)) == any(True for _ in NpmDetector().analyze_string(line))
    assert bool(aws_keys(line)) == any(True for _ in AWSKeyDetector().analyze_string(line))
    ours = any(True for _ in jwt_tokens(line))
    theirs = any(
        "." in t and any(True for _ in JwtTokenDetector().analyze_string(t))
        for t in re.findall(r"eyJ[A-Za-z0-9_=.+/-]+", line)
    )
    assert ours == theirs
    table = QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP
    plain = sorted(_KEYWORD.analyze_string(line, denylist_regex_to_group=table))
    fast = sorted(_KEYWORD.analyze_string(line, denylist_regex_to_group=keyword_regexes(table)))
    assert plain == fast
    assert trimmed(line) == line or re.search(r"\w{64}", line)


# --- size predictions are upper bounds ---------------------------------------------------------

_ATOM = st.one_of(
    st.text(alphabet="ab\t%*d{}:>.,09sr!", max_size=10),
    st.binary(max_size=6),
    st.integers(-5, 40),
    st.floats(allow_nan=False, width=32),
)
_VALUE = st.one_of(_ATOM, st.tuples(_ATOM, _ATOM), st.tuples(st.tuples(_ATOM), _ATOM))
_SPEC = st.from_regex(r"\A(?:[<>^]?[+ -]?#?0?\d{0,2}[,_]?(?:\.\d{1,2})?[sdfxbe%]?)\Z")
_OPS = [operator.add, operator.mul, operator.mod, operator.pow, operator.sub, operator.xor]
_METHODS = ["ljust", "center", "zfill", "expandtabs", "replace", "join", "format", "upper"]


def _size(value: object) -> int:
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, list):
        return sum(weight(x) for x in value)
    return weight(value)


def _bounded_by(predicted: int | None, compute: Callable[[], object]) -> None:
    if predicted is None:
        return
    try:
        out = compute()
    except Exception:  # the fold fails: nothing is computed
        return
    assert _size(out) <= predicted, (out, predicted)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_OPS), _VALUE, _VALUE)
@example(operator.pow, -1.0, 0.5)  # a complex result
@example(operator.pow, -8, 1.5)
@example(operator.xor, 1, -3)  # two's complement outgrows both
def test_operator_sizes_bound_the_results(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> None:
    _bounded_by(operation_size(fn, a, b), lambda: fn(a, b))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_SPEC, st.text(alphabet="ab ", max_size=3)), max_size=4), _VALUE)
def test_format_sizes_bound_the_results(specs: list[str], value: Any) -> None:
    fmt = "".join(
        "{:" + s + "}" if i % 2 else s.replace("{", "").replace("}", "")
        for i, s in enumerate(specs)
    )
    args = [value] * len(specs)
    _bounded_by(format_size(fmt, args), lambda: fmt.format(*args))
    percent = "".join("%" + s + "s" if i % 2 else s.replace("%", "") for i, s in enumerate(specs))
    values = tuple([value] * len(specs))
    _bounded_by(percent_size(percent, values), lambda: percent % values)
    _bounded_by(
        spec_size(specs[0] if specs else "", value),
        lambda: format(value, specs[0] if specs else ""),
    )


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.text(alphabet="ab\t{}", max_size=8), st.binary(max_size=6)),
    st.sampled_from(_METHODS),
    st.lists(st.one_of(st.integers(-3, 30), st.text(alphabet="ab", max_size=3)), max_size=3),
)
def test_method_sizes_bound_the_results(recv: str | bytes, method: str, args: list[Any]) -> None:
    _bounded_by(method_size(recv, method, args), lambda: getattr(recv, method)(*args))
