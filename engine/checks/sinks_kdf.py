"""Password hashing set up too weak to resist guessing: key-derivation functions with too few
rounds (PBKDF2, bcrypt) and passlib schemes that are fast or broken (md5_crypt, hex_sha1,
ldap_md5, des_crypt, ...) and ``crypt()`` with DES or MD5-crypt salts, by the parameters the
libraries document."""

from __future__ import annotations

import ast

from humangr.contracts import Severity

from .flow import CONST, Val
from .libtypes import fn_name
from .sink_util import Site, arg
from .sources import names

__all__ = ["kdf_sinks"]

_PBKDF2_MIN = 100_000
"""Fewer PBKDF2 iterations than this are reported (OWASP asks for 600,000 with SHA-256)."""
_BCRYPT_MIN = 10
"""A bcrypt cost (log2 rounds) below this is reported (the library's default is 12)."""
_WEAK_SCHEMES = names(
    """
    md5_crypt apr_md5_crypt des_crypt bsdi_crypt bigcrypt crypt16 hex_md4 hex_md5 hex_sha1
    hex_sha256 hex_sha512 ldap_md5 ldap_sha1 ldap_salted_md5 ldap_salted_sha1 ldap_plaintext
    ldap_hex_md5 ldap_hex_sha1 plaintext lmhash nthash mysql323 mysql41 postgres_md5
    oracle10 msdcc msdcc2 cisco_pix cisco_asa cisco_type7 roundup_plaintext
    """
)
"""passlib schemes its documentation lists as insecure or only for legacy systems."""
_PBKDF2 = {
    "hashlib.pbkdf2_hmac": (3, "iterations"),
    "cryptography.hazmat.primitives.kdf.pbkdf2.PBKDF2HMAC": (3, "iterations"),
    "Crypto.Protocol.KDF.PBKDF2": (3, "count"),
    "Cryptodome.Protocol.KDF.PBKDF2": (3, "count"),
}
_PYCRYPTO_DEFAULT = 1000
"""PyCryptodome's PBKDF2 count when none is given."""


def _report(it: Site, e: ast.Call, title: str, why: str) -> None:
    it.report("weak-password-hash", e, Severity.HIGH, title, why, CONST)


def _rounds(it: Site, e: ast.Call, canon: str, args: list[Val], kw: dict[str, Val]) -> None:
    if canon in _PBKDF2:
        index, name = _PBKDF2[canon]
        count = arg(args, kw, index, name)
        value = (
            count.const
            if count is not None
            else _PYCRYPTO_DEFAULT
            if canon.endswith("KDF.PBKDF2")
            else None
        )
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value < _PBKDF2_MIN:
            _report(
                it,
                e,
                "Password hashing with too few iterations",
                f"PBKDF2 with {value:,} iterations is cheap to brute-force "
                f"(use at least {_PBKDF2_MIN:,}; OWASP asks for 600,000 with SHA-256).",
            )
    elif canon == "bcrypt.gensalt":
        cost = arg(args, kw, 0, "rounds")
        value = cost.const if cost is not None else None
        if isinstance(value, int) and not isinstance(value, bool) and value < _BCRYPT_MIN:
            _report(
                it,
                e,
                "Password hashing with too few rounds",
                f"bcrypt cost {value} is cheap to brute-force (the default is 12).",
            )


def _passlib_minimum(scheme: str) -> int | None:
    if scheme.startswith("pbkdf2_"):
        return _PBKDF2_MIN
    if scheme in ("bcrypt", "bcrypt_sha256"):
        return _BCRYPT_MIN
    return None


def _passlib_rounds(it: Site, e: ast.Call, scheme: str, rounds: Val | None) -> None:
    least = _passlib_minimum(scheme)
    value = rounds.const if rounds is not None else None
    if least is None or not isinstance(value, int) or isinstance(value, bool):
        return
    if value < least:
        _report(
            it,
            e,
            "Password hashing with too few rounds",
            f"passlib's {scheme} with rounds={value:,} is cheap to brute-force "
            f"(use at least {least:,}).",
        )


def _schemes(it: Site, e: ast.Call, canon: str, kw: dict[str, Val]) -> None:
    parts = canon.split(".")
    if canon.startswith("passlib.hash.") and len(parts) == 4 and parts[3] == "using":
        _passlib_rounds(it, e, parts[2], kw.get("rounds"))
    if canon.startswith("passlib.hash.") and len(parts) >= 4 and parts[2] in _WEAK_SCHEMES:
        if parts[3] in ("hash", "encrypt", "genhash", "using"):
            _report(
                it,
                e,
                "Weak password hashing scheme",
                f"passlib's {parts[2]} is fast or broken; use argon2, bcrypt or scrypt.",
            )
        return
    if parts[-1] != "CryptContext" or not canon.startswith(("passlib", "CryptContext")):
        return
    default = kw.get("default")
    scheme: object = default.const if default is not None else None
    schemes = kw.get("schemes")
    if scheme is None and schemes is not None and schemes.items:
        scheme = schemes.items[0][1].const
    for name, v in kw.items():
        if name.endswith("__rounds"):
            _passlib_rounds(it, e, name.removesuffix("__rounds"), v)
    if isinstance(scheme, str) and scheme in _WEAK_SCHEMES:
        _report(
            it,
            e,
            "Weak password hashing scheme",
            f"The CryptContext hashes new passwords with {scheme}, which is fast or broken; "
            "use argon2, bcrypt or scrypt.",
        )


_CRYPT = frozenset({"crypt.crypt", "legacycrypt.crypt", "crypt_r.crypt"})
_CRYPT_WEAK_METHODS = frozenset({"METHOD_CRYPT", "METHOD_MD5"})


def _crypt_salt_weak(salt: Val) -> str | None:
    """What makes a ``crypt()`` salt weak: a traditional DES salt (no ``$id$`` prefix) or
    MD5-crypt (``$1$``), as a literal or as ``crypt.METHOD_CRYPT`` / ``METHOD_MD5``."""
    ref = fn_name(salt.cls)
    if ref is not None and ref.rsplit(".", 1)[-1] in _CRYPT_WEAK_METHODS:
        return ref.rsplit(".", 1)[-1]
    value = salt.const
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(value, str):
        return None
    if value.startswith("$1$"):
        return "MD5-crypt"
    return None if value.startswith("$") else "DES crypt"


def _crypt(it: Site, e: ast.Call, canon: str, args: list[Val], kw: dict[str, Val]) -> None:
    if canon in _CRYPT:
        salt = arg(args, kw, 1, "salt")
    elif canon in ("crypt.mksalt", "legacycrypt.mksalt"):
        salt = arg(args, kw, 0, "method")
    else:
        return
    weak = _crypt_salt_weak(salt) if salt is not None else None
    if weak is not None:
        _report(
            it,
            e,
            "Weak password hashing scheme",
            f"crypt() with {weak} is fast or broken (DES keeps 8 characters); use argon2, "
            "bcrypt or scrypt.",
        )


def kdf_sinks(it: Site, e: ast.Call, canon: str, args: list[Val], kw: dict[str, Val]) -> None:
    """Report password hashing whose parameters make it weak."""
    _rounds(it, e, canon, args, kw)
    _schemes(it, e, canon, kw)
    _crypt(it, e, canon, args, kw)
