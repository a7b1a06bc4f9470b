"""The local checks of Python code that claim a weakness class (CWE): secrets, injections,
unsafe deserialization, TLS verification, weak password hashes, path traversal."""

from __future__ import annotations

from humangr.contracts import LayerID

from . import security_code, security_text
from .base import Check

__all__ = ["SECURITY_CHECKS"]

L = LayerID
SECURITY_CHECKS: tuple[Check, ...] = (
    Check(
        L.HL4,
        "secret",
        "Hard-coded secrets: cloud keys, private keys, API tokens, credentials assigned to "
        "password/secret/token/api_key names; literal signing keys (SECRET_KEY, secret_key, JWT "
        "keys), passwords as defaults, arguments or in comparisons, and as the password of a "
        "login call (smtplib / imaplib / ftplib login, HTTPBasicAuth, auth=(user, password), "
        "LDAP simple_bind)",
        ("detect-secrets", "humangr"),
        "critical (keys, tokens, random-looking credentials); high (other credentials, signing "
        "keys, JWT, URL credentials); in test folders low (private keys, passwords, fake-looking "
        "provider keys) or high (live-looking provider keys)",
        security_text.secrets,
        claim="hard-coded credentials (CWE-798)",
        limits="secrets assembled at run time or split across lines; secrets in binary files; keys "
        "without a known prefix stored under neutral names",
    ),
    Check(
        L.HL4,
        "shell-injection",
        "Commands run through a shell (shell=True, os.system, os.popen, "
        'asyncio.create_subprocess_shell, loop.subprocess_shell, ["sh", "-c", ...] argument '
        "lists also through asyncio.create_subprocess_exec, os.spawn* / os.exec*, pty.spawn), "
        "remote and "
        "wrapped shells (paramiko exec_command, fabric / invoke Connection and task Context run"
        " / sudo / local, fabric.api run / sudo / local, asyncssh run), commands decoded at run"
        " time, and programs chosen by request input; also through aliases, getattr(os, "
        '"system"), __import__ / importlib.import_module("os") and sys.modules["os"]',
        ("humangr",),
        "critical (request input reaches the command), high (command of unknown origin, or "
        "decoded at run time; medium in test folders), low (constant or sanitized local "
        "command; nothing for a constant remote command)",
        security_code.shell_injection,
        claim=("OS command injection (CWE-78)"),
        limits=(
            'argument injection into a fixed program (["git", arg]); the sh library and other '
            "wrappers not listed; fabric / paramiko objects the code does not show being made, "
            "annotated or handed to a task; callables kept in attributes set by another method "
            "(self.run = os.system); input read from files or databases; input validated by "
            "a compiled pattern (PATTERN.fullmatch(x)) is trusted whatever the pattern allows"
        ),
    ),
    Check(
        L.HL4,
        "deserialization",
        "pickle / _pickle / cPickle / dill / cloudpickle / marshal / jsonpickle loads, "
        "pickle.Unpickler, shelve.open, yaml.load and load_all without a safe loader (Loader, "
        "UnsafeLoader, FullLoader), yaml.unsafe_load / full_load, ruamel.yaml "
        "YAML(typ='unsafe').load; also through aliases, `from "
        '_pickle import loads as x`, getattr(pickle, "loads") and __import__("pickle")',
        ("humangr",),
        "critical (request input), high (data of unknown origin; medium in test folders); "
        "nothing for constants, data the code pickled itself or verified with "
        "hmac.compare_digest",
        security_code.deserialization,
        claim=("deserialization of untrusted data (CWE-502)"),
        limits=(
            "model loaders (torch.load, joblib.load, numpy.load, pandas.read_pickle) unless fed"
            " request input; custom Unpickler subclasses; XML entities (XXE)"
        ),
    ),
    Check(
        L.HL4,
        "sql-injection",
        "SQL text reaching execute / executemany / executescript / mogrify of any cursor or "
        "connection (sqlite3, psycopg2, psycopg 3, aiopg, pymysql, Django's "
        "connection.cursor()), SQLAlchemy text / exec_driver_sql / Session.execute of a string,"
        " Django raw / extra / RawSQL, psycopg2 sql.SQL, pandas.read_sql, pg8000.native "
        "Connection.run, asyncpg fetch / fetchrow / fetchval / execute on a connection or pool "
        "the code makes or annotates, and query helpers named so",
        ("humangr",),
        "critical (request input), high (built by f-string, %, .format or + from values of "
        "unknown origin; medium in test folders); nothing for constants, bound parameters, "
        "int() values and allow-listed names",
        security_code.sql_injection,
        claim=("SQL injection (CWE-89)"),
        limits=(
            "SQL executed through a wrapper whose name says neither query, sql, fetch nor "
            "execute; raw SQL inside ORM expressions other than raw / extra / RawSQL; drivers "
            "reached through objects of unknown type with generic method names (run); NoSQL "
            "injection"
        ),
    ),
    Check(
        L.HL4,
        "eval-exec",
        "eval / exec of non-constant code (also through aliases such as e = eval, "
        'getattr(builtins, "exec"), getattr(__builtins__, "eval"), '
        '__import__("builtins").exec); eval / exec of a payload decoded at run time (base64, '
        "codecs rot13, bytes.fromhex, binascii, zlib / bz2 / lzma / gzip, marshal.loads) even "
        "when constant; importlib.import_module / __import__ / runpy.run_path / run_module of a"
        ' name from request input; Python source run by an interpreter ([sys.executable, "-c", '
        "code], python -m, a script path from request input), code.InteractiveInterpreter / "
        "InteractiveConsole, sub-interpreters (concurrent.interpreters exec, _interpreters / "
        "_xxsubinterpreters run_string); sinks called through partial, run_in_executor, "
        "to_thread, executor.submit, Thread(target=...) and map; templates "
        "(render_template_string, jinja2 Template, Environment.from_string) built from request "
        "input",
        ("humangr",),
        "critical (request input; a decoded payload), high (code of unknown origin; medium in "
        "test folders); nothing for constant code",
        security_code.eval_exec,
        claim=("code injection (CWE-94/95), server-side template injection (CWE-1336)"),
        limits=(
            "imports of names of unknown origin (plugin loaders: not reported); code run "
            "through compile() + types.FunctionType or ctypes; callables kept in attributes set"
            " by another method; templates built from data of unknown origin"
        ),
    ),
    Check(
        L.HL4,
        "tls-verification",
        "verify=False (also through a constant or a **options mapping), session.verify = "
        "False, unverified SSL "
        "context, CERT_NONE / cert_reqs='CERT_NONE', VERIFY_NONE, check_hostname=False, aiohttp "
        "ssl=False, paramiko AutoAddPolicy, rejectUnauthorized: false, curl -k; in other "
        "languages InsecureSkipVerify, danger_accept_invalid_certs, a certificate callback "
        "returning true, CURLOPT_SSL_VERIFYPEER off, an empty checkServerTrusted, trust-all "
        "managers",
        ("bandit", "humangr"),
        "high; low in test folders",
        security_text.tls_verification,
        claim="improper certificate validation (CWE-295)",
        limits="verification switched off by configuration read at run time; verify callbacks that "
        "accept every certificate",
    ),
    Check(
        L.HL4,
        "weak-password-hash",
        "md5 / sha1 of a password or token (by its name, a request field, hashlib.new + update,"
        " the digest stored as a password or written to a password file); one fast sha2 / sha3 "
        "/ blake2 round of a password (a KDF belongs there); PBKDF2 with fewer than 100,000 "
        "iterations (hashlib.pbkdf2_hmac, cryptography PBKDF2HMAC, PyCryptodome PBKDF2 and its "
        "default of 1,000); bcrypt.gensalt(rounds < 10); passlib pbkdf2_* / bcrypt with rounds "
        "below those (.using(rounds=...), CryptContext <scheme>__rounds); passlib schemes "
        "documented as insecure (md5_crypt, des_crypt, hex_*, ldap_md5 / sha1, nthash, mysql41,"
        " ...) used to hash or as a CryptContext's default; crypt.crypt with a DES or "
        "MD5-crypt salt",
        ("humangr",),
        "high (md5, sha1, a password's fast hash, weak KDF settings); low in test folders; "
        "nothing for a random token's or key's sha2 digest (how tokens are stored) or with "
        "usedforsecurity=False",
        security_code.weak_password_hash,
        claim=("weak hashing of passwords and tokens (CWE-328, CWE-916)"),
        limits=(
            "md5 / sha1 for other security uses (signatures, certificate pinning, download "
            "integrity); passwords held in neutrally named variables; a fast hash fed a "
            "password through update(); iteration counts read at run time"
        ),
    ),
    Check(
        L.HL4,
        "path-traversal",
        "open / aiofiles.open / send_file / FileResponse / os.remove / os.walk / os.access / "
        "glob / shutil / pathlib (read, write, exists, stat, glob, ...) / os.path.exists / an "
        "upload's .save() of request input; paths built from archive member names (zip slip: "
        "ZipFile.infolist / namelist, TarFile.getmembers / getnames); tar archives and "
        "shutil.unpack_archive extracted without a filter or a member check (tar slip)",
        ("humangr",),
        "high; nothing after secure_filename, basename, safe_join, realpath / abspath / resolve"
        " with a startswith / commonpath / is_relative_to check, a '..' check (also on "
        "name.split('/') and path.parts), a containment helper (is_within_directory, "
        "is_safe_path, ... doing such a check when the diff defines it), or an allow-list",
        security_code.path_traversal,
        claim=("path traversal (CWE-22)"),
        limits=(
            "paths from parameters of code that is not a web handler (unknown origin is not "
            "reported); zipfile.extractall (Python strips .. itself); containment helpers named"
            " otherwise; symlink races"
        ),
    ),
)
"""The checks with a ``claim`` on Python code, in the order they run (part of ``CHECKS``)."""
