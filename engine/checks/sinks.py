"""The sinks of the taint engine, per check, and the severity each flow gets there.

``on_call`` sees every call with its evaluated arguments. A sink reports the flow of the data
it consumes: request input (``TAINTED``) gets the check's top severity, data of unknown origin
the middle one, constants none (or low for a constant shell command).
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from humangr.contracts import Severity

from .flow import (
    CONST,
    CRED,
    FMT,
    NOCONST,
    PATH,
    PATHOBJ,
    SHELL,
    SQL,
    SQLTEXT,
    TAINTED,
    UNKNOWN,
    WEAKHASH,
    Val,
    constant,
    joined,
    level,
)
from .sources import SHELLS, is_cred_name, names

if TYPE_CHECKING:
    from .interp_calls import CallEval

__all__ = ["hash_result", "on_call", "weak_hash_stored"]

S = Severity
_SHELL_ARG = {
    "os.system": 0,
    "os.popen": 0,
    "os.popen2": 0,
    "os.popen3": 0,
    "os.popen4": 0,
    "subprocess.getoutput": 0,
    "subprocess.getstatusoutput": 0,
    "asyncio.create_subprocess_shell": 0,
    "platform.popen": 0,
    "pty.spawn": -1,
}
_SUBPROCESS = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output"}
    | {"subprocess.Popen", "asyncio.create_subprocess_exec", "pexpect.spawn", "pexpect.run"}
)
_EXEC = re.compile(r"^os\.(exec|spawn|posix_spawn)(l|v)?p?e?$")
_DASH_C = frozenset({"-c", "/c", "/C", "-Command", "-lc", "-ec", "-xc", "-ic", "-cl"})


def _flow_sev(
    flow: int, top: Severity, mid: Severity | None, low: Severity | None
) -> Severity | None:
    return top if flow == TAINTED else mid if flow == UNKNOWN else low


def _detail(v: Val, kind: int, sink: str) -> str:
    flow = level(v, kind)
    if flow == TAINTED:
        return f"Request input ({v.origin or 'a request parameter'}) reaches {sink}."
    if flow == UNKNOWN:
        return f"{sink} gets text built from values of unknown origin (parameters, variables)."
    return f"{sink} gets constant text only."


def _arg(args: list[Val], kw: dict[str, Val], index: int, *names: str) -> Val | None:
    if 0 <= index < len(args):
        return args[index]
    for n in names:
        if n in kw:
            return kw[n]
    return None


def _shell_string(it: CallEval, e: ast.Call, cmd: Val, sink: str) -> None:
    flow = level(cmd, SHELL)
    sev = _flow_sev(flow, S.CRITICAL, S.HIGH, S.LOW)
    titles = {
        TAINTED: "Shell command built from request input (command injection)",
        UNKNOWN: "Shell command run through a shell (shell injection)",
        CONST: "Constant shell command run through a shell",
    }
    if sev is not None:
        it.report("shell-injection", e, sev, titles[flow], _detail(cmd, SHELL, sink), flow)


def _argv(it: CallEval, e: ast.Call, parts: list[Val], sink: str) -> None:
    """An argument vector run without a shell: a shell with ``-c``, or a program from input."""
    if not parts:
        return
    program = parts[0]
    name = program.const
    if isinstance(name, str) and posixpath.basename(name.replace("\\", "/")).lower() in SHELLS:
        for i, p in enumerate(parts[1:-1], start=1):
            if p.const in _DASH_C:
                _shell_string(it, e, parts[i + 1], f"{name} {p.const}")
                return
    whole = joined(parts)
    if level(program, SHELL) == TAINTED or (len(parts) == 1 and level(whole, SHELL) == TAINTED):
        it.report(
            "shell-injection",
            e,
            S.CRITICAL,
            "Program to run chosen by request input (command injection)",
            _detail(program if level(program, SHELL) == TAINTED else whole, SHELL, sink),
            TAINTED,
        )


def _parts(v: Val) -> list[Val]:
    if v.items is not None and v.seq:
        return [x for _, x in v.items]
    return [v]


def _shell(
    it: CallEval, e: ast.Call, canon: str, method: str | None, args: list[Val], kw: dict[str, Val]
) -> None:
    if canon in _SHELL_ARG:
        cmd = _arg(args, kw, _SHELL_ARG[canon], "cmd", "command")
        if cmd is not None:
            if _SHELL_ARG[canon] < 0:
                _argv(it, e, _parts(cmd), canon)
            else:
                _shell_string(it, e, cmd, canon)
        return
    if method == "subprocess_shell" and len(args) >= 2:
        _shell_string(it, e, args[1], "subprocess_shell")
        return
    if canon in _SUBPROCESS:
        cmd = _arg(args, kw, 0, "args", "cmd", "command")
        if cmd is None:
            return
        if canon == "asyncio.create_subprocess_exec":
            _argv(it, e, [x for a in args for x in _parts(a)], canon)
            return
        shell = kw.get("shell")
        if shell is not None and not (
            shell.const is False or shell.const is None or shell.const == 0
        ):
            _shell_string(it, e, joined(_parts(cmd)) if cmd.items else cmd, f"{canon}(shell=True)")
        elif canon.startswith("pexpect"):
            _argv(it, e, [cmd], canon)
        else:
            _argv(it, e, _parts(cmd), canon)
        return
    m = _EXEC.match(canon)
    if m:
        offset = 1 if m.group(1) == "spawn" else 0
        program = _arg(args, kw, offset, "path", "file")
        if program is None:
            return
        rest = args[offset + 1 :]
        if m.group(2) == "v" or m.group(1) == "posix_spawn":
            rest = _parts(rest[0])[1:] if rest else []
        else:
            rest = rest[1:]
        _argv(it, e, [program, *rest], canon)


_SQL_STRONG = frozenset(
    {"execute", "executemany", "executescript", "mogrify", "raw", "exec_driver_sql"}
)
_SQL_FUNCS = frozenset(
    {"sqlalchemy.text", "sqlalchemy.sql.text", "sqlalchemy.sql.expression.text", "RawSQL"}
    | {"django.db.models.expressions.RawSQL", "django.db.models.RawSQL", "pandas.read_sql"}
    | {"pandas.read_sql_query", "psycopg2.sql.SQL", "psycopg.sql.SQL", "sql.SQL"}
)
_SQL_NAMED = re.compile(
    r"(?i)^(?:exec\w*|\w*query\w*|\w*sql\w*|fetch\w*|select\w*|raw\w*|run_\w+|prepare\w*)$"
)


def _sql(
    it: CallEval, e: ast.Call, canon: str, method: str | None, args: list[Val], kw: dict[str, Val]
) -> None:
    strong = canon in _SQL_FUNCS or method in _SQL_STRONG
    if method == "extra":
        for name in ("where", "select", "tables", "order_by"):
            if name in kw:
                _sql_flow(it, e, kw[name], f".extra({name}=...)", True)
        return
    name = method or canon.rsplit(".", 1)[-1]
    if not strong and not (_SQL_NAMED.match(name) and not it.prog.is_local(it, e)):
        return
    q = _arg(args, kw, 0, "sql", "query", "statement", "operation", "stmt")
    if q is not None:
        _sql_flow(it, e, q, name, strong)


def _sql_flow(it: CallEval, e: ast.Call, q: Val, sink: str, strong: bool) -> None:
    flow = level(q, SQL)
    if flow == TAINTED and (strong or q.tags & SQLTEXT):
        it.report(
            "sql-injection",
            e,
            S.CRITICAL,
            "SQL built from request input (SQL injection)",
            _detail(q, SQL, sink),
            flow,
        )
    elif flow >= UNKNOWN and q.tags & FMT and q.tags & SQLTEXT:
        it.report(
            "sql-injection",
            e,
            S.HIGH,
            "SQL built by string formatting (SQL injection)",
            _detail(q, SQL, sink),
            flow,
        )


_CODE = frozenset({"eval", "exec", "builtins.eval", "builtins.exec", "execfile"})
_TEMPLATES = frozenset(
    {"flask.render_template_string", "jinja2.Template", "jinja2.environment.Template"}
    | {"mako.template.Template", "render_template_string", "django.template.Template"}
)


def _code(
    it: CallEval, e: ast.Call, canon: str, method: str | None, args: list[Val], kw: dict[str, Val]
) -> None:
    if canon in _CODE:
        code = _arg(args, kw, 0, "source", "expression", "object")
        if code is None:
            return
        flow = level(code)
        sev = _flow_sev(flow, S.CRITICAL, S.HIGH, None)
        title = (
            "eval/exec of request input (code injection)"
            if flow == TAINTED
            else "eval/exec of dynamic code"
        )
        if sev is not None:
            it.report("eval-exec", e, sev, title, _detail(code, 3, canon), flow)
        return
    if canon in _TEMPLATES or method == "from_string":
        src = _arg(args, kw, 0, "source", "text")
        if src is not None and level(src) == TAINTED:
            it.report(
                "eval-exec",
                e,
                S.CRITICAL,
                "Template built from request input (server-side template injection)",
                _detail(src, 3, canon if canon in _TEMPLATES else "from_string"),
                TAINTED,
            )


_DESER = frozenset(
    {"pickle.loads", "pickle.load", "pickle.Unpickler", "marshal.loads", "marshal.load"}
    | {"jsonpickle.decode", "jsonpickle.loads", "yaml.unsafe_load", "yaml.unsafe_load_all"}
    | {"yaml.full_load", "yaml.full_load_all", "shelve.open"}
)
_DESER_FILES = frozenset({"pandas.read_pickle", "joblib.load", "torch.load", "numpy.load"})
_SAFE_LOADERS = re.compile(r"SafeLoader|BaseLoader")


def _deser(
    it: CallEval, e: ast.Call, canon: str, method: str | None, args: list[Val], kw: dict[str, Val]
) -> None:
    data = _arg(args, kw, 0, "data", "stream", "file", "s", "filename", "f")
    if data is None:
        return
    if canon in ("yaml.load", "yaml.load_all"):
        loader = (
            e.args[1]
            if len(e.args) > 1
            else next((k.value for k in e.keywords if k.arg == "Loader"), None)
        )
        if loader is not None and _SAFE_LOADERS.search(ast.unparse(loader)[:200]):
            return
    elif canon in _DESER_FILES:
        if canon == "numpy.load" and not any(
            k.arg == "allow_pickle" and _true(k.value) for k in e.keywords
        ):
            return
        if canon == "torch.load" and any(
            k.arg == "weights_only" and _true(k.value) for k in e.keywords
        ):
            return
        if level(data) != TAINTED:
            return
    elif canon not in _DESER:
        return
    flow = level(data)
    sev = _flow_sev(flow, S.CRITICAL, S.HIGH, None)
    title = (
        "Deserialization of request input (remote code execution)"
        if flow == TAINTED
        else "Unsafe deserialization of possibly untrusted data"
    )
    if sev is not None:
        it.report("deserialization", e, sev, title, _detail(data, 3, canon), flow)


def _true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


_FILE_ARGS: dict[str, tuple[int, ...]] = dict.fromkeys(
    names(
        """
        open io.open codecs.open builtins.open aiofiles.open os.open flask.send_file send_file
        flask.send_from_directory send_from_directory starlette.responses.FileResponse
        fastapi.responses.FileResponse FileResponse os.remove os.unlink os.rmdir os.removedirs
        os.listdir os.scandir os.makedirs os.mkdir os.chmod os.chown os.truncate os.readlink
        shutil.rmtree io.FileIO tarfile.open zipfile.ZipFile aiofiles.os.remove
        """
    ),
    (0,),
)
_FILE_ARGS.update(
    dict.fromkeys(
        names(
            """
            os.rename os.renames os.replace os.link os.symlink shutil.copy shutil.copy2
            shutil.copyfile shutil.copytree shutil.move
            """
        ),
        (0, 1),
    )
)
_PATH_METHODS = names(
    """
    read_text read_bytes write_text write_bytes open unlink rmdir touch mkdir iterdir rename
    replace symlink_to hardlink_to
    """
)


def _path(
    it: CallEval,
    e: ast.Call,
    canon: str,
    method: str | None,
    args: list[Val],
    kw: dict[str, Val],
    recv: Val | None,
) -> None:
    values: list[Val] = []
    if canon in _FILE_ARGS:
        values = [args[i] for i in _FILE_ARGS[canon] if i < len(args)]
        values += [
            kw[n]
            for n in ("file", "path", "path_or_file", "filename", "directory", "src", "dst")
            if n in kw
        ]
    elif recv is not None and recv.tags & PATHOBJ and method in _PATH_METHODS:
        values = [recv]
    for v in values:
        if level(v, PATH) == TAINTED:
            sink = canon if canon in _FILE_ARGS else f"Path.{method}"
            it.report(
                "path-traversal",
                e,
                S.HIGH,
                "File path built from request input (path traversal)",
                _detail(v, PATH, sink),
                TAINTED,
            )
            return


_WEAK = frozenset({"md5", "sha1", "md4", "md2", "sha", "md5-sha1", "md5_sha1"})
_FAST = frozenset(
    {"sha224", "sha256", "sha384", "sha512", "blake2b", "blake2s", "sha3_224", "sha3_256"}
    | {"sha3_384", "sha3_512", "sha512_224", "sha512_256"}
)
_HASH_FIX_TITLE = ("Weak password hashing (md5/sha1)", "Fast unsalted hash of a password")


def _algo(canon: str, args: list[Val], kw: dict[str, Val]) -> str | None:
    parts = canon.split(".")
    last = parts[-1].lower()
    if parts[0] == "hashlib" or len(parts) == 1:
        if last == "new":
            name = _arg(args, kw, 0, "name")
            return (
                str(name.const).lower()
                if name is not None and isinstance(name.const, str)
                else None
            )
        return last if last in _WEAK | _FAST else None
    if parts[0] in ("Crypto", "Cryptodome") and last == "new" and len(parts) >= 2:
        return parts[-2].lower()
    if len(parts) >= 2 and parts[-2] == "hashes":
        return last.replace("sha", "sha", 1)
    return None


def hash_result(e: ast.Call, canon: str, args: list[Val], kw: dict[str, Val]) -> Val | None:
    """The value a hashing call returns (md5/sha1 results remember their call), or None."""
    algo = _algo(canon, args, kw)
    if algo is None or algo not in _WEAK | _FAST:
        return None
    if "usedforsecurity" in kw and kw["usedforsecurity"].const is False:
        return constant()
    cred = any(v.tags & CRED for v in [*args, *kw.values()])
    tags = (WEAKHASH if algo in _WEAK else 0) | (CRED if cred else 0)
    return constant(tags=tags)._replace(node=e if algo in _WEAK else None)


def _hash(
    it: CallEval,
    e: ast.Call,
    canon: str,
    method: str | None,
    args: list[Val],
    kw: dict[str, Val],
    recv: Val | None,
) -> None:
    if method == "update" and recv is not None and recv.tags & WEAKHASH and args:
        if args[0].tags & CRED:
            _weak_hit(it, e, "the hash is fed a password or token")
        return
    algo = _algo(canon, args, kw)
    if algo is None or ("usedforsecurity" in kw and kw["usedforsecurity"].const is False):
        return
    cred = any(v.tags & CRED for v in [*args, *kw.values()]) or is_cred_name(it.context)
    if not cred:
        return
    if algo in _WEAK:
        _weak_hit(it, e, "a password or token is hashed with it")
    elif algo in _FAST and _password_context(it, args):
        it.report(
            "weak-password-hash",
            e,
            S.MEDIUM,
            _HASH_FIX_TITLE[1],
            f"One round of {algo} is too fast for passwords.",
            CONST,
        )


def _password_context(it: CallEval, args: list[Val]) -> bool:
    return bool(re.search(r"(?i)pass|pwd", it.context)) or any(a.tags & CRED for a in args)


def _weak_hit(it: CallEval, node: ast.AST, why: str) -> None:
    it.report("weak-password-hash", node, S.HIGH, _HASH_FIX_TITLE[0], f"md5/sha1: {why}.", CONST)


def weak_hash_stored(it: CallEval, node: ast.AST, name: str) -> None:
    """An md5/sha1 result stored as a password, token or secret."""
    _weak_hit(it, node, f"its result is stored as {name!r}")


_JWT = {"jwt.encode": 1, "jwt.decode": 1, "jose.jwt.encode": 1, "jose.jwt.decode": 1}


def _jwt(
    it: CallEval, e: ast.Call, canon: str, method: str | None, args: list[Val], kw: dict[str, Val]
) -> None:
    if canon not in _JWT:
        return
    key = _arg(args, kw, _JWT[canon], "key", "secret")
    if key is None or not isinstance(key.const, str | bytes) or not key.const:
        return
    text = key.const if isinstance(key.const, str) else key.const.decode("latin-1")
    if text.startswith(("-----BEGIN PUBLIC", "-----BEGIN CERTIFICATE", "ssh-")):
        return
    it.report(
        "secret",
        e,
        S.HIGH,
        "Hard-coded secret: JWT signing key",
        "The JWT key is a literal in the code.",
        CONST,
    )


_TLS_OFF = frozenset(
    {"verify", "verify_ssl", "verify_certs", "check_hostname", "assert_hostname", "validate_certs"}
    | {"ssl_verify", "verify_ssl_certs"}
)
_AIOHTTP = frozenset(
    {"get", "post", "put", "patch", "delete", "head", "options", "request", "ws_connect"}
)


def _tls(it: CallEval, e: ast.Call, canon: str, method: str | None, kw: dict[str, Val]) -> None:
    for name, v in kw.items():
        off = name in _TLS_OFF and v.const is False
        off = off or (
            name == "ssl"
            and v.const is False
            and (method in _AIOHTTP or canon.endswith("TCPConnector"))
        )
        off = off or (name == "cert_reqs" and v.const in ("CERT_NONE", "NONE", "none", 0))
        if off:
            it.report(
                "tls-verification",
                e,
                S.HIGH,
                "TLS certificate verification disabled",
                f"{name}={v.const!r} turns certificate verification off.",
                CONST,
            )
            return


Hook = Callable[["CallEval", ast.Call, str, "str | None", list[Val], dict[str, Val]], None]


def on_call(
    it: CallEval, e: ast.Call, canon: str, recv: Val | None, args: list[Val], kw: dict[str, Val]
) -> None:
    """Report the sinks a call reaches."""
    method = e.func.attr if isinstance(e.func, ast.Attribute) else None
    _shell(it, e, canon, method, args, kw)
    _sql(it, e, canon, method, args, kw)
    _code(it, e, canon, method, args, kw)
    _deser(it, e, canon, method, args, kw)
    _path(it, e, canon, method, args, kw, recv)
    _hash(it, e, canon, method, args, kw, recv)
    _jwt(it, e, canon, method, args, kw)
    if kw:
        _tls(it, e, canon, method, kw)


_ = (NOCONST, PATH)
