"""Hard-coded secrets the line scanners miss, found on the AST of Python fragments.

- a literal signing key: ``SECRET_KEY = "..."`` (Django, Flask), ``app.secret_key = "..."``,
  ``app.config["SECRET_KEY"] = "..."``, ``JWT_SECRET``, tornado's ``cookie_secret``, in
  assignments, dict literals and keyword arguments — even short or simple values;
- a password or token as a parameter's default value (``def connect(password="hunter2")``),
  as a keyword argument (``connect(password="root")``), as the password argument of a login
  call (``smtp.login("ops", "...")``, ``HTTPBasicAuth("u", "...")``, ``auth=("u", "...")``)
  or compared with a literal (``if password == "admin":``).

Pure helpers shared with the line scanner (``looks_random``, ``name_like``) live here so that
this module does not import detect-secrets.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["AstSecret", "ast_secrets", "looks_random", "name_like"]

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SIGNING = frozenset(
    {
        ("secret", "key"),
        ("jwt", "secret"),
        ("jwt", "key"),
        ("signing", "key"),
        ("session", "secret"),
        ("cookie", "secret"),
        ("app", "secret"),
        ("token", "secret"),
        ("hmac", "secret"),
        ("hmac", "key"),
    }
)
_PASSWORD_LAST = frozenset({"password", "passwd", "pwd", "pass", "passphrase", "secret", "apikey"})
_PLACEHOLDER = re.compile(
    r"(?i)^(?:|\s+|x+|\*+|\.+|-+|#+|<[^>]*>|\{\{.*\}\}|\$\{?[\w.]*\}?|%\([^)]*\)s|%s|\{\w*\}"
    r"|your[\w-]*|redacted|placeholder|none|null|nil|undefined|"
    r"(?:os\.)?environ.*|getenv.*|env\..*)$"
)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_CHUNK = re.compile(r"[A-Za-z]+\d{0,2}|\d{1,4}")


def _entropy(s: str) -> float:
    counts = Counter(s)
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_random(value: str) -> bool:
    """A credential-like value: long, varied characters, high Shannon entropy."""
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    return len(value) >= 8 and classes >= 2 and _entropy(value) >= 3.0


def name_like(value: str) -> bool:
    """Identifiers, env var names, paths, URLs and URNs: names of secrets, not secrets."""
    if value.startswith(("/", "./", "../", "~/")) or "://" in value or _ENV_NAME.fullmatch(value):
        return True
    chunks = [c for c in re.split(r"[-_.:/ ]+", value) if c]
    if len(chunks) < 2:
        return False
    if all(c.isalpha() for c in chunks):
        return True
    structured = len(chunks) >= 3 or "/" in value or ":" in value
    return structured and all(_CHUNK.fullmatch(c) for c in chunks)


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(name[:80])]


def signing_key_name(name: object) -> bool:
    """``SECRET_KEY``, ``secret_key``, ``JWT_SECRET``, ``cookie_secret``, ``signing_key``, ..."""
    if not isinstance(name, str):
        return False
    words = _words(name)
    return any(p in _SIGNING for p in itertools.pairwise(words))


def password_name(name: str, *, token: bool = False) -> bool:
    """A name for a password or secret (by its last word); ``token`` names too when asked."""
    words = _words(name)
    if not words:
        return False
    last = words[-1]
    pair = tuple(words[-2:]) in (("api", "key"), ("secret", "key"))
    return last in _PASSWORD_LAST or pair or (token and last == "token")


@dataclass(frozen=True, slots=True)
class AstSecret:
    node: ast.AST
    kind: str
    random: bool


def _literal(node: ast.expr | None) -> str | None:
    """A literal secret: any text but placeholders, environment variable names, paths, URLs
    and text with spaces (messages, not keys)."""
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str | bytes):
        return None
    value = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
    if _PLACEHOLDER.match(value) or _ENV_NAME.fullmatch(value):
        return None
    if any(c.isspace() for c in value):
        return None
    reference = value.startswith(("/", "./", "~/")) or "://" in value
    return None if reference else value


def _target_names(t: ast.expr) -> Iterator[object]:
    if isinstance(t, ast.Name):
        yield t.id
    elif isinstance(t, ast.Attribute):
        yield t.attr
    elif isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant):
        yield t.slice.value
    elif isinstance(t, ast.Tuple | ast.List):
        for e in t.elts:
            yield from _target_names(e)


def ast_secrets(nodes: tuple[ast.AST, ...]) -> Iterator[AstSecret]:
    """Literal signing keys, and passwords as defaults, arguments or in comparisons."""
    for node in nodes:
        pairs: list[tuple[object, ast.expr | None, str]] = []
        if isinstance(node, ast.Assign):
            pairs = [(n, node.value, "signing") for t in node.targets for n in _target_names(t)]
        elif isinstance(node, ast.AnnAssign):
            pairs = [(n, node.value, "signing") for n in _target_names(node.target)]
        elif isinstance(node, ast.Dict):
            pairs = [
                (k.value, v, "signing")
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant)
            ]
        elif isinstance(node, ast.Call):
            pairs = [(k.arg, k.value, "signing") for k in node.keywords if k.arg]
            pairs += [(k.arg, k.value, "argument") for k in node.keywords if k.arg]
            pairs += _positional_password(node)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], ast.Eq | ast.NotEq):
                sides = (node.left, node.comparators[0])
                pairs = [
                    (n, other, "compare")
                    for side, other in (sides, sides[::-1])
                    for n in _target_names(side)
                ]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = node.args
            pos = [*a.posonlyargs, *a.args]
            pairs = [
                (p.arg, d, "default")
                for p, d in zip(pos[len(pos) - len(a.defaults) :], a.defaults, strict=True)
            ]
            pairs += [
                (p.arg, d, "default") for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
            ]
        for name, value, kind in pairs:
            if kind == "signing":
                ok = signing_key_name(name)
            elif kind == "compare":
                ok = password_name(str(name))
            else:
                ok = password_name(str(name)) or (
                    password_name(str(name), token=True) and _random_literal(value)
                )
            literal = _literal(value) if ok else None
            if literal is not None and value is not None:
                yield AstSecret(value, kind, looks_random(literal))


_PASSWORD_AT = {
    "login": 1,  # smtplib / imaplib / ftplib / poplib: login(user, password)
    "HTTPBasicAuth": 1,
    "HTTPDigestAuth": 1,
    "HTTPProxyAuth": 1,
    "BasicAuth": 1,  # aiohttp.BasicAuth(login, password)
    "DigestAuth": 1,  # httpx.DigestAuth(username, password)
    "simple_bind_s": 1,  # python-ldap: simple_bind_s(who, cred)
    "simple_bind": 1,
    "bind_s": 1,
}
"""Calls whose password is a positional argument (by the callee's last name: its index)."""


def _positional_password(node: ast.Call) -> list[tuple[object, ast.expr | None, str]]:
    """``smtp.login("ops", "s3cret")``, ``HTTPBasicAuth("u", "p")`` and ``auth=("u", "p")``:
    the password passed by position, named ``password`` for the checks that follow."""
    out: list[tuple[object, ast.expr | None, str]] = []
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    at = _PASSWORD_AT.get(name) if isinstance(name, str) else None
    if (
        at is not None
        and len(node.args) > at
        and not any(isinstance(a, ast.Starred) for a in node.args[: at + 1])
    ):
        out.append(("password", node.args[at], "argument"))
    for k in node.keywords:
        if k.arg == "auth" and isinstance(k.value, ast.Tuple) and len(k.value.elts) == 2:
            out.append(("password", k.value.elts[1], "argument"))
    return out


def _random_literal(node: ast.expr | None) -> bool:
    """A literal that looks like a generated key (tokens are flagged only then)."""
    return (
        isinstance(node, ast.Constant) and isinstance(node.value, str) and looks_random(node.value)
    )
