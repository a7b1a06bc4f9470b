"""Signed decisions: the Supervisor signs every decision so an executor can verify it offline.

A decision is signed twice with ed25519: over its *binding* (the report and action ids, the
agent, the action hash, the outcome, the policy version, when it was decided and who resolved
it) and over the whole report (findings, layer results, reasons…). Keys are NATS nkeys (a seed
``SN…`` and its public key ``N…``, as ``nk -gen server`` or ``nsc`` make them), so operators
keep one kind of key for NATS and HUMANGR.

Where the Supervisor's key comes from, first found wins:

1. ``--signing-key FILE`` (``serve``, ``key``): a file holding the seed;
2. ``HUMANGR_SIGNING_SEED``: the seed itself (a secret: from a secret store, never a file in
   the repository);
3. ``HUMANGR_SIGNING_KEY_FILE``: a file holding the seed;
4. ``~/.humangr/signing.seed`` (``$HUMANGR_HOME/signing.seed``), created on first use with mode
   0600 like an SSH host key.

Every Supervisor of one deployment must use the same seed, or executors must trust several
public keys. The seed is never logged or written anywhere else. What a signature covers, and
verifying one, is ``humangr.engine.signatures``; layer workers' keys are
``humangr.engine.worker_keys``.
"""

from __future__ import annotations

import base64
import os
import stat
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

import msgspec
import nkeys  # type: ignore[import-untyped]

from humangr.contracts import HumanLayerReport, LayerReport
from humangr.engine.errors import ConfigError
from humangr.engine.signatures import (
    key_kind,
    layer_report_bytes,
    sign_report,
    signed_binding,
    verify_decision,
)

__all__ = [
    "PUBLIC_KEY_ENV",
    "SEED_ENV",
    "SEED_FILE_ENV",
    "SigningKey",
    "default_key_path",
    "load_key",
    "load_signing_key",
    "signed_binding",
    "trusted_keys",
    "verify_decision",
    "write_new_key",
]

SEED_ENV = "HUMANGR_SIGNING_SEED"
SEED_FILE_ENV = "HUMANGR_SIGNING_KEY_FILE"
PUBLIC_KEY_ENV = "HUMANGR_PUBLIC_KEY"


def _encode_seed(raw: bytes) -> str:
    """The server nkey seed (``SN…``) of the 32 bytes ``raw``."""
    return str(nkeys.encode_seed(raw, nkeys.PREFIX_BYTE_SERVER).decode("ascii"))


def _decode_seed(seed: str) -> bytes:
    """The 32 bytes of a server nkey seed; ``ConfigError`` saying what is wrong otherwise.

    ``nkeys.decode_seed`` reads the prefix and the bytes but checks neither the CRC-16 nor
    the length, so the seed is encoded again and must come out as given: a mistyped
    character fails the checksum here instead of becoming another key."""
    text = seed.strip().rstrip("=")
    bad = ConfigError(
        "the signing seed is not a valid nkey seed (expected 'SN…' as `humangr key "
        "--generate` writes it)"
    )
    try:
        prefix, raw = nkeys.decode_seed(text.encode("ascii"))
    except (nkeys.NkeysError, UnicodeEncodeError, ValueError):
        raise bad from None
    if prefix != nkeys.PREFIX_BYTE_SERVER:
        raise ConfigError(
            f"the signing seed is {key_kind(prefix)} seed; it must be a server nkey seed "
            "('SN…', 58 characters, as `humangr key --generate` writes it)"
        )
    try:
        canonical = _encode_seed(bytes(raw))
    except nkeys.NkeysError:
        raise bad from None
    if canonical != text:
        raise bad
    return bytes(raw)


class SigningKey:
    """A Supervisor's ed25519 key. ``repr`` and ``str`` show the public key only."""

    __slots__ = ("_key", "public_key")

    def __init__(self, seed: str) -> None:
        import nacl.signing

        raw = _decode_seed(seed)
        # Signing goes to PyNaCl directly: ``nkeys.KeyPair.sign`` is the same call behind one
        # more indirection, and signing is on the path of every decision.
        self._key = nacl.signing.SigningKey(raw)
        canonical = seed.strip().rstrip("=").encode("ascii")  # as ``_decode_seed`` checked it
        pair = nkeys.KeyPair(seed=canonical, keys=self._key)
        self.public_key = str(pair.public_key.decode("ascii"))

    @classmethod
    def generate(cls) -> SigningKey:
        """A new random key (``os.urandom``)."""
        return cls(_encode_seed(os.urandom(32)))

    def seed(self) -> str:
        """The seed, for writing a new key file; never log it."""
        return _encode_seed(bytes(self._key))

    def __repr__(self) -> str:
        return f"SigningKey(public_key={self.public_key!r})"

    __str__ = __repr__

    def sign_bytes(self, data: bytes) -> str:
        """The ed25519 signature of ``data``, base64url without padding."""
        signature = self._key.sign(data).signature
        return base64.urlsafe_b64encode(signature).decode().rstrip("=")

    def sign(self, report: HumanLayerReport) -> HumanLayerReport:
        """``report`` signed by this key: ``signature`` over its binding, then ``signed_parts``
        and ``report_signature`` over the whole report (earlier signatures are replaced)."""
        return sign_report(report, self.public_key, self.sign_bytes)

    def sign_layer_report(self, report: LayerReport) -> LayerReport:
        """``report`` with ``signer`` and ``signature`` set over its canonical encoding."""
        unsigned = msgspec.structs.replace(report, signer=self.public_key, signature=None)
        return msgspec.structs.replace(
            unsigned, signature=self.sign_bytes(layer_report_bytes(unsigned))
        )


def trusted_keys(
    given: Iterable[str] = (), environ: Mapping[str, str] | None = None
) -> tuple[str, ...]:
    """The public keys ``given``, else those of ``HUMANGR_PUBLIC_KEY`` (comma-separated)."""
    env = os.environ if environ is None else environ
    keys = list(given) or env.get(PUBLIC_KEY_ENV, "").split(",")
    return tuple(k.strip() for k in keys if k.strip())


def default_key_path(environ: Mapping[str, str] | None = None, name: str = "signing.seed") -> Path:
    """``$HUMANGR_HOME/<name>`` (default ``~/.humangr/signing.seed``)."""
    env = os.environ if environ is None else environ
    home = env.get("HUMANGR_HOME") or str(Path.home() / ".humangr")
    return Path(home) / name


def _read_seed(path: Path, *, settle_s: float = 0.0) -> SigningKey:
    """The key in ``path``; with ``settle_s``, a file still empty (another process is writing
    it right now) is read again for up to that long."""
    deadline = time.monotonic() + settle_s
    while True:
        try:
            text = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read the signing key {path}: {exc}") from None
        if text or time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    if os.name == "posix" and path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"the signing key {path} is readable by others; `chmod 600 {path}` and run again"
        )
    try:
        return SigningKey(text)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def write_new_key(path: Path) -> SigningKey:
    """Create ``path`` (mode 0600, never overwriting) with a new seed; return its key."""
    key = SigningKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ConfigError(f"{path} exists already; it is not overwritten") from None
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(key.seed() + "\n")
    return key


def load_key(
    path: Path | str | None,
    *,
    environ: Mapping[str, str] | None,
    create: bool,
    seed_env: str,
    file_env: str,
    file_name: str,
) -> tuple[SigningKey, str]:
    """A key and where it came from: ``path``, else the seed in ``seed_env``, else the file
    named by ``file_env``, else ``$HUMANGR_HOME/<file_name>`` (created when missing and
    ``create`` is set)."""
    env = os.environ if environ is None else environ
    if path is not None:
        return _read_seed(Path(path)), str(path)
    if env.get(seed_env, "").strip():
        try:
            return SigningKey(env[seed_env].strip()), seed_env
        except ConfigError as exc:
            raise ConfigError(f"{seed_env}: {exc}") from None
    if env.get(file_env, "").strip():
        return _read_seed(Path(env[file_env].strip())), env[file_env].strip()
    default = default_key_path(env, file_name)
    if default.exists() or not create:
        return _read_seed(default, settle_s=1.0), str(default)
    try:
        return write_new_key(default), f"{default} (new)"
    except ConfigError:  # another process created it first
        return _read_seed(default, settle_s=1.0), str(default)


def load_signing_key(
    path: Path | str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    create: bool = True,
) -> tuple[SigningKey, str]:
    """The Supervisor's key and where it came from (see the module docstring for the order).
    The default file is created when missing and ``create`` is set."""
    return load_key(
        path,
        environ=environ,
        create=create,
        seed_env=SEED_ENV,
        file_env=SEED_FILE_ENV,
        file_name="signing.seed",
    )
