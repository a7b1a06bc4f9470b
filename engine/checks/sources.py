"""What the taint engine knows about names: imports, request input, sanitizers, pure calls.

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

from .flow import CRED, PASSWD, PATH, SHELL, SQL
from .pynames import dotted

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
    "cred_tags",
    "is_cred_name",
    "is_request_name",
    "is_self_input",
    "names",
    "norm",
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


def norm(name: str) -> str:
    """``name`` with module synonyms resolved (``cPickle.loads`` -> ``pickle.loads``)."""
    return _norm(name)


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
    query_string referrer user_agent host host_url authorization origin rel_url raw_path path_qs
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


_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pw", "pass", "passphrase", "passcode"})


def cred_tags(name: object) -> int:
    """``CRED`` for a name of a password, token or secret, with ``PASSWD`` for a password."""
    if not is_cred_name(name):
        return 0
    assert isinstance(name, str)
    words = {w.lower() for w in _WORD.findall(name)}
    return CRED | (PASSWD if words & _PASSWORD_WORDS else 0)


FULL_SANITIZERS = names(
    """
    int float bool len abs round ord hash id complex uuid.UUID decimal.Decimal
    ipaddress.ip_address ipaddress.ip_network math.floor math.ceil isinstance callable
    os.getpid os.getppid os.getuid os.getgid os.cpu_count time.time time.monotonic
    uuid.uuid3 uuid.uuid5 uuid.uuid4 uuid.uuid1
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
    "io.BytesIO": (PATH,),  # an in-memory file: never a path (its data stays what it was)
    "io.StringIO": (PATH,),
    "psycopg2.sql.Identifier": (SQL,),
    "psycopg2.sql.Literal": (SQL,),
    "psycopg.sql.Identifier": (SQL,),
    "psycopg.sql.Literal": (SQL,),
    "sql.Identifier": (SQL,),
    "sql.Literal": (SQL,),
    "psycopg2.extensions.quote_ident": (SQL,),
    "pymysql.converters.escape_string": (SQL,),
    "MySQLdb.escape_string": (SQL,),
    "MySQLdb._mysql.escape_string": (SQL,),
    "pymysql.escape_string": (SQL,),
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
    typing.cast re.sub re.split re.findall string.Template markupsafe.Markup compile
    builtins.compile
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
