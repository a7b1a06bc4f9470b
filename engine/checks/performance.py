"""HL5 checks: blocking calls inside ``async def``, I/O and queries inside loops."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit, snippet
from .fragments import enclosing_headers
from .pyast import dotted, fragments, scope_walk, uncovered

__all__ = ["blocking_in_async", "io_in_loop"]

_BLOCKING = {
    "time.sleep": Severity.HIGH,
    "requests.get": Severity.HIGH,
    "requests.post": Severity.HIGH,
    "requests.put": Severity.HIGH,
    "requests.patch": Severity.HIGH,
    "requests.delete": Severity.HIGH,
    "requests.head": Severity.HIGH,
    "requests.request": Severity.HIGH,
    "urllib.request.urlopen": Severity.HIGH,
    "urlopen": Severity.HIGH,
    "subprocess.run": Severity.HIGH,
    "subprocess.call": Severity.HIGH,
    "subprocess.check_call": Severity.HIGH,
    "subprocess.check_output": Severity.HIGH,
    "subprocess.Popen": Severity.HIGH,
    "os.system": Severity.HIGH,
    "os.popen": Severity.HIGH,
    "socket.create_connection": Severity.HIGH,
    "input": Severity.HIGH,
    "open": Severity.LOW,
}
_BLOCKING_RX = re.compile(
    r"(?<![\w.])(?:time\.sleep|requests\.(?:get|post|put|patch|delete|head|request)"
    r"|(?:urllib\.request\.)?urlopen|subprocess\.(?:run|call|check_call|check_output|Popen)"
    r"|os\.(?:system|popen)|open)\s*\("
)
_DEF = re.compile(r"^(async\s+)?def\b")
_LOOP = re.compile(r"^(?:async\s+)?(?:for|while)\b")


def _async_hit(path: str | None, line: int, call: str, text: str) -> Hit:
    sev = _BLOCKING.get(call, Severity.HIGH)
    return Hit(
        severity=sev,
        title=f"Blocking call {call}() inside async code",
        description=f"{path or '<content>'}:{line}: {snippet(text)}. It blocks the event loop "
        "and every other task on it.",
        suggestion="Use the async equivalent (anyio.sleep, httpx.AsyncClient, "
        "anyio.run_process, anyio.open_file) or run it in a worker thread "
        "(anyio.to_thread.run_sync).",
        file=path,
        line=line,
    )


def blocking_in_async(ctx: CheckInput) -> Iterator[Hit]:
    """time.sleep, requests, urlopen, subprocess, os.system in ``async def``: high; open(): low."""
    for f, frag in fragments(ctx):
        for fn in frag.nodes:
            if not isinstance(fn, ast.AsyncFunctionDef):
                continue
            for node in scope_walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                name = dotted(node.func)
                if name not in _BLOCKING:
                    continue
                line = frag.node_line(node)
                if line is not None:
                    yield _async_hit(f.path, line, name, ast.unparse(node))
    for u in uncovered(ctx):
        m = _BLOCKING_RX.search(u.text)
        if not m:
            continue
        head = next((h for h in enclosing_headers(u.region, u.index) if _DEF.match(h)), "")
        if head.startswith("async"):
            call = m.group(0).rstrip("( \t")
            yield _async_hit(u.file.path, u.line, call, u.text)


_IO_ATTRS = frozenset({"execute", "executemany", "query", "raw", "urlopen"})
_IO_PREFIX = ("requests.", "httpx.", "urllib.request.")
_IO_RX = re.compile(
    r"\.(?:execute|executemany|query|raw)\s*\(|(?<![\w.])(?:requests|httpx)\.\w+\s*\("
    r"|(?<![\w.])(?:urlopen|open)\s*\(|\.objects\.(?:get|filter)\s*\("
)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _is_io(call: ast.Call) -> bool:
    name = dotted(call.func)
    last = name.rsplit(".", 1)[-1]
    if name == "open" or name.startswith(_IO_PREFIX) or last in _IO_ATTRS:
        return True
    return ".objects." in name and last in {"get", "filter"}


def _loop_bodies(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, _LOOPS):
        return [*node.body, *([node.test] if isinstance(node, ast.While) else [])]
    if isinstance(node, _COMPS):
        elts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return [*elts, *(c for g in node.generators for c in g.ifs)]
    return []


def _loop_hit(path: str | None, line: int, text: str) -> Hit:
    return Hit(
        severity=Severity.MEDIUM,
        title="I/O or database query inside a loop",
        description=f"{path or '<content>'}:{line}: {snippet(text)}. One round trip per "
        "iteration (N+1).",
        suggestion="Batch it: one query with IN (...)/executemany, one bulk request, or load "
        "the data once before the loop.",
        file=path,
        line=line,
    )


def io_in_loop(ctx: CheckInput) -> Iterator[Hit]:
    """execute/query/requests/httpx/urlopen/open/ORM get inside for/while/comprehensions: medium."""
    for f, frag in fragments(ctx):
        seen: set[int] = set()
        for loop in frag.nodes:
            for part in _loop_bodies(loop):
                if isinstance(part, _SCOPES):
                    continue
                nodes = [part, *scope_walk(part)]
                for node in nodes:
                    if isinstance(node, ast.Call) and id(node) not in seen and _is_io(node):
                        seen.add(id(node))
                        line = frag.node_line(node)
                        if line is not None:
                            yield _loop_hit(f.path, line, ast.unparse(node))
    for u in uncovered(ctx):
        if not _IO_RX.search(u.text):
            continue
        for h in enclosing_headers(u.region, u.index):
            if _DEF.match(h):
                break
            if _LOOP.match(h):
                yield _loop_hit(u.file.path, u.line, u.text)
                break
