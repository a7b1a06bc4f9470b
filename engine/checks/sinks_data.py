"""Sinks of data: deserialization, file paths (and tar archives), password hashing, JWT keys
and TLS switches."""

from __future__ import annotations

import ast
import re

from humangr.contracts import Severity

from .flow import (
    ARCHIVE,
    CONST,
    CRED,
    PASSWD,
    PATH,
    PATHOBJ,
    SAFELOADER,
    TAINTED,
    WEAKHASH,
    Val,
    constant,
    level,
)
from .libtypes import RUAMEL_LOADS, lib_kind
from .sink_util import Site, arg, detail, flow_severity
from .sinks_kdf import kdf_sinks
from .sources import is_cred_name, names

__all__ = ["data_sinks", "hash_result", "weak_hash_stored"]

_DESER = frozenset(
    {"pickle.loads", "pickle.load", "pickle.Unpickler", "marshal.loads", "marshal.load"}
    | {"jsonpickle.decode", "jsonpickle.loads", "yaml.unsafe_load", "yaml.unsafe_load_all"}
    | {"yaml.full_load", "yaml.full_load_all", "shelve.open", "shelve.DbfilenameShelf"}
    | {"pickle._loads", "pickle._load", "pickle._Unpickler", "jsonpickle.unpickler.decode"}
)
_DESER_FILES = frozenset({"pandas.read_pickle", "joblib.load", "torch.load", "numpy.load"})


def _deser(
    it: Site,
    e: ast.Call,
    canon: str,
    method: str | None,
    args: list[Val],
    kw: dict[str, Val],
    recv: Val | None,
) -> None:
    data = arg(args, kw, 0, "data", "stream", "file", "s", "filename", "f")
    if data is None:
        return
    ruamel = lib_kind(recv.cls) if recv is not None else None
    if method in RUAMEL_LOADS and ruamel in ("ruamel-safe", "ruamel-unsafe"):
        if ruamel == "ruamel-safe":  # YAML() / YAML(typ="safe"): no arbitrary objects
            return
        canon = f"ruamel.yaml.YAML(typ='unsafe').{method}"
    elif canon in ("yaml.load", "yaml.load_all"):
        loader = arg(args, kw, 1, "Loader")
        if loader is not None and loader.tags & SAFELOADER:
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
    sev = flow_severity(flow, Severity.CRITICAL, Severity.HIGH, None)
    title = (
        "Deserialization of request input (remote code execution)"
        if flow == TAINTED
        else "Unsafe deserialization of possibly untrusted data"
    )
    if sev is not None:
        it.report("deserialization", e, sev, title, detail(data, 3, canon), flow, data.src)


def _true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


_FILE_ARGS: dict[str, tuple[int, ...]] = dict.fromkeys(
    names(
        """
        open io.open codecs.open builtins.open aiofiles.open os.open flask.send_file send_file
        flask.send_from_directory send_from_directory starlette.responses.FileResponse
        fastapi.responses.FileResponse FileResponse os.remove os.unlink os.rmdir os.removedirs
        os.listdir os.scandir os.makedirs os.mkdir os.chmod os.chown os.truncate os.readlink
        shutil.rmtree io.FileIO aiofiles.os.remove os.path.exists os.path.isfile
        os.path.getsize os.stat tarfile.open zipfile.ZipFile os.walk os.fwalk os.access
        os.lstat os.utime os.lchown os.mkfifo os.path.isdir os.path.islink os.path.lexists
        os.path.getmtime os.path.getatime os.path.getctime glob.glob glob.iglob shutil.chown
        shutil.disk_usage aiofiles.os.stat aiofiles.os.rename aiofiles.os.rmdir
        aiofiles.os.mkdir aiofiles.os.listdir aiofiles.os.unlink fileinput.input
        fileinput.FileInput
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
    replace symlink_to hardlink_to exists is_file is_dir stat lstat chmod lchmod glob rglob
    readlink walk owner group
    """
)


def _path(
    it: Site,
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
            for n in (
                "file",
                "path",
                "path_or_file",
                "filename",
                "directory",
                "src",
                "dst",
                "files",
            )
            if n in kw
        ]
    elif recv is not None and recv.tags & PATHOBJ and method in _PATH_METHODS:
        values = [recv]
    elif method == "save" and recv is not None and (args or "dst" in kw):
        values = [args[0] if args else kw["dst"]]
    elif recv is not None and recv.tags & ARCHIVE and method in ("extractall", "extract"):
        _tar(it, e, recv, kw)
        return
    elif canon == "shutil.unpack_archive":
        archive = arg(args, kw, 0, "filename")
        if archive is not None:
            _tar(it, e, archive, kw)
        values = [args[1]] if len(args) > 1 else [kw["extract_dir"]] if "extract_dir" in kw else []
    for v in values:
        if level(v, PATH) == TAINTED:
            sink = canon if canon in _FILE_ARGS else f".{method}()"
            it.report(
                "path-traversal",
                e,
                Severity.HIGH,
                "File path built from request input (path traversal)",
                detail(v, PATH, sink),
                TAINTED,
                v.src,
            )
            return


def _tar(it: Site, e: ast.Call, archive: Val, kw: dict[str, Val]) -> None:
    """tarfile extraction without a filter: member names like ``../x`` escape the target."""
    if "filter" in kw or "members" in kw or level(archive, PATH) == CONST or it.path_checked:
        return
    it.report(
        "path-traversal",
        e,
        Severity.HIGH,
        "Archive extracted without checking its member paths (tar slip)",
        detail(archive, PATH, "tarfile extraction")
        + " Member names such as ../../x are written outside the target directory.",
        level(archive, PATH),
        archive.src,
    )


_WEAK = frozenset({"md5", "sha1", "md4", "md2", "sha", "md5-sha1", "md5_sha1"})
_FAST = frozenset(
    {"sha224", "sha256", "sha384", "sha512", "blake2b", "blake2s", "sha3_224", "sha3_256"}
    | {"sha3_384", "sha3_512", "sha512_224", "sha512_256"}
)
_HASH_FIX_TITLE = ("Weak password hashing (md5/sha1)", "Fast hash of a password (no KDF)")


def _algo(canon: str, args: list[Val], kw: dict[str, Val]) -> str | None:
    parts = canon.split(".")
    last = parts[-1].lower()
    if parts[0] == "hashlib" or len(parts) == 1:
        if last == "new":
            name = arg(args, kw, 0, "name")
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
    it: Site,
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
    if method in ("write", "writelines") and recv is not None and recv.tags & CRED:
        for v in args:
            if v.tags & WEAKHASH and v.node is not None:
                _weak_hit(it, v.node, "its digest is written to a password or token store")
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
            Severity.HIGH,
            _HASH_FIX_TITLE[1],
            f"One round of {algo} is too fast for passwords: use a password KDF (argon2, "
            "bcrypt, scrypt, PBKDF2 with enough iterations).",
            CONST,
        )


def _password_context(it: Site, args: list[Val]) -> bool:
    """A password (not a random token or key, whose one sha2 round is how tokens are stored)
    is hashed: a password-named argument or function."""
    return bool(re.search(r"(?i)pass|pwd", it.context)) or any(a.tags & PASSWD for a in args)


def _weak_hit(it: Site, node: ast.AST, why: str) -> None:
    it.report(
        "weak-password-hash", node, Severity.HIGH, _HASH_FIX_TITLE[0], f"md5/sha1: {why}.", CONST
    )


def weak_hash_stored(it: Site, node: ast.AST, name: str) -> None:
    """An md5/sha1 result stored as a password, token or secret."""
    _weak_hit(it, node, f"its result is stored as {name!r}")


_JWT = {"jwt.encode": 1, "jwt.decode": 1, "jose.jwt.encode": 1, "jose.jwt.decode": 1}


def _jwt(
    it: Site, e: ast.Call, canon: str, method: str | None, args: list[Val], kw: dict[str, Val]
) -> None:
    if canon not in _JWT:
        return
    key = arg(args, kw, _JWT[canon], "key", "secret")
    if key is None or not isinstance(key.const, str | bytes) or not key.const:
        return
    text = key.const if isinstance(key.const, str) else key.const.decode("latin-1")
    if text.startswith(("-----BEGIN PUBLIC", "-----BEGIN CERTIFICATE", "ssh-")):
        return
    it.report(
        "secret",
        e,
        Severity.HIGH,
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


def _tls(it: Site, e: ast.Call, canon: str, method: str | None, kw: dict[str, Val]) -> None:
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
                Severity.HIGH,
                "TLS certificate verification disabled",
                f"{name}={v.const!r} turns certificate verification off.",
                CONST,
            )
            return


def data_sinks(
    it: Site,
    e: ast.Call,
    canon: str,
    method: str | None,
    recv: Val | None,
    args: list[Val],
    kw: dict[str, Val],
) -> None:
    """Report the data sinks a call reaches."""
    _deser(it, e, canon, method, args, kw, recv)
    _path(it, e, canon, method, args, kw, recv)
    _hash(it, e, canon, method, args, kw, recv)
    kdf_sinks(it, e, canon, args, kw)
    _jwt(it, e, canon, method, args, kw)
    if kw:
        _tls(it, e, canon, method, kw)
