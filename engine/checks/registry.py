"""The registry of local checks and ``run_checks``, which turns their hits into findings."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence

from humangr.contracts import ActionContext, Finding, FindingSource, LayerID, Severity

from . import compliance, performance, quality, removed_tests, security_code, security_text
from .base import Check, CheckInput, Hit

__all__ = ["CHECKS", "checks_markdown", "run_checks"]

log = logging.getLogger(__name__)

L = LayerID
CHECKS: tuple[Check, ...] = (
    Check(
        L.HL2,
        "todo",
        "Leftover TODO / FIXME / XXX / HACK markers",
        ("humangr",),
        "low",
        quality.todo_markers,
    ),
    Check(
        L.HL2,
        "not-implemented",
        "raise NotImplementedError outside abstract methods",
        ("humangr",),
        "medium",
        quality.not_implemented,
    ),
    Check(
        L.HL2,
        "deleted-test",
        "Deleted test files, removed test functions",
        ("humangr",),
        "high",
        removed_tests.deleted_tests,
    ),
    Check(
        L.HL3,
        "swallowed-exception",
        "Bare except, except Exception: pass/continue/...",
        ("humangr",),
        "high (bare and swallowing), medium (bare, or Exception swallowed)",
        quality.swallowed_exceptions,
    ),
    Check(
        L.HL4,
        "secret",
        "Hard-coded secrets: cloud keys, private keys, API tokens, "
        "credentials assigned to password/secret/token/api_key names",
        ("detect-secrets", "humangr"),
        "critical (keys, tokens, random-looking credentials); high (other credentials, JWT, "
        "URL credentials); low in test files",
        security_text.secrets,
    ),
    Check(
        L.HL4,
        "shell-injection",
        "subprocess with shell=True, os.system / os.popen",
        ("bandit", "humangr"),
        "critical (command not constant), high (other shell=True calls), low (constant command)",
        security_code.shell_injection,
    ),
    Check(
        L.HL4,
        "deserialization",
        "pickle / marshal / dill loads, yaml.load without SafeLoader",
        ("bandit", "humangr"),
        "high",
        security_code.deserialization,
    ),
    Check(
        L.HL4,
        "sql-injection",
        "SQL built with f-strings, %, .format or +",
        ("bandit", "humangr"),
        "high; critical with request input",
        security_code.sql_injection,
    ),
    Check(
        L.HL4,
        "eval-exec",
        "eval / exec of non-constant code",
        ("humangr",),
        "high; critical with request input",
        security_code.eval_exec,
    ),
    Check(
        L.HL4,
        "tls-verification",
        "verify=False, unverified SSL context, CERT_NONE, "
        "check_hostname=False, rejectUnauthorized: false, curl -k",
        ("bandit", "humangr"),
        "high",
        security_text.tls_verification,
    ),
    Check(
        L.HL4,
        "weak-password-hash",
        "md5 / sha1 (or one fast sha2 round) of a password",
        ("humangr",),
        "high (md5, sha1), medium (sha2, blake2)",
        security_code.weak_password_hash,
    ),
    Check(
        L.HL4,
        "path-traversal",
        "open / send_file / os.path.join / Path of request input",
        ("humangr",),
        "high",
        security_code.path_traversal,
    ),
    Check(
        L.HL4,
        "prompt-injection",
        "Text instructing the LLM reviewers, in added lines or the action description",
        ("humangr",),
        "high",
        security_text.prompt_injection,
    ),
    Check(
        L.HL5,
        "blocking-in-async",
        "time.sleep, requests, urlopen, subprocess, os.system, open() inside async def",
        ("humangr",),
        "high; low for open()",
        performance.blocking_in_async,
    ),
    Check(
        L.HL5,
        "io-in-loop",
        "DB queries, HTTP requests, open() inside loops and comprehensions",
        ("humangr",),
        "medium",
        performance.io_in_loop,
    ),
    Check(
        L.HL6,
        "card-number",
        "Payment card numbers (Luhn-valid, public test cards excluded)",
        ("humangr",),
        "high",
        compliance.card_numbers,
    ),
    Check(
        L.HL6,
        "national-id",
        "US SSNs (valid ranges), Brazilian CPFs (check digits)",
        ("humangr",),
        "high",
        compliance.national_ids,
    ),
    Check(
        L.HL6,
        "email-in-fixture",
        "Real-looking e-mail addresses in test fixtures and data files",
        ("humangr",),
        "medium",
        compliance.fixture_emails,
    ),
    Check(
        L.HL6,
        "copyleft-licence",
        "GPL / AGPL / LGPL / SSPL header in a new file",
        ("humangr",),
        "medium (licence review needed)",
        compliance.copyleft_licence,
    ),
)
"""Every local check, in the order they run. HL1 and HL7 have none."""

_MAX_PATH = 512


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _path(path: str | None) -> str | None:
    if not path:
        return None
    return path if len(path) <= _MAX_PATH else "…" + path[-(_MAX_PATH - 1) :]


def _failure(what: str, exc: BaseException | str) -> Hit:
    problem = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    return Hit(
        severity=Severity.HIGH,
        title=f"Local check {what} failed",
        description=_clip(
            f"The deterministic check {what} could not run ({problem}), so its findings are "
            "missing and the change must not pass on its results. This is a bug in HUMANGR's "
            "local checks.",
            2_000,
        ),
        suggestion="Review the change by hand and report the failing input.",
    )


def _findings(layer: LayerID, rule: str, hits: list[Hit]) -> list[Finding]:
    best: dict[tuple[str | None, int | None], Hit] = {}
    for h in hits:
        key = (h.file, h.line)
        if key not in best or h.severity > best[key].severity:
            best[key] = h
    ordered = sorted(best.values(), key=lambda h: (h.file or "", h.line or 0))
    return [
        Finding(
            id=f"{layer.value}-R-{rule}-{n}"[:128],
            layer_id=layer,
            severity=h.severity,
            title=_clip(h.title, 200) or "local check",
            description=_clip(h.description, 20_000),
            suggestion=_clip(h.suggestion, 2_000) if h.suggestion is not None else None,
            file=_path(h.file),
            line=h.line if h.line is not None and h.line >= 0 else None,
            source=FindingSource.RULES,
            votes=1,
        )
        for n, h in enumerate(ordered, start=1)
    ]


def _layers(layers: Collection[LayerID] | None) -> list[LayerID]:
    if layers is None:
        return list(LayerID)
    out: list[LayerID] = []
    for x in layers:
        try:
            lid = LayerID(x)
        except ValueError:
            log.error("run_checks: unknown layer %r ignored", x)
            continue
        if lid not in out:
            out.append(lid)
    return out


def run_checks(
    action: ActionContext,
    layers: Collection[LayerID] | None = None,
    *,
    checks: Sequence[Check] = CHECKS,
) -> dict[LayerID, list[Finding]]:
    """Run the local checks of ``layers`` (all by default) on one action. Never raises.

    Every requested layer is a key, possibly with no findings. A check that crashes is logged
    and yields one high finding "Local check <id> failed" in its layer (fail closed: the
    change then needs a human).
    """
    wanted = _layers(layers)
    out: dict[LayerID, list[Finding]] = {lid: [] for lid in wanted}
    try:
        ctx = CheckInput(action)
    except Exception as exc:
        log.error("local checks: could not read the action", exc_info=True)
        _whole_failure(out, wanted, checks, "input", _failure("input", exc))
        return out
    for check in checks:
        if check.layer not in out:
            continue
        try:
            hits = list(check.run(ctx))
        except Exception as exc:
            log.error("local check %s (%s) failed", check.id, check.layer.value, exc_info=True)
            hits = [_failure(check.id, exc)]
        out[check.layer].extend(_findings(check.layer, check.id, hits))
    if ctx.parse.error is not None:
        _whole_failure(out, wanted, checks, "diff", _failure("diff", ctx.parse.error))
    return out


def _whole_failure(
    out: dict[LayerID, list[Finding]],
    wanted: list[LayerID],
    checks: Sequence[Check],
    rule: str,
    hit: Hit,
) -> None:
    """A failure that concerns every check is reported once (HL4 first): one human review."""
    layer = (
        LayerID.HL4
        if LayerID.HL4 in out
        else next((lid for lid in wanted if any(c.layer == lid for c in checks)), None)
    )
    if layer is not None:
        out[layer].extend(_findings(layer, rule, [hit]))


def checks_markdown(checks: Sequence[Check] = CHECKS) -> str:
    """The documentation table of the checks (layer, id, what, source, severity)."""
    rows = [
        "| layer | check | what it finds | source | severity |",
        "|---|---|---|---|---|",
    ]
    for c in checks:
        rows.append(f"| {c.layer.value} | `{c.id}` | {c.name} | {c.source} | {c.severity} |")
    return "\n".join(rows) + "\n"
