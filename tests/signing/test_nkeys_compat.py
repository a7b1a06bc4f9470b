"""Keys are read and written with the ``nkeys`` package: keys made before still load, keys
made by ``nkeys`` (as ``nk``/``nsc`` make them) load, and damaged or wrong keys are refused
with a message saying what was given."""

from __future__ import annotations

import nkeys  # type: ignore[import-untyped]
import pytest

from humangr.engine.errors import ConfigError, SignatureError
from humangr.engine.signatures import verify_key
from humangr.engine.signing import SigningKey

# Made by the hand-written encoder this package used before ``nkeys``: files written then
# must load unchanged and sign the same (ed25519 is deterministic).
OLD_SEED = "SNABXOPGT4RTLVNDBVBDDOMNVBFS5QSDTUWBGF2B3KFTACKI6W3LEZBQZY"
OLD_PUBLIC = "NDM5ZOEJRA42XHAPKXO3Z4TST4ZKWP472IPWJL77PYOHM3DPIBHPEH5G"
OLD_SIGNATURE = (
    "mYmk3vZHLY_2Il3gTtQOwuZZep98J2XBT-OlzuS_s9NG0N-c5dCzQhcMG3DTkxwDXHfEB-EcW-Ku__nW3YWaDw"
)
USER_SEED = nkeys.encode_seed(bytes(range(32)), nkeys.PREFIX_BYTE_USER).decode()


def test_a_key_written_before_loads_and_signs_the_same() -> None:
    key = SigningKey(OLD_SEED)
    assert key.public_key == OLD_PUBLIC
    assert key.seed() == OLD_SEED
    assert key.sign_bytes(b"humangr round-trip") == OLD_SIGNATURE
    verify_key(OLD_PUBLIC).verify(b"humangr round-trip", _raw(OLD_SIGNATURE))


def test_a_new_key_round_trips_and_agrees_with_nkeys() -> None:
    key = SigningKey.generate()
    again = SigningKey(key.seed())
    assert again.public_key == key.public_key
    pair = nkeys.from_seed(key.seed().encode())
    assert pair.public_key.decode() == key.public_key
    assert pair.sign(b"data") == _raw(key.sign_bytes(b"data"))


def test_surrounding_whitespace_and_base32_padding_are_accepted() -> None:
    assert SigningKey(f"  {OLD_SEED}======\n").public_key == OLD_PUBLIC
    assert bytes(verify_key(f" {OLD_PUBLIC}\n")) == bytes(verify_key(OLD_PUBLIC))


@pytest.mark.parametrize("position", [5, 30, 57])
def test_a_seed_with_one_character_changed_is_refused_not_read_as_another_key(
    position: int,
) -> None:
    changed = "A" if OLD_SEED[position] != "A" else "B"
    damaged = OLD_SEED[:position] + changed + OLD_SEED[position + 1 :]
    with pytest.raises(ConfigError, match="not a valid nkey seed"):
        SigningKey(damaged)


@pytest.mark.parametrize("extra", ["AAAAAAAA", "AA"])
def test_a_seed_with_trailing_bytes_is_refused(extra: str) -> None:
    with pytest.raises(ConfigError, match="seed"):
        SigningKey(OLD_SEED + extra)


def test_a_user_seed_is_refused_naming_what_it_is() -> None:
    with pytest.raises(ConfigError, match="a user seed; it must be a server nkey seed"):
        SigningKey(USER_SEED)


def test_a_user_public_key_is_refused_naming_what_it_is() -> None:
    user_public = nkeys.from_seed(USER_SEED.encode()).public_key.decode()
    assert user_public.startswith("U")
    with pytest.raises(SignatureError, match="is a user nkey; a HUMANGR public key is a server"):
        verify_key(user_public)


def test_a_seed_where_a_public_key_belongs_is_refused_without_echoing_it() -> None:
    with pytest.raises(SignatureError, match="a seed") as caught:
        verify_key(OLD_SEED)
    assert OLD_SEED not in str(caught.value)


@pytest.mark.parametrize("position", [3, 40, 55])
def test_a_public_key_with_one_character_changed_is_refused(position: int) -> None:
    changed = "A" if OLD_PUBLIC[position] != "A" else "B"
    damaged = OLD_PUBLIC[:position] + changed + OLD_PUBLIC[position + 1 :]
    with pytest.raises(SignatureError, match="not a HUMANGR public key"):
        verify_key(damaged)


def _raw(signature: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
