"""HL4 checks on Python code: shell and SQL injection, deserialization, eval, hashing, paths.

Parsed fragments go through bandit and our AST rules; added lines no fragment could parse
are judged by line patterns (``*_FALLBACK``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit, snippet
from .pyast import INPUT, WEB_INPUT, dotted, fragments, tainted_names, uncovered, uses_input

__all__ = [
    "deserialization",
    "eval_exec",
    "path_traversal",
    "shell_injection",
    "sql_injection",
    "weak_password_hash",
]

_BANDIT_SEVERITY = {"HIGH": Severity.CRITICAL, "MEDIUM": Severity.HIGH, "LOW": Severity.LOW}


def _where(path: str | None, line: int) -> str:
    return f"{path or '<content>'}:{line}"


def _bandit_rule(
    ctx: CheckInput, ids: frozenset[str], title: str, suggestion: str, fixed: Severity | None
) -> Iterator[Hit]:
    for f in ctx.files:
        for b in ctx.bandit(f) if ctx.python(f) is not None else []:
            if b.test_id not in ids:
                continue
            sev = fixed or _BANDIT_SEVERITY.get(b.severity, Severity.MEDIUM)
            text = next((ln.text for ln in f.added if ln.number == b.line), "")
            yield Hit(
                severity=sev,
                title=title,
                description=(
                    f"{_where(f.path, b.line)}: {snippet(text)}\nbandit {b.test_id}: {b.text}"
                ),
                suggestion=suggestion,
                file=f.path,
                line=b.line,
            )


def _fallback(
    ctx: CheckInput, rx: re.Pattern[str], title: str, suggestion: str, sev: Severity
) -> Iterator[Hit]:
    for u in uncovered(ctx):
        if rx.search(u.text):
            yield Hit(
                severity=sev,
                title=title,
                description=f"{_where(u.file.path, u.line)}: {snippet(u.text)}",
                suggestion=suggestion,
                file=u.file.path,
                line=u.line,
            )


_SHELL_FALLBACK = re.compile(
    r"\bshell\s*=\s*True\b|\bos\.(?:system|popen)\s*\((?!\s*[\"'][^\"'{}%]*[\"']\s*\))"
)
_SHELL_TITLE = "Shell command run through a shell (shell injection)"
_SHELL_FIX = (
    "Pass an argument list without shell=True (subprocess.run([...])); never build "
    "shell strings from data."
)


def shell_injection(ctx: CheckInput) -> Iterator[Hit]:
    """subprocess with shell=True, os.system/os.popen: critical when the command is not constant."""
    ids = frozenset({"B602", "B604", "B605"})
    yield from _bandit_rule(ctx, ids, _SHELL_TITLE, _SHELL_FIX, None)
    yield from _fallback(ctx, _SHELL_FALLBACK, _SHELL_TITLE, _SHELL_FIX, Severity.CRITICAL)


_DESER_FALLBACK = re.compile(
    r"\b(?:c?[pP]ickle|dill|marshal|shelve|jsonpickle)\.(?:loads?|open|decode|Unpickler)\s*\("
    r"|\byaml\.(?:unsafe_load|load)\s*\((?![^)]*Loader\s*=\s*(?:yaml\.)?C?Safe)"
)
_DESER_TITLE = "Unsafe deserialization of possibly untrusted data"
_DESER_FIX = "Use a data-only format (json, yaml.safe_load); never unpickle untrusted bytes."


def deserialization(ctx: CheckInput) -> Iterator[Hit]:
    """pickle/marshal/dill loads and yaml.load without a safe loader: high."""
    ids = frozenset({"B301", "B302", "B506"})
    yield from _bandit_rule(ctx, ids, _DESER_TITLE, _DESER_FIX, Severity.HIGH)
    yield from _fallback(ctx, _DESER_FALLBACK, _DESER_TITLE, _DESER_FIX, Severity.HIGH)


_SQL_WORDS = r"(?:SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)"
_SQL_FALLBACK = re.compile(
    r"(?i)(?:f[\"'][^\"']*" + _SQL_WORDS + r"[^\"']*\{"
    r"|[\"'][^\"']*" + _SQL_WORDS + r"[^\"']*[\"']\s*(?:%\s*[\w(]|\+\s*\w|\.format\s*\())"
)
_SQL_TITLE = "SQL built by string formatting (SQL injection)"
_SQL_FIX = "Use bound parameters: cursor.execute('... WHERE id = %s', (value,))."


_SQL_INPUT_TITLE = "SQL built from request input (SQL injection)"


def _input_lines(ctx: CheckInput) -> set[tuple[str | None, int | None]]:
    """(file, line) of expressions that use request input, directly or through a variable."""
    lines: set[tuple[str | None, int | None]] = set()
    for f, frag in fragments(ctx):
        tainted = tainted_names(frag.nodes)
        for node in frag.nodes:
            if isinstance(node, (ast.JoinedStr, ast.BinOp, ast.Call)) and uses_input(node, tainted):
                line = frag.node_line(node)
                if line is not None:
                    lines.add((f.path, line))
    return lines


def sql_injection(ctx: CheckInput) -> Iterator[Hit]:
    """SQL text built with f-strings, %, .format or +: high, critical from request input."""
    ids = frozenset({"B608", "B611"})
    hits = [
        *_bandit_rule(ctx, ids, _SQL_TITLE, _SQL_FIX, Severity.HIGH),
        *_fallback(ctx, _SQL_FALLBACK, _SQL_TITLE, _SQL_FIX, Severity.HIGH),
    ]
    tainted = _input_lines(ctx) if hits else set()
    for h in hits:
        if INPUT.search(h.description) or (h.file, h.line) in tainted:
            h = Hit(
                Severity.CRITICAL, _SQL_INPUT_TITLE, h.description, h.suggestion, h.file, h.line
            )
        yield h


_EVAL_NAMES = frozenset({"eval", "exec", "builtins.eval", "builtins.exec"})
_EVAL_FALLBACK = re.compile(r"(?<![\w.])(?:eval|exec)\s*\((?!\s*[\"'][^\"']*[\"']\s*\))")
_EVAL_TITLE = "eval/exec of dynamic code"
_EVAL_INPUT_TITLE = "eval/exec of request input (code injection)"
_EVAL_FIX = "Do not evaluate strings as code; parse data with json or ast.literal_eval."


def eval_exec(ctx: CheckInput) -> Iterator[Hit]:
    """eval/exec of a non-constant: high; of request input: critical."""
    for f, frag in fragments(ctx):
        tainted = tainted_names(frag.nodes)
        for node in frag.nodes:
            if not (isinstance(node, ast.Call) and dotted(node.func) in _EVAL_NAMES):
                continue
            args = [*node.args, *(k.value for k in node.keywords)]
            if not args or all(isinstance(a, ast.Constant) for a in node.args[:1]):
                continue
            line = frag.node_line(node)
            if line is None:
                continue
            bad = any(uses_input(a, tainted) for a in args)
            yield Hit(
                severity=Severity.CRITICAL if bad else Severity.HIGH,
                title=_EVAL_INPUT_TITLE if bad else _EVAL_TITLE,
                description=f"{_where(f.path, line)}: {snippet(ast.unparse(node))}",
                suggestion=_EVAL_FIX,
                file=f.path,
                line=line,
            )
    for h in _fallback(ctx, _EVAL_FALLBACK, _EVAL_TITLE, _EVAL_FIX, Severity.HIGH):
        if INPUT.search(h.description):
            h = Hit(Severity.CRITICAL, _EVAL_INPUT_TITLE, h.description, _EVAL_FIX, h.file, h.line)
        yield h


_WEAK = {"md5", "sha1"}
_FAST = {"sha224", "sha256", "sha384", "sha512", "blake2b", "blake2s", "sha3_256", "sha3_512"}
_PASSWORD = re.compile(r"(?i)passw(?:or)?d|passwd|(?<![a-z])pass(?![a-z])|(?<![a-z])pwd(?![a-z])")
_HASH_FALLBACK = re.compile(
    r"(?i)\b(?:hashlib\.)?(md5|sha1|sha256|sha512)\s*\(|hashlib\.new\s*\(\s*[\"'](md5|sha1)"
)
_HASH_FIX = "Hash passwords with a slow salted KDF: argon2, bcrypt, scrypt or hashlib.pbkdf2_hmac."


def _hash_name(call: ast.Call) -> str | None:
    name = dotted(call.func).rsplit(".", 1)[-1].lower()
    if name == "new" and dotted(call.func).startswith("hashlib") and call.args:
        a = call.args[0]
        return str(a.value).lower() if isinstance(a, ast.Constant) else None
    return name if name in _WEAK | _FAST else None


class _HashVisitor(ast.NodeVisitor):
    def __init__(self) -> None:
        self.context: list[str] = []
        self.found: list[tuple[ast.Call, str]] = []

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.context.append(node.name)
        self.generic_visit(node)
        self.context.pop()

    visit_FunctionDef = _scoped
    visit_AsyncFunctionDef = _scoped

    def visit_Assign(self, node: ast.Assign) -> None:
        self.context.append(" ".join(ast.unparse(t) for t in node.targets))
        self.generic_visit(node)
        self.context.pop()

    def visit_Call(self, node: ast.Call) -> None:
        algo = _hash_name(node)
        if algo in _WEAK | _FAST and _PASSWORD.search(" ".join([*self.context, ast.unparse(node)])):
            self.found.append((node, algo or ""))
        self.generic_visit(node)


def weak_password_hash(ctx: CheckInput) -> Iterator[Hit]:
    """md5/sha1 of a password: high; a single fast sha2/blake2 round of a password: medium."""
    for f, frag in fragments(ctx):
        v = _HashVisitor()
        v.visit(frag.tree)
        for node, algo in v.found:
            line = frag.node_line(node)
            if line is not None:
                yield _hash_hit(algo, f.path, line, ast.unparse(node))
    for u in uncovered(ctx):
        m = _HASH_FALLBACK.search(u.text)
        if m and _PASSWORD.search(u.text):
            yield _hash_hit((m.group(1) or m.group(2)).lower(), u.file.path, u.line, u.text)


def _hash_hit(algo: str, path: str | None, line: int, text: str) -> Hit:
    weak = algo in _WEAK
    return Hit(
        severity=Severity.HIGH if weak else Severity.MEDIUM,
        title="Weak password hashing (md5/sha1)" if weak else "Fast unsalted hash of a password",
        description=f"{_where(path, line)}: {snippet(text)}",
        suggestion=_HASH_FIX,
        file=path,
        line=line,
    )


_FILE_SINKS = frozenset(
    [
        "open",
        "io.open",
        "codecs.open",
        "os.open",
        "aiofiles.open",
        "send_file",
        "flask.send_file",
        "FileResponse",
        "os.path.join",
        "Path",
        "pathlib.Path",
        "os.remove",
        "os.unlink",
        "shutil.rmtree",
        "shutil.copy",
        "shutil.copyfile",
        "shutil.move",
        "os.listdir",
        "os.makedirs",
    ]
)
_PATH_FALLBACK = re.compile(
    r"(?:(?<![\w.])open|send_file|FileResponse|os\.path\.join|Path|os\.remove|shutil\.\w+)\s*\("
)
_PATH_TITLE = "File path built from request input (path traversal)"
_PATH_FIX = (
    "Resolve the path under a fixed base directory and reject '..' and absolute paths "
    "(werkzeug.utils.safe_join / secure_filename)."
)


def path_traversal(ctx: CheckInput) -> Iterator[Hit]:
    """open/send_file/os.path.join/Path/... of request input: high."""
    for f, frag in fragments(ctx):
        tainted = tainted_names(frag.nodes, WEB_INPUT)
        for node in frag.nodes:
            if not (isinstance(node, ast.Call) and dotted(node.func) in _FILE_SINKS):
                continue
            args = [*node.args, *(k.value for k in node.keywords)]
            if not any(uses_input(a, tainted, WEB_INPUT) for a in args):
                continue
            line = frag.node_line(node)
            if line is not None:
                yield Hit(
                    severity=Severity.HIGH,
                    title=_PATH_TITLE,
                    description=f"{_where(f.path, line)}: {snippet(ast.unparse(node))}",
                    suggestion=_PATH_FIX,
                    file=f.path,
                    line=line,
                )
    for u in uncovered(ctx):
        if (
            _PATH_FALLBACK.search(u.text)
            and WEB_INPUT.search(u.text)
            and "secure_filename" not in u.text
        ):
            yield Hit(
                severity=Severity.HIGH,
                title=_PATH_TITLE,
                description=f"{_where(u.file.path, u.line)}: {snippet(u.text)}",
                suggestion=_PATH_FIX,
                file=u.file.path,
                line=u.line,
            )
