"""Signed worker heartbeats: a layer worker signs what it announces with its worker key, and
the Supervisor believes only heartbeats of the worker keys it trusts (those whose layer reports
it accepts). Unsigned, a heartbeat saying "no LLM here" would let anyone who can publish on
the bus turn every layer into local checks only."""

from __future__ import annotations

import msgspec

from humangr.contracts import WorkerHeartbeat
from humangr.engine.errors import SignatureError
from humangr.engine.signatures import canonical_bytes, verify_key
from humangr.engine.signing import SigningKey

__all__ = ["heartbeat_bytes", "sign_heartbeat", "verify_heartbeat"]

_TAG = "humangr-worker-heartbeat-v1"


def heartbeat_bytes(beat: WorkerHeartbeat) -> bytes:
    """The bytes a heartbeat's ``signature`` covers: every field but that one."""
    return canonical_bytes(_TAG, beat, frozenset({"signature"}))


def sign_heartbeat(beat: WorkerHeartbeat, key: SigningKey) -> WorkerHeartbeat:
    """``beat`` with ``signer`` and ``signature`` set by ``key``."""
    unsigned = msgspec.structs.replace(beat, signer=key.public_key, signature=None)
    return msgspec.structs.replace(unsigned, signature=key.sign_bytes(heartbeat_bytes(unsigned)))


def verify_heartbeat(beat: WorkerHeartbeat, trusted: frozenset[str]) -> None:
    """Raise ``SignatureError`` unless ``beat`` is signed, unchanged, by a ``trusted`` key."""
    import base64
    import binascii

    import nacl.exceptions

    if beat.signer is None or beat.signature is None:
        raise SignatureError(f"the heartbeat of worker {beat.worker[:40]} is not signed")
    if beat.signer not in trusted:
        raise SignatureError(
            f"the heartbeat of worker {beat.worker[:40]} is signed by {beat.signer[:56]}, "
            "which is not a trusted worker key (--trust-workers)"
        )
    try:
        raw = base64.urlsafe_b64decode(beat.signature + "=" * (-len(beat.signature) % 4))
        verify_key(beat.signer).verify(heartbeat_bytes(beat), raw)
    except (binascii.Error, ValueError, nacl.exceptions.BadSignatureError) as exc:
        raise SignatureError(
            f"the signature of worker {beat.worker[:40]}'s heartbeat does not match it"
        ) from exc
