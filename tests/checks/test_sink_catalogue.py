"""The library sink catalogue (issue 26): each library's sink with a flagged and a safe
variant, dynamic forms of the sinks, receivers known by type, and the unknown-origin policy."""

from __future__ import annotations

import pytest
from checks_helpers import new_file, rule

from humangr.contracts import LayerID, Severity

HL4 = LayerID.HL4
S = Severity


def found(check: str, source: str, path: str = "app/mod.py") -> list[tuple[int | None, Severity]]:
    return [(f.line, f.severity) for f in rule(new_file(path, source), HL4, check)]


def blocks(check: str, source: str, path: str = "app/mod.py") -> bool:
    return any(sev >= S.HIGH for _, sev in found(check, source, path))


FLASK = "from flask import request\n"

# (check, flagged source, safe source): the flagged one blocks, the safe one does not
PAIRS = [
    pytest.param(
        "sql-injection",
        FLASK + "from django.db import connection\ndef v():\n    with connection.cursor() as c:\n"
        "        c.execute(\"SELECT * FROM t WHERE a = '%s'\" % request.args['a'])\n",
        FLASK + "from django.db import connection\ndef v():\n    with connection.cursor() as c:\n"
        "        c.execute('SELECT * FROM t WHERE a = %s', [request.args['a']])\n",
        id="django cursor.execute",
    ),
    pytest.param(
        "sql-injection",
        FLASK + "def v(engine):\n    with engine.connect() as conn:\n"
        "        conn.exec_driver_sql(f\"DELETE FROM t WHERE id = '{request.args['i']}'\")\n",
        FLASK + "def v(engine):\n    with engine.connect() as conn:\n"
        "        conn.exec_driver_sql('DELETE FROM t WHERE id = %(i)s',\n"
        "                             {'i': request.args['i']})\n",
        id="sqlalchemy exec_driver_sql",
    ),
    pytest.param(
        "sql-injection",
        "import pg8000.native\ndef f(sku):\n    con = pg8000.native.Connection('app')\n"
        '    return con.run("SELECT * FROM s WHERE sku = \'" + sku + "\'")\n',
        "import pg8000.native\ndef f(sku):\n    con = pg8000.native.Connection('app')\n"
        "    return con.run('SELECT * FROM s WHERE sku = :sku', sku=sku)\n",
        id="pg8000 native run (typed receiver)",
    ),
    pytest.param(
        "sql-injection",
        "import asyncpg\nasync def f(conn: asyncpg.Connection, table):\n"
        "    return await conn.fetch('SELECT * FROM ' + table)\n",
        "import asyncpg\nasync def f(conn: asyncpg.Connection, name):\n"
        "    return await conn.fetch('SELECT * FROM t WHERE name = $1', name)\n",
        id="asyncpg fetch (annotated receiver)",
    ),
    pytest.param(
        "eval-exec",
        "import subprocess, sys\ndef f(code):\n    subprocess.run([sys.executable, '-c', code])\n",
        "import subprocess, sys\ndef f(pkg):\n"
        "    subprocess.run([sys.executable, '-m', 'pip', 'install', pkg])\n",
        id="python -c of code of unknown origin",
    ),
    pytest.param(
        "eval-exec",
        FLASK + "import code\ndef f():\n"
        "    code.InteractiveInterpreter().runsource(request.form['src'])\n",
        FLASK + "import code\ndef f():\n    code.InteractiveInterpreter().runsource('1 + 1')\n",
        id="code.InteractiveInterpreter.runsource",
    ),
    pytest.param(
        "eval-exec",
        "from concurrent import interpreters\ndef f(src):\n    interpreters.create().exec(src)\n",
        "from concurrent import interpreters\ndef f():\n"
        "    interpreters.create().exec('print(1)')\n",
        id="sub-interpreter exec",
    ),
    pytest.param(
        "shell-injection",
        FLASK + "import paramiko\ndef f():\n    c = paramiko.SSHClient()\n"
        "    c.exec_command('cat /logs/' + request.args['f'])\n",
        FLASK + "import paramiko\ndef f():\n    c = paramiko.SSHClient()\n"
        "    c.exec_command('uptime')\n",
        id="paramiko exec_command",
    ),
    pytest.param(
        "shell-injection",
        "from fabric import Connection\ndef f(c: Connection, svc):\n"
        "    c.sudo(f'systemctl restart {svc}')\n",
        "from fabric import Connection\ndef f(c: Connection):\n"
        "    c.sudo('systemctl restart web')\n",
        id="fabric sudo (annotated)",
    ),
    pytest.param(
        "shell-injection",
        "from invoke import task\n@task\ndef build(c, target):\n    c.run(f'make {target}')\n",
        "from invoke import task\n@task\ndef build(c):\n    c.run('make all')\n",
        id="invoke task context run",
    ),
    pytest.param(
        "shell-injection",
        "import asyncio\nasync def f(host):\n"
        "    await asyncio.create_subprocess_exec('sh', '-c', 'ping ' + host)\n",
        "import asyncio\nasync def f(host):\n"
        "    await asyncio.create_subprocess_exec('ping', '-c', '1', host)\n",
        id="create_subprocess_exec with a shell",
    ),
    pytest.param(
        "deserialization",
        FLASK + "import marshal\ndef f():\n    return marshal.loads(request.data)\n",
        "import marshal\ndef f(code):\n    return marshal.dumps(code)\n",
        id="marshal",
    ),
    pytest.param(
        "deserialization",
        "import yaml\ndef f(s):\n    return yaml.load(s, Loader=yaml.UnsafeLoader)\n",
        "import yaml\ndef f(s):\n    return yaml.load(s, Loader=yaml.CSafeLoader)\n",
        id="yaml UnsafeLoader",
    ),
    pytest.param(
        "weak-password-hash",
        "import hashlib\ndef f(password, salt):\n"
        "    return hashlib.pbkdf2_hmac('sha256', password.encode(), salt, 1000)\n",
        "import hashlib\ndef f(password, salt):\n"
        "    return hashlib.pbkdf2_hmac('sha256', password.encode(), salt, 600_000)\n",
        id="pbkdf2 iterations",
    ),
    pytest.param(
        "weak-password-hash",
        "import bcrypt\ndef f(pw):\n    return bcrypt.hashpw(pw, bcrypt.gensalt(rounds=5))\n",
        "import bcrypt\ndef f(pw):\n    return bcrypt.hashpw(pw, bcrypt.gensalt())\n",
        id="bcrypt cost",
    ),
    pytest.param(
        "weak-password-hash",
        "from passlib.hash import ldap_md5\ndef f(pw):\n    return ldap_md5.hash(pw)\n",
        "from passlib.hash import argon2\ndef f(pw):\n    return argon2.hash(pw)\n",
        id="passlib scheme",
    ),
    pytest.param(
        "weak-password-hash",
        "from passlib.context import CryptContext\nctx = CryptContext(schemes=['md5_crypt'])\n",
        "from passlib.context import CryptContext\n"
        "ctx = CryptContext(schemes=['bcrypt', 'md5_crypt'], deprecated='auto')\n",
        id="passlib CryptContext default scheme",
    ),
    pytest.param(
        "weak-password-hash",
        "from passlib.hash import pbkdf2_sha256\nh = pbkdf2_sha256.using(rounds=1000)\n"
        "from passlib.context import CryptContext\n"
        "ctx = CryptContext(schemes=['bcrypt'], bcrypt__rounds=4)\n",
        "from passlib.hash import pbkdf2_sha256\nh = pbkdf2_sha256.using(rounds=600_000)\n"
        "from passlib.context import CryptContext\n"
        "ctx = CryptContext(schemes=['bcrypt'], bcrypt__rounds=13)\n",
        id="passlib rounds",
    ),
    pytest.param(
        "weak-password-hash",
        "import hashlib\ndef f(user_password):\n"
        "    return hashlib.sha256(user_password.encode()).hexdigest()\n",
        "import hashlib\ndef f(api_token):\n"
        "    return hashlib.sha256(api_token.encode()).hexdigest()\n",
        id="fast hash of a password, not of a token",
    ),
    pytest.param(
        "path-traversal",
        "import os, zipfile\ndef f(p, d):\n    z = zipfile.ZipFile(p)\n    for n in z.namelist():\n"
        "        open(os.path.join(d, n), 'wb').write(z.read(n))\n",
        "import os, zipfile\ndef f(p, d):\n    z = zipfile.ZipFile(p)\n    z.extractall(d)\n"
        "    for n in z.namelist():\n"
        "        open(os.path.join(d, os.path.basename(n)), 'wb').write(z.read(n))\n",
        id="zip member names (zip slip)",
    ),
    pytest.param(
        "path-traversal",
        "import shutil\ndef f(upload):\n    shutil.unpack_archive(upload, '/srv/x')\n",
        "import shutil\ndef f(upload):\n"
        "    shutil.unpack_archive(upload, '/srv/x', filter='data')\n",
        id="shutil.unpack_archive without a filter",
    ),
    pytest.param(
        "path-traversal",
        FLASK + "import os\ndef f():\n    return list(os.walk(request.args['d']))\n",
        FLASK
        + "import os\ndef f():\n    return list(os.walk(os.path.basename(request.args['d'])))\n",
        id="os.walk",
    ),
]


@pytest.mark.parametrize(("check", "flagged", "safe"), PAIRS)
def test_catalogue_pair(check: str, flagged: str, safe: str) -> None:
    assert blocks(check, flagged), f"not flagged:\n{flagged}"
    assert not blocks(check, safe), f"false alarm:\n{safe}"


DYNAMIC = [
    pytest.param("eval-exec", FLASK + "e = eval\ndef f():\n    e(request.args['x'])\n", id="alias"),
    pytest.param(
        "eval-exec", "def f(code):\n    run = exec\n    run(code)\n", id="local alias of exec"
    ),
    pytest.param(
        "shell-injection",
        FLASK + "def f():\n    __import__('os').system('ls ' + request.args['d'])\n",
        id="__import__('os').system",
    ),
    pytest.param(
        "shell-injection",
        "import os\ndef f(cmd):\n    getattr(os, 'system')(cmd)\n",
        id="getattr(os, 'system')",
    ),
    pytest.param(
        "shell-injection",
        "import importlib\ndef f(cmd):\n"
        "    importlib.import_module('subprocess').run(cmd, shell=True)\n",
        id="importlib.import_module('subprocess')",
    ),
    pytest.param(
        "eval-exec",
        "def f(code):\n    getattr(__builtins__, 'eval')(code)\n",
        id="getattr(__builtins__, 'eval')",
    ),
    pytest.param(
        "eval-exec",
        FLASK + "import importlib\ndef f():\n    importlib.import_module(request.args['m'])\n",
        id="import of an attacker-chosen module",
    ),
    pytest.param(
        "deserialization",
        FLASK + "import pickle\ndef f():\n    getattr(pickle, 'loads')(request.data)\n",
        id="getattr(pickle, 'loads')",
    ),
    pytest.param(
        "shell-injection",
        FLASK + "import asyncio, os\nasync def f(loop):\n"
        "    await loop.run_in_executor(None, os.system, 'ls ' + request.args['d'])\n",
        id="run_in_executor(None, os.system, ...)",
    ),
    pytest.param(
        "shell-injection",
        FLASK + "import os, threading\ndef f():\n"
        "    threading.Thread(target=os.system, args=(request.args['c'],)).start()\n",
        id="Thread(target=os.system)",
    ),
    pytest.param(
        "shell-injection",
        "import functools, subprocess\ndef f(cmd):\n"
        "    functools.partial(subprocess.run, cmd, shell=True)()\n",
        id="functools.partial(subprocess.run, ..., shell=True)",
    ),
    pytest.param(
        "eval-exec",
        FLASK + "import asyncio\nasync def f():\n"
        "    return await asyncio.to_thread(eval, request.args['e'])\n",
        id="asyncio.to_thread(eval, ...)",
    ),
]


@pytest.mark.parametrize(("check", "source"), DYNAMIC)
def test_dynamic_forms_reach_the_sink(check: str, source: str) -> None:
    assert blocks(check, source), source


@pytest.mark.parametrize(
    "payload",
    [
        "base64.b64decode('cHJpbnQoMSk=')",
        "codecs.decode('cevag(1)', 'rot13')",
        "zlib.decompress(bytes.fromhex('789c2b28cacc2bd1300400b0c70e'))",
        "marshal.loads(b'\\xe3')",
    ],
)
def test_exec_of_a_decoded_constant_is_critical(payload: str) -> None:
    source = f"import base64, codecs, marshal, zlib\ndef f():\n    exec({payload})\n"
    assert found("eval-exec", source) == [(3, S.CRITICAL)]


def test_decoded_data_that_is_not_run_is_not_reported() -> None:
    source = (
        "import base64, json, zlib\nLOGO = base64.b64decode('aGk=')\n"
        "def f(s):\n    return json.loads(zlib.decompress(base64.b64decode(s)))\n"
    )
    assert found("eval-exec", source) == []
    assert found("shell-injection", "import base64, os\nos.system(base64.b64decode('bHM='))\n") == [
        (2, S.HIGH)
    ]


def test_higher_order_calls_of_harmless_callables_are_not_sinks() -> None:
    source = (
        FLASK + "import functools\nfrom concurrent.futures import ThreadPoolExecutor\n"
        "def f(pool: ThreadPoolExecutor):\n    functools.partial(print, request.args['x'])()\n"
        "    pool.submit(str.upper, request.args['x'])\n    return list(map(int, request.args))\n"
    )
    for check in ("shell-injection", "eval-exec", "sql-injection", "deserialization"):
        assert found(check, source) == [], check


def test_run_methods_of_other_objects_are_not_shells_or_sql() -> None:
    source = (
        FLASK + "class Job:\n    def run(self, x):\n        return x\n"
        "def f(pipeline):\n    Job().run(request.args['q'])\n    pipeline.run(request.args['q'])\n"
        "    pipeline.fetch(request.args['q'])\n"
    )
    assert found("shell-injection", source) == []
    assert found("sql-injection", source) == []


def test_unknown_origin_policy() -> None:
    """A parameter of unknown origin reaching eval is high (a medium veto: needs review);
    request input is critical; a constant is nothing; in a test folder one step lower."""
    assert found("eval-exec", "def calc(expr):\n    return eval(expr)\n") == [(2, S.HIGH)]
    assert found("eval-exec", FLASK + "def calc():\n    return eval(request.args['e'])\n") == [
        (3, S.CRITICAL)
    ]
    assert found("eval-exec", "def calc():\n    return eval('1 + 2')\n") == []
    assert found("eval-exec", "def t(expr):\n    eval(expr)\n", "tests/test_calc.py") == [
        (2, S.MEDIUM)
    ]


def test_taint_crosses_files_of_the_diff() -> None:
    lib = new_file(
        "app/db.py",
        "import sqlite3\ndef find(where):\n"
        "    return sqlite3.connect('a').execute('SELECT * FROM t WHERE ' + where)\n",
    )
    view = new_file(
        "app/views.py",
        FLASK + "from app.db import find\ndef items():\n"
        "    return find(\"name = '\" + request.args['n'] + \"'\")\n",
    )
    found_ = rule(lib + view, HL4, "sql-injection")
    assert [(f.file, f.line, f.severity) for f in found_] == [("app/db.py", 3, S.CRITICAL)]


def test_containment_helpers_count_only_when_they_check() -> None:
    """A helper named like a containment check clears a path only when it normalizes and
    compares (when the diff defines it): a look-alike that accepts everything does not."""
    body = (
        "import os, zipfile\n{helper}\ndef f(p, d):\n    for n in zipfile.ZipFile(p).namelist():\n"
        "        t = os.path.join(d, n)\n        if not is_within_directory(d, t):\n"
        "            raise ValueError(n)\n        open(t, 'wb')\n"
    )
    real = (
        "def is_within_directory(d, t):\n"
        "    return os.path.realpath(t).startswith(os.path.realpath(d) + os.sep)\n"
    )
    fake = "def is_within_directory(d, t):\n    return t.startswith('')\n"
    assert not blocks("path-traversal", body.format(helper=real))
    assert blocks("path-traversal", body.format(helper=fake))


def test_function_chosen_by_request_input() -> None:
    chosen = FLASK + "import os\ndef f():\n    return getattr(os, request.args['fn'])('x')\n"
    spaces = FLASK + "def f():\n    return globals()[request.args['fn']]()\n"
    dispatch = (
        FLASK + "class V:\n    def get_a(self):\n        return 1\n"
        "    def f(self):\n        return getattr(self, 'get_' + request.args['fn'])()\n"
    )
    assert found("eval-exec", chosen) == [(4, S.CRITICAL)]
    assert found("eval-exec", spaces) == [(3, S.CRITICAL)]
    assert found("eval-exec", dispatch) == []


def test_loop_subprocess_exec_with_a_shell() -> None:
    source = (
        FLASK + "import asyncio\nasync def f(loop):\n    await loop.subprocess_exec(\n"
        "        asyncio.SubprocessProtocol, 'bash', '-c', request.args['c'])\n"
    )
    assert found("shell-injection", source) == [(4, S.CRITICAL)]


def test_python_interpreter_running_request_input() -> None:
    source = FLASK + "import subprocess, sys\ndef f():\n"
    script = source + "    subprocess.run([sys.executable, '-u', request.args['script']])\n"
    fixed = source + "    subprocess.run([sys.executable, 'manage.py', request.args['cmd']])\n"
    assert found("eval-exec", script) == [(4, S.CRITICAL)]
    assert found("eval-exec", fixed) == []


def test_weak_hash_settings_in_tests_are_low() -> None:
    source = (
        "import bcrypt\ndef test_login():\n    bcrypt.hashpw(b'pw', bcrypt.gensalt(rounds=4))\n"
    )
    assert found("weak-password-hash", source, "tests/test_login.py") == [(3, S.LOW)]


def test_module_names_bound_in_branches_keep_their_values() -> None:
    """A constant compiled under a version check at module level is still constant in the
    methods that run it; request input bound the same way is still request input."""
    source = (
        "import sys\nfrom flask import request\nif sys.version_info >= (3, 13):\n"
        "    CODE = compile('x = 1', '<s>', 'exec')\n    USER = request.args.get('c', '')\n"
        "def run():\n    exec(CODE)\ndef run_user():\n    exec(USER)\n"
    )
    assert found("eval-exec", source) == [(9, S.CRITICAL)]


def test_file_location_is_not_input() -> None:
    source = (
        "import os\nhere = os.path.dirname(__file__)\nabout = {}\n"
        "with open(os.path.join(here, 'pkg', '__version__.py')) as fh:\n"
        "    exec(fh.read(), about)\n"
    )
    assert found("eval-exec", source, "setup.py") == []
