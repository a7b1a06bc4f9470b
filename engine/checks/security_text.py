"""HL4 checks on any file's added lines: secrets, disabled TLS checks, prompt injection."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit, is_test_path, snippet
from .ci_shape import ci_test_lines
from .pyast import dotted, fragments, is_comment, uncovered_of
from .remember import CleanTexts
from .secrets_ast import ast_secrets
from .secrets_scan import windows
from .security_code import event_hits
from .tools.injection_report import quoted_report
from .tools.key_ids import call_texts, lone_key_ids

__all__ = ["INJECTION", "prompt_injection", "secrets", "tls_verification"]

_SEVERITY = {s.value: s for s in Severity}


_SECRET_FIX = (
    "Remove it from the code, rotate the credential, and load it from the environment or a "
    "secret manager."
)


def secrets(ctx: CheckInput) -> Iterator[Hit]:
    """Hard-coded keys and credentials; the value itself is never repeated in the finding.

    detect-secrets (imported on the first run) and our patterns scan every added line; on
    Python fragments literal signing keys, password defaults and JWT keys are found on the AST.
    Files under test folders get lower severities (``scan_secrets``), and so do the lines of a
    CI workflow that hold its throwaway service containers' credentials (``ci_test_lines``).
    """
    from .secrets import scan_secrets

    test_lines: dict[int, frozenset[int]] = {}
    for f, ln in ctx.added():
        if id(f) not in test_lines:
            test_lines[id(f)] = ci_test_lines(f)
        test = is_test_path(f.path) or ln.number in test_lines[id(f)]
        hit = scan_secrets(f.path, ln.text, test_file=test)
        if hit is None or (hit.kind == "AWS credential" and _named_key_only(ctx, f.path)):
            continue
        yield Hit(
            severity=_SEVERITY[hit.severity],
            title=f"Hard-coded secret: {hit.kind}",
            description=(
                f"{f.path or '<content>'}:{ln.number} adds a value that looks like a {hit.kind} "
                f"(found by {hit.origin}; the value is not repeated here)."
            ),
            suggestion=_SECRET_FIX,
            file=f.path,
            line=ln.number,
        )
    yield from _ast_secrets(ctx)


def _named_key_only(ctx: CheckInput, path: str | None) -> bool:
    """A tool call's argument that names an AWS access key by its id while the call carries no
    secret access key (``delete_access_key(AccessKeyId=…)``, a report of a rotated key)."""
    call = ctx.action.tool_call
    if call is None or not (path or "").startswith("<"):
        return False
    return lone_key_ids([call.name, *call_texts(call.arguments)])


_AST_KIND = {
    "signing": ("signing key", "sets a literal signing key"),
    "default": ("password default", "gives a password parameter a literal default"),
    "argument": ("password argument", "passes a literal password"),
    "compare": ("password comparison", "compares a password with a literal"),
}


def _ast_secrets(ctx: CheckInput) -> Iterator[Hit]:
    for f, frag in fragments(ctx):
        test = is_test_path(f.path)
        for s in ast_secrets(frag.nodes):
            line = frag.node_line(s.node)
            if line is None:
                continue
            sev = Severity.LOW if test else Severity.CRITICAL if s.random else Severity.HIGH
            kind, what = _AST_KIND[s.kind]
            yield Hit(
                severity=sev,
                title=f"Hard-coded secret: {kind}",
                description=f"{f.path or '<content>'}:{line} {what} (found by humangr; the "
                "value is not repeated here).",
                suggestion=_SECRET_FIX,
                file=f.path,
                line=line,
            )
    for h in event_hits(ctx, "secret", _SECRET_FIX):
        if is_test_path(h.file):
            h = Hit(Severity.LOW, h.title, h.description, h.suggestion, h.file, h.line)
        yield h


_DOC_EXT = (".md", ".rst", ".txt", ".adoc")
_TLS = re.compile(
    r"\bverify\s*=\s*False\b|\bssl\s*=\s*False\b|_create_unverified_context\b|\bCERT_NONE\b"
    r"|\bcheck_hostname\s*=\s*False\b|\brejectUnauthorized\s*:\s*false\b"
    r"|\bInsecureSkipVerify\s*:\s*true\b|NODE_TLS_REJECT_UNAUTHORIZED\W{0,6}0\b"
    r"|PYTHONHTTPSVERIFY\W{0,3}0"
    # other languages: Rust, .NET, PHP's curl, Ruby, Java, Swift
    r"|danger_accept_invalid_(?:certs|hostnames)\(\s*true"
    r"|ServerCertificate(?:CustomValidation|Validation)Callback\s*\+?=\s*[^;]{0,160}?=>\s*true"
    r"|DangerousAcceptAnyServerCertificateValidator"
    r"|CURLOPT_SSL_VERIFY(?:PEER|HOST)\s*(?:,|=>)\s*(?:false|0)|\bVERIFY_NONE\b"
    r"|checkServerTrusted\([^)]*\)\s*(?:throws\s+\w+\s*)?\{\s*\}"
    r"|ALLOW_ALL_HOSTNAME_VERIFIER|NoopHostnameVerifier|setHostnameVerifier\([^;]{0,80}?->\s*true"
    r"|URLCredential\(\s*trust:|\.useCredential\s*,\s*URLCredential"
    r"|TrustAllCerts|trustAllCerts|InsecureTrustManager"
    r"|SSLContext\.getInstance[^;]{0,200};\s*[^;]{0,80}init\([^;]{0,40}null"
    # Dart, Kotlin/OkHttp
    r"|badCertificateCallback\s*=\s*\([^)]{0,120}\)\s*(?:=>\s*true|\{\s*return\s+true)"
    r"|hostnameVerifier\s*\{\s*_\s*,\s*_\s*->\s*true\s*\}"
    # Unity's CertificateHandler, Go's and Node's other spellings
    r"|\bbool\s+ValidateCertificate\s*\([^)]{0,80}\)\s*(?:=>\s*true|\{\s*return\s+true)"
    r"|\bstrictSSL\s*:\s*false\b|\bsslVerify\s*[:=]\s*false\b|\bverify_ssl\s*[:=]\s*(?:false|False)\b"
)
_SEGMENT = re.compile(r"[^|;&\n]+")
_CURL = re.compile(r"\bcurl\b")
_INSECURE = re.compile(r"\s(?:-k|--insecure)\b")
_WINDOW, _OVERLAP = 10_000, 1_000


def _tls_text(text: str) -> bool:
    """Whether a line turns TLS verification off (``verify=False``, ``curl -k``, ...); the whole
    line is read, in linear time: one ``curl`` per command of the line is tried."""
    if any(_TLS.search(part) for part in windows(text, _WINDOW, _OVERLAP)):
        return True
    for seg in _SEGMENT.finditer(text):
        curl = _CURL.search(text, seg.start(), seg.end())
        if curl is not None and _INSECURE.search(text, curl.end(), seg.end()):
            return True
    return False


_TLS_KWARGS = frozenset(
    {"verify", "verify_ssl", "verify_certs", "check_hostname", "assert_hostname", "validate_certs"}
)
_AIOHTTP = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "request"})
_TLS_NAMES = frozenset({"CERT_NONE", "_create_unverified_context", "VERIFY_NONE"})
_TLS_TITLE = "TLS certificate verification disabled"
_TLS_FIX = (
    "Keep certificate and hostname verification on; trust a private CA with a CA bundle "
    "(verify='/path/ca.pem') instead."
)


def _tls_nodes(nodes: tuple[ast.AST, ...]) -> Iterator[ast.AST]:
    for node in nodes:
        if isinstance(node, ast.Call):
            for k in node.keywords:
                value = k.value.value if isinstance(k.value, ast.Constant) else None
                off = k.arg in _TLS_KWARGS and value is False
                off = off or (k.arg == "cert_reqs" and value in ("CERT_NONE", "NONE", "none"))
                if k.arg == "ssl" and value is False:
                    name = dotted(node.func).rsplit(".", 1)[-1]
                    off = name in _AIOHTTP or name in ("TCPConnector", "ws_connect")
                if off:
                    yield node
                    break
        elif isinstance(node, ast.Attribute | ast.Name) and isinstance(node.ctx, ast.Load):
            if dotted(node).rsplit(".", 1)[-1] in _TLS_NAMES:
                yield node
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and node.value.value is False
            and any(dotted(t).endswith(("check_hostname", ".verify")) for t in node.targets)
        ):
            yield node


def tls_verification(ctx: CheckInput) -> Iterator[Hit]:
    """verify=False, unverified SSL contexts, CERT_NONE, check_hostname=False, ...: high; low
    in files under test folders (tests of that very behaviour).

    Python code is judged on its AST (and by bandit), so strings and comments that merely
    mention these names do not count; other files and unparsable lines by pattern.
    """
    for h in _tls_hits(ctx):
        if is_test_path(h.file):
            h = Hit(Severity.LOW, h.title, h.description, h.suggestion, h.file, h.line)
        yield h


def _tls_hits(ctx: CheckInput) -> Iterator[Hit]:
    tls_ids = frozenset({"B501", "B502", "B503", "B507"})
    yield from event_hits(ctx, "tls-verification", _TLS_FIX)
    for f in ctx.files:
        py = ctx.python(f)
        if py is not None:
            for b in ctx.bandit(f):
                if b.test_id in tls_ids:
                    yield _tls_hit(f.path, b.line, f"bandit {b.test_id}: {b.text}")
            for frag in py.fragments:
                for node in _tls_nodes(frag.nodes):
                    line = frag.node_line(node)
                    if line is not None:
                        yield _tls_hit(f.path, line, snippet(ast.unparse(node)))
            lines = [(py_line.line, py_line.text) for py_line in uncovered_of(py)]
        elif (f.path or "").lower().endswith(_DOC_EXT):
            continue
        else:
            lines = [(ln.number, ln.text) for ln in f.added if not is_comment(ln.text)]
        for no, text in lines:
            if _tls_text(text):
                yield _tls_hit(f.path, no, snippet(text))


def _tls_hit(path: str | None, line: int, detail: str) -> Hit:
    return Hit(
        severity=Severity.HIGH,
        title=_TLS_TITLE,
        description=f"{path or '<content>'}:{line}: {detail}",
        suggestion=_TLS_FIX,
        file=path,
        line=line,
    )


INJECTION = re.compile(
    r"(?i)\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system|original)\s+"
    r"(?:instructions?|prompts?|rules|directions|guidelines)"
    r"|\byou\s+are\s+now\s+(?:a|an|the)\s+(?:\w+\s+){0,3}?"
    r"(?:reviewer|assistant|ai|model|agent|dan|jailbroken|unrestricted)\b"
    r"|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must)\b"
    r"|\bapprove\s+this\s+(?:change|diff|pr|pull\s+request|action|code|commit|patch)\b"
    r"|(?:\b(?:ai|llm|automated|security)\s+reviewers?\b|\breviewers?\s*[:,])"
    r".{0,60}?\b(?:mark|treat|consider|classify|rate|is|as)\b.{0,30}?"
    r"\b(?:safe|approved|benign|clean|secure|low[-\s]risk)\b"
    r"|\bdo\s+not\s+(?:report|flag|mention)\s+(?:this|these|it|any)\s+(?:as\s+)?(?:an?\s+)?"
    r"(?:issues?|findings?|vulnerabilit\w*|problems?|security)"
    r"|\bno\s+(?:security\s+)?(?:issues|findings|vulnerabilities)\s+(?:here|in\s+this)\b"
    r"|<\|im_start\|>|\[/?INST\]|</?\s*(?:system|instructions)\s*>"
)
"""Text addressed to an LLM reviewer rather than to a program or a human reader."""
_INJ_TITLE = "Prompt-injection text aimed at the reviewers"
_INJ_FIX = "Remove the text; instructions to reviewers have no place in code or an action."


_CLEAN_CHARS = 4_000
"""Texts up to this long (one window) found clean are remembered, ``_CLEAN_TEXTS`` of them:
agents send the same descriptions and commands again and again."""
_CLEAN_TEXTS = 2_048
_clean: CleanTexts[str] = CleanTexts(limit=_CLEAN_TEXTS, max_chars=_CLEAN_CHARS)


def _injection(text: str, *, whole: bool = False) -> re.Match[str] | None:
    """The first prompt-injection text in ``text``: read whole, or in overlapping windows (a
    remembered clean text is one window, so both readings agree on it)."""
    if text in _clean:
        return None
    if whole:
        m = INJECTION.search(text)
    else:
        m = next(
            (m for part in windows(text, _WINDOW, _OVERLAP) if (m := INJECTION.search(part))), None
        )
    if m is None:
        _clean.keep(text, text)
    return m


def _reported(ctx: CheckInput, path: str | None, text: str, m: re.Match[str]) -> bool:
    """A tool call's prose that quotes an injection to report it (``injection_report.py``);
    the match is found on a window, so it is found again on the text read whole."""
    if ctx.action.tool_call is None or not (path or "").startswith("<"):
        return False
    again = INJECTION.search(text, max(0, text.find(m.group(0)) - 1))
    return again is not None and quoted_report(text, again.start(), again.end())


def prompt_injection(ctx: CheckInput) -> Iterator[Hit]:
    """Added lines or the action's description that instruct the LLM reviewers: high."""
    m = _injection(ctx.action.action_description, whole=True)
    if m:
        yield Hit(
            severity=Severity.HIGH,
            title=_INJ_TITLE,
            description=f"The action description says: {snippet(m.group(0))!r}",
            suggestion=_INJ_FIX,
        )
    for f, ln in ctx.added():
        m = _injection(ln.text)
        if m and _reported(ctx, f.path, ln.text, m):
            continue
        if m:
            yield Hit(
                severity=Severity.HIGH,
                title=_INJ_TITLE,
                description=f"{f.path or '<content>'}:{ln.number}: {snippet(ln.text)}",
                suggestion=_INJ_FIX,
                file=f.path,
                line=ln.number,
            )
