"""One run of one layer: status and veto from its findings, fingerprints, error runs."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence

import msgspec

from humangr.contracts import (
    Finding,
    FindingSource,
    LayerID,
    LayerRunResult,
    LayerStatus,
    ReviewFinding,
    Severity,
    Usage,
    VetoLevel,
)
from humangr.engine.redact import redact_secrets

from .errors import ReviewError
from .layers import LAYERS, LINE_BUCKET

__all__ = [
    "MAX_RUN_FINDINGS",
    "clip",
    "error_run",
    "fingerprint",
    "make_run",
    "run_status",
    "run_veto",
]

MAX_RUN_FINDINGS = 200
"""The contract's bound on a run's findings; the most severe are kept beyond it."""
_MAX_TEXT = 2_000
_PUNCT = re.compile(r"[\W_]+")


def clip(text: str, limit: int = _MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters (with an ellipsis), to fit a bounded contract field."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_status(findings: Iterable[Finding | ReviewFinding]) -> LayerStatus:
    """A run's status: any critical or high → fail, any medium → warn, else (or none) pass."""
    worst = max((f.severity for f in findings), default=Severity.INFO)
    if worst >= Severity.HIGH:
        return LayerStatus.FAIL
    if worst is Severity.MEDIUM:
        return LayerStatus.WARN
    return LayerStatus.PASS


def run_veto(findings: Iterable[Finding | ReviewFinding], power: VetoLevel) -> VetoLevel:
    """A run's veto (seed S05, fixed): critical → ``power``; high → medium if ``power`` ≥
    medium, else weak; otherwise none. Never above ``power``."""
    worst = max((f.severity for f in findings), default=Severity.INFO)
    if worst is Severity.CRITICAL:
        veto = power
    elif worst is Severity.HIGH:
        veto = VetoLevel.MEDIUM if power >= VetoLevel.MEDIUM else VetoLevel.WEAK
    else:
        veto = VetoLevel.NONE
    return min(veto, power)


def _normal_title(title: str) -> str:
    text = unicodedata.normalize("NFKC", title).casefold()
    return _PUNCT.sub(" ", text).strip()


def _normal_file(file: str | None) -> str:
    if not file:
        return ""
    path = file.strip().replace("\\", "/")
    while path.startswith(("./", "/")):
        path = path[2:] if path.startswith("./") else path[1:]
    return path


def fingerprint(
    layer_id: LayerID,
    title: str,
    file: str | None,
    line: int | None,
    argument: str | None = None,
) -> str:
    """A short stable id of "the same finding": layer, normalised title (case, whitespace and
    punctuation folded), file, line bucket (``line // LINE_BUCKET``) and, for a tool call,
    the argument."""
    bucket = "-" if line is None else str(line // LINE_BUCKET)
    parts = [layer_id.value, _normal_title(title), _normal_file(file), bucket]
    if argument:
        parts.append(argument)
    key = "\x1f".join(parts)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _finding(layer_id: LayerID, run_number: int, index: int, f: Finding | ReviewFinding) -> Finding:
    source = f.source if isinstance(f, Finding) else FindingSource.LLM
    return Finding(
        id=f"{layer_id.value}-r{run_number}-{index}",
        layer_id=layer_id,
        severity=f.severity,
        title=f.title,
        description=f.description,
        suggestion=f.suggestion,
        file=f.file,
        line=f.line,
        source=source,
        fingerprint=fingerprint(layer_id, f.title, f.file, f.line, f.argument),
        votes=1,
        argument=f.argument,
        tool=f.tool if isinstance(f, Finding) else None,
    )


def _check_run_number(run_number: int) -> None:
    if not 1 <= run_number <= 16:
        raise ReviewError(f"run_number {run_number} is out of range; runs are numbered 1..16")


def make_run(
    layer_id: LayerID,
    run_number: int,
    findings: Sequence[Finding | ReviewFinding],
    *,
    usage: Usage | None = None,
    elapsed_ms: float = 0.0,
    repairs: int = 0,
    model: str = "",
    tool: str | None = None,
) -> LayerRunResult:
    """A valid run from an LLM's parsed findings: ids, ``source``, fingerprints, status and veto
    (with the layer's power). Status and veto count every finding; if there are more than the
    contract allows, the most severe are kept. ``tool``: the reviewed tool call's name, given
    to the findings that name one of its arguments."""
    _check_run_number(run_number)
    power = LAYERS[layer_id].veto_power
    converted = [_finding(layer_id, run_number, i, f) for i, f in enumerate(findings, 1)]
    if tool is not None:
        converted = [
            msgspec.structs.replace(f, tool=tool) if f.argument and not f.tool else f
            for f in converted
        ]
    kept = sorted(converted, key=lambda f: f.severity.rank, reverse=True)[:MAX_RUN_FINDINGS]
    kept_ids = {f.id for f in kept}
    return LayerRunResult(
        layer_id=layer_id,
        run_number=run_number,
        status=run_status(converted),
        veto_level=run_veto(converted, power),
        findings=[f for f in converted if f.id in kept_ids],
        execution_time_ms=max(0.0, elapsed_ms),
        usage=usage if usage is not None else Usage(),
        repairs=min(10, max(0, repairs)),
        model=model[:128],
    )


def error_run(
    layer_id: LayerID,
    run_number: int,
    error: str | BaseException,
    *,
    usage: Usage | None = None,
    elapsed_ms: float = 0.0,
    repairs: int = 0,
    model: str = "",
) -> LayerRunResult:
    """A run that produced no usable verdict (invalid reply after repairs, LLM failure,
    timeout): status ``error``, veto ``none``, no findings. It never counts as a clean run."""
    _check_run_number(run_number)
    if isinstance(error, BaseException):
        message = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    else:
        message = error or "run failed without a message"
    message = redact_secrets(message[:8_000])  # an LLM or transport error may echo anything
    return LayerRunResult(
        layer_id=layer_id,
        run_number=run_number,
        status=LayerStatus.ERROR,
        veto_level=VetoLevel.NONE,
        findings=[],
        execution_time_ms=max(0.0, elapsed_ms),
        error=clip(message),
        usage=usage if usage is not None else Usage(),
        repairs=min(10, max(0, repairs)),
        model=model[:128],
    )
