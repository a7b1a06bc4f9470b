"""The sinks of the taint engine for injections: shell commands, SQL, code and templates.

``on_call`` sees every call with its evaluated arguments and hands it to each sink. A sink
reports the flow of the data it consumes: request input (``TAINTED``) gets the check's top
severity, data of unknown origin the middle one, constants none (or low for a constant shell
command). Code, modules and templates are in ``sinks_code``; deserialization, file paths,
hashing, JWT keys and TLS in ``sinks_data``.
"""

from __future__ import annotations

import ast
import posixpath
import re

from humangr.contracts import Severity

from .flow import (
    CONST,
    DECODED,
    FMT,
    NOCONST,
    SHELL,
    SQL,
    SQLTEXT,
    TAINTED,
    UNKNOWN,
    Val,
    joined,
    level,
)
from .libtypes import REMOTE_SHELL_FUNCS, remote_shell_method, sql_method
from .sink_util import Site, arg, detail, flow_severity
from .sinks_code import chosen_callee, code_flow, code_sinks
from .sinks_data import data_sinks
from .sinks_resolved import resolved_sinks
from .sources import SHELLS

__all__ = ["chosen_callee", "on_call"]

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
"""Calls running a command line (their argument's index), or an argument vector (-1: the
first argument, a program and its arguments)."""
_SUBPROCESS = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output"}
    | {"subprocess.Popen", "asyncio.create_subprocess_exec", "pexpect.spawn", "pexpect.run"}
)
_EXEC = re.compile(r"^os\.(exec|spawn|posix_spawn)(l|v)?p?e?$")
_PYTHON = re.compile(r"(?i)^(?:python|pypy)[\d.]*(?:\.exe)?$")
_DASH_C = frozenset({"-c", "/c", "/C", "-Command", "-lc", "-ec", "-xc", "-ic", "-cl"})


def _shell_string(it: Site, e: ast.Call, cmd: Val, sink: str) -> None:
    flow = level(cmd, SHELL)
    sev = flow_severity(flow, Severity.CRITICAL, Severity.HIGH, Severity.LOW)
    titles = {
        TAINTED: "Shell command built from request input (command injection)",
        UNKNOWN: "Shell command run through a shell (shell injection)",
        CONST: "Constant shell command run through a shell",
    }
    text, title = detail(cmd, SHELL, sink), titles[flow]
    if flow == CONST and cmd.tags & DECODED:
        sev, title = Severity.HIGH, "Shell command decoded at run time (hidden from review)"
        text = f"{sink} runs a command decoded or decompressed at run time (base64, hex, zlib)."
    elif flow == CONST and cmd.const is NOCONST:
        text = f"{sink} gets constant or sanitized text only (quoted, validated or numeric)."
        title = "Shell command run through a shell (sanitized input)"
    if sev is not None:
        it.report("shell-injection", e, sev, title, text, flow, cmd.src)


def _argv(it: Site, e: ast.Call, parts: list[Val], sink: str) -> None:
    """An argument vector run without a shell: a shell with ``-c``, or a program from input."""
    if not parts:
        return
    program = parts[0]
    name = program.const
    if isinstance(name, str) and _PYTHON.match(posixpath.basename(name.replace("\\", "/"))):
        for i, p in enumerate(parts[1:], start=1):
            if p.const in ("-c", "-m") and i + 1 < len(parts):
                code_flow(it, e, parts[i + 1], f"{name} {p.const}")
                return
            if not (isinstance(p.const, str) and p.const.startswith("-")):
                if level(p) == TAINTED:
                    code_flow(it, e, p, f"{name} <script>")
                return
    if isinstance(name, str) and posixpath.basename(name.replace("\\", "/")).lower() in SHELLS:
        for i, p in enumerate(parts[1:-1], start=1):
            if p.const in _DASH_C:
                _shell_string(it, e, parts[i + 1], f"{name} {p.const}")
                return
    whole = joined(parts)
    if level(program, SHELL) == TAINTED or (len(parts) == 1 and level(whole, SHELL) == TAINTED):
        chosen = program if level(program, SHELL) == TAINTED else whole
        it.report(
            "shell-injection",
            e,
            Severity.CRITICAL,
            "Program to run chosen by request input (command injection)",
            detail(chosen, SHELL, sink),
            TAINTED,
            chosen.src,
        )


def _parts(v: Val) -> list[Val]:
    if v.items is not None and v.seq:
        return [x for _, x in v.items]
    return [v]


def _remote(it: Site, e: ast.Call, cmd: Val, sink: str) -> None:
    """A command line a remote or wrapped shell runs (paramiko, fabric, invoke, asyncssh):
    judged like a local shell command, with no finding for constant text (every fabric task
    is made of those)."""
    if level(cmd, SHELL) != CONST:
        _shell_string(it, e, cmd, sink)


def _shell(
    it: Site,
    e: ast.Call,
    canon: str,
    method: str | None,
    args: list[Val],
    kw: dict[str, Val],
    recv: Val | None,
) -> None:
    if canon in REMOTE_SHELL_FUNCS or (recv is not None and remote_shell_method(recv.cls, method)):
        cmd = arg(args, kw, 0, "command", "cmd")
        if cmd is not None:
            _remote(it, e, cmd, canon if canon in REMOTE_SHELL_FUNCS else f".{method}()")
        return
    if canon in _SHELL_ARG:
        cmd = arg(args, kw, max(_SHELL_ARG[canon], 0), "cmd", "command", "argv")
        if cmd is not None:
            if _SHELL_ARG[canon] < 0:
                _argv(it, e, _parts(cmd), canon)
            else:
                _shell_string(it, e, cmd, canon)
        return
    if method == "subprocess_shell" and len(args) >= 2:
        _shell_string(it, e, args[1], "subprocess_shell")
        return
    if method == "subprocess_exec" and len(args) >= 2:
        _argv(it, e, [x for a in args[1:] for x in _parts(a)], "subprocess_exec")
        return
    if canon in _SUBPROCESS:
        cmd = arg(args, kw, 0, "args", "cmd", "command")
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
        program = arg(args, kw, offset, "path", "file")
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
    it: Site,
    e: ast.Call,
    canon: str,
    method: str | None,
    args: list[Val],
    kw: dict[str, Val],
    recv: Val | None,
) -> None:
    strong = canon in _SQL_FUNCS or method in _SQL_STRONG
    strong = strong or (recv is not None and sql_method(recv.cls, method))
    if method == "extra":
        for name in ("where", "select", "tables", "order_by"):
            if name in kw:
                _sql_flow(it, e, kw[name], f".extra({name}=...)", True, by_api=True)
        return
    name = method or canon.rsplit(".", 1)[-1]
    if not strong and not (_SQL_NAMED.match(name) and not it.is_local_call(e)):
        return
    q = arg(args, kw, 0, "sql", "query", "statement", "operation", "stmt")
    if q is not None:
        _sql_flow(it, e, q, name, strong, by_api=canon in _SQL_FUNCS)


def _sql_flow(
    it: Site, e: ast.Call, q: Val, sink: str, strong: bool, *, by_api: bool = False
) -> None:
    """``by_api``: the callee takes SQL by definition (``.extra``, ``RawSQL``, ``text``), so a
    formatted fragment counts even when it does not read as a statement (``"n = '%s'"``)."""
    flow = level(q, SQL)
    if flow == TAINTED and (strong or q.tags & SQLTEXT):
        it.report(
            "sql-injection",
            e,
            Severity.CRITICAL,
            "SQL built from request input (SQL injection)",
            detail(q, SQL, sink),
            flow,
            q.src,
        )
    elif flow >= UNKNOWN and q.tags & FMT and (q.tags & SQLTEXT or by_api):
        it.report(
            "sql-injection",
            e,
            Severity.HIGH,
            "SQL built by string formatting (SQL injection)",
            detail(q, SQL, sink),
            flow,
        )


def on_call(
    it: Site, e: ast.Call, canon: str, recv: Val | None, args: list[Val], kw: dict[str, Val]
) -> None:
    """Report the sinks a call reaches."""
    method = e.func.attr if isinstance(e.func, ast.Attribute) else None
    _shell(it, e, canon, method, args, kw, recv)
    _sql(it, e, canon, method, args, kw, recv)
    code_sinks(it, e, canon, method, args, kw, recv)
    data_sinks(it, e, canon, method, recv, args, kw)
    resolved_sinks(it, e, canon, args, kw)
