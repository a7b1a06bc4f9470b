"""Storage opened to anonymous reads under Azure's own words, for ``business.exposure``: a
container's ``publicAccess`` of ``Blob`` or ``Container`` (the REST header
``x-ms-blob-public-access`` says the same), an account's ``allowBlobPublicAccess`` set true.
``None``/``off`` and ``false`` keep it private."""

from __future__ import annotations

__all__ = ["container_public"]

_CONTAINER_ACCESS = frozenset(
    {"publicaccess", "public_access", "blob_public_access", "x-ms-blob-public-access"}
)
_BLOB_OPEN = frozenset({"allowblobpublicaccess", "allow_blob_public_access"})


def container_public(key: str, value: object) -> bool:
    """Azure storage opened to anonymous reads: a container's ``publicAccess`` of ``Blob`` or
    ``Container``, an account's ``allowBlobPublicAccess`` set true."""
    if key in _BLOB_OPEN:
        return value is True
    return (
        key in _CONTAINER_ACCESS
        and isinstance(value, str)
        and value.strip().lower() in ("blob", "container")
    )
