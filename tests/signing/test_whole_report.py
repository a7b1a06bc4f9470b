"""The whole decision is signed: a report whose findings, layer results, veto level, blocking
reasons, policy notes or human reason were rewritten fails ``verify`` and the part is named;
the binding signature stays for executors that check only it; an older binding-only signature
still verifies, with a notice."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "e2e"))
from cli_helpers import humangr
from test_durable_review import decisions_on, engine, needs_review_action, resolution

from humangr.contracts import (
    ConsensusResult,
    Finding,
    FindingSource,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    Outcome,
    Severity,
    Subjects,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.errors import SignatureError
from humangr.engine.signatures import BINDING_ONLY_NOTICE, signed_binding, verify_decision
from humangr.engine.signing import SigningKey
from humangr.engine.state import MemoryStateStore

KEY = SigningKey.generate()
FINDING = Finding(
    id="f-1",
    layer_id=LayerID.HL3,
    severity=Severity.HIGH,
    title="bare except swallows every error",
    file="app/util.py",
    line=7,
    source=FindingSource.RULES,
)


def report(**changes: Any) -> HumanLayerReport:
    base = HumanLayerReport(
        report_id="rpt-1",
        action_id="act-1",
        agent_id="agent-1",
        action_hash="a" * 64,
        policy_version="p-" + "0" * 16,
        outcome=Outcome.NEEDS_REVIEW,
        final_veto_level=VetoLevel.MEDIUM,
        layer_results={
            LayerID.HL1: ConsensusResult(status=LayerStatus.PASS, veto_level=VetoLevel.NONE),
            LayerID.HL3: ConsensusResult(
                status=LayerStatus.WARN, veto_level=VetoLevel.MEDIUM, merged_findings=[FINDING]
            ),
        },
        blocking_reasons=["HL3: bare except swallows every error (app/util.py:7)"],
        timings={"total": 12, "HL3": 4.5},
        policy_notes=["settled by local checks: no LLM call was needed"],
        resolved_by="alice",
        resolution_reason="the except is in a test helper and re-raises further up",
        decided_at=datetime(2026, 11, 23, 12, 0, 0, 123456, tzinfo=UTC),
    )
    return msgspec.structs.replace(base, **changes)


def edit(signed: HumanLayerReport, part: str) -> HumanLayerReport:
    """``signed`` with one part rewritten the way a forger would (the binding left alone)."""
    hl3 = signed.layer_results[LayerID.HL3]
    clean = ConsensusResult(status=LayerStatus.PASS, veto_level=VetoLevel.NONE)
    edits: dict[str, dict[str, Any]] = {
        "findings": {
            "layer_results": {
                **signed.layer_results,
                LayerID.HL3: msgspec.structs.replace(hl3, merged_findings=[]),
            }
        },
        "layer results": {"layer_results": {**signed.layer_results, LayerID.HL3: clean}},
        "a layer removed": {"layer_results": {LayerID.HL1: signed.layer_results[LayerID.HL1]}},
        "veto level": {"final_veto_level": VetoLevel.NONE},
        "blocking reasons": {"blocking_reasons": []},
        "policy notes": {"policy_notes": []},
        "human reason": {"resolution_reason": "looked fine to me, approving it right away"},
        "timings": {"timings": {"total": 13.0}},
    }
    return msgspec.structs.replace(signed, **edits[part])


NAMED = {
    "findings": "layer_results.HL3",
    "layer results": "layer_results.HL3",
    "a layer removed": "layer_results.HL3",
    "veto level": "final_veto_level",
    "blocking reasons": "blocking_reasons",
    "policy notes": "policy_notes",
    "human reason": "resolution_reason",
    "timings": "timings",
}


def test_a_whole_signed_report_verifies_after_the_wire_with_no_notice() -> None:
    signed = KEY.sign(report())
    assert signed.report_signature
    assert signed.signed_parts
    assert verify_decision(decode(encode(signed), HumanLayerReport), KEY.public_key) is None
    # an int where the contract has a float (as built in process) encodes alike after the trip
    assert decode(encode(signed), HumanLayerReport).timings["total"] == 12.0


@pytest.mark.parametrize("part", list(NAMED))
def test_a_rewritten_part_fails_and_is_named(part: str) -> None:
    signed = KEY.sign(report())
    forged = decode(encode(edit(signed, part)), HumanLayerReport)
    with pytest.raises(SignatureError, match="changed after it was signed") as caught:
        verify_decision(forged, KEY.public_key)
    assert NAMED[part] in str(caught.value)
    # the binding alone still holds: an executor that checks only it acts on the same outcome
    assert signed_binding(forged) == signed_binding(signed)


def test_a_rewritten_part_with_its_digest_rewritten_too_says_the_body_changed() -> None:
    signed = KEY.sign(report())
    forged = edit(signed, "veto level")
    parts = {**signed.signed_parts}
    forged_parts = KEY.sign(forged).signed_parts
    parts["final_veto_level"] = forged_parts["final_veto_level"]
    forged = msgspec.structs.replace(forged, signed_parts=parts)
    with pytest.raises(SignatureError, match="the report's body was changed after signing"):
        verify_decision(forged, KEY.public_key)


def test_a_changed_binding_field_names_it() -> None:
    forged = msgspec.structs.replace(KEY.sign(report()), outcome=Outcome.APPROVED)
    with pytest.raises(SignatureError, match=r"does not match it \(outcome changed\)"):
        verify_decision(forged, KEY.public_key)


def binding_only(key: SigningKey, unsigned: HumanLayerReport) -> HumanLayerReport:
    """A decision as Supervisors before the whole-report signature signed it."""
    bound = msgspec.structs.replace(unsigned, signer=key.public_key)
    return msgspec.structs.replace(bound, signature=key.sign_bytes(signed_binding(bound)))


def test_an_older_binding_only_signature_verifies_with_a_notice() -> None:
    old = decode(encode(binding_only(KEY, report())), HumanLayerReport)
    notice = verify_decision(old, KEY.public_key)
    assert notice is not None
    assert BINDING_ONLY_NOTICE in notice
    with pytest.raises(SignatureError, match="whole-report signature is required"):
        verify_decision(old, KEY.public_key, require_whole=True)
    flipped = msgspec.structs.replace(old, outcome=Outcome.APPROVED)
    with pytest.raises(SignatureError, match="does not match"):
        verify_decision(flipped, KEY.public_key)


def test_removing_the_whole_report_signature_is_caught_while_its_parts_remain() -> None:
    stripped = msgspec.structs.replace(edit(KEY.sign(report()), "findings"), report_signature=None)
    with pytest.raises(SignatureError, match="report_signature was removed"):
        verify_decision(stripped, KEY.public_key)


def test_re_signing_replaces_every_earlier_signature() -> None:
    first = KEY.sign(report())
    final = KEY.sign(msgspec.structs.replace(first, outcome=Outcome.REJECTED, resolved_by="bob"))
    assert verify_decision(final, KEY.public_key) is None
    assert final.report_signature != first.report_signature
    assert final.signed_parts["outcome"] != first.signed_parts["outcome"]


def test_verify_cli_names_the_part_and_shows_the_notice(tmp_path: Path) -> None:
    signed = KEY.sign(report())
    (tmp_path / "good.json").write_bytes(encode(signed))
    ok = humangr("verify", str(tmp_path / "good.json"), "--key", KEY.public_key)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "(whole report)" in ok.stdout
    assert "notice" not in ok.stderr

    for part in ("findings", "veto level", "human reason"):
        (tmp_path / "bad.json").write_bytes(encode(edit(signed, part)))
        bad = humangr("verify", str(tmp_path / "bad.json"), "--key", KEY.public_key)
        assert bad.returncode == 2, (part, bad.stdout, bad.stderr)
        assert bad.stdout.startswith("INVALID act-1"), bad.stdout
        assert NAMED[part] in bad.stdout, (part, bad.stdout)

    raw = json.loads(encode(signed))
    raw["layer_results"]["HL3"]["merged_findings"][0]["severity"] = "low"
    (tmp_path / "edited.json").write_text(json.dumps(raw))
    edited = humangr("verify", str(tmp_path / "edited.json"), "--key", KEY.public_key)
    assert edited.returncode == 2
    assert "layer_results.HL3" in edited.stdout

    (tmp_path / "old.json").write_bytes(encode(binding_only(KEY, report())))
    old = humangr("verify", str(tmp_path / "old.json"), "--key", KEY.public_key)
    assert old.returncode == 0, old.stdout + old.stderr
    assert "(binding only)" in old.stdout
    assert "notice:" in old.stderr
    assert "binding only" in old.stderr
    strict = humangr("verify", str(tmp_path / "old.json"), "--key", KEY.public_key, "--strict")
    assert strict.returncode == 2
    assert "whole-report signature is required" in strict.stdout


@pytest.mark.anyio
async def test_a_human_resolution_is_signed_whole_and_its_reason_is_covered(bus: Bus) -> None:
    async with engine(bus, MemoryStateStore()) as running, decisions_on(bus) as seen:
        first = await running.submit(needs_review_action(3), timeout=30)
        assert verify_decision(first, running.public_key) is None
        subject = Subjects("dur").review_resolve(first.action_id)
        await bus.publish(subject, encode(resolution(first, "approve")))
        published = await seen.wait(2)
    final = published[-1]
    assert final.resolved_by == "alice"
    assert final.resolution_reason
    assert verify_decision(final, running.public_key) is None
    reworded = msgspec.structs.replace(final, resolution_reason="x" * 40)
    with pytest.raises(SignatureError, match="resolution_reason"):
        verify_decision(reworded, running.public_key)
    unblocked = msgspec.structs.replace(final, blocking_reasons=[])
    with pytest.raises(SignatureError, match="blocking_reasons"):
        verify_decision(unblocked, running.public_key)


def test_the_one_pass_signature_covers_the_same_bytes_as_the_reference_encoding() -> None:
    from humangr.engine.signatures import report_bytes, report_parts

    signed = KEY.sign(report())
    unsigned = msgspec.structs.replace(
        signed, signature=None, report_signature=None, signed_parts={}
    )
    assert signed.signed_parts == report_parts(unsigned)
    reference = msgspec.structs.replace(signed, report_signature=None)
    assert KEY.sign_bytes(report_bytes(reference)) == signed.report_signature
    assert verify_decision(signed, [KEY.public_key]) is None
