"""Checking signatures: a decision's (its binding and the whole report) against the trusted
Supervisor keys, and a layer report's against the trusted worker keys.
"""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING

from humangr.contracts import HumanLayerReport, LayerReport
from humangr.engine.errors import SignatureError
from humangr.engine.public_keys import verify_key
from humangr.engine.signed_reports import (
    changed_parts,
    layer_report_bytes,
    report_bytes,
    signed_binding,
)

if TYPE_CHECKING:
    import nacl.signing

__all__ = ["BINDING_ONLY_NOTICE", "verify_decision", "verify_layer_report"]

BINDING_ONLY_NOTICE = (
    "signed over its binding only (ids, agent, action hash, outcome, policy version, decided-at, "
    "resolved-by), as older Supervisors sign: its findings, layer results and reasons are not "
    "covered by the signature"
)


@functools.lru_cache(maxsize=256)
def _verifier(public_key: str) -> nacl.signing.VerifyKey:
    """``verify_key``, kept for the few keys a process meets (bounded: a stream of forged
    signers cannot grow it; a bad key raises and is not kept)."""
    return verify_key(public_key)


def _check(signer: str, signature: str, data: bytes) -> bool:
    """Whether ``signature`` (base64url) is ``signer``'s over ``data``."""
    import nacl.exceptions

    try:
        raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
        _verifier(signer).verify(data, raw)
    except (binascii.Error, ValueError, nacl.exceptions.BadSignatureError, SignatureError):
        return False
    return True


def _trusted(trusted: str | Iterable[str]) -> list[str]:
    return [trusted] if isinstance(trusted, str) else list(trusted)


def verify_decision(
    report: HumanLayerReport, trusted: str | Iterable[str], *, require_whole: bool = False
) -> str | None:
    """Raise ``SignatureError`` unless ``report`` is signed by one of the ``trusted`` public
    keys and unchanged since: its binding (a changed outcome, hash, resolver… fails) and, when
    it carries one, the whole report (a changed finding, veto level, reason… fails, naming the
    part where it can).

    Returns a notice for a report signed over its binding only (an older Supervisor), or
    ``None``; with ``require_whole`` such a report is refused instead."""
    keys = _trusted(trusted)
    what = f"the decision on {report.action_id}"
    if not keys:
        raise SignatureError("no trusted public key was given to verify the decision against")
    if report.signature is None or report.signer is None:
        raise SignatureError(f"{what} is not signed")
    if report.signer not in keys:
        raise SignatureError(f"{what} is signed by {report.signer}, which is not a trusted key")
    _verifier(report.signer)  # a malformed signer key is its own error
    whole = report.report_signature
    if whole is not None and _check(report.signer, whole, report_bytes(report)):
        # The whole report, its binding signature included, is as the signer made it: that
        # binding signature is the signer's own, so checking it again adds nothing.
        return None
    if not _check(report.signer, report.signature, signed_binding(report)):
        changed = changed_parts(report)  # only to name what changed: a failure is rare
        parts = f" ({', '.join(changed)} changed)" if changed else ""
        raise SignatureError(
            f"the signature of {what} does not match it{parts}: the decision was changed after "
            "it was signed, or forged"
        )
    if report.report_signature is None:
        if report.signed_parts:
            raise SignatureError(
                f"{what} lists its signed parts but its report_signature was removed: the "
                "report was changed after it was signed"
            )
        if require_whole:
            raise SignatureError(
                f"{what} is {BINDING_ONLY_NOTICE}; a whole-report signature is required"
            )
        return f"{what} is {BINDING_ONLY_NOTICE}"
    changed = changed_parts(report)
    if changed:
        raise SignatureError(
            f"the report's {', '.join(changed)} of {what} changed after it was signed "
            "(the outcome's binding is intact; do not trust the rest of the report)"
        )
    raise SignatureError(
        f"the report's body was changed after signing ({what}); its binding is intact, "
        "the rest of the report is not to be trusted"
    )


def verify_layer_report(report: LayerReport, trusted: Iterable[str]) -> None:
    """Raise ``SignatureError`` unless ``report`` is signed by one of the ``trusted`` worker
    keys over its canonical encoding."""
    what = f"the {report.layer_id} report for {report.action_id}"
    if report.signature is None or report.signer is None:
        raise SignatureError(
            f"{what} is not signed; layer workers sign their reports (a forged report, or a "
            "worker older than the Supervisor)"
        )
    if report.signer not in set(trusted):
        raise SignatureError(
            f"{what} is signed by {report.signer[:56]}, which is not a trusted worker key; "
            "trust it on the Supervisor with --trust-workers if the worker is yours"
        )
    if not _check(report.signer, report.signature, layer_report_bytes(report)):
        raise SignatureError(
            f"the signature of {what} does not match it: changed after signing, or forged"
        )
