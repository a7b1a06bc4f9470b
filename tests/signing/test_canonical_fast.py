"""Issue 25: the canonical encoding got a faster walk (each type's handling looked up once), and
the bytes it gives must not change by one: signatures made before verify after, and a report
signed by an older worker verifies on a newer Supervisor. Pinned three ways: golden digests
of fixed messages (computed before the change), the new walk against the reference one on
varied and generated messages, and sign-then-verify of those."""

from __future__ import annotations

import base64
import enum
import hashlib
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    ConsensusResult,
    Finding,
    FindingSource,
    GateSettings,
    HumanLayerReport,
    LayerID,
    LayerReport,
    LayerRunResult,
    LayerStatus,
    LayerTask,
    Outcome,
    Severity,
    ToolCall,
    Usage,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.canonical import _EXACT, _instant, _layout, _plain, _same
from humangr.engine.review.consensus import consensus
from humangr.engine.signatures import (
    canonical_bytes,
    layer_report_bytes,
    report_bytes,
    report_parts,
    task_digest,
    verify_decision,
    verify_layer_report,
)
from humangr.engine.signing import SigningKey

KEY = SigningKey.generate()
HASH = "c" * 64


def _plain_reference(value: Any, skip: frozenset[str] = frozenset()) -> Any:
    """``engine.signatures._plain`` as it was first written, one ``isinstance`` chain per
    node: the definition the faster walk must agree with."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if isinstance(value, msgspec.Struct):
        out: dict[str, Any] = {}
        for name, encoded, default in _layout(type(value)):
            if name in skip:
                continue
            item = getattr(value, name)
            if default is not msgspec.NODEFAULT and (item is default or _same(item, default)):
                continue
            leaf = type(item)
            out[encoded] = (
                item if leaf is str or leaf is int or leaf is bool else _plain_reference(item)
            )
        return out
    if kind is list or kind is tuple:
        return [_plain_reference(item) for item in value]
    if isinstance(value, enum.Enum):
        return _plain_reference(value.value)
    if isinstance(value, datetime):
        return _instant(value)
    if isinstance(value, str | int):  # bool is an int
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < _EXACT else value
    if isinstance(value, dict):
        return {str(_plain_reference(key)): _plain_reference(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_reference(item) for item in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    raise TypeError(f"cannot sign a value of type {type(value).__name__}")


def finding(number: int, **changes: Any) -> Finding:
    base = Finding(
        id=f"f-{number}",
        layer_id=LayerID.HL3,
        severity=Severity.HIGH,
        title="bare except swallows every error",
        file="app/util.py",
        line=7,
        source=FindingSource.RULES,
    )
    return msgspec.structs.replace(base, **changes)


def run(number: int, **changes: Any) -> LayerRunResult:
    base = LayerRunResult(
        layer_id=LayerID.HL3,
        run_number=number,
        status=LayerStatus.WARN,
        veto_level=VetoLevel.MEDIUM,
        findings=[finding(number), finding(number + 10, votes=2, tool="bash")],
        execution_time_ms=12.5,
        usage=Usage(input_tokens=120, output_tokens=30, calls=1),
        model="claude",
    )
    return msgspec.structs.replace(base, **changes)


ACTION = ActionContext(
    agent_id="agent-1",
    action_type="tool_call",
    action_description="run a command",
    affected_files=["app/util.py"],
    environment={"ci": "true"},
    tool_call=ToolCall(
        name="bash",
        arguments={
            "command": "ls -la",
            "timeout": 30.0,
            "ratio": 0.25,
            "huge": 1e20,
            "negative_zero": -0.0,
            "nested": {"list": [1, 2.0, "x", None, True, {"k": [3.5]}]},
        },
        workspace="/work",
    ),
)


def task(**changes: Any) -> LayerTask:
    base = LayerTask(
        action_id="act-1",
        layer_id=LayerID.HL3,
        action=ACTION,
        action_hash=HASH,
        runs=3,
        deadline_s=60,
        rule_findings=[finding(1)],
        prior_findings=[finding(2, severity=Severity.LOW)],
        settings=GateSettings(confirm_votes=3),
        adaptive=True,
    )
    return msgspec.structs.replace(base, **changes)


def layer_report(**changes: Any) -> LayerReport:
    base = LayerReport(
        action_id="act-1",
        layer_id=LayerID.HL3,
        runs=[run(1), run(2, error="timed out", status=LayerStatus.ERROR, usage=Usage())],
        consensus=ConsensusResult(
            status=LayerStatus.WARN,
            veto_level=VetoLevel.MEDIUM,
            merged_findings=[finding(1, votes=2)],
            agreement_ratio=0.5,
            valid_runs=1,
            planned_runs=3,
            executed_runs=2,
        ),
        usage=Usage(input_tokens=120, output_tokens=30, calls=2),
        action_hash=HASH,
        deadline_passed=True,
        task_digest="d" * 64,
        signer="N" + "W" * 55,  # fixed: the golden digests must not depend on a new key
    )
    return msgspec.structs.replace(base, **changes)


def decision(**changes: Any) -> HumanLayerReport:
    base = HumanLayerReport(
        report_id="rpt-1",
        action_id="act-1",
        agent_id="agent-1",
        action_hash=HASH,
        policy_version="p-" + "0" * 16,
        outcome=Outcome.NEEDS_REVIEW,
        final_veto_level=VetoLevel.MEDIUM,
        layer_results={
            LayerID.HL1: ConsensusResult(status=LayerStatus.PASS, veto_level=VetoLevel.NONE),
            LayerID.HL3: layer_report().consensus,
        },
        blocking_reasons=["HL3: bare except"],
        timings={"total": 12, "HL3": 4.5},
        resolved_by="alice",
        decided_at=datetime(2026, 11, 23, 12, 0, 0, 123456, tzinfo=UTC),
    )
    return msgspec.structs.replace(base, **changes)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# Computed with the canonical encoding as it was before issue 25 (commit af8041c).
GOLDEN = {
    "task": "0405bd387e0c76e7b460d6a85568d9fee4c725288c206d1b1b40f2d349b4ac0a",
    "layer report": "7a480d0450fd22822945820fa1fdaf2ded96452fd981a55d7b2690cafe42508e",
    "decision": "1dfd10eedd0da3d67cb3b78423488e10c181f6bcce215cc0b11e53f0fa6abaac",
}


def samples() -> dict[str, Any]:
    """Messages that exercise every kind of value: enums, floats integral or not, defaults
    left out and set, dicts keyed by enums, times aware and naive, nested tool arguments."""
    return {
        "task": task(),
        "task defaults": LayerTask(
            action_id="act-2", layer_id=LayerID.HL7, action=ACTION, action_hash=HASH
        ),
        "layer report": layer_report(),
        "decision": decision(),
        "decision naive time": decision(decided_at=datetime(2026, 1, 2, 3, 4, 5)),
        "decision other zone": decision(
            decided_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=5)))
        ),
        "submitted": ActionSubmitted(
            action_id="act-3", action=ACTION, submitted_at=datetime(2026, 5, 6, tzinfo=UTC)
        ),
        "int where a float is": msgspec.structs.replace(run(1), execution_time_ms=0),
        "plain values": [1, 2.0, 2.5, -0.0, 2.0**53, True, None, b"\x00\xff", ("a", LayerID.HL2)],
    }


@pytest.mark.parametrize("name", list(samples()))
def test_the_fast_walk_gives_the_reference_values(name: str) -> None:
    value = samples()[name]
    assert _plain(value) == _plain_reference(value)
    skip = frozenset({"signature", "report_signature", "action"})
    assert _plain(value, skip) == _plain_reference(value, skip)
    fast = canonical_bytes("t", value)
    reference = msgspec.json.encode(["t", _plain_reference(value)], order="sorted")
    assert fast == reference


@pytest.mark.parametrize("name", list(samples()))
def test_a_message_from_the_wire_encodes_as_the_one_built_in_process(name: str) -> None:
    value = samples()[name]
    if not isinstance(value, msgspec.Struct):
        return
    wire = decode(encode(value), type(value))
    assert canonical_bytes("t", wire) == canonical_bytes("t", value)


def test_the_signed_bytes_are_those_signed_before_the_change() -> None:
    """Golden digests: a change here changes what every older signature covers."""
    got = {
        "task": task_digest(task()),
        "layer report": digest(layer_report_bytes(layer_report())),
        "decision": digest(report_bytes(decision())),
    }
    assert got == GOLDEN


def test_reports_signed_with_the_fast_walk_verify() -> None:
    signed = KEY.sign_layer_report(layer_report())
    verify_layer_report(decode(encode(signed), LayerReport), [KEY.public_key])
    whole = KEY.sign(decision())
    assert verify_decision(decode(encode(whole), HumanLayerReport), [KEY.public_key]) is None


def test_an_unknown_type_is_refused_by_both() -> None:
    class Odd:
        pass

    for walk in (_plain, _plain_reference):
        with pytest.raises(TypeError, match="cannot sign a value of type Odd"):
            walk([Odd()])


class Colour(enum.IntEnum):
    RED = 1


class Shade(str, enum.Enum):  # noqa: UP042 - the older mixin form, on purpose
    DARK = "dark"


def test_subclasses_of_plain_types_encode_as_their_values() -> None:
    class Name(str):
        pass

    for value in ([Colour.RED, Shade.DARK, Name("n"), 3], {Colour.RED: Shade.DARK}):
        assert _plain(value) == _plain_reference(value)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    arguments=st.dictionaries(st.text(min_size=1, max_size=6), json_values, max_size=5),
    time_ms=st.floats(min_value=0, max_value=1e18),
    ratio=st.floats(min_value=0, max_value=1),
    runs=st.integers(min_value=0, max_value=16),
    deadline=st.floats(min_value=0.001, max_value=3600),
)
def test_generated_messages_encode_as_the_reference_does(
    arguments: dict[str, Any], time_ms: float, ratio: float, runs: int, deadline: float
) -> None:
    action = msgspec.structs.replace(ACTION, tool_call=ToolCall(name="tool", arguments=arguments))
    values = [
        task(action=action, runs=runs, deadline_s=deadline),
        layer_report(
            runs=[run(1, execution_time_ms=time_ms)],
            consensus=msgspec.structs.replace(layer_report().consensus, agreement_ratio=ratio),
        ),
    ]
    for value in values:
        assert _plain(value) == _plain_reference(value)
        wire = decode(encode(value), type(value))
        assert _plain(wire) == _plain_reference(wire)


def _instant_as_first_written(value: datetime) -> str:
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.datetimes(
        min_value=datetime(1, 1, 2),
        max_value=datetime(9999, 12, 30),
        timezones=st.one_of(
            st.none(),
            st.just(UTC),
            st.builds(
                timezone,
                st.timedeltas(min_value=timedelta(hours=-23), max_value=timedelta(hours=23)),
            ),
        ),
    )
)
def test_an_instant_is_written_as_strftime_wrote_it(value: datetime) -> None:
    """The signed form of a date and time is the same bytes as the first version's, also for
    years before 1000 (written unpadded) and for every offset."""
    assert _instant(value) == _instant_as_first_written(value)


def test_a_shared_verdict_signs_as_an_equal_one_built_anew() -> None:
    """A layer's "nothing found" verdict is one shared object whose canonical form and digest
    are worked out once: a report holding it signs to the same bytes, parts and verdict as one
    holding an equal object built anew, and a changed copy is read afresh."""
    nothing = consensus(LayerID.HL2, [], planned_runs=0)
    assert consensus(LayerID.HL2, [], planned_runs=0) is nothing  # the very same object
    anew = msgspec.convert(msgspec.to_builtins(nothing), ConsensusResult)
    assert anew is not nothing
    with_shared = decision(layer_results={LayerID.HL2: nothing, LayerID.HL5: nothing})
    with_new = decision(layer_results={LayerID.HL2: anew, LayerID.HL5: anew})
    assert report_bytes(with_shared) == report_bytes(with_new)
    assert report_parts(with_shared) == report_parts(with_new)
    signed = KEY.sign(with_shared)
    assert signed.signed_parts == KEY.sign(with_new).signed_parts
    verify_decision(signed, [KEY.public_key])
    changed = msgspec.structs.replace(nothing, status=LayerStatus.FAIL)
    assert report_bytes(decision(layer_results={LayerID.HL2: changed})) != report_bytes(with_shared)
    assert _plain(changed) == _plain_reference(changed)


def _parts_reference(report: HumanLayerReport) -> dict[str, str]:
    """``report_parts`` as first written: every part's canonical form digested on its own."""

    def hashed(value: Any) -> str:
        return hashlib.sha256(msgspec.json.encode(value, order="sorted")).hexdigest()[:16]

    parts: dict[str, str] = {}
    for name, _, _ in _layout(HumanLayerReport):
        if name in ("report_signature", "signed_parts", "signature", "signer"):
            continue
        value = getattr(report, name)
        if name == "layer_results":
            for lid, result in value.items():
                parts[f"layer_results.{lid}"] = hashed(_plain_reference(result))
            continue
        parts[name] = hashed(_plain_reference(value))
    return parts


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"timings": {}, "blocking_reasons": [], "resolved_by": None},
        {"policy_notes": ["a note"], "decided_by": "local checks", "timings": {"total": 0.0}},
        {"usage": Usage(), "layer_results": {}, "policy_notes": []},
    ],
)
def test_part_digests_are_as_first_computed(changes: dict[str, Any]) -> None:
    """A part at its default value is digested from a digest worked out once per type: every
    part's digest stays the one its own canonical form gives."""
    report = decision(**changes)
    assert report_parts(report) == _parts_reference(report)
    assert KEY.sign(report).signed_parts == _parts_reference(report)
