"""Layer workers' keys: each worker signs its ``LayerReport``s, and the Supervisor accepts
reports signed by the keys it trusts only.

Where a layer worker process (``humangr serve --role layers``) gets its key, first found wins:

1. ``--worker-key FILE``: a file holding the seed;
2. ``HUMANGR_WORKER_SEED``: the seed itself (from a secret store);
3. ``HUMANGR_WORKER_KEY_FILE``: a file holding the seed;
4. ``$HUMANGR_HOME/worker.seed`` (default ``~/.humangr/worker.seed``), created on first use with
   mode 0600.

The worker prints its public key at start. A Supervisor trusts the keys given with
``--trust-workers`` (or ``HUMANGR_TRUST_WORKERS``): public keys separated by commas, or a file
with one per line (``#`` starts a comment). Without them it trusts the worker key of its own
machine (the same resolution as a worker's), so workers sharing its ``$HUMANGR_HOME`` work with
no setup; workers elsewhere must be trusted by name. The embedded engine gives each of its
in-process workers a fresh key and trusts exactly those.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from humangr.engine.errors import ConfigError, SignatureError
from humangr.engine.signatures import verify_key
from humangr.engine.signing import SigningKey, load_key

__all__ = [
    "TRUST_WORKERS_ENV",
    "WORKER_KEY_FILE_ENV",
    "WORKER_SEED_ENV",
    "load_worker_key",
    "parse_trusted_workers",
]

WORKER_SEED_ENV = "HUMANGR_WORKER_SEED"
WORKER_KEY_FILE_ENV = "HUMANGR_WORKER_KEY_FILE"
TRUST_WORKERS_ENV = "HUMANGR_TRUST_WORKERS"
MAX_TRUSTED = 1_000
_MAX_FILE_BYTES = 256 * 1024


def load_worker_key(
    path: Path | str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    create: bool = True,
) -> tuple[SigningKey, str]:
    """A layer worker's key and where it came from (see the module docstring)."""
    return load_key(
        path,
        environ=environ,
        create=create,
        seed_env=WORKER_SEED_ENV,
        file_env=WORKER_KEY_FILE_ENV,
        file_name="worker.seed",
    )


def parse_trusted_workers(
    spec: str | None, environ: Mapping[str, str] | None = None
) -> tuple[str, ...] | None:
    """The worker keys ``spec`` names (``N…,N…`` or a file of them), else those of
    ``HUMANGR_TRUST_WORKERS``; ``None`` when neither is given. A name that is not a public key
    is a ``ConfigError`` saying which."""
    env = os.environ if environ is None else environ
    text = spec if spec is not None and spec.strip() else env.get(TRUST_WORKERS_ENV, "")
    if not text.strip():
        return None
    where = "--trust-workers" if spec is not None and spec.strip() else TRUST_WORKERS_ENV
    names = _names(text.strip(), where)
    if not names:
        raise ConfigError(f"{where} names no worker key; give N… public keys or a file of them")
    for name in names:
        try:
            verify_key(name)
        except SignatureError as exc:
            raise ConfigError(
                f"{where}: {exc}; a worker prints its key at start "
                "(`humangr key --worker` on its machine)"
            ) from None
    return tuple(dict.fromkeys(names))


def _names(text: str, where: str) -> list[str]:
    path = Path(text)
    if not text.startswith("N") or path.is_file():
        try:
            with path.open("rb") as file:
                data = file.read(_MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise ConfigError(
                f"{where}: {text[:80]!r} is neither public keys (N…,N…) nor a readable file: {exc}"
            ) from None
        if len(data) > _MAX_FILE_BYTES:
            raise ConfigError(f"{where}: {path} is larger than {_MAX_FILE_BYTES} bytes")
        lines = data.decode("utf-8", "replace").splitlines()
        names = [line.split("#", 1)[0].strip() for line in lines]
    else:
        names = [part.strip() for part in text.split(",")]
    names = [name for name in names if name]
    if len(names) > MAX_TRUSTED:
        raise ConfigError(f"{where}: {len(names)} keys; at most {MAX_TRUSTED}")
    return names
