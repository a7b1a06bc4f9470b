"""What a signature covers, and checking one: decisions (their binding and the whole report) and
layer reports.

A decision carries two signatures by the Supervisor's key:

- ``signature`` over its *binding* (the report and action ids, the agent, the action hash, the
  outcome, the policy version, when it was decided and who resolved it), for executors that
  act on the outcome and check only that;
- ``report_signature`` over the whole report's canonical encoding: every field but
  ``report_signature`` itself, so findings, layer results, the veto level, blocking reasons,
  policy notes and the human's reason are covered too. ``signed_parts`` keeps a short digest
  of each part as signed, so a verifier can name the part that was changed.

A layer worker signs its ``LayerReport`` with its own key over the report's canonical encoding
(every field but ``signature``); the Supervisor accepts reports signed by keys it trusts only.

The canonical encoding is JSON with sorted keys, fields at their default value left out (so a
field added later with a default does not change what older signatures cover), times as their
UTC instant and integral floats as integers (a report built in process and the same report
decoded from the wire encode alike). Each signed text starts with its own tag, so a signature
of one kind is never valid as another.
"""

from __future__ import annotations

import base64
import binascii
import enum
import functools
import hashlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
import nkeys  # type: ignore[import-untyped]

from humangr.contracts import HumanLayerReport, LayerReport, LayerTask
from humangr.engine.errors import SignatureError

if TYPE_CHECKING:
    import nacl.signing

__all__ = [
    "BINDING_ONLY_NOTICE",
    "canonical_bytes",
    "changed_parts",
    "key_kind",
    "layer_report_bytes",
    "report_bytes",
    "report_parts",
    "shared",
    "sign_report",
    "signed_binding",
    "task_digest",
    "verify_decision",
    "verify_key",
    "verify_layer_report",
]

_BINDING_TAG = "humangr-decision-v1"
_REPORT_TAG = "humangr-report-v2"
_LAYER_TAG = "humangr-layer-report-v1"
_TASK_TAG = "humangr-layer-task-v1"
_EXACT = 2.0**53
"""Integral floats below this are encoded as integers (an int and its float encode alike)."""
_UNSIGNED_PARTS = frozenset({"report_signature", "signed_parts", "signature", "signer"})
BINDING_ONLY_NOTICE = (
    "signed over its binding only (ids, agent, action hash, outcome, policy version, decided-at, "
    "resolved-by), as older Supervisors sign: its findings, layer results and reasons are not "
    "covered by the signature"
)


@functools.lru_cache(maxsize=64)
def _instant(value: datetime) -> str:
    """``value`` as the UTC instant signed (a report's time is written twice per signature)."""
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    if moment.year < 1000:  # strftime writes such a year unpadded: those bytes are signed
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return moment.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _default(field: msgspec.structs.FieldInfo) -> Any:
    if field.default is not msgspec.NODEFAULT:
        return field.default
    if field.default_factory is not msgspec.NODEFAULT:
        return field.default_factory()
    return msgspec.NODEFAULT


@functools.cache
def _layout(kind: type[msgspec.Struct]) -> tuple[tuple[str, str, Any], ...]:
    """Each field of a Struct type: its name, its encoded name and its default (read once per
    type: ``msgspec.structs.fields`` evaluates the annotations on every call). A default
    made by a factory is made once here and only compared against, never handed out."""
    return tuple(
        (field.name, field.encode_name, _default(field)) for field in msgspec.structs.fields(kind)
    )


_Field = tuple[str, str, Any, bool]
"""A field as ``_fields`` walks it: name, encoded name, default, whether it has a default."""
_EMPTY: frozenset[str] = frozenset()
_MAX_KINDS = 1_024
"""Types whose handling ``_plain`` keeps (a process meets a few dozen; more are not kept)."""
_structs: dict[type, tuple[_Field, ...]] = {}
"""The fields of each Struct type met, in ``msgspec.structs.astuple`` order."""
_kinds: dict[type, Callable[[Any], Any]] = {}
"""How ``_plain`` renders a value of each other (non-leaf) type met."""


_SHARED: dict[int, tuple[msgspec.Struct, Any, str]] = {}
"""Shared frozen values by identity: the value (kept alive, so its id is not reused), its
canonical form and that form's part digest (``shared``)."""
_MAX_SHARED = 256


_S = TypeVar("_S", bound=msgspec.Struct)


def shared(value: _S) -> _S:
    """``value``, a frozen Struct that many reports hold as the very same object (a layer's
    "nothing found"), with its canonical form and digest worked out once for all of them.
    Only for values never changed in place: their form is not computed again."""
    if len(_SHARED) < _MAX_SHARED and id(value) not in _SHARED:
        plain = _plain(value)
        _SHARED[id(value)] = (value, plain, _hash(plain))
    return value


def _plain(value: Any, skip: frozenset[str] = _EMPTY) -> Any:
    """``value`` as plain JSON values, canonically (see the module docstring).

    This runs for every node of every signature and task digest, so each type's handling is
    looked up once (``_structs``, ``_kinds``) rather than found by a chain of ``isinstance``
    checks on every node (tests/signing/test_canonical_fast.py holds that chain, as first
    written, and the digests it gave: the values must stay the same)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value  # the common leaves first
    layout = _structs.get(kind)
    if layout is not None:
        known = _SHARED.get(id(value)) if not skip else None
        if known is not None and known[0] is value:
            return known[1]
        return _fields(value, layout, skip)
    how = _kinds.get(kind)
    if how is not None:
        return how(value)
    if isinstance(value, msgspec.Struct):
        return _fields(value, _struct_fields(kind), skip)
    return _kind(kind)(value)


def _fields(value: msgspec.Struct, layout: tuple[_Field, ...], skip: frozenset[str]) -> Any:
    """A Struct's fields (but ``skip`` and those at their default), by encoded name."""
    out: dict[str, Any] = {}
    for (name, encoded, default, has_default), item in zip(
        layout, msgspec.structs.astuple(value), strict=True
    ):
        if has_default:
            if item is default:
                continue
            try:
                if item == default:
                    continue
            except TypeError:  # as ``_same``: what cannot be compared is not the default
                pass
        if skip and name in skip:
            continue
        leaf = type(item)
        if leaf is str or leaf is int or leaf is bool or item is None:
            out[encoded] = item
        else:
            out[encoded] = _plain(item)
    return out


def _struct_fields(kind: type[msgspec.Struct]) -> tuple[_Field, ...]:
    layout = tuple(
        (name, encoded, default, default is not msgspec.NODEFAULT)
        for name, encoded, default in _layout(kind)
    )
    if len(_structs) < _MAX_KINDS:
        _structs[kind] = layout
    return layout


def _kind(kind: type) -> Callable[[Any], Any]:
    """How to render a value of ``kind`` (not a Struct, nor an exact str, int or bool)."""
    how: Callable[[Any], Any]
    if issubclass(kind, enum.Enum):
        how = _enum_value
    elif issubclass(kind, datetime):
        how = _instant
    elif issubclass(kind, str | int):  # bool is an int
        how = _itself
    elif issubclass(kind, float):
        how = _number
    elif issubclass(kind, dict):
        how = _mapping
    elif issubclass(kind, list | tuple):
        how = _items
    elif issubclass(kind, bytes):
        how = _base64
    else:
        raise TypeError(f"cannot sign a value of type {kind.__name__}")
    if len(_kinds) < _MAX_KINDS:
        _kinds[kind] = how
    return how


def _enum_value(value: enum.Enum) -> Any:
    inner = value._value_
    leaf = type(inner)
    return inner if leaf is str or leaf is int or leaf is bool else _plain(inner)


def _itself(value: Any) -> Any:
    return value


def _number(value: float) -> int | float:
    return int(value) if value.is_integer() and abs(value) < _EXACT else value


def _mapping(value: dict[Any, Any]) -> dict[str, Any]:
    return {str(_plain(key)): _plain(item) for key, item in value.items()}


def _items(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    return [_plain(item) for item in value]


def _base64(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default)
    except TypeError:
        return False


def canonical_bytes(tag: str, value: Any, skip: frozenset[str] = frozenset()) -> bytes:
    """The canonical encoding of ``value`` (without the fields ``skip``), under ``tag``."""
    return msgspec.json.encode([tag, _plain(value, skip)], order="sorted")


def signed_binding(report: HumanLayerReport) -> bytes:
    """The bytes a decision's binding ``signature`` covers (canonical JSON of the binding)."""
    fields = [
        _BINDING_TAG,
        report.report_id,
        report.action_id,
        report.agent_id,
        report.action_hash,
        report.outcome.value,
        report.policy_version,
        _instant(report.decided_at),
        report.resolved_by or "",
    ]
    return msgspec.json.encode(fields)


def report_bytes(report: HumanLayerReport) -> bytes:
    """The bytes a decision's ``report_signature`` covers: every field but that one."""
    return canonical_bytes(_REPORT_TAG, report, frozenset({"report_signature"}))


def layer_report_bytes(report: LayerReport) -> bytes:
    """The bytes a layer report's ``signature`` covers: every field but that one."""
    return canonical_bytes(_LAYER_TAG, report, frozenset({"signature"}))


def task_digest(task: LayerTask) -> str:
    """sha256 (hex) of ``task``'s canonical encoding: what a ``LayerReport`` names as the task
    it answers."""
    return hashlib.sha256(canonical_bytes(_TASK_TAG, task)).hexdigest()


def _hash(plain: Any) -> str:
    return hashlib.sha256(msgspec.json.encode(plain, order="sorted")).hexdigest()[:16]


def _parts(report: HumanLayerReport, plain: dict[str, Any]) -> dict[str, str]:
    """The digest of each part of ``report`` from its canonical form ``plain`` (a part at its
    default value is left out of ``plain``, and digested as that default)."""
    parts: dict[str, str] = {}
    for name, encoded, _ in _layout(type(report)):
        if name in _UNSIGNED_PARTS:
            continue
        if name == "layer_results":
            results = report.layer_results
            for lid, result in plain.get(encoded, {}).items():
                known = _SHARED.get(id(results.get(lid)))
                digest = known[2] if known is not None and known[1] is result else _hash(result)
                parts[f"layer_results.{lid}"] = digest
            continue
        if encoded in plain:
            parts[name] = _hash(plain[encoded])
        else:  # left out: at its default, whose digest is the same for every report
            parts[name] = _default_digests(type(report))[name]
    return parts


@functools.cache
def _default_digests(kind: type[msgspec.Struct]) -> dict[str, str]:
    """The digest of each defaulted field's default value (an equal value has the same
    canonical form, so the same digest)."""
    return {
        name: _hash(_plain(default))
        for name, _, default in _layout(kind)
        if default is not msgspec.NODEFAULT
    }


@functools.cache
def _encoded_names(kind: type[msgspec.Struct]) -> dict[str, str]:
    return {name: encoded for name, encoded, _ in _layout(kind)}


def sign_report(
    report: HumanLayerReport, signer: str, sign: Callable[[bytes], str]
) -> HumanLayerReport:
    """``report`` signed by ``signer`` (``sign`` makes a signature of bytes): ``signature``
    over its binding, ``signed_parts``, and ``report_signature`` over the whole report — the
    same bytes ``report_bytes`` and ``report_parts`` give, from one canonical pass."""
    unsigned = msgspec.structs.replace(
        report, signer=signer, signature=None, report_signature=None, signed_parts={}
    )
    plain = _plain(unsigned)
    parts = _parts(unsigned, plain)
    names = _encoded_names(type(unsigned))
    binding = sign(signed_binding(unsigned))
    plain[names["signature"]] = binding
    if parts:
        plain[names["signed_parts"]] = parts
    whole = sign(msgspec.json.encode([_REPORT_TAG, plain], order="sorted"))
    return msgspec.structs.replace(
        unsigned, signature=binding, signed_parts=parts, report_signature=whole
    )


def report_parts(report: HumanLayerReport) -> dict[str, str]:
    """A short digest of each part of ``report`` (``layer_results`` one per layer), for naming
    what was changed after signing. Diagnostic only: the signature covers the parts in full."""
    return _parts(report, _plain(report))


def changed_parts(report: HumanLayerReport) -> list[str]:
    """The parts of ``report`` whose digest is not the one in its ``signed_parts`` (added,
    changed or removed); empty when it has none or they all match."""
    if not report.signed_parts:
        return []
    now = report_parts(report)
    return sorted(
        name
        for name in {*now, *report.signed_parts}
        if now.get(name) != report.signed_parts.get(name)
    )


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
