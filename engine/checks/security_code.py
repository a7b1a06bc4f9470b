"""HL4 checks on Python code: command, SQL and code injection, deserialization, hashing, paths.

Parsed fragments go through the taint engine (``taint``): each sink reports the flow of the
data it consumes, and severity follows it (request input: the check's top severity; unknown
origin: the middle one; constants: none, or low for a constant shell command). In test files
a flow of unknown origin is one step lower. Added lines no fragment could parse are judged
by line patterns (``*_FALLBACK``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from humangr.contracts import Severity

from .base import CheckInput, Hit, is_test_path, snippet
from .diff import FileDiff
from .flow import TAINTED, UNKNOWN
from .pyast import INPUT, WEB_INPUT, pattern_lines

if TYPE_CHECKING:
    from .taint import SinkEvent

__all__ = [
    "deserialization",
    "eval_exec",
    "event_hits",
    "path_traversal",
    "shell_injection",
    "sql_injection",
    "weak_password_hash",
]

_LOWER = {
    Severity.CRITICAL: Severity.HIGH,
    Severity.HIGH: Severity.MEDIUM,
    Severity.MEDIUM: Severity.LOW,
    Severity.LOW: Severity.LOW,
    Severity.INFO: Severity.INFO,
}
_INJECTION = frozenset({"shell-injection", "sql-injection", "eval-exec", "deserialization"})


def _where(path: str | None, line: int) -> str:
    return f"{path or '<content>'}:{line}"


def _line_text(f: FileDiff, line: int) -> str:
    return next((ln.text for ln in f.added if ln.number == line), "")


def _moved_source(ctx: CheckInput, ev: SinkEvent) -> tuple[FileDiff, int] | None:
    """An added line that brings request input to a sink the diff leaves unchanged."""
    if ev.flow != TAINTED or ev.src is None:
        return None
    path, line = ev.src
    f = next((x for x in ctx.files if x.path == path and not x.deleted), None)
    if f is None or not any(ln.number == line for ln in f.added):
        return None
    return f, line


def event_hits(ctx: CheckInput, check: str, suggestion: str) -> Iterator[Hit]:
    """The taint engine's sinks of one check as hits: on the sink's line when it is added, or
    on the added line that brings request input to an unchanged sink."""
    for ev in ctx.taint().events:
        if ev.check != check:
            continue
        f, line, note = ev.file, ev.frag.node_line(ev.node), ""
        if line is None:
            moved = _moved_source(ctx, ev)
            if moved is None:
                continue
            f, line = moved
            sink_line = ev.frag.new_line(getattr(ev.node, "lineno", 0))
            note = f" The sink ({_where(ev.file.path, sink_line or 0)}) is unchanged."
        sev = ev.severity
        if check in _INJECTION and ev.flow == UNKNOWN and is_test_path(f.path):
            sev = _LOWER[sev]
        elif check == "weak-password-hash" and is_test_path(f.path):
            sev = min(sev, Severity.LOW)
        yield Hit(
            severity=sev,
            title=ev.title,
            description=(
                f"{_where(f.path, line)}: {snippet(_line_text(f, line))}\n{ev.detail}{note}"
            ),
            suggestion=suggestion,
            file=f.path,
            line=line,
        )


def _fallback(
    ctx: CheckInput, rx: re.Pattern[str], title: str, suggestion: str, sev: Severity
) -> Iterator[Hit]:
    for f, line, text in pattern_lines(ctx):
        if rx.search(text):
            yield Hit(
                severity=sev,
                title=title,
                description=f"{_where(f.path, line)}: {snippet(text)}",
                suggestion=suggestion,
                file=f.path,
                line=line,
            )


def _upgrade(hits: Iterator[Hit], title: str) -> Iterator[Hit]:
    """Pattern hits on a line that reads request input are critical."""
    for h in hits:
        if INPUT.search(h.description):
            h = Hit(Severity.CRITICAL, title, h.description, h.suggestion, h.file, h.line)
        yield h


_SHELL_FALLBACK = re.compile(
    r"\bshell\s*=\s*True\b|\bos\.(?:system|popen)\s*\((?!\s*[\"'][^\"'{}%]*[\"']\s*\))"
    r"|\bcreate_subprocess_shell\s*\("
)
_SHELL_TITLE = "Shell command run through a shell (shell injection)"
_SHELL_FIX = (
    "Pass an argument list without shell=True (subprocess.run([...])); never build "
    "shell strings from data; quote with shlex.quote if a shell is unavoidable."
)


def shell_injection(ctx: CheckInput) -> Iterator[Hit]:
    """Commands run through a shell (shell=True, os.system, sh -c, ...) and programs chosen by
    request input: critical from request input, high of unknown origin, low when constant."""
    yield from event_hits(ctx, "shell-injection", _SHELL_FIX)
    hits = _fallback(ctx, _SHELL_FALLBACK, _SHELL_TITLE, _SHELL_FIX, Severity.HIGH)
    yield from _upgrade(hits, "Shell command built from request input (command injection)")


_DESER_FALLBACK = re.compile(
    r"\b(?:c?[pP]ickle|dill|marshal|shelve|jsonpickle)\.(?:loads?|open|decode|Unpickler)\s*\("
    r"|\byaml\.(?:unsafe_load|load)\s*\((?![^)]*Loader\s*=\s*(?:yaml\.)?C?(?:Safe|Base))"
)
_DESER_TITLE = "Unsafe deserialization of possibly untrusted data"
_DESER_FIX = "Use a data-only format (json, yaml.safe_load); never unpickle untrusted bytes."


def deserialization(ctx: CheckInput) -> Iterator[Hit]:
    """pickle/marshal/dill/jsonpickle loads, unsafe yaml loaders: critical from request input,
    high of unknown origin, nothing for constant data or data this code serialized itself."""
    yield from event_hits(ctx, "deserialization", _DESER_FIX)
    hits = _fallback(ctx, _DESER_FALLBACK, _DESER_TITLE, _DESER_FIX, Severity.HIGH)
    yield from _upgrade(hits, "Deserialization of request input (remote code execution)")


_SQL_WORDS = r"(?:SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)"
_SQL_FALLBACK = re.compile(
    r"(?i)(?:f[\"'][^\"']*" + _SQL_WORDS + r"[^\"']*\{"
    r"|[\"'][^\"']*" + _SQL_WORDS + r"[^\"']*[\"']\s*(?:%\s*[\w(]|\+\s*\w|\.format\s*\())"
)
_SQL_TITLE = "SQL built by string formatting (SQL injection)"
_SQL_FIX = "Use bound parameters: cursor.execute('... WHERE id = %s', (value,))."


def sql_injection(ctx: CheckInput) -> Iterator[Hit]:
    """SQL text reaching execute/raw/extra/RawSQL/text: critical from request input, high when
    built by formatting from values of unknown origin, nothing when constant or parameterized."""
    yield from event_hits(ctx, "sql-injection", _SQL_FIX)
    hits = _fallback(ctx, _SQL_FALLBACK, _SQL_TITLE, _SQL_FIX, Severity.HIGH)
    yield from _upgrade(hits, "SQL built from request input (SQL injection)")


_EVAL_FALLBACK = re.compile(r"(?<![\w.])(?:eval|exec)\s*\((?!\s*f?[\"'][^\"'{]*[\"']\s*\))")
_EVAL_TITLE = "eval/exec of dynamic code"
_EVAL_FIX = "Do not evaluate strings as code; parse data with json or ast.literal_eval."


def eval_exec(ctx: CheckInput) -> Iterator[Hit]:
    """eval/exec (and templates) of request input: critical; eval/exec of unknown text: high."""
    yield from event_hits(ctx, "eval-exec", _EVAL_FIX)
    hits = _fallback(ctx, _EVAL_FALLBACK, _EVAL_TITLE, _EVAL_FIX, Severity.HIGH)
    yield from _upgrade(hits, "eval/exec of request input (code injection)")


_PASSWORD = re.compile(
    r"(?i)passw(?:or)?d|passwd|(?<![a-z])pass(?![a-z])|(?<![a-z])pwd(?![a-z])|token|secret"
)
_PASSWORD_ONLY = re.compile(
    r"(?i)passw(?:or)?d|passwd|(?<![a-z])pass(?![a-z])|(?<![a-z])pwd(?![a-z])"
)
_HASH_FALLBACK = re.compile(
    r"(?i)\b(?:hashlib\.)?(md5|sha1|sha256|sha512)\s*\(|hashlib\.new\s*\(\s*[\"'](md5|sha1)"
)
_HASH_FIX = "Hash passwords with a slow salted KDF: argon2, bcrypt, scrypt or hashlib.pbkdf2_hmac."


def weak_password_hash(ctx: CheckInput) -> Iterator[Hit]:
    """md5/sha1 of a password or token, or stored as one, one sha2 round of a password, KDFs
    with too few rounds, weak passlib schemes: high (``usedforsecurity=False`` is never
    flagged)."""
    yield from event_hits(ctx, "weak-password-hash", _HASH_FIX)
    for f, line, text in pattern_lines(ctx):
        m = _HASH_FALLBACK.search(text)
        if m and _PASSWORD.search(text) and "usedforsecurity" not in text:
            weak = (m.group(1) or m.group(2)).lower() in ("md5", "sha1")
            if not weak and not _PASSWORD_ONLY.search(text):
                continue  # one sha2 round of a random token is how tokens are stored
            yield Hit(
                severity=Severity.HIGH,
                title="Weak password hashing (md5/sha1)"
                if weak
                else "Fast hash of a password (no KDF)",
                description=f"{_where(f.path, line)}: {snippet(text)}",
                suggestion=_HASH_FIX,
                file=f.path,
                line=line,
            )


_PATH_FALLBACK = re.compile(
    r"(?:(?<![\w.])open|send_file|FileResponse|Path|os\.remove|os\.unlink|shutil\.\w+)\s*\("
)
_PATH_TITLE = "File path built from request input (path traversal)"
_PATH_FIX = (
    "Resolve the path under a fixed base directory and reject '..' and absolute paths "
    "(werkzeug.utils.safe_join / secure_filename, or realpath + a startswith check)."
)


def path_traversal(ctx: CheckInput) -> Iterator[Hit]:
    """open/send_file/FileResponse/os.remove/shutil/pathlib of request input: high."""
    yield from event_hits(ctx, "path-traversal", _PATH_FIX)
    for f, line, text in pattern_lines(ctx):
        if (
            _PATH_FALLBACK.search(text)
            and WEB_INPUT.search(text)
            and not re.search(r"secure_filename|safe_join|basename", text)
        ):
            yield Hit(
                severity=Severity.HIGH,
                title=_PATH_TITLE,
                description=f"{_where(f.path, line)}: {snippet(text)}",
                suggestion=_PATH_FIX,
                file=f.path,
                line=line,
            )
