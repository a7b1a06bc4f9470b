"""The taint engine's control flow decided from constants (``match``, loops that surely run,
``break`` / ``continue``), ``del`` of one entry, ``**mapping`` keywords, and what is not a
sanitizer (``html.escape`` for SQL).

Each behaviour is shown on a flagged and a safe variant of the same code, written the way an
agent would try to slip request input past the checks.
"""

from __future__ import annotations

import pytest
from checks_helpers import modify, new_file, rule

from humangr.contracts import LayerID, Severity

HL4 = LayerID.HL4
S = Severity

FLASK = """
import os
import sqlite3
import subprocess
from flask import Flask, request
app = Flask(__name__)

@app.route("/x")
def handler():
    param = request.args.get("p", "")
"""


def found(body: str, check: str = "shell-injection") -> list[Severity]:
    return [f.severity for f in rule(new_file("app/views.py", FLASK + body), HL4, check)]


# --- match: the first case that surely matches runs alone -------------------------------------

MATCH = """
    match "ABC"[{index}]:
        case "A":
            bar = "alice"
        case "B":
            bar = "bob"
        case "C" | "D":
            bar = param
        case _:
            bar = "other"
    os.system("echo " + bar)
"""


def test_match_on_a_constant_runs_only_the_case_that_matches() -> None:
    assert found(MATCH.format(index=1)) == [S.LOW]  # "B": the constant
    assert found(MATCH.format(index=2)) == [S.CRITICAL]  # "C" of "C" | "D": request input


def test_match_on_input_keeps_every_case_and_the_fall_through() -> None:
    body = """
    bar = param
    match param:
        case "safe":
            bar = "constant"
    os.system("echo " + bar)
"""
    assert found(body) == [S.CRITICAL]


def test_a_case_guard_that_folds_false_never_runs() -> None:
    body = """
    bar = "constant"
    match 3:
        case 3 if 2 > 5:
            bar = param
        case _:
            pass
    os.system("echo " + bar)
"""
    assert found(body) == [S.LOW]


# --- loops -------------------------------------------------------------------------------------


def test_a_value_assigned_before_break_leaves_the_loop() -> None:
    body = """
    name = ""
    for key in request.args.keys():
        if request.args.get(key) == "go":
            name = key
            break
    subprocess.run("echo " + name, shell=True)
"""
    assert found(body) == [S.CRITICAL]


def test_a_value_assigned_before_continue_reaches_the_next_step() -> None:
    body = """
    last = ""
    for value in request.args.getlist("v"):
        if value:
            last = value
            continue
        last = "empty"
    subprocess.run("echo " + last, shell=True)
"""
    assert found(body) == [S.CRITICAL]


def test_a_value_seen_only_after_the_first_iteration_still_counts() -> None:
    body = """
    cmd = param
    out = ""
    for _ in range(3):
        out = cmd
        cmd = "uptime"
    os.system(out)
"""
    assert found(body) == [S.CRITICAL]


@pytest.mark.parametrize("loop", ["for _ in range(3):", "for c in 'abc':", "while True:"])
def test_a_loop_that_surely_runs_overwrites_the_input(loop: str) -> None:
    body = f"""
    bar = param
    {loop}
        bar = "uptime"
        if bar:
            pass
        break
    os.system(bar)
"""
    # the break ends the body: the loop surely ran once and bar is the constant there
    assert found(body) == [S.LOW]
    body = f"""
    bar = param
    {loop}
        bar = "uptime"
    os.system(bar)
"""
    expected = [S.LOW] if "while" not in loop else []  # while True never falls through
    assert found(body) in ([S.LOW], expected)


@pytest.mark.parametrize("loop", ["for _ in range(0):", "for c in request.args:"])
def test_a_loop_that_may_not_run_keeps_the_input(loop: str) -> None:
    body = f"""
    bar = param
    {loop}
        bar = "uptime"
    os.system(bar)
"""
    assert found(body) == [S.CRITICAL]


# --- del of one entry --------------------------------------------------------------------------


def test_del_of_the_input_entry_leaves_constants() -> None:
    body = """
    values = [param, "1 + 1"]
    del values[0]
    return eval(values[0])
"""
    assert found(body, "eval-exec") == []


def test_del_of_another_entry_keeps_the_input() -> None:
    body = """
    values = ["1 + 1", "2 + 2", param]
    del values[0]
    return eval(values[1])
"""
    assert found(body, "eval-exec") == [S.CRITICAL]


def test_del_with_an_index_the_engine_does_not_know_keeps_everything() -> None:
    body = """
    values = [param, "1 + 1"]
    del values[len(param)]
    return eval(values[0])
"""
    assert found(body, "eval-exec") == [S.CRITICAL]


def test_del_of_a_dict_key() -> None:
    body = """
    d = {"a": param, "b": "ls"}
    del d["a"]
    os.system(d["b"])
    d2 = {"a": "ls", "b": param}
    del d2["a"]
    os.system(d2["b"])
"""
    assert found(body) == [S.LOW, S.CRITICAL]


# --- **mapping keywords ------------------------------------------------------------------------


def test_keywords_spread_from_a_mapping_reach_the_sink() -> None:
    body = """
    opts = {"shell": True, "check": False}
    subprocess.run("echo " + param, **opts)
"""
    assert found(body) == [S.CRITICAL]


def test_tls_verification_off_through_a_spread_mapping() -> None:
    source = """
import requests
OPTIONS = {"timeout": 10, "verify": False}

def fetch(url):
    return requests.get(url, **OPTIONS)
"""
    assert [f.line for f in rule(new_file("app/c.py", source), HL4, "tls-verification")] == [5]
    safe = source.replace('"verify": False', '"verify": "/etc/ssl/ca.pem"')
    assert rule(new_file("app/c.py", safe), HL4, "tls-verification") == []


# --- not a sanitizer ---------------------------------------------------------------------------


def test_html_escape_does_not_make_sql_safe() -> None:
    body = """
    post = html.escape(param)
    sqlite3.connect("a.db").execute("SELECT * FROM c WHERE post_id = " + post)
"""
    assert found("\n    import html" + body, "sql-injection") == [S.CRITICAL]


def test_a_connections_own_escape_still_does() -> None:
    body = """
    conn = get_conn()
    post = conn.escape(param)
    conn.cursor().execute("SELECT * FROM c WHERE post_id = " + post)
"""
    assert found(body, "sql-injection") == []


# --- secrets passed by position ----------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        'smtp.login("reports@example.com", "Hx8#mQ2v!Lr7zP0k")',
        'requests.get(url, auth=("admin", "Hx8#mQ2v!Lr7zP0k"))',
        'HTTPBasicAuth("admin", "Hx8#mQ2v!Lr7zP0k")',
    ],
)
def test_a_literal_password_passed_by_position(call: str) -> None:
    source = f"def send(smtp, url):\n    return {call}\n"
    (f,) = rule(new_file("app/mail.py", source), HL4, "secret")
    assert f.line == 2
    assert f.severity in (S.HIGH, S.CRITICAL)
    assert "Hx8#mQ2v" not in f.description


def test_a_password_read_at_run_time_is_not_a_secret() -> None:
    source = "import os\ndef send(smtp):\n    smtp.login('ops', os.environ['SMTP_PASSWORD'])\n"
    assert rule(new_file("app/mail.py", source), HL4, "secret") == []


# --- ruamel.yaml objects by type ---------------------------------------------------------------

RUAMEL = """
from flask import request
from ruamel.yaml import YAML

def load():
    parser = YAML({typ})
    return parser.load(request.get_data())
"""


@pytest.mark.parametrize("typ", ['typ="unsafe"', "typ=request.args['t']"])
def test_an_unsafe_ruamel_loader_of_request_input(typ: str) -> None:
    (f,) = rule(new_file("app/y.py", RUAMEL.format(typ=typ)), HL4, "deserialization")
    assert f.severity == S.CRITICAL


@pytest.mark.parametrize("typ", ["", 'typ="safe"', 'typ="rt"', 'typ=["base"]'])
def test_ruamels_safe_loaders_are_not_sinks_whatever_the_variable_is_called(typ: str) -> None:
    source = RUAMEL.format(typ=typ).replace("parser", "yaml")
    assert rule(new_file("app/y.py", source), HL4, "deserialization") == []


# --- crypt() -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    ['crypt.crypt(pw, "ab")', "crypt.crypt(pw, crypt.METHOD_MD5)", 'crypt.crypt(pw, "$1$x")'],
)
def test_crypt_with_des_or_md5_salts_is_weak(call: str) -> None:
    source = f"import crypt\n\ndef make(pw):\n    return {call}\n"
    (f,) = rule(new_file("app/pw.py", source), HL4, "weak-password-hash")
    assert f.line == 4


@pytest.mark.parametrize(
    "call",
    ["crypt.crypt(pw)", 'crypt.crypt(pw, "$6$saltsalt")', "crypt.crypt(pw, crypt.mksalt())"],
)
def test_crypt_with_sha512_or_the_default_is_not_reported(call: str) -> None:
    source = f"import crypt\n\ndef make(pw):\n    return {call}\n"
    assert rule(new_file("app/pw.py", source), HL4, "weak-password-hash") == []


# --- allow-lists the engine reads -------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "verdict"),
    [
        ('re.search(r"[^a-z0-9_-]", param)', []),
        ('re.search(r"[^a-z0-9_;-]", param)', [S.CRITICAL]),  # ';' allowed
        ('re.search(r"[a-z]", param)', [S.CRITICAL]),  # finds a letter: says nothing
        ('re.search(r"[^a-z]", other)', [S.CRITICAL]),  # checks another name
        ("not all(c in string.ascii_letters + string.digits for c in param)", []),
        ("not all(c in string.printable for c in param)", [S.CRITICAL]),
        ('not all(c in "abc$" for c in param)', [S.CRITICAL]),
    ],
)
def test_character_allow_lists(check: str, verdict: list[Severity]) -> None:
    body = f"""
    other = "x"
    if {check}:
        return "bad", 400
    subprocess.run("ls " + param, shell=True)
"""
    found_now = found("\n    import re, string" + body)
    assert [s for s in found_now if s != S.LOW] == verdict


def test_a_rejecting_search_cleans_only_where_it_found_nothing() -> None:
    body = """
    import re
    if re.search(r"[^a-z]", param):
        subprocess.run("ls " + param, shell=True)
"""
    assert found(body) == [S.CRITICAL]


def test_a_conditional_expression_applies_its_guard() -> None:
    body = """
    col = param if param in ("name", "age") else "name"
    sqlite3.connect("a").execute(f"SELECT * FROM t ORDER BY {col}")
    bad = param if param not in ("name", "age") else "name"
    sqlite3.connect("a").execute(f"SELECT * FROM t ORDER BY {bad}")
"""
    assert found(body, "sql-injection") == [S.CRITICAL]


def test_a_paths_last_part_is_a_file_name_but_still_text_for_a_shell() -> None:
    body = """
    from pathlib import Path
    name = Path(param).name
    open("/srv/files/" + name).read()
    open("/srv/files/" + str(Path(param).parent)).read()
    os.system("cat " + name)
"""
    assert found(body, "path-traversal") == [S.HIGH]
    assert found(body) == [S.CRITICAL]


# --- sinks found by this pass ------------------------------------------------------------------


def test_an_extra_fragment_of_unknown_origin_is_sql_by_the_api() -> None:
    source = """
def by_name(qs, name):
    return qs.extra(select={"match": "name = '%s'" % name})

def by_constant(qs):
    return qs.extra(select={"match": "name = 'a'"})
"""
    found_now = rule(new_file("app/q.py", source), HL4, "sql-injection")
    assert [(f.line, f.severity) for f in found_now] == [(2, S.HIGH)]


def test_pty_spawn_of_a_shell_with_a_command() -> None:
    source = """
import pty
from flask import request

def attach():
    pty.spawn(["sh", "-c", "tail -f " + request.args["log"]])
    pty.spawn("/bin/bash")
"""
    found_now = rule(new_file("app/t.py", source), HL4, "shell-injection")
    assert [(f.line, f.severity) for f in found_now] == [(5, S.CRITICAL)]


def test_one_way_digests_are_clean_reversible_encodings_are_not() -> None:
    body = """
    import hashlib, uuid
    os.system("rm /cache/" + hashlib.sha256(param.encode()).digest().hex())
    os.system("rm /cache/" + str(uuid.uuid5(uuid.NAMESPACE_URL, param)))
    os.system("echo " + param.encode().hex())
    os.system("echo " + bytes.fromhex(param.encode().hex()).decode())
"""
    # in line order: the two digests are clean, hex text decodes back to the input
    assert found(body) == [S.LOW, S.LOW, S.CRITICAL, S.CRITICAL]


@pytest.mark.parametrize(
    ("pattern", "verdict"),
    [
        (r"[a-z0-9_-]+", []),
        (r"\w{1,32}", []),
        (r"[\w.-]+", []),
        (r".*", [S.CRITICAL]),
        (r"\S+", [S.CRITICAL]),
        (r"[a-z;]+", [S.CRITICAL]),
        (r"[^/]+", [S.CRITICAL]),
    ],
)
def test_a_full_match_validates_only_what_its_pattern_keeps_out(
    pattern: str, verdict: list[Severity]
) -> None:
    body = f"""
    import re
    if not re.fullmatch(r"{pattern}", param):
        return "bad", 400
    subprocess.run("ls " + param, shell=True)
"""
    assert [s for s in found(body) if s != S.LOW] == verdict


# --- a hunk inside a function git names in its heading ----------------------------------------

TOOLS_HUNK = """
     target = f"/var/backups/{service}.tgz"
-    return subprocess.run(["tar", "czf", target, service], check=True)
+    return subprocess.run(f"tar czf {target} /var/log/{service}", shell=True)
"""
VIEW = """
from flask import request
from ops.tools import archive_logs

def archive():
    return archive_logs(request.form["service"])
"""


def _shell_in(diff: str) -> list[Severity]:
    return [f.severity for f in rule(diff, HL4, "shell-injection")]


def test_a_caller_in_another_file_reaches_a_function_named_by_the_hunk_heading() -> None:
    tools = modify("ops/tools.py", TOOLS_HUNK, start=40, heading="def archive_logs(service):")
    assert _shell_in(tools) == [S.HIGH]  # alone: a parameter of unknown origin
    assert _shell_in(tools + new_file("ops/views.py", VIEW)) == [S.CRITICAL]


@pytest.mark.parametrize(
    "heading",
    [
        "    def archive_logs(self, service):",  # a method: its class is not in the hunk
        "def archive_logs(service, days=7, compress=True, destination='/var/backups', verbo",
        "class Archiver:",
        "def archive_logs(service): return x",
    ],
)
def test_other_headings_keep_the_generic_header(heading: str) -> None:
    tools = modify("ops/tools.py", TOOLS_HUNK, start=40, heading=heading)
    assert _shell_in(tools + new_file("ops/views.py", VIEW)) == [S.HIGH]


def test_a_heading_that_lies_never_lets_the_command_pass() -> None:
    def diff(heading: str) -> str:
        return (
            "diff --git a/tool.py b/tool.py\nindex 1111111..2222222 100644\n"
            "--- a/tool.py\n+++ b/tool.py\n"
            "@@ -1,2 +1,3 @@\n import os, sys\n+CMD = sys.argv[1]\n \n"
            f"@@ -20,2 +21,3 @@ {heading}\n"
            '     print("starting")\n+    os.system(CMD)\n     print("done")\n'
        )

    assert _shell_in(diff("")) == [S.CRITICAL]
    # git apply ignores headings: one naming CMD as a parameter does not hide the module's CMD
    assert _shell_in(diff("def main(CMD):")) == [S.CRITICAL]


# --- generators and partials -------------------------------------------------------------------


def test_what_a_generator_yields_is_what_iterating_its_call_gives() -> None:
    source = (
        FLASK.replace('    param = request.args.get("p", "")\n', "")
        + """
    for line in lines(request.get_data(as_text=True)):
        os.system(line)
    for word in words():
        os.system(word)

def lines(text):
    for line in text.splitlines():
        yield line.strip()

def words():
    yield from ["uptime", "df"]
"""
    )
    found_now = rule(new_file("app/g.py", source), HL4, "shell-injection")
    assert [f.severity for f in found_now] == [S.CRITICAL, S.LOW]


def test_a_partial_keeps_the_keywords_it_binds() -> None:
    body = """
    import functools
    run = functools.partial(subprocess.run, shell=True)
    run("ping " + param)
    plain = functools.partial(subprocess.run, check=True)
    plain(["ping", param])
"""
    assert found(body) == [S.CRITICAL]


def test_an_in_memory_file_is_not_a_path_but_keeps_its_data() -> None:
    body = """
    import io, pickle, zipfile
    archive = zipfile.ZipFile(io.BytesIO(request.files["z"].read()))
    for info in archive.infolist():
        open(os.path.join("/srv/out", info.filename), "wb").write(archive.read(info))
    pickle.load(io.BytesIO(request.get_data()))
"""
    paths = rule(new_file("app/z.py", FLASK + body), HL4, "path-traversal")
    assert [f.line for f in paths] == [14]  # the member name, not the in-memory file (line 12)
    assert found(body, "deserialization") == [S.CRITICAL]
