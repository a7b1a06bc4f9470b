"""What the taint engine knows about names: imports, request input, routes, sanitizers.

Canonical names are dotted paths with import aliases resolved: ``import pickle as p`` makes
``p.loads`` ``pickle.loads``, ``from subprocess import Popen`` makes ``Popen``
``subprocess.Popen``.
Request input is tainted; route and view parameters are tainted by the framework's rules.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterable

from .flow import PATH, REQUEST, SHELL, SQL, Val, constant, tainted, unknown
from .pyast import dotted

__all__ = [
    "FULL_SANITIZERS",
    "INPUT_ATTRS",
    "KIND_SANITIZERS",
    "NORMALIZERS",
    "PATH_CLASSES",
    "PURE",
    "SHELLS",
    "TERMINATORS",
    "Imports",
    "cgi_key",
    "entry_params",
    "is_cred_name",
    "is_request_name",
    "is_self_input",
    "is_web",
    "names",
    "param_names",
    "request_param",
]


def names(text: str) -> frozenset[str]:
    """The whitespace-separated names of ``text`` (for long tables of names)."""
    return frozenset(text.split())


_SYNONYMS = {
    "_pickle": "pickle",
    "cPickle": "pickle",
    "pickle5": "pickle",
    "cloudpickle": "pickle",
    "dill": "pickle",
    "_yaml": "yaml",
    "ruamel.yaml": "yaml",
    "commands": "subprocess",
    "posixpath": "os.path",
    "ntpath": "os.path",
    "quart": "flask",
}


class Imports:
    """Import aliases of one file: local name -> canonical dotted name."""

    def __init__(self, trees: Iterable[ast.AST]) -> None:
        self.names: dict[str, str] = {}
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for a in node.names:
                        if a.asname:
                            self.names[a.asname] = _norm(a.name)
                        else:
                            first = a.name.split(".")[0]
                            self.names.setdefault(first, _norm(first))
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    module = _norm(node.module)
                    for a in node.names:
                        if a.name != "*":
                            self.names[a.asname or a.name] = f"{module}.{a.name}"

    def canon(self, node: ast.AST) -> str:
        """The canonical dotted name of a Name/Attribute chain (``?`` parts for anything else)."""
        name = dotted(node)
        head, _, rest = name.partition(".")
        base = self.names.get(head.removesuffix("()"))
        if base is None:
            return _norm(name)
        full = base + ("()" if head.endswith("()") else "")
        return _norm(f"{full}.{rest}" if rest else full)

    def is_module(self, name: str) -> bool:
        return name in self.names


def _norm(name: str) -> str:
    for old, new in _SYNONYMS.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return name


INPUT_ATTRS = names(
    """
    args form values files json data cookies headers get_json get_data stream path full_path
    url base_url view_args environ GET POST body FILES COOKIES META query_params path_params
    query match_info post text read params forms get_param get_header media matchdict
    json_body content get_full_path arguments body_arguments query_arguments uri
    raw_post_data get_argument get_arguments get_query_argument get_body_argument getlist
    query_string referrer user_agent host host_url authorization origin
    """
)
"""Attributes and methods of a request object that return client-controlled data."""
_SELF_INPUT = names(
    """
    get_argument get_arguments get_query_argument get_query_arguments get_body_argument
    get_body_arguments get_cookie get_secure_cookie
    """
)
"""Tornado ``RequestHandler`` methods that read the request."""
_REQUEST_NAMES = frozenset(
    {"request", "req", "flask.request", "bottle.request", "self.request", "sanic.request"}
)
_REQUEST_TYPES = re.compile(r"(?:^|\.)(?:Request|HttpRequest|WSGIRequest|ASGIRequest|BaseRequest)$")


def is_request_name(canon: str) -> bool:
    """Whether a canonical name is a web request object (``request``, ``flask.request``, ...)."""
    return canon in _REQUEST_NAMES


def is_self_input(method: str) -> bool:
    return method in _SELF_INPUT


_CGI = re.compile(
    r"^(?:QUERY_STRING|REQUEST_URI|PATH_INFO|PATH_TRANSLATED|CONTENT_\w+|HTTP_\w+|REMOTE_USER)$"
)


def cgi_key(key: object) -> bool:
    """An environment variable a CGI server fills from the request."""
    return isinstance(key, str) and bool(_CGI.match(key))


_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_CRED_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "pw",
        "pass",
        "passphrase",
        "passcode",
        "secret",
        "token",
        "credential",
        "credentials",
        "apikey",
    }
)
_CRED_PAIRS = frozenset({("api", "key"), ("auth", "key"), ("session", "key"), ("private", "key")})


_CRED_HINT = re.compile(r"(?i)pass|pw|secret|token|key|credential")


def is_cred_name(name: object) -> bool:
    """Whether an identifier or key names a password, token or secret (``user_password``, ...)."""
    if not isinstance(name, str) or len(name) > 80 or not _CRED_HINT.search(name):
        return False
    words = [w.lower() for w in _WORD.findall(name)]
    if any(w in _CRED_WORDS for w in words):
        return True
    return any(p in _CRED_PAIRS for p in itertools.pairwise(words))


FULL_SANITIZERS = names(
    """
    int float bool len abs round ord hash id complex uuid.UUID decimal.Decimal
    ipaddress.ip_address ipaddress.ip_network math.floor math.ceil isinstance callable
    os.getpid os.getppid os.getuid os.getgid os.cpu_count time.time time.monotonic
    """
)
"""Calls whose result carries no injectable text."""
KIND_SANITIZERS: dict[str, tuple[int, ...]] = {
    "shlex.quote": (SHELL,),
    "pipes.quote": (SHELL,),
    "shlex.join": (SHELL,),
    "os.path.basename": (PATH,),
    "secure_filename": (PATH,),
    "werkzeug.utils.secure_filename": (PATH,),
    "werkzeug.secure_filename": (PATH,),
    "safe_join": (PATH,),
    "werkzeug.security.safe_join": (PATH,),
    "werkzeug.utils.safe_join": (PATH,),
    "flask.safe_join": (PATH,),
    "django.utils._os.safe_join": (PATH,),
    "pathvalidate.sanitize_filename": (PATH,),
    "psycopg2.sql.Identifier": (SQL,),
    "psycopg2.sql.Literal": (SQL,),
    "psycopg.sql.Identifier": (SQL,),
    "psycopg.sql.Literal": (SQL,),
    "sql.Identifier": (SQL,),
    "sql.Literal": (SQL,),
    "psycopg2.extensions.quote_ident": (SQL,),
    "pymysql.converters.escape_string": (SQL,),
    "MySQLdb.escape_string": (SQL,),
    "sqlalchemy.bindparam": (SQL,),
    "psycopg2.sql.SQL": (SQL,),
    "psycopg.sql.SQL": (SQL,),
    "sql.SQL": (SQL,),
    "psycopg2.sql.Composed": (SQL,),
    "sqlalchemy.text": (SQL,),
    "sqlalchemy.sql.text": (SQL,),
    "sqlalchemy.sql.expression.text": (SQL,),
    "RawSQL": (SQL,),
    "django.db.models.expressions.RawSQL": (SQL,),
    "django.db.models.RawSQL": (SQL,),
}
"""Calls that make their argument safe for one kind of sink only (SQL objects built by
``sql.SQL``/``text``/``RawSQL`` are judged where they are built, not again where executed)."""
NORMALIZERS = frozenset({"os.path.realpath", "os.path.abspath", "os.path.normpath"})
PATH_CLASSES = frozenset(
    {
        "pathlib.Path",
        "pathlib.PurePath",
        "pathlib.PosixPath",
        "pathlib.PurePosixPath",
        "pathlib.WindowsPath",
        "Path",
        "anyio.Path",
        "trio.Path",
    }
)
PURE = names(
    """
    str repr format bytes bytearray list tuple dict set frozenset sorted reversed min max
    sum zip enumerate iter next os.path.join os.path.expanduser os.path.splitext
    os.path.dirname os.fspath os.fsencode os.fsdecode urllib.parse.quote
    urllib.parse.unquote urllib.parse.unquote_plus urllib.parse.quote_plus
    urllib.parse.urlencode urllib.parse.urljoin urllib.parse.parse_qs urllib.parse.parse_qsl
    urllib.parse.urlparse base64.b64decode base64.b64encode base64.urlsafe_b64decode
    base64.urlsafe_b64encode base64.b32decode base64.b16decode binascii.unhexlify
    binascii.a2b_base64 codecs.decode codecs.encode json.loads json.dumps json.load
    textwrap.dedent textwrap.indent shlex.split copy.copy copy.deepcopy html.unescape
    typing.cast re.sub re.split re.findall string.Template markupsafe.Markup
    """
)
"""Library calls whose result is made of their arguments (no data of their own)."""
SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "csh", "tcsh", "fish", "cmd", "cmd.exe", "powershell"}
    | {"powershell.exe", "pwsh"}
)
TERMINATORS = frozenset(
    {"abort", "flask.abort", "bottle.abort", "sys.exit", "exit", "quit", "os._exit", "os.abort"}
)
"""Calls that never return: a branch ending in one does not reach the code after it."""

_ROUTE_DECOS = frozenset(
    {"route", "get", "post", "put", "patch", "delete", "head", "options", "api_route", "websocket"}
)
_FLASK_PARAM = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
_BRACE_PARAM = re.compile(r"\{(\w+)(?::(\w+))?\}")
_SAFE_CONVERTERS = frozenset({"int", "float", "uuid"})
_SAFE_TYPES = re.compile(
    r"^(?:int|float|bool|complex|UUID|uuid\.UUID|datetime|date|time|timedelta|Decimal|"
    r"datetime\.\w+|decimal\.Decimal|Literal\[.*\]|Optional\[(?:int|float|bool|UUID)\]|"
    r"(?:int|float|bool|UUID) \| None)$"
)
_DEPENDENCY = frozenset({"Depends", "Security", "fastapi.Depends", "fastapi.Security"})


def _routes(fdef: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    out: list[str] = []
    for deco in fdef.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        name = dotted(deco.func).rsplit(".", 1)[-1]
        if name not in _ROUTE_DECOS:
            continue
        args = [*deco.args[:1], *(k.value for k in deco.keywords if k.arg in ("rule", "path"))]
        for a in args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value[:1] == "/":
                out.append(a.value)
    return out


def _placeholders(routes: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for r in routes:
        for conv, name in _FLASK_PARAM.findall(r):
            found[name] = conv or "string"
        for name, conv in _BRACE_PARAM.findall(r):
            found[name] = conv or "str"
    return found


def _params(fdef: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    a = fdef.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


_WEB = re.compile(
    r"^(?:django|rest_framework|pyramid|flask|fastapi|starlette|aiohttp|tornado|bottle|sanic"
    r"|falcon|quart|werkzeug)\b"
)


def is_web(imports: Imports) -> bool:
    """Whether a file imports a web framework."""
    return any(_WEB.match(v) for v in imports.names.values())


def entry_params(
    fdef: ast.FunctionDef | ast.AsyncFunctionDef, method: bool, web: bool = True
) -> dict[str, Val] | None:
    """The values of a function's parameters when a web framework calls it, or None.

    Route handlers (Flask, FastAPI, Starlette, aiohttp, bottle): path placeholders and, for
    FastAPI-style handlers, every parameter not typed as a number or a dependency. Django-style
    views (first parameter ``request``, in a file that imports a web framework: ``web``): the
    URL parameters. AWS Lambda handlers: ``event``.
    """
    params = _params(fdef)
    if method and params and params[0].arg in ("self", "cls"):
        params = params[1:]
    if not params:
        return None
    routes = _routes(fdef)
    holes = _placeholders(routes)
    out: dict[str, Val] = {}
    view = web and (params[0].arg in ("request", "req") or _request_type(params[0]))
    lam = len(params) >= 2 and params[0].arg == "event" and params[1].arg == "context"
    if not (routes or view or lam):
        return None
    defaults = _defaults(fdef)
    for p in params:
        ann = ast.unparse(p.annotation) if p.annotation is not None else ""
        dflt = defaults.get(p.arg)
        if p.arg in ("request", "req") or _request_type(p):
            out[p.arg] = unknown(REQUEST)
        elif lam:
            out[p.arg] = tainted("Lambda event") if p.arg == "event" else unknown()
        elif p.arg in holes:
            safe = holes[p.arg] in _SAFE_CONVERTERS or _SAFE_TYPES.match(ann)
            out[p.arg] = constant() if safe else tainted(f"route parameter {p.arg!r}")
        elif dflt is not None and dotted(dflt.func if isinstance(dflt, ast.Call) else dflt) in (
            _DEPENDENCY
        ):
            out[p.arg] = unknown()
        elif _SAFE_TYPES.match(ann):
            out[p.arg] = constant()
        elif re.search(r"(?:Session|Connection|Depends|BackgroundTasks|Response)\b", ann):
            out[p.arg] = unknown()
        else:
            out[p.arg] = tainted(f"request parameter {p.arg!r}")
    return out


def request_param(p: ast.arg) -> bool:
    """A parameter that holds the web request (named ``request``/``req`` or typed Request)."""
    return p.arg in ("request", "req") or _request_type(p)


def _request_type(p: ast.arg) -> bool:
    return p.annotation is not None and bool(_REQUEST_TYPES.search(ast.unparse(p.annotation)))


def _defaults(fdef: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> dict[str, ast.expr]:
    a = fdef.args
    pos = [*a.posonlyargs, *a.args]
    out = {p.arg: d for p, d in zip(pos[len(pos) - len(a.defaults) :], a.defaults, strict=True)}
    out.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d})
    return out


def param_names(fdef: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    """Positional-or-keyword then keyword-only parameter names."""
    return [p.arg for p in _params(fdef)]


def defaults_of(fdef: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> dict[str, ast.expr]:
    """Each parameter's default expression."""
    return _defaults(fdef)
