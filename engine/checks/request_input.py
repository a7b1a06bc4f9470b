"""A web request's input reaching a command or ``eval`` in a source file of another language
(``source_code``): the input as each framework hands it over (``req.query``, ``await
req.json()``, ``c.Query("x")``, ``$request->input("x")``, ``params[:x]``, ``@RequestParam``,
``@Query()``, ``[FromQuery]``, ``req.query["x"]``, ``conn.params``), the names it is given —
and the names built from those, two steps deep — and the calls that run a command or evaluate
code. Text-level, like the rest of ``source_code``: names are matched, not resolved."""

from __future__ import annotations

import re

__all__ = [
    "REQUEST_INPUT",
    "input_names",
    "input_reaches_deserializer",
    "input_reaches_sink",
    "name_pattern",
]

_WINDOW = 300
_MAX_NAMES = 48

REQUEST_INPUT = re.compile(
    r"\breq(?:uest)?\.(?:query|body|params|headers|cookies|param|getParameter|form|args|values|"
    r"content|url|Query|Body|Form|Headers|Cookies)\b|"
    r"\b(?:req|request)\.(?:json|formData|text)\(\)|\bsearchParams\.get\(|"
    r"\$_(?:GET|POST|REQUEST|COOKIE)\b|\$req(?:uest)?->(?:input|get|query|post|all|json|cookie|header|getContent|toArray)\(|"
    r"\brequest\(\s*[\"']|\bInput::get\(|\bparams\[|\bparams\.(?:require|permit|fetch)\b|"
    r"r\.URL\.Query\(\)|r\.(?:Post)?FormValue\(|\bmux\.Vars\(|\bchi\.URLParam\(|"
    r"\bgetParameter\(|\bctx\.(?:query|params|request)\b|"
    r"\bc\.(?:Query|Param|PostForm|DefaultQuery|QueryParam|FormValue|Bind|ShouldBind\w*)\(|"
    r"\bevent\.(?:body|queryStringParameters|pathParameters)\b|\bRequest\.(?:Query|Form|Body)\b|"
    r"\bcall\.(?:parameters|request\.queryParameters|receive\w*)\b|\bconn\.(?:params|body_params|"
    r"query_params)\b|\breq\.query\[|\breq\.content\.decode\(|"
    r"\bngx\.var\.arg_\w+|\bngx\.req\.get_(?:uri_args|post_args|body_data)\(|"
    r"\$(?:c|self)->(?:param|req->(?:param|json|body))\b|\bqueryParameters\b|"
    r"(?<![\w.])cookies\[|\brequest\.cookies\b|\bRequest\.Cookies\b|\bgetCookies\(\)|"
    r"\bHTTP\.queryparams\(|\bqueryparams\("
)
"""A request's input, as the common web frameworks of other languages hand it over."""

_PARAMETER = re.compile(
    r"@(?:RequestParam|PathVariable|RequestBody|RequestHeader|QueryParam|PathParam|FormParam|"
    r"Query|Body|Param|Headers?)(?:\([^)]{0,200}\))?\s+(?:final\s+|readonly\s+)?"
    r"(?:[\w<>\[\],. ?]{1,60}?\s)?(\w{1,40})\s*[:,)]|"
    r"\[From(?:Query|Body|Route|Form|Header)\]\s*[\w<>?\[\]]{1,40}\s+(\w{1,40})|"
    r"\b(?:Query|Json|Form|Path)\(\s*(\w{1,40})\s*\)\s*:\s*(?:axum::\w+::)?(?:Query|Json|Form|Path)<"
)
"""Handler parameters a framework fills from the request (Spring, JAX-RS, NestJS, ASP.NET,
axum's extractors)."""

_ASSIGNED = re.compile(
    r"(?:\b(?:const|let|var|val|my|local|auto|string|String|final)\s+(?:mut\s+)?|\$|^[ \t]*)"
    r"(\{[^}=]{1,200}\}|\[[^\]=]{1,200}\]|[A-Za-z_]\w{0,40})\s*(?::\s*[^=\n]{1,60})?"
    r"(?::=|=)(?![=>~])\s*([^;\n]{1,300})",
    re.MULTILINE,
)
_NAME = re.compile(r"[A-Za-z_]\w{0,40}")

_SINK = re.compile(
    r"(?:(?<![\w.$])|(?<=[\"']\.)|(?<=[\"'] \. )|"  # PHP joins strings with a dot
    r"(?:child_process|cp|shell|getRuntime\(\)|Process|Kernel|Open3|Bun|Deno|"
    r"System|os|require\(\s*[\"'](?:node:)?child_process[\"']\s*\))\.)"
    r"(?:execSync|exec|execa|execaCommand|spawn|spawnSync|execFile|execFileSync|system|"
    r"shell_exec|passthru|popen|proc_open|Start|eval|instance_eval|class_eval|"
    r"eval_string)\s*[(!]|System\.cmd\(|"
    r"exec\.Command(?:Context)?\(|ProcessBuilder\(|IO\.popen\(|Command::new\(|new\s+Function\(|"
    r"new\s+Deno\.Command\(|:os\.cmd\(|\bvm\.runIn\w+\(|Code\.eval_string\(|%x[({]|"
    r"\bProcess\.(?:run|runSync|start)\(|\bio\.popen\(|\bos\.execute\(|\b(?:run|read|success|pipeline)\(\s*`|"
    r"\bCSharpScript\.(?:EvaluateAsync|RunAsync|Create)\b|"
    r"\.arguments\s*=\s*\["
)
"""Calls that run a command or evaluate code."""

_DESERIALIZER = re.compile(
    r"(?<![\w.$>])unserialize\s*\(|\bMarshal\.(?:load|restore)\s*\(|\bYAML\.(?:load|unsafe_load)\s*\(|"
    r"\bnew\s+ObjectInputStream\s*\(|\bBinaryFormatter\s*\(\s*\)|\bNetDataContractSerializer\b|"
    r"\bLosFormatter\b|\bSoapFormatter\b|\bnew\s+XMLDecoder\s*\(|\bserialize\.unserialize\s*\(|"
    r"\bTypeNameHandling\.(?:All|Auto|Objects)\b|\benableDefaultTyping\s*\("
)
"""Calls that rebuild objects of any type from bytes: given an attacker's bytes, they run the
attacker's code (object injection, gadget chains)."""

_INTERPOLATED_RUN = re.compile(r"`[^`\n]{0,300}(?:#\{|\$\{?|\$\()([A-Za-z_]\w{0,40})[^`\n]{0,300}`")
"""A backquoted command with a value put in (Ruby's ``#{x}``, PHP's and Perl's ``$x``)."""


def _names(target: str) -> list[str]:
    return [n for n in _NAME.findall(target) if n not in ("const", "let", "var", "mut")]


def input_names(text: str) -> set[str]:
    """The names ``text`` gives a request's input, and those built from them (two steps)."""
    names: set[str] = set()
    for m in _PARAMETER.finditer(text):
        names.add(next(group for group in m.groups() if group))
    assignments = [(m.group(1), m.group(2)) for m in _ASSIGNED.finditer(text)][:400]
    for _ in range(3):  # the input itself, then names built from names, twice
        known = name_pattern(names)
        for target, value in assignments:
            if REQUEST_INPUT.search(value) or (known is not None and known.search(value)):
                names.update(_names(target))
        if len(names) >= _MAX_NAMES:
            break
    return set(list(names)[:_MAX_NAMES])


def name_pattern(names: set[str]) -> re.Pattern[str] | None:
    """A search for any of ``names`` as a whole word (``None`` when there is none)."""
    return (
        re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b") if names else None
    )


def input_reaches_sink(
    text: str, *, backticks: bool = False, names: set[str] | None = None
) -> int | None:
    """The offset of a call that runs a command or evaluates code on a request's input (or on
    a name given it), else ``None``. ``backticks``: the language runs backquoted strings;
    ``names``: ``input_names(text)`` when the caller has it already."""
    names = input_names(text) if names is None else names
    known = name_pattern(names)
    found = _reached(text, _SINK, known)
    if found is not None:
        return found
    if backticks and known is not None:
        for m in _INTERPOLATED_RUN.finditer(text):
            if m.group(1) in names:
                return m.start()
    return None


def input_reaches_deserializer(text: str, names: set[str]) -> int | None:
    """The offset of a call that rebuilds objects of any type from a request's input (a
    cookie, a parameter, the body, or one of ``names``, those ``input_names`` gives them),
    else ``None``."""
    return _reached(text, _DESERIALIZER, name_pattern(names))


def _reached(text: str, sinks: re.Pattern[str], known: re.Pattern[str] | None) -> int | None:
    for m in sinks.finditer(text):
        region = text[m.end() : m.end() + _WINDOW]
        if REQUEST_INPUT.search(region) or (known is not None and known.search(region)):
            return m.start()
    return None
