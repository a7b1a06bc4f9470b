"""Decision signatures: what they bind, what breaks them, and where the key comes from."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import msgspec
import pytest

from humangr.contracts import HumanLayerReport, Outcome, VetoLevel, decode, encode
from humangr.engine.errors import ConfigError, SignatureError
from humangr.engine.signing import (
    SigningKey,
    default_key_path,
    load_signing_key,
    signed_binding,
    verify_decision,
    write_new_key,
)

HASH = "a" * 64


def decision(**changes: object) -> HumanLayerReport:
    report = HumanLayerReport(
        report_id="rpt-1",
        action_id="act-1",
        agent_id="agent-1",
        action_hash=HASH,
        policy_version="p-" + "0" * 16,
        outcome=Outcome.NEEDS_REVIEW,
        final_veto_level=VetoLevel.MEDIUM,
        decided_at=datetime(2026, 11, 23, 12, 0, 0, 123456, tzinfo=UTC),
    )
    return msgspec.structs.replace(report, **changes)


def test_a_signed_decision_verifies_after_a_trip_over_the_wire() -> None:
    key = SigningKey.generate()
    signed = key.sign(decision())
    assert signed.signer == key.public_key
    assert signed.signature
    verify_decision(decode(encode(signed), HumanLayerReport), key.public_key)
    verify_decision(signed, ["N" + "A" * 55, key.public_key])


@pytest.mark.parametrize(
    "change",
    [
        {"outcome": Outcome.APPROVED},
        {"action_hash": "b" * 64},
        {"action_id": "act-2"},
        {"agent_id": "agent-2"},
        {"report_id": "rpt-2"},
        {"policy_version": "p-" + "1" * 16},
        {"resolved_by": "mallory"},
        {"decided_at": datetime(2026, 11, 23, 12, 0, 0, 123457, tzinfo=UTC)},
    ],
    ids=lambda change: next(iter(change)),
)
def test_changing_a_bound_field_breaks_the_signature(change: dict[str, object]) -> None:
    key = SigningKey.generate()
    forged = msgspec.structs.replace(key.sign(decision()), **change)
    with pytest.raises(SignatureError, match="does not match"):
        verify_decision(forged, key.public_key)


def test_a_decision_re_signed_by_another_key_is_not_trusted() -> None:
    ours, theirs = SigningKey.generate(), SigningKey.generate()
    forged = theirs.sign(msgspec.structs.replace(decision(), outcome=Outcome.APPROVED))
    with pytest.raises(SignatureError, match="not a trusted key"):
        verify_decision(forged, ours.public_key)
    impostor = msgspec.structs.replace(forged, signer=ours.public_key)
    with pytest.raises(SignatureError, match="does not match"):
        verify_decision(impostor, ours.public_key)


@pytest.mark.parametrize(
    ("signer", "signature", "message"),
    [
        (None, None, "not signed"),
        ("KEY", None, "not signed"),
        ("KEY", "%%%not-base64%%%", "not base64url|does not match"),
        ("KEY", "", "not base64url|does not match"),
        ("NOT-A-KEY", "AAAA", "not a trusted key"),
    ],
)
def test_malformed_signatures_are_refused_without_a_crash(
    signer: str | None, signature: str | None, message: str
) -> None:
    key = SigningKey.generate()
    report = decision(signer=key.public_key if signer == "KEY" else signer, signature=signature)
    with pytest.raises(SignatureError, match=message):
        verify_decision(report, key.public_key)


@pytest.mark.parametrize("trusted", ["", "garbage", "N" + "A" * 55, "S" * 58])
def test_a_bad_trusted_key_is_an_error_not_a_pass(trusted: str) -> None:
    signed = SigningKey.generate().sign(decision())
    forged = msgspec.structs.replace(signed, signer=trusted)
    with pytest.raises(SignatureError):
        verify_decision(forged, [trusted] if trusted else [])


def test_the_binding_treats_a_naive_time_as_utc_and_other_zones_by_their_instant() -> None:
    utc = decision()
    naive = decision(decided_at=utc.decided_at.replace(tzinfo=None))
    plus_one = decision(decided_at=utc.decided_at.astimezone(timezone(timedelta(hours=1))))
    assert signed_binding(utc) == signed_binding(naive) == signed_binding(plus_one)


def test_the_seed_never_shows_in_repr_or_str() -> None:
    key = SigningKey.generate()
    assert key.seed() not in repr(key)
    assert key.seed() not in str(key)
    assert key.public_key in repr(key)


def test_keys_are_nats_nkeys() -> None:
    key = SigningKey.generate()
    assert key.seed().startswith("SN")
    assert len(key.seed()) == 58
    assert key.public_key.startswith("N")
    assert len(key.public_key) == 56
    assert SigningKey(key.seed()).public_key == key.public_key


@pytest.mark.parametrize(
    "seed", ["", "SNAAAA", "not a seed at all", "SU" + "A" * 56, SigningKey.generate().public_key]
)
def test_a_bad_seed_is_a_config_error(seed: str) -> None:
    with pytest.raises(ConfigError, match="seed"):
        SigningKey(seed)


def test_where_the_key_comes_from(tmp_path: Path) -> None:
    env = {"HUMANGR_HOME": str(tmp_path / "home")}
    created, source = load_signing_key(environ=env)
    assert source.endswith("(new)")
    path = default_key_path(env)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again, _ = load_signing_key(environ=env)
    assert again.public_key == created.public_key, "the default key is kept, not replaced"

    other = SigningKey.generate()
    from_env, source = load_signing_key(environ={**env, "HUMANGR_SIGNING_SEED": other.seed()})
    assert (from_env.public_key, source) == (other.public_key, "HUMANGR_SIGNING_SEED")
    assert other.seed() not in source

    file = tmp_path / "team.seed"
    team = write_new_key(file)
    chosen, _ = load_signing_key(file, environ={**env, "HUMANGR_SIGNING_SEED": other.seed()})
    assert chosen.public_key == team.public_key, "--signing-key wins over the environment"
    by_env_file, _ = load_signing_key(environ={**env, "HUMANGR_SIGNING_KEY_FILE": str(file)})
    assert by_env_file.public_key == team.public_key


def test_key_files_are_never_overwritten_and_must_be_private(tmp_path: Path) -> None:
    file = tmp_path / "k.seed"
    write_new_key(file)
    with pytest.raises(ConfigError, match="not overwritten"):
        write_new_key(file)
    os.chmod(file, 0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        load_signing_key(file, environ={})
    with pytest.raises(ConfigError, match="cannot read"):
        load_signing_key(tmp_path / "missing.seed", environ={})
    bad = tmp_path / "bad.seed"
    bad.write_text("SNnotaseed\n")
    os.chmod(bad, 0o600)
    with pytest.raises(ConfigError, match=str(bad)):
        load_signing_key(bad, environ={})
    with pytest.raises(ConfigError, match="HUMANGR_SIGNING_SEED"):
        load_signing_key(environ={"HUMANGR_SIGNING_SEED": "nope"})
