"""Each sink rule and each fixed false alarm, with a flagged and a safe variant."""

from __future__ import annotations

import pytest
from checks_helpers import new_file, rule

from humangr.contracts import LayerID, Severity

HL4 = LayerID.HL4
S = Severity


def found(check: str, source: str, path: str = "app/mod.py") -> list[tuple[int | None, Severity]]:
    return [(f.line, f.severity) for f in rule(new_file(path, source), HL4, check)]


def blocks(check: str, source: str) -> bool:
    return any(sev >= S.HIGH for _, sev in found(check, source))


# (check, flagged source, safe source): the flagged one blocks, the safe one does not
PAIRS = [
    pytest.param(
        "shell-injection",
        "import subprocess\ndef f(cmd):\n    subprocess.run(['sh', '-c', cmd])\n",
        "import subprocess\ndef f():\n    subprocess.run(['sh', '-c', 'make clean'])\n",
        id="sh -c without shell=True",
    ),
    pytest.param(
        "shell-injection",
        "import asyncio\nasync def f(cmd):\n    await asyncio.create_subprocess_shell(cmd)\n",
        "import asyncio\nasync def f(p):\n    await asyncio.create_subprocess_exec('ls', p)\n",
        id="asyncio.create_subprocess_shell",
    ),
    pytest.param(
        "shell-injection",
        "import os\ndef f(cmd):\n    os.spawnlp(os.P_WAIT, 'sh', 'sh', '-c', cmd)\n",
        "import os\ndef f(p):\n    os.spawnlp(os.P_WAIT, 'ls', 'ls', p)\n",
        id="os.spawn*",
    ),
    pytest.param(
        "shell-injection",
        "import os\ndef f(cmd):\n    os.execvp('bash', ['bash', '-c', cmd])\n",
        "import os, sys\ndef f():\n    os.execv(sys.executable, [sys.executable, *sys.argv])\n",
        id="os.exec*",
    ),
    pytest.param(
        "shell-injection",
        "import subprocess\nfrom flask import request\ndef f():\n"
        "    subprocess.run([request.args['tool'], '--version'])\n",
        "import subprocess\nfrom flask import request\ndef f():\n"
        "    subprocess.run(['git', 'checkout', '--', request.args['b']])\n",
        id="program chosen by request input",
    ),
    pytest.param(
        "shell-injection",
        "import subprocess\ndef f(x):\n    subprocess.call(['sh', '-c', x], shell=True)\n",
        "import subprocess\ndef f():\n    subprocess.call(['sh', '-c', '/bin/ls'], shell=True)\n",
        id="constant command with shell=True is low",
    ),
    pytest.param(
        "deserialization",
        "import yaml\ndef f(s):\n    return yaml.unsafe_load(s)\n",
        "import yaml\ndef f(s):\n    return yaml.safe_load(s)\n",
        id="yaml.unsafe_load",
    ),
    pytest.param(
        "deserialization",
        "import yaml\ndef f(s):\n    return list(yaml.load_all(s, Loader=yaml.Loader))\n",
        "import yaml\ndef f(s):\n    return yaml.load(s, Loader=yaml.BaseLoader)\n",
        id="yaml.load_all with Loader",
    ),
    pytest.param(
        "deserialization",
        "import _pickle\ndef f(b):\n    return _pickle.loads(b)\n",
        "import pickle\ndef f(obj):\n    return pickle.loads(pickle.dumps(obj))\n",
        id="_pickle, and a round trip of our own object",
    ),
    pytest.param(
        "deserialization",
        "from pickle import loads as restore\ndef f(b):\n    return restore(b)\n",
        "import pickle\nEMPTY = pickle.dumps({})\ndef f():\n    return pickle.loads(EMPTY)\n",
        id="aliased pickle import",
    ),
    pytest.param(
        "deserialization",
        "import jsonpickle\nfrom flask import request\ndef f():\n"
        "    return jsonpickle.decode(request.data)\n",
        "import jsonpickle\nDEFAULTS = jsonpickle.decode('{\"a\": 1}')\n",
        id="jsonpickle of a literal",
    ),
    pytest.param(
        "deserialization",
        "import pickle, hmac\ndef f(sig, data, key):\n    return pickle.loads(data)\n",
        "import pickle, hmac, hashlib\ndef f(sig, data, key):\n"
        "    mac = hmac.new(key, data, hashlib.sha256).digest()\n"
        "    if not hmac.compare_digest(sig, mac):\n        raise ValueError\n"
        "    return pickle.loads(data)\n",
        id="pickle after an HMAC check",
    ),
    pytest.param(
        "sql-injection",
        "from django.db.models.expressions import RawSQL\ndef f(request):\n"
        "    return RawSQL(\"SELECT a FROM t WHERE b = '%s'\" % request.GET['b'], ())\n",
        "from django.db.models.expressions import RawSQL\ndef f(request):\n"
        "    return RawSQL('SELECT a FROM t WHERE b = %s', (request.GET['b'],))\n",
        id="RawSQL",
    ),
    pytest.param(
        "sql-injection",
        "def f(request):\n"
        "    return Book.objects.raw(f\"SELECT * FROM b WHERE t = '{request.GET['t']}'\")\n",
        "def f(request):\n"
        "    return Book.objects.raw('SELECT * FROM b WHERE t = %s', [request.GET['t']])\n",
        id=".raw()",
    ),
    pytest.param(
        "sql-injection",
        "def f(request):\n    return Book.objects.extra(where=[\"a = '%s'\" % request.GET['a']])\n",
        "def f(request):\n"
        "    return Book.objects.extra(where=['a = %s'], params=[request.GET['a']])\n",
        id=".extra()",
    ),
    pytest.param(
        "sql-injection",
        "def f(cur, v):\n    cur.execute(f'SELECT * FROM t WHERE v = {v}')\n",
        "def f(cur):\n    cur.execute(f'SELECT * FROM t')\n"
        "    cur.execute('SELECT a ' + 'FROM t')\n"
        "    cur.execute('SELECT %s FROM %s' % ('a', 't'))\n",
        id="constant SQL text",
    ),
    pytest.param(
        "eval-exec",
        "def f(code):\n    return eval(code)\n",
        "def f():\n    return eval(f'') or eval('1 + 1')\n",
        id="eval of constant text",
    ),
    pytest.param(
        "eval-exec",
        "from flask import render_template_string, request\ndef f():\n"
        "    return render_template_string('Hi ' + request.args['n'])\n",
        "from flask import render_template_string, request\ndef f():\n"
        "    return render_template_string('Hi {{ n }}', n=request.args['n'])\n",
        id="template built from request input",
    ),
    pytest.param(
        "weak-password-hash",
        "import hashlib\ndef f(user, pw):\n    h = hashlib.new('md5')\n    h.update(pw.encode())\n"
        "    user.secret_hash = h.hexdigest()\n",
        "import hashlib\ndef f(user, pw):\n    h = hashlib.new('sha256')\n"
        "    h.update(pw.encode())\n",
        id="hashlib.new('md5') fed a password",
    ),
    pytest.param(
        "weak-password-hash",
        "import hashlib, time\ndef f(uid):\n"
        "    reset_token = hashlib.sha1(f'{uid}{time.time()}'.encode()).hexdigest()\n"
        "    return reset_token\n",
        "import hashlib\ndef f(body):\n    etag = hashlib.md5(body).hexdigest()\n    return etag\n",
        id="sha1 stored as a token; md5 as an ETag",
    ),
    pytest.param(
        "weak-password-hash",
        "import hashlib\ndef f(password):\n    return hashlib.md5(password.encode()).hexdigest()\n",
        "import hashlib\ndef f(password):\n"
        "    return hashlib.md5(password.encode(), usedforsecurity=False).hexdigest()\n",
        id="usedforsecurity=False",
    ),
    pytest.param(
        "tls-verification",
        "import urllib3\nhttp = urllib3.PoolManager(cert_reqs='CERT_NONE')\n",
        "import urllib3\nhttp = urllib3.PoolManager(cert_reqs='CERT_REQUIRED')\n",
        id="urllib3 cert_reqs",
    ),
    pytest.param(
        "tls-verification",
        "import urllib3\nhttp = urllib3.PoolManager(cert_reqs='NONE')\n",
        "import redis\nr = redis.Redis(host='localhost', ssl=False)\n",
        id="cert_reqs NONE; plain redis is not a TLS switch",
    ),
    pytest.param(
        "tls-verification",
        "import httpx\nVERIFY = False\nc = httpx.Client(verify=VERIFY)\n",
        "import httpx\nc = httpx.Client(verify='/etc/ca.pem')\n",
        id="verify=False through a constant",
    ),
    pytest.param(
        "tls-verification",
        "from OpenSSL import SSL\nctx = SSL.Context(SSL.TLS_METHOD)\n"
        "ctx.set_verify(SSL.VERIFY_NONE, None)\n",
        "from OpenSSL import SSL\nctx = SSL.Context(SSL.TLS_METHOD)\n"
        "ctx.set_verify(SSL.VERIFY_PEER, None)\n",
        id="pyOpenSSL VERIFY_NONE",
    ),
    pytest.param(
        "path-traversal",
        "from flask import request, send_file\ndef f():\n"
        "    return send_file('static' + request.path)\n",
        "from flask import request, send_from_directory\ndef f():\n"
        "    return send_from_directory('static', request.path)\n",
        id="send_file of the request path",
    ),
    pytest.param(
        "path-traversal",
        "import os\nfrom flask import request\ndef f():\n    u = request.files['u']\n"
        "    u.save(os.path.join('/srv', u.filename))\n",
        "import os\nfrom flask import request\nfrom werkzeug.utils import secure_filename\n"
        "def f():\n    u = request.files['u']\n"
        "    u.save(os.path.join('/srv', secure_filename(u.filename)))\n",
        id="upload saved under its own name",
    ),
    pytest.param(
        "shell-injection",
        "import subprocess\nfrom flask import request\ndef f():\n"
        "    subprocess.run(request.args['cmd'].split())\n",
        "import subprocess\nfrom flask import request\ndef f():\n"
        "    subprocess.run(['ffprobe'] + request.args['a'].split())\n",
        id="argument vector: program from input, or a fixed program",
    ),
    pytest.param(
        "path-traversal",
        "import tarfile\ndef f(p, d):\n    with tarfile.open(p) as t:\n        t.extractall(d)\n",
        "import tarfile\ndef f(p, d):\n    with tarfile.open(p) as t:\n"
        "        t.extractall(d, filter='data')\n",
        id="tar slip",
    ),
    pytest.param(
        "path-traversal",
        "import os\nfrom flask import request\ndef f():\n"
        "    p = '/srv/' + request.args['f']\n"
        "    if not p.startswith('/srv/'):\n        return ''\n"
        "    return open(p).read()\n",
        "import os\nfrom flask import request\ndef f():\n"
        "    p = os.path.realpath('/srv/' + request.args['f'])\n"
        "    if not p.startswith('/srv/'):\n        return ''\n    return open(p).read()\n",
        id="startswith without and with normalization",
    ),
    pytest.param(
        "secret",
        "def connect(host, password='hunter2'):\n    pass\n",
        "def connect(host, password=None, token_type='bearer'):\n    pass\n",
        id="password as a default argument",
    ),
    pytest.param(
        "secret",
        "from flask import Flask\napp = Flask(__name__)\napp.secret_key = 'dev'\n",
        "import os\nfrom flask import Flask\napp = Flask(__name__)\n"
        "app.secret_key = os.environ['SECRET_KEY']\n",
        id="literal Flask secret key",
    ),
    pytest.param(
        "secret",
        "SECRET_KEY = 'django-insecure-abc'\n",
        "SECRET_KEY_ENV = 'DJANGO_SECRET_KEY'\n",
        id="literal Django SECRET_KEY",
    ),
    pytest.param(
        "secret",
        "import jwt\ndef f(p):\n    return jwt.encode(p, 'k3y', algorithm='HS256')\n",
        "import jwt\nfrom app import settings\ndef f(p):\n"
        "    return jwt.encode(p, settings.JWT_KEY, algorithm='HS256')\n",
        id="hard-coded JWT secret",
    ),
    pytest.param(
        "secret",
        "def is_admin(password):\n    return password == 'letmein'\n",
        "def kind(token):\n    return token == 'keyword'\n",
        id="password compared with a literal",
    ),
]


@pytest.mark.parametrize(("check", "flagged", "safe"), PAIRS)
def test_flagged_and_safe_variants(check: str, flagged: str, safe: str) -> None:
    assert blocks(check, flagged), found(check, flagged)
    assert not blocks(check, safe), found(check, safe)


def test_constant_shell_command_is_reported_low() -> None:
    source = "import subprocess\nsubprocess.call(['sh', '-c', '/bin/ls'], shell=True)\n"
    assert found("shell-injection", source) == [(2, S.LOW)]


def test_weak_digest_written_to_a_password_file() -> None:
    source = (
        "import hashlib\ndef f(v):\n    h = hashlib.md5()\n    h.update(v)\n"
        "    with open('data/passwordFile.txt', 'a') as fh:\n        fh.write(h.hexdigest())\n"
    )
    assert found("weak-password-hash", source) == [(3, S.HIGH)]
    other = source.replace("passwordFile", "cacheFile")
    assert found("weak-password-hash", other) == []


def test_jwt_public_key_is_not_a_secret() -> None:
    source = (
        "import jwt\nKEY = '-----BEGIN PUBLIC KEY-----\\nMFkw\\n-----END PUBLIC KEY-----'\n"
        "def f(t):\n    return jwt.decode(t, KEY, algorithms=['ES256'])\n"
    )
    assert found("secret", source) == []
