"""What each signature covers, and signing a decision: the bytes of a decision's binding, of a
whole report and of a layer report, a layer task's digest, and the digest of each part of a
report as signed (``signed_parts``), so a verifier can name the part that was changed.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any

import msgspec

from humangr.contracts import HumanLayerReport, LayerReport, LayerTask
from humangr.engine.canonical import _SHARED, _hash, _instant, _layout, _plain, canonical_bytes

__all__ = [
    "changed_parts",
    "layer_report_bytes",
    "report_bytes",
    "report_parts",
    "sign_report",
    "signed_binding",
    "task_digest",
]

_BINDING_TAG = "humangr-decision-v1"
_REPORT_TAG = "humangr-report-v2"
_LAYER_TAG = "humangr-layer-report-v1"
_TASK_TAG = "humangr-layer-task-v1"
_UNSIGNED_PARTS = frozenset({"report_signature", "signed_parts", "signature", "signer"})


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
