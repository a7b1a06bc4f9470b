"""Public nkeys: what a prefix byte names, and a public server nkey read as its ed25519 key."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING

import nkeys  # type: ignore[import-untyped]

from humangr.engine.errors import SignatureError

if TYPE_CHECKING:
    import nacl.signing

__all__ = ["key_kind", "verify_key"]

_KINDS = {
    nkeys.PREFIX_BYTE_SERVER: "a server",
    nkeys.PREFIX_BYTE_USER: "a user",
    nkeys.PREFIX_BYTE_ACCOUNT: "an account",
    nkeys.PREFIX_BYTE_OPERATOR: "an operator",
    nkeys.PREFIX_BYTE_CLUSTER: "a cluster",
}


def key_kind(prefix: int) -> str:
    """What an nkey prefix byte names, for error messages ("a user", "an account"…)."""
    return _KINDS.get(prefix, "an unknown kind of")


def verify_key(public_key: str) -> nacl.signing.VerifyKey:
    """The ed25519 key of a public server nkey (``N…``); ``SignatureError`` saying what was
    given instead (a seed, another kind of nkey, a damaged key) if it is not one.

    The ``nkeys`` package (0.2.1, the latest) encodes keys and seeds but has no decoder for
    public keys, so this reads the base32 itself and checks it with ``nkeys``' CRC-16."""
    import nacl.signing

    text = public_key.strip()
    if text.startswith("S"):
        raise SignatureError(
            "a seed (S…) was given where a public key (N…) belongs: keep the seed secret and "
            "give its public key (`humangr key` prints it)"
        )
    try:
        raw = base64.b32decode(text.encode("ascii") + b"=" * (-len(text) % 8))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raw = b""
    body = raw[:-2]
    good = len(raw) == 35 and bytes(nkeys.crc16_checksum(body)) == raw[-2:]
    if good and body[0] != nkeys.PREFIX_BYTE_SERVER and nkeys.valid_public_prefix_byte(body[0]):
        raise SignatureError(
            f"{public_key[:60]!r} is {key_kind(body[0])} nkey; a HUMANGR public key is a "
            "server nkey ('N…', 56 characters, as `humangr key` prints it)"
        )
    if not good or body[0] != nkeys.PREFIX_BYTE_SERVER:
        raise SignatureError(
            f"{public_key[:60]!r} is not a HUMANGR public key (expected 'N…', 56 characters, "
            "as `humangr key` prints it)"
        )
    return nacl.signing.VerifyKey(body[1:])
